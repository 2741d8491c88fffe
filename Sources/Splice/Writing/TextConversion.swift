import Foundation
import MediaCore
import ISOBMFF
import Subtitles
import FFmpegBridge

/// Text subtitles in the form the output holds them: text packets (SRT, ASS, WebVTT from
/// Matroska or WebM) become tx3g samples in MP4/MOV, through a timed-text builder that may hold
/// a cue until the next one arrives; tx3g samples become the container's text packets elsewhere
/// (empty ones, the gaps, dropped). Other samples pass untouched.
final class TextConversion: SampleStage {
    /// Under the writer's lock: the muxer reads what it saw (`packetFormat`, `sawForcedText`).
    let runsConcurrently = false
    /// The file written: tx3g samples, or text packets (Matroska: SRT, WebM: WebVTT by default).
    private let fileType: FileType
    private let isForced: Bool
    private var builder: TimedTextBuilder?
    private var tx3gFormat: FormatDescription?

    /// The text packet format of the stream (chosen at the first text sample; other containers).
    private(set) var packetFormat: SubtitlePacketFormat?
    /// Whether a tx3g sample entry said its samples are all forced.
    private(set) var sawForcedText = false

    /// The text packets the container takes by default.
    private var containerFormat: SubtitlePacketFormat? { fileType.subtitlePacketFormat }

    init(fileType: FileType, isForced: Bool) {
        self.fileType = fileType
        self.isForced = isForced
    }

    /// tx3g, or QuickTime text (whose samples start the same way: a length and UTF-8 text).
    static func isTimedText(_ format: FormatDescription) -> Bool {
        (format.codec == "tx3g" || format.codec == "text") && format.sampleEntry != nil
    }

    func process(_ sample: SampleBuffer, timescale: Int32) throws -> [SampleBuffer] {
        let format = sample.formatDescription
        guard let containerFormat else {
            // tx3g (a container without text packets refuses the track when it declares it).
            guard format.sampleEntry == nil, let text = SubtitlePacketFormat(codecName: format.codecName ?? "") else { return [sample] }
            return try timedText(sample, from: text, timescale: timescale)
        }
        let source: SubtitlePacketFormat?
        if TextConversion.isTimedText(format) {
            source = nil
            if TX3G.isForcedOnly(format.sampleEntry) { sawForcedText = true }
        } else if format.sampleEntry == nil, let t = SubtitlePacketFormat(codecName: format.codecName ?? "") {
            source = t
        } else {
            return [sample]
        }
        // The source's own text format when the container takes it, else the container's.
        let target = packetFormat ?? source.flatMap { fileType.holdsSubtitlePackets($0) ? $0 : nil } ?? containerFormat
        packetFormat = target
        if source == target { return [sample] }
        let bytes = try sample.loadData()
        let (body, styles) = source.map { $0.decode(bytes) } ?? TX3G.decode(bytes)
        if body.isEmpty { return [] }
        var out = sample
        out.storage = .bytes(target.encode(body, styles: styles))
        out.formatDescription = FormatDescription(mediaType: .subtitle, codec: "text", codecName: target.rawValue)
        return [out]
    }

    /// The packet format a stream of this input is declared with: the one chosen at the first
    /// sample, else the container's (nil when the container holds no text).
    func streamFormat() -> SubtitlePacketFormat? {
        if packetFormat == nil { packetFormat = containerFormat }
        return packetFormat
    }

    func finish(timescale: Int32) throws -> [SampleBuffer] {
        guard let builder else { return [] }
        self.builder = nil
        return tx3gSamples(builder.finish(), timescale: timescale)
    }

    private func timedText(_ sample: SampleBuffer, from text: SubtitlePacketFormat, timescale: Int32) throws -> [SampleBuffer] {
        let builder = self.builder ?? TimedTextBuilder()
        self.builder = builder
        let start = sample.presentationTimeStamp.convertScale(timescale).value
        let end = start + (sample.duration.isNumeric ? sample.duration.convertScale(timescale).value : 0)
        let (body, styles) = text.decode(try sample.loadData())
        return tx3gSamples(builder.add(start: start, end: end, text: body, styles: styles), timescale: timescale)
    }

    private func tx3gSamples(_ samples: [TimedTextSample], timescale: Int32) -> [SampleBuffer] {
        let format = tx3gFormat ?? FormatDescription(mediaType: .subtitle, codec: "tx3g", codecName: "mov_text",
                                                     sampleEntry: TX3G.sampleEntry(forced: isForced))
        tx3gFormat = format
        return samples.map { s in
            let start = MediaTime(value: s.start, timescale: timescale)
            return SampleBuffer(data: TX3G.encode(s.text, styles: s.styles), decodeTimeStamp: start, presentationTimeStamp: start,
                                duration: MediaTime(value: s.end - s.start, timescale: timescale), isSync: true,
                                formatDescription: format)
        }
    }
}
