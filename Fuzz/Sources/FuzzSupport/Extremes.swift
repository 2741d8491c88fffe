// A structure-aware mutator: every numeric field a movie's parsers read set to its extremes.
// It walks an ISOBMFF box tree (or a Matroska EBML tree) and, in every box header and every
// leaf payload (mdat's media bytes aside), writes 0, 1, the largest value, 2^31 (2^7, 2^15 for
// narrower fields) and 2^63 at every offset a field of 1, 2, 4 or 8 bytes can start at (aligned
// to its width from the payload's start, as the specs lay fields out), and NaN and ±infinity
// where a float can be (4 and 8 bytes). Each mutant differs from its seed in one field.
import Foundation

public enum Extremes {
    /// One mutant: what was changed, and the bytes.
    public struct Mutant {
        public var what: String
        public var bytes: [UInt8]
    }

    /// Every mutant of `seed`, handed to `body` one at a time (there are tens of thousands).
    public static func forEachMutant(of seed: [UInt8], _ body: (Mutant) -> Void) {
        var fields: [Field] = []
        if seed.count >= 4, seed[0...3] == [0x1A, 0x45, 0xDF, 0xA3] {
            ebmlFields(seed, 0, seed.count, "", &fields)
        } else {
            boxFields(seed, 0, seed.count, "", &fields)
        }
        for field in fields {
            for (name, value) in values(width: field.width) {
                var bytes = seed
                for i in 0..<field.width { bytes[field.offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(field.width - 1 - i))) }
                if bytes != seed { body(Mutant(what: "\(field.where) @\(field.offset) [\(field.width)] = \(name)", bytes: bytes)) }
            }
        }
    }

    /// A place a number can be: its offset, its width in bytes, and where it is (a box path).
    typealias Field = (offset: Int, width: Int, where: String)

    /// The extremes a field of `width` bytes is set to (big-endian values).
    static func values(width: Int) -> [(String, UInt64)] {
        let bits = UInt64(width * 8)
        let max: UInt64 = bits == 64 ? .max : (1 << bits) - 1
        var v: [(String, UInt64)] = [("0", 0), ("1", 1), ("max", max), ("2^\(bits - 1)", 1 << (bits - 1))]
        if width == 8 { v.append(("2^31", 1 << 31)) }
        if width == 4 { v += [("NaN", 0x7FC0_0000), ("+inf", 0x7F80_0000), ("-inf", 0xFF80_0000)] }
        if width == 8 { v += [("NaN", 0x7FF8_0000_0000_0000), ("+inf", 0x7FF0_0000_0000_0000), ("-inf", 0xFFF0_0000_0000_0000)] }
        return v
    }

    /// ISOBMFF boxes whose payload is boxes, after `skip` bytes of the box's own fields.
    static let containers: [String: Int] = [
        "moov": 0, "trak": 0, "mdia": 0, "minf": 0, "stbl": 0, "dinf": 0, "edts": 0, "udta": 0, "mvex": 0, "moof": 0,
        "traf": 0, "mfra": 0, "sinf": 0, "schi": 0, "tref": 0, "meta": 4, "stsd": 8, "dref": 8, "ilst": 0,
        "avc1": 78, "avc3": 78, "hvc1": 78, "hev1": 78, "av01": 78, "vp09": 78, "mp4v": 78, "jpeg": 78, "encv": 78,
        "mp4a": 28, "enca": 28, "ac-3": 28, "ec-3": 28, "Opus": 28, "fLaC": 28, "alac": 28, "sowt": 28, "twos": 28,
        "lpcm": 28, "in24": 28, "ipcm": 28, "tx3g": 38, "wvtt": 8, "text": 51, "tmcd": 26, "stpp": 8]

    /// Boxes that are tables of like entries.
    static let tables: Set<String> = ["stsz", "stz2", "stco", "co64", "stts", "ctts", "stss", "stsc", "sdtp", "stps", "trun", "sbgp",
                                      "saiz", "saio", "senc", "tfra", "elst", "sgpd", "subs", "padb", "stdp", "cslg"]

    static func boxFields(_ b: [UInt8], _ start: Int, _ end: Int, _ path: String, _ fields: inout [Field]) {
        var at = start
        while end - at >= 8 {
            let size32 = b[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: b[at + 4..<at + 8].map { $0 >= 0x20 && $0 < 0x7F ? $0 : 0x3F }, as: UTF8.self)
            var header = 8, size = size32
            if size32 == 1, end - at >= 16 {
                header = 16
                size = b[at + 8..<at + 16].reduce(0) { $0 &<< 8 | Int($1) }
                fields.append((at + 8, 8, "\(path)/\(type) largesize"))
            }
            if size32 == 0 { size = end - at }
            fields.append((at, 4, "\(path)/\(type) size"))
            guard size >= header, size <= end - at else { return }
            let payload = at + header, boxEnd = at + size
            if let skip = containers[type], boxEnd - payload >= skip {
                addPayload(b, payload, payload + skip, "\(path)/\(type)", &fields)
                boxFields(b, payload + skip, boxEnd, "\(path)/\(type)", &fields)
            } else if tables.contains(type), boxEnd - payload > 48 {
                // A table's entries repeat the same fields: its header and first entries, and its last.
                addPayload(b, payload, payload + 32, "\(path)/\(type)", &fields)
                addPayload(b, boxEnd - 16, boxEnd, "\(path)/\(type) end", &fields)
            } else if type != "mdat" && type != "free" && type != "skip" {
                addPayload(b, payload, boxEnd, "\(path)/\(type)", &fields)
            }
            at = boxEnd
        }
    }

    private static func addPayload(_ b: [UInt8], _ start: Int, _ end: Int, _ path: String, _ fields: inout [Field]) {
        for width in [1, 2, 4, 8] {
            var o = start
            while o + width <= end {
                fields.append((o, width, path))
                o += width
            }
        }
    }

    /// EBML: an element's ID and size are variable-length integers; masters hold elements.
    static let masters: Set<UInt64> = [0x1A45DFA3, 0x18538067, 0x114D9B74, 0x4DBB, 0x1549A966, 0x1654AE6B, 0xAE, 0xE0, 0xE1,
                                       0x6D80, 0x6240, 0x5034, 0x5035, 0x1F43B675, 0xA0, 0x1C53BB6B, 0xBB, 0xB7, 0x1254C367, 0x7373,
                                       0x63C0, 0x67C8, 0x1043A770, 0x45B9, 0xB6, 0x80, 0x8E, 0x8F, 0x75A1, 0xA6, 0xDB, 0x55B0, 0x55D0]

    static func vint(_ b: [UInt8], _ at: Int, keepMarker: Bool) -> (value: UInt64, length: Int)? {
        guard at < b.count, b[at] != 0 else { return nil }
        let length = b[at].leadingZeroBitCount + 1
        guard at + length <= b.count else { return nil }
        var v = UInt64(keepMarker ? b[at] : b[at] & (0xFF >> UInt8(length)))
        for i in 1..<length { v = v << 8 | UInt64(b[at + i]) }
        return (v, length)
    }

    static func ebmlFields(_ b: [UInt8], _ start: Int, _ end: Int, _ path: String, _ fields: inout [Field]) {
        var at = start
        while at < end {
            guard let id = vint(b, at, keepMarker: true), let size = vint(b, at + id.length, keepMarker: false) else { return }
            let name = "\(path)/\(String(id.value, radix: 16))"
            let sizeAt = at + id.length, payload = sizeAt + size.length
            if [1, 2, 4, 8].contains(size.length) { fields.append((sizeAt, size.length, "\(name) size")) }
            let unknown = size.value == (UInt64(1) << (7 * UInt64(size.length))) - 1
            let length = unknown ? end - payload : Int(clamping: size.value)
            guard length <= end - payload else { return }
            if masters.contains(id.value) {
                ebmlFields(b, payload, payload + length, name, &fields)
            } else if id.value != 0xA3 && id.value != 0xA1 && [1, 2, 4, 8].contains(length) {   // not frame data: SimpleBlock, Block
                fields.append((payload, length, name))
            } else if id.value == 0x63A2 {   // CodecPrivate: its bytes are fields
                addPayload(b, payload, payload + length, name, &fields)
            }
            at = payload + length
        }
    }
}
