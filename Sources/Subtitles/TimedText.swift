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
        for c in ordered { result += builder.add(start: c.start, end: c.end, text: c.text, styles: c.styles) }
        return result + builder.finish()
    }

    /// Cues back from samples: every non-empty sample is one cue.
    public static func cues(_ samples: [TimedTextSample]) -> [SubtitleCue] {
        samples.filter { !$0.text.isEmpty }.map { SubtitleCue(start: $0.start, end: $0.end, text: $0.text, styles: $0.styles) }
    }
}

/// Builds the samples of `TimedText.samples` as cues arrive (in start order), for cues read from
/// another container one packet at a time. Times are in any one timescale. Safe to use from
/// any thread (a request block's queue, say); calls are serialised.
public final class TimedTextBuilder: @unchecked Sendable {   // state under `lock`
    private struct Active { var end: Int64; var text: String; var styles: [TextStyle] }
    private let lock = NSLock()
    private var active: [Active] = []
    private var cursor: Int64 = 0
    private var held: TimedTextSample?

    /// A builder with no cues yet, at time 0.
    public init() {}

    /// Adds a cue; returns the samples that are now complete. A cue that starts before the
    /// previous one is moved to start with it; a cue of no duration is dropped.
    public func add(start: Int64, end: Int64, text: String, styles: [TextStyle] = []) -> [TimedTextSample] {
        guard end > start else { return [] }
        return lock.withLock {
            var out: [TimedTextSample] = []
            advance(to: max(start, cursor), &out)
            active.append(Active(end: end, text: text, styles: styles))
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
                text += c.text
                styles += c.styles.map { $0.shifted(by: shift) }
            }
            if held != nil, held!.text == text, held!.styles == styles {
                held!.end = next
            } else {
                if let h = held { out.append(h) }
                held = TimedTextSample(start: cursor, end: next, text: text, styles: styles)
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

    /// A `tx3g` sample entry: bottom-centred text, transparent background, white 18-point
    /// sans-serif default style, one font in `ftab`.
    public static func sampleEntry(forced: Bool = false) -> Data {
        var b = BoxWriter()
        b.box("tx3g") { b in
            b.zeros(6); b.u16(1)                       // reserved, data reference index
            b.u32(forced ? allSamplesForced | someSamplesForced : 0)
            b.u8(1); b.u8(0xFF)                         // horizontal: centre; vertical: bottom (-1)
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

    /// Whether a tx3g sample entry says all its samples are forced.
    public static func isForcedOnly(_ entry: Data?) -> Bool {
        guard let e = entry, e.count >= 20, e[e.startIndex + 4..<e.startIndex + 8].elementsEqual("tx3g".utf8) else { return false }
        return e[e.startIndex + 16] & 0x80 != 0
    }

    /// One sample: 16-bit length, UTF-8 text, then a `styl` box when the text has styles.
    public static func encode(_ text: String, styles: [TextStyle]) -> Data {
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
        var p = 2 + length
        while p + 8 <= bytes.count {
            let size = Int(widening: bytes[p]) << 24 | Int(widening: bytes[p + 1]) << 16 | Int(widening: bytes[p + 2]) << 8 | Int(widening: bytes[p + 3])
            guard size >= 8, p + size <= bytes.count else { break }
            if bytes[(p + 4)..<(p + 8)].elementsEqual("styl".utf8), size >= 10 {
                let n = Int(widening: bytes[p + 8]) << 8 | Int(widening: bytes[p + 9])
                var q = p + 10
                for _ in 0..<n where q + 12 <= p + size {
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
            p += size
        }
        return (text, styles)
    }
}

/// Hands out tx3g sample buffers for cues, in time order (gaps as empty samples).
public final class SubtitleReader: @unchecked Sendable {   // `next` under `lock`; the rest immutable
    /// The tx3g description of the samples.
    public let formatDescription: FormatDescription
    /// The samples handed out, in time order.
    public let samples: [TimedTextSample]
    private let lock = NSLock()
    private var next = 0

    /// A reader of `cues` (`forced`: flagged as forced-only subtitles).
    public init(cues: [SubtitleCue], forced: Bool = false) {
        samples = TimedText.samples(cues)
        formatDescription = FormatDescription(mediaType: .subtitle, codec: "tx3g", codecName: "mov_text",
                                              sampleEntry: TX3G.sampleEntry(forced: forced))
    }

    /// When the last cue ends.
    public var duration: MediaTime { MediaTime(value: samples.last?.end ?? 0, timescale: 1000) }

    /// The next sample, or `nil` after the last.
    public func copyNextSampleBuffer() -> SampleBuffer? {
        let sample: TimedTextSample? = lock.withLock {
            guard next < samples.count else { return nil }
            defer { next += 1 }
            return samples[next]
        }
        guard let s = sample else { return nil }
        let start = MediaTime(value: s.start, timescale: 1000)
        return SampleBuffer(data: TX3G.encode(s.text, styles: s.styles), decodeTimeStamp: start, presentationTimeStamp: start,
                            duration: MediaTime(value: s.end - s.start, timescale: 1000), isSync: true,
                            formatDescription: formatDescription)
    }
}
