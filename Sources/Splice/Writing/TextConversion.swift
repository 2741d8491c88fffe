import Foundation
import MediaCore
import ISOBMFF
import Subtitles
import FFmpegBridge

/// Text subtitles in the form the output holds them. Into MP4/MOV, text packets (SRT, ASS,
/// WebVTT from Matroska or WebM) become tx3g samples — WebVTT becomes `wvtt`, which keeps its
/// ids, settings and markup — through a timed-text builder that may hold a cue until the next
/// one arrives. Into other containers, MP4 text (tx3g, QuickTime text, `wvtt`) becomes the
/// container's packets (WebVTT ones where it holds them, so that `wvtt` keeps its ids and
/// settings), and the gaps are dropped. Other samples pass untouched.
final class TextConversion: SampleStage {
    /// The file written: MP4 text, or text packets (Matroska: SRT, WebM: WebVTT by default).
    private let fileType: FileType
    private let isForced: Bool
    private var builder: TimedTextBuilder?
    /// MP4: whether WebVTT packets are being turned into `wvtt` samples.
    private var makesWebVTT = false
    private var previous: FormatDescription?
    /// The track's size, in whose coordinates tx3g text boxes are.
    private let size: Dimensions?
    /// The track, for warnings; what the output's format could not hold of its cues.
    private let label: String
    private var lost = Set<String>()
    private var lostTarget = ""
    private var reader: SubtitlePacketReader?
    /// Cues of `wvtt` samples not yet written (they may go on in the next sample), and written ones held for order.
    private var open: [SubtitleCue] = []
    private var ended: [SubtitleCue] = []
    private var order = 0

    /// The text packet format of the stream (chosen at the first text sample; other containers).
    private(set) var packetFormat: SubtitlePacketFormat?
    /// The stream's codec private data: an ASS track's script header, a WebVTT header where the container keeps it.
    private(set) var header: [UInt8] = []
    /// Whether a tx3g sample entry said its samples are all forced.
    private(set) var sawForcedText = false

    /// The text packets the container takes by default.
    private var containerFormat: SubtitlePacketFormat? { fileType.subtitlePacketFormat }

    init(fileType: FileType, isForced: Bool, size: Dimensions?, label: String = "text track") {
        self.fileType = fileType
        self.isForced = isForced
        self.size = size
        self.label = label
    }

    /// One warning naming the kinds of markup the output's format could not hold.
    var warnings: [String] {
        lost.isEmpty ? [] : ["\(label): \(lostTarget) cannot hold \(lost.sorted().joined(separator: ", ")); left out"]
    }

    /// Notes what `target` (named `name`) cannot hold of `cue` (read from `source` packets, if any).
    private func noteLosses(_ cue: SubtitleCue, source: SubtitlePacketFormat?, to target: CueLosses.Target, name: String) {
        var document = SubtitleDocument(cues: [cue])
        if source == .ass { document.assHeader = reader?.assHeader }
        let kinds = CueLosses.kinds(in: document, to: target)
        if !kinds.isEmpty { lost.formUnion(kinds); lostTarget = name }
    }

    /// tx3g, or QuickTime text (whose samples start the same way: a length and UTF-8 text).
    static func isTimedText(_ format: FormatDescription) -> Bool {
        (format.codec == "tx3g" || format.codec == "text") && format.sampleEntry != nil
    }

    /// MP4 text: timed text, or WebVTT in MP4 (`wvtt`).
    static func isMP4Text(_ format: FormatDescription) -> Bool {
        isTimedText(format) || format.codec == "wvtt" && format.sampleEntry != nil
    }

    func process(_ sample: SampleBuffer, timescale: Int32) throws -> [SampleBuffer] {
        let format = sample.formatDescription
        guard let containerFormat else {
            // MP4 text (a container without text packets refuses the track when it declares it).
            guard format.sampleEntry == nil, let text = SubtitlePacketFormat(codecName: format.codecName ?? "") else { return [sample] }
            return try mp4Text(sample, from: text, timescale: timescale)
        }
        let source: SubtitlePacketFormat?
        if Self.isMP4Text(format) {
            source = format.codec == "wvtt" ? .webvtt : nil
            if TX3G.isForcedOnly(format.sampleEntry) { sawForcedText = true }
        } else if format.sampleEntry == nil, let t = SubtitlePacketFormat(codecName: format.codecName ?? "") {
            source = t
        } else {
            return [sample]
        }
        // The source's own text format when the container takes it, else the container's.
        let target = packetFormat ?? source.flatMap { fileType.holdsSubtitlePackets($0) ? $0 : nil } ?? containerFormat
        if packetFormat == nil {
            packetFormat = target
            header = streamHeader(format, target: target)
            if !fileType.keepsSubtitleHeaders, target == .webvtt {
                let document = SubtitleDocument(cues: [], webVTTHeader: String(decoding: Self.sourceHeader(format), as: UTF8.self))
                lost.formUnion(CueLosses.kinds(in: document, to: .webVTT(keepsHeader: false)))
                if !lost.isEmpty { lostTarget = "\(fileType.title) (WebVTT)" }
            }
        }
        if format.codec == "wvtt" { return wvttPackets(sample, timescale: timescale) }
        if source == target, format.sampleEntry == nil { return [sample] }
        let bytes = try sample.loadData()
        var cue: SubtitleCue
        if let source {
            cue = packetReader(source, format).cue(bytes)
        } else {
            let (text, styles) = TX3G.decode(bytes)
            cue = SubtitleCue(start: 0, end: 0, text: text, styles: styles)
            cue.placement = TX3G.textBox(ofSample: bytes).map { TX3G.placement(of: $0, in: size) }
                ?? TX3G.placement(ofSampleEntry: format.sampleEntry)
        }
        if cue.text.isEmpty, cue.markup == nil { return [] }
        switch target {
        case .webvtt: noteLosses(cue, source: source, to: .webVTT(keepsHeader: fileType.keepsSubtitleHeaders),
                                name: fileType.keepsSubtitleHeaders ? "WebVTT" : "\(fileType.title) (WebVTT)")
        case .ass: noteLosses(cue, source: source, to: .ass, name: "ASS")
        default: noteLosses(cue, source: source, to: .srt, name: target == .text ? "plain text" : "SRT")
        }
        var out = sample
        out.storage = .bytes(target.packet(for: cue, order: order))
        order += 1
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
        if !open.isEmpty || !ended.isEmpty { return flushCues(before: .max, timescale: timescale) }
        guard let builder else { return [] }
        self.builder = nil
        return mp4Samples(builder.finish(), timescale: timescale)
    }

    private func packetReader(_ format: SubtitlePacketFormat, _ description: FormatDescription) -> SubtitlePacketReader {
        if let reader, reader.format == format { return reader }
        let made = SubtitlePacketReader(format: format, codecPrivate: Self.sourceHeader(description))
        reader = made
        return made
    }

    /// The header samples like `format`'s come with: a `wvtt` entry's `vttC`, else the codec
    /// private data (an ASS script header, a WebVTT header).
    private static func sourceHeader(_ format: FormatDescription) -> [UInt8] {
        format.codec == "wvtt" ? Array((WVTT.header(ofSampleEntry: format.sampleEntry) ?? "").utf8) : format.parameters.extradata
    }

    /// The codec private data of a stream of `target` packets made from samples like `format`'s.
    private func streamHeader(_ format: FormatDescription, target: SubtitlePacketFormat) -> [UInt8] {
        switch target {
        case .ass where format.codecName == "ass": return format.parameters.extradata
        case .webvtt where fileType.keepsSubtitleHeaders && (format.codec == "wvtt" || format.codecName == "webvtt"): return Self.sourceHeader(format)
        default: return []
        }
    }

    // MARK: Into MP4

    private func mp4Text(_ sample: SampleBuffer, from text: SubtitlePacketFormat, timescale: Int32) throws -> [SampleBuffer] {
        let builder = self.builder ?? TimedTextBuilder()
        if self.builder == nil { makesWebVTT = text == .webvtt }
        self.builder = builder
        let start = sample.presentationTimeStamp.convertScale(timescale).value
        let end = start + (sample.duration.isNumeric ? sample.duration.convertScale(timescale).value : 0)
        let cue = packetReader(text, sample.formatDescription).cue(try sample.loadData())
        if !makesWebVTT { noteLosses(cue, source: text, to: .tx3g, name: "tx3g") }
        return mp4Samples(builder.add(cue, start: start, end: end), timescale: timescale)
    }

    private func mp4Samples(_ samples: [TimedTextSample], timescale: Int32) -> [SampleBuffer] {
        samples.map { s in
            let start = MediaTime(value: s.start, timescale: timescale)
            let data: Data
            let description: FormatDescription
            if makesWebVTT {
                data = WVTT.encode(s.cues)
                description = previous ?? FormatDescription(mediaType: .subtitle, codec: "wvtt", codecName: "webvtt",
                                                            sampleEntry: WVTT.sampleEntry(header: reader?.webVTTHeader ?? "WEBVTT", label: nil))
            } else {
                // Bottom centre, and a text box for a cue elsewhere (`SubtitleReader` says why).
                data = TX3G.encode(s, in: size, justified: .bottomCenter)
                description = previous ?? FormatDescription(mediaType: .subtitle, codec: "tx3g", codecName: "mov_text",
                                                            sampleEntry: TX3G.sampleEntry(forced: isForced))
            }
            previous = description
            return SampleBuffer(data: data, decodeTimeStamp: start, presentationTimeStamp: start,
                                duration: MediaTime(value: s.end - s.start, timescale: timescale), isSync: true,
                                formatDescription: description)
        }
    }

    // MARK: Out of wvtt

    /// WebVTT packets from a `wvtt` sample: a cue repeated in the samples that follow is one
    /// packet, written (in start order) once it has ended.
    private func wvttPackets(_ sample: SampleBuffer, timescale: Int32) -> [SampleBuffer] {
        let start = sample.presentationTimeStamp.convertScale(timescale).value
        let end = start + (sample.duration.isNumeric ? sample.duration.convertScale(timescale).value : 0)
        let reader = packetReader(.webvtt, sample.formatDescription)
        let cues = (try? sample.loadData()).map { reader.cues(ofWVTTSample: $0) } ?? []
        let stopped: [SubtitleCue]
        (open, stopped) = WVTT.step(open, start: start, end: end, cues: cues)
        ended += stopped
        return flushCues(before: start, timescale: timescale)
    }

    /// The ended cues that start before `time` and before every open cue, as packets in start order.
    private func flushCues(before time: Int64, timescale: Int32) -> [SampleBuffer] {
        if time == .max { ended += open; open = [] }
        let limit = min(time, open.map(\.start).min() ?? .max)
        let ready = ended.filter { $0.start <= limit }.sorted { $0.start < $1.start }
        ended.removeAll { $0.start <= limit }
        let format = FormatDescription(mediaType: .subtitle, codec: "text", codecName: (packetFormat ?? .webvtt).rawValue)
        return ready.map { cue in
            let start = MediaTime(value: cue.start, timescale: timescale)
            defer { order += 1 }
            return SampleBuffer(data: (packetFormat ?? .webvtt).packet(for: cue, order: order), decodeTimeStamp: start, presentationTimeStamp: start,
                                duration: MediaTime(value: cue.end - cue.start, timescale: timescale), isSync: true, formatDescription: format)
        }
    }
}
