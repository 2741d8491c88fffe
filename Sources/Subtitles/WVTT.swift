import Foundation
import MediaCore

/// WebVTT in MP4 (`wvtt`, ISO/IEC 14496-30 §7): a sample entry whose `vttC` box holds the
/// file's header (the `WEBVTT` line, `REGION` and `STYLE` blocks) and whose `vlab` box labels
/// the source; samples that each cover a stretch in which the same cues show — one `vttc` box
/// per cue (`iden` id, `sttg` settings, `payl` text), or one `vtte` box where none shows. A cue
/// that spans several samples is repeated in each, and read back as one cue.
public enum WVTT {
    /// A `wvtt` sample entry: `header` in `vttC`, `label` (when given) in `vlab`.
    public static func sampleEntry(header: String, label: String?) -> Data {
        var b = BoxWriter()
        b.box("wvtt") { b in
            b.zeros(6); b.u16(1)                       // reserved, data reference index
            b.box("vttC") { $0.append(header.utf8) }
            if let label, !label.isEmpty { b.box("vlab") { $0.append(label.utf8) } }
        }
        return Data(b.bytes)
    }

    /// The WebVTT header in a `wvtt` sample entry's `vttC` box; nil for other entries.
    public static func header(ofSampleEntry entry: Data?) -> String? {
        guard let entry, entry.count >= 16, entry[entry.startIndex + 4..<entry.startIndex + 8].elementsEqual("wvtt".utf8) else { return nil }
        let bytes = [UInt8](entry)
        return ChildBoxes.of(bytes, from: 16, to: bytes.count).first { $0.type == "vttC" }
            .map { String(decoding: bytes[$0.body], as: UTF8.self) } ?? ""
    }

    /// One sample: a `vttc` box per cue (id and settings when it has them), or a `vtte` box.
    public static func encode(_ cues: [SubtitleCue]) -> Data {
        var b = BoxWriter()
        if cues.isEmpty { b.box("vtte") { _ in } }
        for cue in cues {
            b.box("vttc") { b in
                if !cue.identifier.isEmpty { b.box("iden") { $0.append(cue.identifier.utf8) } }
                if !cue.webVTTSettings.isEmpty { b.box("sttg") { $0.append(cue.webVTTSettings.utf8) } }
                b.box("payl") { $0.append(cue.webVTTPayload.utf8) }
            }
        }
        return Data(b.bytes)
    }

    /// The cues of a sample (without times), their text and styles read with the colour
    /// classes of `header`'s STYLE blocks; malformed boxes give what can be read. (A track's
    /// `SubtitlePacketReader` reads the header once for all its samples.)
    public static func decode(_ data: Data, header: String = "WEBVTT") -> [SubtitleCue] {
        decode(data, classColors: CueClasses.colors(in: SubtitleDocument(cues: [], webVTTHeader: header).styleSheets))
    }

    /// The cues of a sample, their text and styles read with `classColors`.
    static func decode(_ data: Data, classColors colors: [String: UInt32]) -> [SubtitleCue] {
        let bytes = [UInt8](data)
        return ChildBoxes.of(bytes, from: 0, to: bytes.count).filter { $0.type == "vttc" }.map { cueBox in
            var cue = SubtitleCue(start: 0, end: 0, text: "")
            var payload = ""
            for child in ChildBoxes.of(bytes, from: cueBox.body.lowerBound, to: cueBox.body.upperBound) {
                let text = String(decoding: bytes[child.body], as: UTF8.self)
                switch child.type {
                case "iden": cue.identifier = text
                case "sttg": cue.settings = text
                case "payl": payload = text
                default: break
                }
            }
            cue.placement = CueSettings.placement(of: cue.settings)
            cue.markup = .webVTT(payload)
            (cue.text, cue.styles) = Markup.parse(payload, .webVTT, classColors: colors)
            return cue
        }
    }

    /// Cues from samples in time order (each with the cues it holds): a cue repeated in
    /// samples that follow one another is one cue, from the first one's start to the last one's end.
    public static func cues(_ samples: [(start: Int64, end: Int64, cues: [SubtitleCue])]) -> [SubtitleCue] {
        var done: [SubtitleCue] = []
        var open: [SubtitleCue] = []
        for sample in samples {
            let ended: [SubtitleCue]
            (open, ended) = step(open, start: sample.start, end: sample.end, cues: sample.cues)
            done += ended
        }
        return (done + open).enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
    }

    /// One sample read after others: of the cues showing until its start (`open`), those it
    /// holds again go on to its `end`; the others have `ended`; its new cues run from `start` to `end`.
    public static func step(_ open: [SubtitleCue], start: Int64, end: Int64, cues: [SubtitleCue]) -> (open: [SubtitleCue], ended: [SubtitleCue]) {
        var open = open
        var next: [SubtitleCue] = []
        for var cue in cues {
            if let i = open.firstIndex(where: { $0.end == start && same($0, cue) }) {
                var continued = open.remove(at: i)
                continued.end = end
                next.append(continued)
            } else {
                (cue.start, cue.end) = (start, end)
                next.append(cue)
            }
        }
        return (next, open)
    }

    private static func same(_ a: SubtitleCue, _ b: SubtitleCue) -> Bool {
        a.identifier == b.identifier && a.settings == b.settings && a.markup == b.markup
    }
}

/// The boxes inside a sample or a box body (`wvtt` samples, a tx3g sample's modifiers).
enum ChildBoxes {
    /// The boxes between `from` and `to`: type and body range; stops at the first malformed one.
    static func of(_ bytes: [UInt8], from: Int, to: Int) -> [(type: String, body: Range<Int>)] {
        var result: [(String, Range<Int>)] = []
        var p = from
        while p + 8 <= to {
            let size = Int(widening: bytes[p]) << 24 | Int(widening: bytes[p + 1]) << 16 | Int(widening: bytes[p + 2]) << 8 | Int(widening: bytes[p + 3])
            guard size >= 8, size <= to - p else { break }
            result.append((String(decoding: bytes[(p + 4)..<(p + 8)], as: UTF8.self), (p + 8)..<(p + size)))
            p += size
        }
        return result
    }
}
