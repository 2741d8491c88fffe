import MediaCore

/// The header of an ISO-BMFF box: its type and total size.
public struct BoxHeader: Sendable, Hashable {
    public var type: FourCC
    /// Total size of the box, header included.
    public var size: UInt64
    /// Bytes of header: 8, 16 with a 64-bit size, plus 16 for `uuid`.
    public var headerSize: Int
    /// The 16-byte extended type of a `uuid` box.
    public var userType: [UInt8]?

    public var payloadSize: UInt64 { size - UInt64(clamping: headerSize) }

    /// Parses a header from the first bytes of a box.
    ///
    /// - Parameters:
    ///   - reader: positioned at the box start.
    ///   - available: bytes from the box start to the end of its parent.
    ///   - allowToEnd: whether size 0 ("to the end of the file") is allowed — top level only.
    public static func parse(_ reader: inout ByteReader, available: UInt64, allowToEnd: Bool) throws -> BoxHeader {
        let size32 = try reader.u32("box size")
        let type = try reader.fourCC("box type")
        var header = BoxHeader(type: type, size: UInt64(widening: size32), headerSize: 8, userType: nil)
        let name = "'\(type)' box"
        switch size32 {
        case 0:
            guard allowToEnd else { throw reader.fail("\(name) has size 0, allowed only at top level") }
            header.size = available
        case 1:
            header.size = try reader.u64("64-bit size of \(name)")
            header.headerSize = 16
        default:
            break
        }
        if type == "uuid" {
            header.userType = try reader.bytes(16, "uuid extended type")
            header.headerSize += 16
        }
        if header.size < UInt64(clamping: header.headerSize) {
            throw reader.fail("\(name) has size \(header.size), smaller than its \(header.headerSize)-byte header")
        }
        if header.size > available {
            throw reader.fail(.truncated, "\(name) has size \(header.size) but only \(available) bytes remain")
        }
        return header
    }
}

/// Iterates the child boxes of a payload, checking every size against the parent
/// and resuming at `start + size` whatever a child's parser did.
public struct BoxIterator {
    private var reader: ByteReader
    private let parent: BoxPath?
    private var counts: [FourCC: Int] = [:]
    private static let indexed: Set<FourCC> = ["trak", "traf", "trun", "moof"]

    public init(_ reader: ByteReader) {
        self.reader = reader
        self.parent = reader.location
    }

    /// The next child: its header and a reader over its payload whose `path` names it.
    public mutating func next() throws -> (header: BoxHeader, payload: ByteReader)? {
        if reader.remaining == 0 { return nil }
        if reader.remaining < 8 {
            // QuickTime `udta` lists may end with a 32-bit zero terminator.
            if reader.remaining == 4, (try? reader.u32()) == 0 { return nil }
            throw reader.fail(.truncated, "\(reader.remaining) trailing bytes are too few for a box header")
        }
        let start = reader.position
        var headerReader = reader
        let header = try BoxHeader.parse(&headerReader, available: UInt64(clamping: reader.remaining), allowToEnd: false)
        var index = 0
        if BoxIterator.indexed.contains(header.type) {
            index = (counts[header.type] ?? 0) + 1
            counts[header.type] = index
        }
        let end = start + Int(clamping: header.size)
        let payload = ByteReader(reader.bytes, range: (start + header.headerSize)..<end,
                                 location: BoxPath(parent: parent, type: header.type, index: index))
        try reader.skip(Int(clamping: header.size))
        return (header, payload)
    }
}
