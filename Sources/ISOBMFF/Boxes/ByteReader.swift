import MediaCore

/// A bounded big-endian reader over bytes: it cannot read past `end`, and
/// every read that would is a `.truncated` error naming the box path.
public struct ByteReader: Sendable {
    public let bytes: [UInt8]
    public private(set) var position: Int
    public let end: Int
    /// Where the reader is, built into a string only when an error needs it.
    var location: BoxPath?

    /// The box path for errors, e.g. `moov/trak[1]/tkhd`.
    public var path: String {
        get { location?.description ?? "" }
        set { location = newValue.isEmpty ? nil : BoxPath(parent: nil, name: newValue) }
    }

    public init(_ bytes: [UInt8], range: Range<Int>? = nil, path: String = "") {
        self.bytes = bytes
        let r = range ?? 0..<bytes.count
        self.position = r.lowerBound
        self.end = r.upperBound
        self.location = path.isEmpty ? nil : BoxPath(parent: nil, name: path)
    }

    init(_ bytes: [UInt8], range: Range<Int>, location: BoxPath?) {
        self.bytes = bytes
        self.position = range.lowerBound
        self.end = range.upperBound
        self.location = location
    }

    public var remaining: Int { end - position }
    public var isAtEnd: Bool { position >= end }

    public func fail(_ message: String) -> MediaError {
        MediaError(.invalidData, message, location: path)
    }

    public func fail(_ code: MediaError.Code, _ message: String) -> MediaError {
        MediaError(code, message, location: path)
    }

    private mutating func need(_ n: Int, _ what: @autoclosure () -> String) throws {
        if n > remaining {
            throw fail(.truncated, "truncated: \(what()) needs \(n) bytes, \(remaining) left")
        }
    }

    public mutating func u8(_ what: @autoclosure () -> String = "field") throws -> UInt8 {
        try need(1, what())
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func u16(_ what: @autoclosure () -> String = "field") throws -> UInt16 {
        try need(2, what())
        defer { position += 2 }
        return UInt16(widening: bytes[position]) << 8 | UInt16(widening: bytes[position + 1])
    }

    public mutating func u24(_ what: @autoclosure () -> String = "field") throws -> UInt32 {
        try need(3, what())
        defer { position += 3 }
        return UInt32(widening: bytes[position]) << 16 | UInt32(widening: bytes[position + 1]) << 8 | UInt32(widening: bytes[position + 2])
    }

    public mutating func u32(_ what: @autoclosure () -> String = "field") throws -> UInt32 {
        try need(4, what())
        defer { position += 4 }
        return readU32(position)
    }

    public mutating func u64(_ what: @autoclosure () -> String = "field") throws -> UInt64 {
        try need(8, what())
        defer { position += 8 }
        return UInt64(widening: readU32(position)) << 32 | UInt64(widening: readU32(position + 4))
    }

    public mutating func i16(_ what: @autoclosure () -> String = "field") throws -> Int16 { Int16(bitPattern: try u16(what())) }
    public mutating func i32(_ what: @autoclosure () -> String = "field") throws -> Int32 { Int32(bitPattern: try u32(what())) }
    public mutating func i64(_ what: @autoclosure () -> String = "field") throws -> Int64 { Int64(bitPattern: try u64(what())) }
    public mutating func fourCC(_ what: @autoclosure () -> String = "type") throws -> FourCC { FourCC(rawValue: try u32(what())) }

    public mutating func bytes(_ n: Int, _ what: @autoclosure () -> String = "bytes") throws -> [UInt8] {
        guard n >= 0 else { throw fail("negative length for \(what())") }
        try need(n, what())
        defer { position += n }
        return Array(bytes[position..<position + n])
    }

    public mutating func skip(_ n: Int, _ what: @autoclosure () -> String = "reserved") throws {
        guard n >= 0 else { throw fail("negative skip for \(what())") }
        try need(n, what())
        position += n
    }

    /// The rest of this reader's bytes.
    public mutating func rest() -> [UInt8] {
        defer { position = end }
        return Array(bytes[position..<end])
    }

    /// Reads an entry count and checks that `count` entries of `entrySize` bytes fit in what is left,
    /// so a table is never allocated from a count the box cannot hold.
    public mutating func count(entrySize: Int, _ what: String = "entry count") throws -> Int {
        let n = try u32(what)
        try check(count: UInt64(widening: n), entrySize: entrySize, what)
        return Int(widening: n)
    }

    public func check(count: UInt64, entrySize: Int, _ what: String = "entry count") throws {
        let needed = count.multipliedReportingOverflow(by: UInt64(clamping: entrySize))
        if needed.overflow || needed.partialValue > UInt64(clamping: remaining) {
            throw fail("\(what) \(count) needs \(needed.overflow ? "more than 2^64" : String(needed.partialValue)) bytes, box has \(remaining)")
        }
    }

    @inline(__always)
    private func readU32(_ i: Int) -> UInt32 {
        UInt32(widening: bytes[i]) << 24 | UInt32(widening: bytes[i + 1]) << 16 | UInt32(widening: bytes[i + 2]) << 8 | UInt32(widening: bytes[i + 3])
    }
}

/// A box path as a linked list (`moov` → `trak[2]` → `mdia`): cheap to extend for every child
/// box, turned into `moov/trak[2]/mdia` only for an error message.
final class BoxPath: Sendable, CustomStringConvertible {
    let parent: BoxPath?
    let name: String
    let type: FourCC
    let index: Int

    init(parent: BoxPath?, name: String) {
        self.parent = parent
        self.name = name
        self.type = FourCC(rawValue: 0)
        self.index = 0
    }

    init(parent: BoxPath?, type: FourCC, index: Int) {
        self.parent = parent
        self.name = ""
        self.type = type
        self.index = index
    }

    var description: String {
        let me = name.isEmpty ? (index > 0 ? "\(type)[\(index)]" : "\(type)") : name
        guard let parent else { return me }
        return parent.description + "/" + me
    }
}
