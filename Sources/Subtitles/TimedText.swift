import Foundation
import MediaCore

/// One timed-text sample: what shows from `start` to `end` (empty text for a gap).
public struct TimedTextSample: Sendable, Hashable {
    /// When the sample starts (the builder's timescale; milliseconds for `TimedText.samples`).
    public var start: Int64
    /// When it ends.
    public var end: Int64
    /// The text shown; empty for a gap.
    public var text: String
    /// The styled runs of `text`.
    public var styles: [TextStyle]
    /// Where the text shows (the first cue's place when cues that show together differ).
    public var placement = CuePlacement.bottomCenter
    /// The cues showing, in start order (what a `wvtt` sample holds), with their own times.
    public var cues: [SubtitleCue] = []

    /// A sample of `text` from `start` to `end`.
    public init(start: Int64, end: Int64, text: String, styles: [TextStyle] = []) {
        self.start = start
        self.end = end
        self.text = text
        self.styles = styles
    }
}

/// Cues turned into the non-overlapping samples of a timed-text track, and back.
public enum TimedText {
    /// Non-overlapping samples for `cues`, from time 0: an empty sample for every gap, the
    /// text of concurrent cues joined (in start order, one per line), and a final empty sample
    /// of no duration where the last cue ends — players (FFmpeg's among them) stretch a track's
    /// last sample to the movie's end, so the last cue must not be the last sample.
    /// A tx3g track shows one sample at a time.
    public static func samples(_ cues: [SubtitleCue]) -> [TimedTextSample] {
        let ordered = cues.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
        let builder = TimedTextBuilder()
        var result: [TimedTextSample] = []
        for c in ordered { result += builder.add(c, start: c.start, end: c.end) }
        return result + builder.finish()
    }

    /// Cues back from samples: every non-empty sample is one cue, at the sample's place.
    public static func cues(_ samples: [TimedTextSample]) -> [SubtitleCue] {
        samples.filter { !$0.text.isEmpty }.map {
            var cue = SubtitleCue(start: $0.start, end: $0.end, text: $0.text, styles: $0.styles)
            cue.placement = $0.placement
            return cue
        }
    }
}

/// Builds the samples of `TimedText.samples` as cues arrive (in start order), for cues read from
/// another container one packet at a time. Times are in any one timescale. Safe to use from
/// any thread (a request block's queue, say); calls are serialised.
public final class TimedTextBuilder: @unchecked Sendable {   // state under `lock`
    private struct Active { var end: Int64; var cue: SubtitleCue }
    private let lock = NSLock()
    private var active: [Active] = []
    private var cursor: Int64 = 0
    private var held: TimedTextSample?

    /// A builder with no cues yet, at time 0.
    public init() {}

    /// Adds a cue; returns the samples that are now complete. A cue that starts before the
    /// previous one is moved to start with it; a cue of no duration is dropped.
    public func add(start: Int64, end: Int64, text: String, styles: [TextStyle] = []) -> [TimedTextSample] {
        add(SubtitleCue(start: start, end: end, text: text, styles: styles), start: start, end: end)
    }

    /// Adds `cue` (its place, id and markup kept in the samples' `cues`) from `start` to `end`.
    public func add(_ cue: SubtitleCue, start: Int64, end: Int64) -> [TimedTextSample] {
        guard end > start else { return [] }
        return lock.withLock {
            var out: [TimedTextSample] = []
            advance(to: max(start, cursor), &out)
            active.append(Active(end: end, cue: cue))
            return out
        }
    }

    /// The remaining samples, ending with an empty sample of no duration after the last text.
    public func finish() -> [TimedTextSample] {
        lock.withLock { finishLocked() }
    }

    private func finishLocked() -> [TimedTextSample] {
        var out: [TimedTextSample] = []
        advance(to: active.map(\.end).max() ?? cursor, &out)
        if let h = held { out.append(h) }
        held = nil
        if let last = out.last, !last.text.isEmpty {
            out.append(TimedTextSample(start: last.end, end: last.end, text: "", styles: []))
        }
        return out
    }

    private func advance(to time: Int64, _ out: inout [TimedTextSample]) {
        while cursor < time {
            let next = min(time, active.map(\.end).filter { $0 > cursor }.min() ?? time)
            var text = ""
            var styles: [TextStyle] = []
            for c in active {
                if !text.isEmpty { text += "\n" }
                let shift = text.unicodeScalars.count
                text += c.cue.text
                styles += c.cue.styles.map { $0.shifted(by: shift) }
            }
            let cues = active.map(\.cue)
            if held != nil, held!.cues == cues {
                held!.end = next
            } else {
                if let h = held { out.append(h) }
                held = TimedTextSample(start: cursor, end: next, text: text, styles: styles)
                held!.cues = cues
                held!.placement = cues.first?.placement ?? .bottomCenter
            }
            cursor = next
            active.removeAll { $0.end <= cursor }
        }
    }
}

/// 3GPP timed text (`tx3g`, 3GPP TS 26.245) as MP4 and QuickTime carry it.
public enum TX3G {
    /// Display flags: some samples are forced (Apple's use of bit 30).
    public static let someSamplesForced: UInt32 = 0x4000_0000
    /// Display flags: all samples are forced (Apple's use of bit 31).
    public static let allSamplesForced: UInt32 = 0x8000_0000

    /// A `tx3g` sample entry: text justified to `placement` (bottom centre by default),
    /// transparent background, white 18-point sans-serif default style, one font in `ftab`.
    /// A track whose cues show in other places has one entry per place (justification is the
    /// sample description's in 3GPP TS 26.245 §5.16).
    public static func sampleEntry(forced: Bool = false, placement: CuePlacement = .bottomCenter) -> Data {
        var b = BoxWriter()
        b.box("tx3g") { b in
            b.zeros(6); b.u16(1)                       // reserved, data reference index
            b.u32(forced ? allSamplesForced | someSamplesForced : 0)
            b.u8(justification(placement.horizontal.rawValue - 1)); b.u8(justification(2 - placement.vertical.rawValue))
            b.u32(0)                                    // background RGBA: transparent
            b.u16(0); b.u16(0); b.u16(0); b.u16(0)      // default text box: the whole track
            b.u16(0); b.u16(0); b.u16(1); b.u8(0); b.u8(18); b.u32(0xFFFF_FFFF)  // default style
            b.box("ftab") { b in
                b.u16(1); b.u16(1)
                let name = Array("Sans-Serif".utf8)
                b.u8(UInt8(clamping: name.count)); b.append(name)
            }
        }
        return Data(b.bytes)
    }

    /// 3GPP justification (0 left/top, 1 centre, -1 right/bottom) from 0, 1, 2.
    private static func justification(_ v: Int) -> UInt8 { v == 2 ? 0xFF : UInt8(clamping: v) }

    /// Where a tx3g (or QuickTime text) sample entry justifies its text; bottom centre for
    /// others and for values 3GPP does not define.
    public static func placement(ofSampleEntry entry: Data?) -> CuePlacement {
        guard let e = entry, e.count >= 22, e[e.startIndex + 4..<e.startIndex + 8].elementsEqual("tx3g".utf8) else { return .bottomCenter }
        func index(_ byte: UInt8) -> Int? { byte == 0 ? 0 : byte == 1 ? 1 : byte == 0xFF ? 2 : nil }
        guard let h = index(e[e.startIndex + 20]), let v = index(e[e.startIndex + 21]),
              let horizontal = CuePlacement.Horizontal(rawValue: h + 1), let vertical = CuePlacement.Vertical(rawValue: 2 - v) else { return .bottomCenter }
        return CuePlacement(vertical, horizontal)
    }

    /// Whether a tx3g sample entry says all its samples are forced.
    public static func isForcedOnly(_ entry: Data?) -> Bool {
        guard let e = entry, e.count >= 20, e[e.startIndex + 4..<e.startIndex + 8].elementsEqual("tx3g".utf8) else { return false }
        return e[e.startIndex + 16] & 0x80 != 0
    }

    /// One sample: 16-bit length, UTF-8 text, then a `styl` box when the text has styles and
    /// a `tbox` box when it has a text box of its own.
    public static func encode(_ text: String, styles: [TextStyle], box: TextBox? = nil) -> Data {
        var b = BoxWriter()
        let utf8 = Array(text.utf8)
        b.u16(UInt16(clamping: utf8.count))
        b.append(utf8.prefix(Int(widening: UInt16.max)))
        let styled = styles.filter { $0.hasStyle && $0.start < $0.end }
        if !styled.isEmpty {
            b.box("styl") { b in
                b.u16(UInt16(clamping: styled.count))
                for s in styled.prefix(Int(widening: UInt16.max)) {
                    b.u16(UInt16(clamping: s.start)); b.u16(UInt16(clamping: s.end)); b.u16(1)
                    b.u8((s.bold ? 1 : 0) | (s.italic ? 2 : 0) | (s.underline ? 4 : 0))
                    b.u8(18)
                    b.u32(s.color ?? 0xFFFF_FFFF)
                }
            }
        }
        if let box {
            b.box("tbox") { b in b.i16(box.top); b.i16(box.left); b.i16(box.bottom); b.i16(box.right) }
        }
        return Data(b.bytes)
    }

    /// Text and styles of a sample; malformed samples give what can be read.
    public static func decode(_ data: Data) -> (text: String, styles: [TextStyle]) {
        let bytes = [UInt8](data)
        guard bytes.count >= 2 else { return ("", []) }
        let length = min(Int(widening: bytes[0]) << 8 | Int(widening: bytes[1]), bytes.count - 2)
        var textBytes = Array(bytes[2..<(2 + length)])
        // UTF-16 text starts with a byte-order mark.
        var text: String
        if textBytes.starts(with: [0xFE, 0xFF]) {
            textBytes.removeFirst(2)
            var units: [UInt16] = []
            var i = 0
            while i + 1 < textBytes.count { units.append(UInt16(widening: textBytes[i]) << 8 | UInt16(widening: textBytes[i + 1])); i += 2 }
            text = String(decoding: units, as: UTF16.self)
        } else {
            text = String(decoding: textBytes, as: UTF8.self)
        }
        var styles: [TextStyle] = []
        for box in ChildBoxes.of(bytes, from: 2 + length, to: bytes.count) where box.type == "styl" && box.body.count >= 2 {
            let n = Int(widening: bytes[box.body.lowerBound]) << 8 | Int(widening: bytes[box.body.lowerBound + 1])
            var q = box.body.lowerBound + 2
            for _ in 0..<n where q + 12 <= box.body.upperBound {
                let start = Int(widening: bytes[q]) << 8 | Int(widening: bytes[q + 1])
                let end = Int(widening: bytes[q + 2]) << 8 | Int(widening: bytes[q + 3])
                let face = bytes[q + 6]
                let color = UInt32(widening: bytes[q + 8]) << 24 | UInt32(widening: bytes[q + 9]) << 16 | UInt32(widening: bytes[q + 10]) << 8 | UInt32(widening: bytes[q + 11])
                let style = TextStyle(start: start, end: end, bold: face & 1 != 0, italic: face & 2 != 0,
                                      underline: face & 4 != 0, color: color == 0xFFFF_FFFF ? nil : color)
                if style.hasStyle && start < end { styles.append(style) }
                q += 12
            }
        }
        return (text, styles)
    }
}
