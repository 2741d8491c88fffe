import Foundation
import ISOBMFF
import MediaCore

/// Edits the `moov` of a file whose `moov` is the last top-level box (what ffmpeg writes
/// without faststart): the box tree is parsed, changed, and written back in place of the
/// old one. Chunk offsets point into `mdat`, before `moov`, so they stay valid.
public enum MoovPatch {
    public static func apply(to url: URL, _ edit: (inout Box) throws -> Void) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        var boxes = try Box.parseAll(bytes)
        guard let last = boxes.indices.last, boxes[last].type == "moov" else {
            throw ToolError(message: "\(url.lastPathComponent): moov is not the last box")
        }
        let moovSize = boxes[last].serialized.count
        try edit(&boxes[last])
        bytes.removeLast(moovSize)
        bytes += boxes[last].serialized
        try Data(bytes).write(to: url)
    }
}

extension Box {
    public static func u32s(_ values: [UInt32]) -> [UInt8] {
        var w = BoxWriter()
        for v in values { w.u32(v) }
        return w.bytes
    }

    /// The track ID in this `trak`'s `tkhd`.
    public var trackID: UInt32 {
        guard let tkhd = child("tkhd") else { return 0 }
        let p = tkhd.payload
        let o = p[0] == 1 ? 20 : 12
        return UInt32(p[o]) << 24 | UInt32(p[o + 1]) << 16 | UInt32(p[o + 2]) << 8 | UInt32(p[o + 3])
    }

    /// The `mdhd` timescale of this `trak`.
    public var mediaTimescale: UInt32 {
        guard let p = child("mdia")?.child("mdhd")?.payload else { return 0 }
        let o = p[0] == 1 ? 20 : 12
        return UInt32(p[o]) << 24 | UInt32(p[o + 1]) << 16 | UInt32(p[o + 2]) << 8 | UInt32(p[o + 3])
    }

    /// Stores a QuickTime Macintosh language code in this `trak`'s `mdhd`.
    public mutating func setMacintoshLanguage(_ code: UInt16) {
        modifyChild("mdia") { mdia in
            mdia.modifyChild("mdhd") { mdhd in
                let o = mdhd.payload[0] == 1 ? 32 : 20
                mdhd.payload[o] = UInt8(code >> 8)
                mdhd.payload[o + 1] = UInt8(code & 0xFF)
            }
        }
    }

    /// Changes the `trak` with `id` in this `moov`.
    public mutating func modifyTrack(_ id: UInt32, _ body: (inout Box) throws -> Void) rethrows {
        for i in children!.indices where children![i].type == "trak" && children![i].trackID == id {
            try body(&children![i])
        }
    }

    /// Sets `tkhd` enabled flag and alternate group (fields patched in place).
    public mutating func setTrackHeader(enabled: Bool? = nil, alternateGroup: Int16? = nil) {
        modifyChild("tkhd") { tkhd in
            let v1 = tkhd.payload[0] == 1
            if let enabled {
                if enabled { tkhd.payload[3] |= 1 } else { tkhd.payload[3] &= ~1 }
            }
            if let alternateGroup {
                let o = v1 ? 46 : 34
                tkhd.payload[o] = UInt8(UInt16(bitPattern: alternateGroup) >> 8)
                tkhd.payload[o + 1] = UInt8(UInt16(bitPattern: alternateGroup) & 0xFF)
            }
        }
    }

    /// Sets the `tkhd` matrix {a, b, u, c, d, v, tx, ty, w} (16.16 fixed point; u, v, w 2.30).
    public mutating func setMatrix(_ m: [Int32]) {
        modifyChild("tkhd") { tkhd in
            let o = tkhd.payload[0] == 1 ? 52 : 40
            let bytes = m.flatMap { v in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: UInt32(bitPattern: v) >> UInt32($0)) } }
            tkhd.payload.replaceSubrange(o..<(o + 36), with: bytes)
        }
    }

    /// Adds a `tref` reference of `type` to `ids` (creating `tref` after `tkhd`/`edts` if needed).
    public mutating func addReference(_ type: FourCC, to ids: [UInt32]) {
        let ref = Box(type: type, payload: Box.u32s(ids))
        if let i = children!.firstIndex(where: { $0.type == "tref" }) {
            children![i].children!.append(ref)
        } else {
            let at = (children!.lastIndex { $0.type == "tkhd" || $0.type == "edts" } ?? 0) + 1
            children!.insert(Box(type: "tref", children: [ref]), at: at)
        }
    }

    /// Adds an `elng` box after `hdlr` (where ISO/IEC 14496-12 puts it).
    public mutating func addExtendedLanguage(_ tag: String) {
        modifyChild("mdia") { mdia in
            let at = (mdia.children!.firstIndex { $0.type == "hdlr" } ?? 0) + 1
            mdia.children!.insert(Box(type: "elng", payload: [0, 0, 0, 0] + Array(tag.utf8) + [0]), at: at)
        }
    }

    /// Replaces the edit list: entries of (segment duration in movie units, media time, rate).
    public mutating func setEditList(_ entries: [(UInt64, Int64, Int16)], version: UInt8 = 0) {
        var w = BoxWriter()
        w.u8(version); w.u24(0); w.u32(UInt32(entries.count))
        for (d, t, r) in entries {
            if version == 1 { w.u64(d); w.i64(t) } else { w.u32(UInt32(d)); w.i32(Int32(t)) }
            w.i16(r); w.i16(0)
        }
        let edts = Box(type: "edts", children: [Box(type: "elst", payload: w.bytes)])
        children!.removeAll { $0.type == "edts" }
        let at = (children!.firstIndex { $0.type == "tkhd" } ?? 0) + 1
        children!.insert(edts, at: at)
    }
}
