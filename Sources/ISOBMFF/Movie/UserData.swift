import Foundation
import MediaCore

/// A movie's text metadata in its user data: QuickTime text atoms in `udta` (`©nam`, `©day`,
/// `©xyz` …: a 16-bit length, a 16-bit language, the text), iTunes-style items in `udta/meta/ilst`
/// (each a `data` box: type 1 is UTF-8), and QuickTime's `meta` with `keys` (`mdta` names such as
/// `com.apple.quicktime.location.ISO6709`) directly in `moov`. Reading is bounded by the boxes'
/// own sizes; what is not text is skipped.
public enum UserData {
    /// The text items of a movie's `udta` and `meta` boxes, as (key, text): the atom's type
    /// (`©nam`) for QuickTime and iTunes items, the full `mdta` name for keyed ones.
    public static func items(in movieBoxes: [RawBox]) -> [(key: String, value: String)] {
        var out: [(String, String)] = []
        for box in movieBoxes {
            let payload = Array(box.payload)
            switch box.type {
            case "udta":
                for child in (try? Box.parseAll(payload)) ?? [] {
                    if child.type == "meta" {
                        out += metaItems(child.payload)
                    } else if child.type == "loci", let location = location(child.payload) {
                        out.append(("\u{A9}xyz", location))
                    } else if child.type.rawValue >> 24 == 0xA9, let text = quickTimeText(child.payload) {
                        out.append((child.type.description, text))
                    }
                }
            case "meta":
                out += metaItems(payload)
            default:
                continue
            }
        }
        return out
    }

    /// A `udta` box holding `items` (atom type, text) as QuickTime text atoms (language `und`).
    public static func userDataBox(_ items: [(FourCC, String)]) -> RawBox {
        var w = BoxWriter()
        w.box("udta") { w in
            for (type, text) in items {
                let bytes = Array(text.utf8.prefix(0xFFFF))
                w.box(type) { w in
                    w.u16(UInt16(truncatingIfNeeded: bytes.count))
                    w.u16(0x55C4)                     // 'und', packed ISO 639-2/T
                    w.append(bytes)
                }
            }
        }
        return RawBox(type: "udta", bytes: w.bytes)
    }

    /// A 3GPP `loci` box (TS 26.244: language, place name, role, longitude, latitude and
    /// altitude in 16.16 fixed point) as an ISO 6709 string, written as FFmpeg writes `©xyz`
    /// (`+48.8584+002.2945/`, the place name after the slash).
    static func location(_ p: [UInt8]) -> String? {
        guard p.count >= 6 else { return nil }
        var at = 6
        let nameStart = at
        while at < p.count, p[at] != 0 { at += 1 }
        let place = String(decoding: p[nameStart..<at], as: UTF8.self)
        at += 2                                       // the name's terminator, role
        guard at + 12 <= p.count else { return nil }
        func fixed(_ i: Int) -> Float {
            Float(Int32(bitPattern: UInt32(widening: p[i]) << 24 | UInt32(widening: p[i + 1]) << 16 | UInt32(widening: p[i + 2]) << 8 | UInt32(widening: p[i + 3]))) / 65536
        }
        let (longitude, latitude, altitude) = (fixed(at), fixed(at + 4), fixed(at + 8))
        var text = String(format: "%+08.4f%+09.4f", Double(latitude), Double(longitude))
        if altitude != 0 { text += String(format: "%+f", Double(altitude)) }
        return text + "/" + place
    }

    /// The first string of a QuickTime text atom.
    static func quickTimeText(_ p: [UInt8]) -> String? {
        guard p.count >= 4 else { return nil }
        let length = Int(widening: p[0]) << 8 | Int(widening: p[1])
        guard length > 0, length <= p.count - 4 else { return nil }
        return String(decoding: p[4..<(4 + length)], as: UTF8.self)
    }

    /// The text items of a `meta` box (MP4's full box, or QuickTime's plain one): `ilst` items,
    /// named by their type or, with `keys`, by their key.
    static func metaItems(_ payload: [UInt8]) -> [(String, String)] {
        // MP4's meta is a full box: 4 bytes of version and flags before its children.
        let isFull = payload.count >= 12 && payload[0..<4] == [0, 0, 0, 0] && Array(payload[8..<12]) != Array("meta".utf8)
            && !(payload.count >= 8 && Array(payload[4..<8]) == Array("hdlr".utf8))
        let children = (try? Box.parseAll(Array(payload.dropFirst(isFull ? 4 : 0)))) ?? []
        var keys: [String] = []
        if let k = children.first(where: { $0.type == "keys" })?.payload, k.count >= 8 {
            let count = Int(widening: k[4]) << 24 | Int(widening: k[5]) << 16 | Int(widening: k[6]) << 8 | Int(widening: k[7])
            var at = 8
            while keys.count < count, at + 8 <= k.count {
                let size = Int(widening: k[at]) << 24 | Int(widening: k[at + 1]) << 16 | Int(widening: k[at + 2]) << 8 | Int(widening: k[at + 3])
                guard size >= 8, at + size <= k.count else { break }
                keys.append(String(decoding: k[(at + 8)..<(at + size)], as: UTF8.self))
                at += size
            }
        }
        guard let ilst = children.first(where: { $0.type == "ilst" }) else { return [] }
        var out: [(String, String)] = []
        for item in (try? Box.parseAll(ilst.payload)) ?? [] {
            guard let data = ((try? Box.parseAll(item.payload)) ?? []).first(where: { $0.type == "data" }),
                  data.payload.count >= 8, data.payload[0..<4] == [0, 0, 0, 1] else { continue }
            let text = String(decoding: data.payload[8...], as: UTF8.self)
            let index = Int(widening: item.type.rawValue)
            let key = !keys.isEmpty && index >= 1 && index <= keys.count ? keys[index - 1] : item.type.description
            out.append((key, text))
        }
        return out
    }
}
