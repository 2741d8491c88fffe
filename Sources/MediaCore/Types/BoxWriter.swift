/// Builds big-endian box bytes; sizes come from the content (patched when a box closes). The
/// one box writer: MP4/MOV boxes (`ISOBMFF`, `Splice`) and tx3g's (`Subtitles`) alike; no size
/// field is written anywhere else.
public struct BoxWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer.
    public init() {}

    /// The number of bytes written so far.
    public var count: Int { bytes.count }

    /// Appends one byte.
    public mutating func u8(_ v: UInt8) { bytes.append(v) }
    /// Appends a big-endian 16-bit integer.
    public mutating func u16(_ v: UInt16) { bigEndian(v) }
    /// Appends the low 24 bits of `v`, big-endian.
    public mutating func u24(_ v: UInt32) { u8(UInt8(truncatingIfNeeded: (v >> 16) & 0xFF)); u16(UInt16(truncatingIfNeeded: v & 0xFFFF)) }
    /// Appends a big-endian 32-bit integer.
    public mutating func u32(_ v: UInt32) { bigEndian(v) }
    /// Appends a big-endian 64-bit integer.
    public mutating func u64(_ v: UInt64) { bigEndian(v) }
    /// Appends `v`'s bytes, most significant first, in one append (sample tables are written
    /// an integer at a time: a million of them in a long track).
    private mutating func bigEndian<T: FixedWidthInteger>(_ v: T) {
        withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) }
    }
    /// Appends a big-endian 16-bit two's-complement integer.
    public mutating func i16(_ v: Int16) { u16(UInt16(bitPattern: v)) }
    /// Appends a big-endian 32-bit two's-complement integer.
    public mutating func i32(_ v: Int32) { u32(UInt32(bitPattern: v)) }
    /// Appends a big-endian 64-bit two's-complement integer.
    public mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    /// Appends a four-character code.
    public mutating func fourCC(_ v: FourCC) { u32(v.rawValue) }
    /// Appends `n` zero bytes.
    public mutating func zeros(_ n: Int) { bytes.append(contentsOf: repeatElement(0, count: n)) }
    /// Appends bytes as they are.
    public mutating func append<S: Sequence>(_ s: S) where S.Element == UInt8 { bytes.append(contentsOf: s) }

    /// Overwrites the four bytes at `i` with `v`, big-endian (a field known only later: an offset).
    public mutating func patch(_ v: UInt32, at i: Int) {
        withUnsafeBytes(of: v.bigEndian) { bytes.replaceSubrange(i..<(i + 4), with: $0) }
    }

    /// Writes a box whose size is whatever `body` writes.
    public mutating func box(_ type: FourCC, _ body: (inout BoxWriter) throws -> Void) rethrows {
        let start = bytes.count
        u32(0)
        fourCC(type)
        try body(&self)
        patchSize(at: start)
    }

    /// Writes a full box: version and 24-bit flags, then `body`.
    public mutating func fullBox(_ type: FourCC, version: UInt8, flags: UInt32,
                                 _ body: (inout BoxWriter) throws -> Void) rethrows {
        try box(type) { w in
            w.u8(version)
            w.u24(flags)
            try body(&w)
        }
    }

    /// The header of a box of `size` bytes (header included) whose body is written elsewhere
    /// (`mdat`, streamed to a file): 8 bytes, or 16 with a 64-bit size when `size` needs one
    /// (the size then counts the 8 more header bytes).
    public mutating func header(_ type: FourCC, size: UInt64) {
        if size <= UInt64(widening: UInt32.max) {
            u32(UInt32(truncatingIfNeeded: size)); fourCC(type)
        } else {
            u32(1); fourCC(type); u64(size &+ 8)
        }
    }

    private mutating func patchSize(at start: Int) {
        let size = bytes.count - start
        if size <= Int(widening: UInt32.max) {
            let s = UInt32(truncatingIfNeeded: size)
            bytes[start] = UInt8(truncatingIfNeeded: s >> 24); bytes[start + 1] = UInt8(truncatingIfNeeded: (s >> 16) & 0xFF)
            bytes[start + 2] = UInt8(truncatingIfNeeded: (s >> 8) & 0xFF); bytes[start + 3] = UInt8(truncatingIfNeeded: s & 0xFF)
        } else {
            // Needs a 64-bit size: size field 1, then the large size after the type.
            var large = BoxWriter()
            large.u64(UInt64(clamping: size + 8))
            bytes.insert(contentsOf: large.bytes, at: start + 8)
            bytes[start] = 0; bytes[start + 1] = 0; bytes[start + 2] = 0; bytes[start + 3] = 1
        }
    }
}

