import MediaCore

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
