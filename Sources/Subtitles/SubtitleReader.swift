import Foundation
import MediaCore

/// The samples a subtitle track is written as.
public enum SubtitleTrackFormat: Sendable, Hashable {
    /// 3GPP timed text (MP4, MOV): one sample at a time, gaps as empty samples; one sample
    /// description, justified to the place most cues have, and a text box for each cue elsewhere.
    case tx3g
    /// WebVTT in MP4 (ISO/IEC 14496-30): cue ids, settings and payloads kept.
    case wvtt
    /// Another container's text packets, one per cue, with the document's header (an ASS
    /// script's, a WebVTT file's) as codec private data when `keepsHeader`.
    case packets(SubtitlePacketFormat, keepsHeader: Bool)
}

/// Hands out a subtitle track's sample buffers for a document's cues, in time order.
public final class SubtitleReader: @unchecked Sendable {   // `next` under `lock`; the rest immutable
    /// The description of the first sample.
    public let formatDescription: FormatDescription
    /// The samples' times (for tx3g and wvtt, the non-overlapping stretches; for packets, the cues).
    public let samples: [TimedTextSample]
    private let buffers: [SampleBuffer]
    private let lock = NSLock()
    private var next = 0

    /// A tx3g reader of `cues` (`forced`: flagged as forced-only subtitles).
    public convenience init(cues: [SubtitleCue], forced: Bool = false) {
        self.init(document: SubtitleDocument(cues: cues), format: .tx3g, forced: forced)
    }

    /// A reader of `document` as `format` samples; `label` names the source in a `wvtt` entry;
    /// `size` is the track's (tx3g text boxes are in its coordinates).
    public init(document: SubtitleDocument, format: SubtitleTrackFormat, forced: Bool = false, label: String? = nil, size: Dimensions? = nil) {
        let ms = { (v: Int64) in MediaTime(value: v, timescale: 1000) }
        func buffer(_ data: Data, _ s: TimedTextSample, _ format: FormatDescription) -> SampleBuffer {
            SampleBuffer(data: data, decodeTimeStamp: ms(s.start), presentationTimeStamp: ms(s.start),
                         duration: ms(s.end - s.start), isSync: true, formatDescription: format)
        }
        var empty = FormatDescription(mediaType: .subtitle, codec: "tx3g", codecName: "mov_text", sampleEntry: TX3G.sampleEntry(forced: forced))
        switch format {
        case .tx3g:
            samples = TimedText.samples(document.cues)
            let justified = TX3G.commonPlacement(samples)
            let d = FormatDescription(mediaType: .subtitle, codec: "tx3g", codecName: "mov_text",
                                      sampleEntry: TX3G.sampleEntry(forced: forced, placement: justified))
            buffers = samples.map { buffer(TX3G.encode($0, in: size, justified: justified), $0, d) }
            empty = d
        case .wvtt:
            samples = TimedText.samples(document.cues)
            let d = FormatDescription(mediaType: .subtitle, codec: "wvtt", codecName: "webvtt",
                                      sampleEntry: WVTT.sampleEntry(header: document.webVTTHeader(adding: document.cues), label: label))
            buffers = samples.map { buffer(WVTT.encode($0.cues), $0, d) }
            empty = d
        case .packets(let packets, let keepsHeader):
            let header: String? = switch packets {
            case .ass: (document.assHeader ?? .standard).text
            case .webvtt: document.webVTTHeader(adding: document.cues)
            default: nil
            }
            let d = FormatDescription(mediaType: .subtitle, codec: "text", codecName: packets.rawValue,
                                      codecConfiguration: keepsHeader ? header.map { Data($0.utf8) } : nil)
            let ordered = document.cues.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
            samples = ordered.map { TimedTextSample(start: $0.element.start, end: $0.element.end, text: $0.element.text, styles: $0.element.styles) }
            buffers = zip(ordered, samples).map { buffer(packets.packet(for: $0.0.element, order: $0.0.offset), $0.1, d) }
            empty = d
        }
        formatDescription = buffers.first?.formatDescription ?? empty
    }

    /// When the last cue ends.
    public var duration: MediaTime { MediaTime(value: samples.map(\.end).max() ?? 0, timescale: 1000) }

    /// The next sample, or `nil` after the last.
    public func copyNextSampleBuffer() -> SampleBuffer? {
        lock.withLock {
            guard next < buffers.count else { return nil }
            defer { next += 1 }
            return buffers[next]
        }
    }
}
