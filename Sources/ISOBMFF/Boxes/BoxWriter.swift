import MediaCore

/// Builds big-endian box bytes; sizes come from the content (patched when a box closes).
public struct BoxWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public var count: Int { bytes.count }

    public mutating func u8(_ v: UInt8) { bytes.append(v) }
    public mutating func u16(_ v: UInt16) { bytes.append(UInt8(truncatingIfNeeded: v >> 8)); bytes.append(UInt8(truncatingIfNeeded: v & 0xFF)) }
    public mutating func u24(_ v: UInt32) { u8(UInt8(truncatingIfNeeded: (v >> 16) & 0xFF)); u16(UInt16(truncatingIfNeeded: v & 0xFFFF)) }
    public mutating func u32(_ v: UInt32) { u16(UInt16(truncatingIfNeeded: v >> 16)); u16(UInt16(truncatingIfNeeded: v & 0xFFFF)) }
    public mutating func u64(_ v: UInt64) { u32(UInt32(truncatingIfNeeded: v >> 32)); u32(UInt32(truncatingIfNeeded: v & 0xFFFF_FFFF)) }
    public mutating func i16(_ v: Int16) { u16(UInt16(bitPattern: v)) }
    public mutating func i32(_ v: Int32) { u32(UInt32(bitPattern: v)) }
    public mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    public mutating func fourCC(_ v: FourCC) { u32(v.rawValue) }
    public mutating func zeros(_ n: Int) { bytes.append(contentsOf: repeatElement(0, count: n)) }
    public mutating func append<S: Sequence>(_ s: S) where S.Element == UInt8 { bytes.append(contentsOf: s) }

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

/// A box as a tree: containers hold children, every other box keeps its payload
/// byte-exact. Used to edit box structure in place (patch a field, add a box)
/// and to write it back.
public struct Box: Sendable, Hashable {
    public var type: FourCC
    /// Payload of a leaf box (for `uuid`, the 16-byte user type first).
    public var payload: [UInt8]
    /// Children of a container box; `nil` for a leaf.
    public var children: [Box]?

    /// Boxes that hold only other boxes.
    public static let containerTypes: Set<FourCC> = [
        "moov", "trak", "mdia", "minf", "stbl", "edts", "dinf", "mvex", "moof", "traf", "tref", "mfra",
    ]

    public init(type: FourCC, payload: [UInt8]) {
        self.type = type
        self.payload = payload
        self.children = nil
    }

    public init(type: FourCC, children: [Box]) {
        self.type = type
        self.payload = []
        self.children = children
    }

    /// Parses the boxes in `bytes` (descending into container types, at most 16 levels).
    public static func parseAll(_ bytes: [UInt8], path: String = "") throws -> [Box] {
        try parse(ByteReader(bytes, path: path), depth: 0)
    }

    private static func parse(_ reader: ByteReader, depth: Int) throws -> [Box] {
        guard depth < 16 else { throw reader.fail(.unsupported, "boxes nested more than 16 deep") }
        var boxes: [Box] = []
        var it = BoxIterator(reader)
        while let (h, child) = try it.next() {
            if containerTypes.contains(h.type) {
                boxes.append(Box(type: h.type, children: try parse(child, depth: depth + 1)))
            } else {
                var payload = h.userType ?? []
                payload += child.bytes[child.position..<child.end]
                boxes.append(Box(type: h.type, payload: payload))
            }
        }
        return boxes
    }

    public func write(to w: inout BoxWriter) {
        if type == "uuid" && payload.count >= 16 && children == nil {
            w.box(type) { $0.append(payload) }
            return
        }
        w.box(type) { w in
            if let children {
                for c in children { c.write(to: &w) }
            } else {
                w.append(payload)
            }
        }
    }

    public var serialized: [UInt8] {
        var w = BoxWriter()
        write(to: &w)
        return w.bytes
    }

    /// The first child of this type.
    public func child(_ type: FourCC) -> Box? { children?.first { $0.type == type } }

    /// Changes the first child of `type` (which must exist) with `body`.
    public mutating func modifyChild(_ type: FourCC, index: Int = 0, _ body: (inout Box) throws -> Void) rethrows {
        var seen = 0
        for i in children!.indices where children![i].type == type {
            if seen == index {
                try body(&children![i])
                return
            }
            seen += 1
        }
    }
}
