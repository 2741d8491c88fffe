import MediaCore

/// One EBML element's header (RFC 8794, 4–6): its ID, marker bits kept as the Matroska
/// specification writes IDs (`0x1A45DFA3`), and where its data lies.
struct EBMLElement {
    /// The element ID, with its length marker.
    var id: UInt32
    /// Where the element's header starts.
    var offset: UInt64
    /// Where its data starts.
    var dataOffset: UInt64
    /// The data's length; nil for an element of unknown size (live streams).
    var size: UInt64?

    /// Where the data ends: for an element of unknown size, its parent's end.
    func end(within limit: UInt64) -> UInt64 { size.map { dataOffset + $0 } ?? limit }
}

/// Reads EBML from any random-access bytes through a window, so that a scan over many small
/// elements (a cluster's blocks) costs one read per window rather than one per element. Every
/// length is checked against its parent's end and the file's before anything is read or
/// allocated by it.
struct EBMLReader {
    let source: any RandomAccessBytes
    let size: UInt64
    private var window: [UInt8] = []
    private var windowStart: UInt64 = 0
    /// Bytes read at once when what is asked for is smaller.
    static let windowSize = 16 << 10
    /// The longest string or binary element read into memory (CodecPrivate, a tag's value).
    static let maximumValueSize: UInt64 = 16 << 20

    init(_ source: any RandomAccessBytes) {
        self.source = source
        size = source.size
    }

    /// `count` bytes at `offset`, through the window.
    /// - Throws: `.truncated` when the file ends before them.
    mutating func bytes(at offset: UInt64, count: Int) throws -> ArraySlice<UInt8> {
        let wanted = UInt64(clamping: count)
        guard offset <= size, wanted <= size - offset else {
            throw MediaError(.truncated, "the file ends at \(size), before \(count) bytes at offset \(offset)")
        }
        let windowEnd = windowStart + UInt64(clamping: window.count)
        if offset < windowStart || offset + wanted > windowEnd {
            // Past a large element (a video frame), the next header is read alone; among small
            // ones (laced audio, a header's children), a window's worth at once.
            let near = !window.isEmpty && offset >= windowEnd && offset - windowEnd < UInt64(clamping: EBMLReader.windowSize)
            let step = near || window.isEmpty ? EBMLReader.windowSize : 512
            let length = min(max(wanted, UInt64(clamping: step)), size - offset)
            window = try source.read(at: offset, count: Int(clamping: length))
            windowStart = offset
        }
        let from = Int(clamping: offset - windowStart)
        return window[from..<(from + count)]
    }

    /// The element whose header starts at `offset`, within a parent that ends at `limit`.
    /// - Throws: `.invalidData` for an ID or size longer than EBML allows, or data that runs past
    ///   the parent; `.truncated` when the file ends inside the header.
    mutating func element(at offset: UInt64, limit: UInt64) throws -> EBMLElement {
        guard offset < limit else { throw MediaError(.truncated, "an element header was expected at offset \(offset)") }
        let head = try bytes(at: offset, count: Int(clamping: min(12, limit - offset)))
        var i = head.startIndex
        guard let first = head.first, first != 0 else {
            throw MediaError(.invalidData, "no element ID at offset \(offset)")
        }
        let idLength = first.leadingZeroBitCount + 1
        guard idLength <= 4, head.count >= idLength + 1 else {
            throw MediaError(.invalidData, "element ID longer than 4 bytes at offset \(offset)")
        }
        var id: UInt32 = 0
        for _ in 0..<idLength { id = id << 8 | UInt32(widening: head[i]); i += 1 }
        let (size, sizeLength) = try EBMLReader.variableInteger(head[i...], at: offset)
        let dataOffset = offset + UInt64(clamping: idLength + sizeLength)
        guard dataOffset <= limit else {
            throw MediaError(.invalidData, "element 0x\(String(id, radix: 16, uppercase: true)) at offset \(offset) runs past its parent")
        }
        if let size, size > limit - dataOffset {
            throw MediaError(.invalidData, "element 0x\(String(id, radix: 16, uppercase: true)) at offset \(offset) "
                             + "says \(size) bytes, its parent has \(limit - dataOffset) left")
        }
        return EBMLElement(id: id, offset: offset, dataOffset: dataOffset, size: size)
    }

    /// An EBML variable-size integer (RFC 8794, 4): its value without the length marker (nil
    /// when every value bit is set: "unknown"), and its length in bytes.
    static func variableInteger(_ bytes: ArraySlice<UInt8>, at offset: UInt64) throws -> (UInt64?, Int) {
        guard let first = bytes.first, first != 0 else {
            throw MediaError(.invalidData, "variable-size integer longer than 8 bytes at offset \(offset)")
        }
        let length = first.leadingZeroBitCount + 1
        guard bytes.count >= length else { throw MediaError(.truncated, "variable-size integer cut short at offset \(offset)") }
        let mask = UInt8(0xFF) >> length
        var value = UInt64(widening: first & mask)
        var allOnes = first & mask == mask
        for b in bytes.dropFirst().prefix(length - 1) {
            value = value << 8 | UInt64(widening: b)
            allOnes = allOnes && b == 0xFF
        }
        return (allOnes ? nil : value, length)
    }

    // MARK: Values

    /// The children of `parent`, in order.
    mutating func children(of parent: EBMLElement) throws -> [EBMLElement] {
        guard let size = parent.size else {
            throw MediaError(.unsupported, "element 0x\(String(parent.id, radix: 16, uppercase: true)) of unknown size")
        }
        var found: [EBMLElement] = []
        var at = parent.dataOffset
        let end = parent.dataOffset + size
        while at < end {
            let e = try element(at: at, limit: end)
            guard let length = e.size else {
                throw MediaError(.unsupported, "element 0x\(String(e.id, radix: 16, uppercase: true)) of unknown size inside another")
            }
            found.append(e)
            at = e.dataOffset + length
        }
        return found
    }

    /// An unsigned integer element (0 to 8 bytes, big-endian).
    mutating func unsigned(_ e: EBMLElement) throws -> UInt64 {
        let size = e.size ?? 0
        guard size <= 8 else { throw invalid(e, "an unsigned integer of \(size) bytes") }
        return try bytes(at: e.dataOffset, count: Int(clamping: size)).reduce(0) { $0 << 8 | UInt64(widening: $1) }
    }

    /// A signed integer element (0 to 8 bytes, big-endian, two's complement).
    mutating func signed(_ e: EBMLElement) throws -> Int64 {
        let size = e.size ?? 0
        guard size <= 8 else { throw invalid(e, "a signed integer of \(size) bytes") }
        guard size > 0 else { return 0 }
        let raw = try unsigned(e)
        let shift = UInt64(64 - 8 * size)
        return Int64(bitPattern: raw << shift) >> shift
    }

    /// A float element (0, 4 or 8 bytes).
    mutating func float(_ e: EBMLElement) throws -> Double {
        switch e.size ?? 0 {
        case 0: return 0
        case 4: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: try unsigned(e))))
        case 8: return Double(bitPattern: try unsigned(e))
        case let n: throw invalid(e, "a float of \(n) bytes")
        }
    }

    /// A binary element's bytes (at most 16 MiB).
    mutating func binary(_ e: EBMLElement) throws -> [UInt8] {
        let size = e.size ?? 0
        guard size <= EBMLReader.maximumValueSize else { throw MediaError(.unsupported, "an element of \(size) bytes") }
        return Array(try bytes(at: e.dataOffset, count: Int(clamping: size)))
    }

    /// A string element (ASCII or UTF-8), up to its first zero byte.
    mutating func string(_ e: EBMLElement) throws -> String {
        String(decoding: try binary(e).prefix { $0 != 0 }, as: UTF8.self)
    }

    private func invalid(_ e: EBMLElement, _ what: String) -> MediaError {
        MediaError(.invalidData, "element 0x\(String(e.id, radix: 16, uppercase: true)) at offset \(e.offset) is \(what)")
    }
}
