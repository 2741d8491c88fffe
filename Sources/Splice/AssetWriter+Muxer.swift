import Foundation
import MediaCore
import ISOBMFF
import Subtitles
import FFmpegBridge

/// The libavformat side of an `AssetWriter` (Matroska, WebM, MPEG-TS, AVI).
final class MuxerOutput {
    let context: OutputFormatContext
    let formatName: String
    var headerWritten = false
    /// Per input: stream index, time base, and ticks (of the input's timescale) added to its times.
    var streams: [(index: Int, timeBase: (num: Int32, den: Int32), shift: Int64)] = []

    init(formatName: String, file: OutputFile) throws {
        do { context = try OutputFormatContext(formatName: formatName, file: file) } catch { throw error.mediaError }
        self.formatName = formatName
    }

    /// Whether the container has chapters.
    var holdsChapters: Bool { formatName == "matroska" || formatName == "webm" }

    /// The text subtitle packets this container takes.
    var textFormat: SubtitlePacketFormat? {
        switch formatName {
        case "webm": .webvtt
        case "matroska": .subrip
        default: nil
        }
    }

    /// Containers (by file extension) that can hold `codecName`, for error messages.
    static func containers(holding codecName: String) -> [String] {
        var names: [String] = []
        if CodecMapping.isoCodecs.contains(codecName) { names.append("mp4") }
        for (muxer, ext) in [("matroska", "mkv"), ("webm", "webm"), ("mpegts", "ts"), ("avi", "avi")]
        where OutputFormatContext.canHold(codecName, formatName: muxer) {
            names.append(ext)
        }
        return names
    }
}

extension AssetWriter {
    /// ISO 639-2 bibliographic codes (Matroska) for the terminology codes (MP4) that differ.
    static let bibliographicLanguages: [String: String] = [
        "sqi": "alb", "hye": "arm", "eus": "baq", "mya": "bur", "zho": "chi", "ces": "cze", "nld": "dut",
        "fra": "fre", "kat": "geo", "deu": "ger", "ell": "gre", "isl": "ice", "mkd": "mac", "mri": "mao",
        "msa": "may", "fas": "per", "ron": "rum", "slk": "slo", "bod": "tib", "cym": "wel",
    ]
    static let terminologyLanguages = Dictionary(uniqueKeysWithValues: bibliographicLanguages.map { ($1, $0) })

    /// Adds one stream per input and writes the header (before the first packet).
    func startMuxer(_ muxer: MuxerOutput, inputs: [AssetWriterInput], groups: [AssetWriterInputGroup],
                    sessionStart: MediaTime) throws {
        let assignments = groupAssignments(groups)
        for (i, input) in inputs.enumerated() {
            guard let format = input.firstFormat ?? input.sourceFormatHint else {
                throw MediaError(.invalidOperation, "track \(i + 1) has no samples and no format hint")
            }
            var p = try streamParameters(input, format: format, muxer: muxer, track: i + 1)
            let enabled = assignments[ObjectIdentifier(input)]?.enabled ?? input.marksOutputTrackAsEnabled
            p.isDefault = enabled
            let forcedTarget = inputs.contains { other in other.associations.contains { $0.type == .forcedSubtitlesOnly && $0.input === input } }
            let forcedText = [format, input.sourceFormatHint].contains { $0?.codec == "tx3g" && TX3G.isForcedOnly($0?.sampleEntry) }
            p.isForced = input.isForced || forcedTarget || forcedText || input.sawForcedText
            p.isHearingImpaired = input.mediaCharacteristics.contains(.describesMusicAndSoundForAccessibility)
            p.isVisualImpaired = input.mediaCharacteristics.contains(.describesVideoForAccessibility)
            if let l = input.languageCode, l != "und" {
                p.language = muxer.formatName == "matroska" || muxer.formatName == "webm" ? AssetWriter.bibliographicLanguages[l] ?? l : l
            }
            if let name = input.name, !AssetWriter.isDefaultHandlerName(name) { p.title = name }
            let scale = input.timescale > 0 ? input.timescale : (input.mediaTimeScale > 0 ? input.mediaTimeScale : 1000)
            p.timeBase = (1, scale)
            input.timescale = scale
            let index = try muxer.context.addStream(p)
            // Presentation on the movie timeline: the first edit's shift, less the session start.
            var shift = MediaTime.zero - sessionStart
            if let first = input.segments?.first(where: { !$0.isEmpty }), let source = first.source {
                shift = shift + first.target.start - source.start
            }
            muxer.streams.append((index, (1, 1), shift.converted(to: scale).value))
        }
        if !chapters.isEmpty {
            try muxer.context.setChapters(chapters.map { c in
                (c.title, (c.start - sessionStart).converted(to: 1000).value, (c.start + c.duration - sessionStart).converted(to: 1000).value)
            }, timescale: 1000)
        }
        try muxer.context.writeHeader()
        for i in muxer.streams.indices { muxer.streams[i].timeBase = muxer.context.timeBase(ofStream: muxer.streams[i].index) }
        muxer.headerWritten = true
    }

    private func streamParameters(_ input: AssetWriterInput, format: FormatDescription, muxer: MuxerOutput,
                                  track: Int) throws -> OutputStreamParameters {
        var p: OutputStreamParameters
        if AssetWriter.isTimedText(format) || SubtitlePacketFormat(codecName: format.codecName ?? "") != nil {
            guard let text = input.textPacketFormat ?? muxer.textFormat else {
                throw MediaError(.unsupported, "track \(track): \(muxer.formatName) files cannot hold text subtitles; mkv (SRT) and webm (WebVTT) can")
            }
            p = OutputStreamParameters(mediaType: .subtitle, codecName: text.rawValue)
            if text == .ass, format.codecName == "ass" { p.extradata = format.codecConfiguration }
            input.textPacketFormat = text
        } else if let entry = format.sampleEntry {
            guard let c = CodecMapping.codecParameters(sampleEntry: [UInt8](entry), mediaType: input.mediaType) else {
                throw MediaError(.unsupported, "track \(track): '\(format.codec)' samples cannot be written to \(muxer.formatName)")
            }
            p = OutputStreamParameters(mediaType: input.mediaType, codecName: c.codecName)
            p.extradata = c.extradata.isEmpty ? nil : Data(c.extradata)
            p.width = c.width
            p.height = c.height
            p.sampleRate = c.sampleRate
            p.channelCount = c.channelCount
            p.initialPadding = c.initialPadding
        } else if let name = format.codecName {
            p = OutputStreamParameters(mediaType: input.mediaType, codecName: name)
            p.extradata = format.codecConfiguration
            p.width = format.dimensions?.width ?? 0
            p.height = format.dimensions?.height ?? 0
            p.sampleRate = Int(format.sampleRate ?? 0)
            p.channelCount = format.channelCount ?? 0
        } else {
            throw MediaError(.unsupported, "track \(track): '\(format.codec)' samples cannot be written to \(muxer.formatName)")
        }
        if let size = input.naturalSize, input.mediaType == .video { p.width = size.width; p.height = size.height }
        guard OutputFormatContext.canHold(p.codecName, formatName: muxer.formatName) else {
            let others = MuxerOutput.containers(holding: p.codecName)
            throw MediaError(.unsupported, "track \(track): \(muxer.formatName) files cannot hold \(p.codecName)"
                             + (others.isEmpty ? "" : "; \(others.joined(separator: ", ")) can"))
        }
        return p
    }

    /// Writes the first `counts[i]` pending samples of each input, in decode-time order.
    func writePackets(_ muxer: MuxerOutput, inputs: [AssetWriterInput], counts: [Int]) throws {
        var order: [(time: Double, input: Int, k: Int)] = []
        for (i, input) in inputs.enumerated() {
            let scale = Double(input.timescale)
            for k in 0..<counts[i] { order.append((Double(input.pending[k].decodeTime + muxer.streams[i].shift) / scale, i, k)) }
        }
        order.sort { ($0.time, $0.input, $0.k) < ($1.time, $1.input, $1.k) }
        for (_, i, k) in order {
            let s = inputs[i].pending[k]
            let stream = muxer.streams[i]
            let scale = inputs[i].timescale
            func rescale(_ v: Int64) -> Int64 {
                let n = Int128(v) * Int128(stream.timeBase.den)
                let d = Int128(scale) * Int128(stream.timeBase.num)
                let q = (n >= 0 ? n + d / 2 : n - d / 2) / d
                return Int64(clamping: q)
            }
            let data: Data
            switch s.storage {
            case .bytes(let d): data = d
            case .file(let r): data = try r.file.readData(at: r.offset, count: r.length)
            }
            let dts = s.decodeTime + stream.shift
            var skipped = 0
            if s.trimDurationAtEnd > .zero, let rate = inputs[i].firstFormat?.sampleRate ?? inputs[i].sourceFormatHint?.sampleRate {
                skipped = Int(min(1e9, max(0, (s.trimDurationAtEnd.seconds * rate).rounded())))
            }
            try muxer.context.write(data, stream: stream.index, presentationTime: rescale(dts + s.compositionOffset),
                                    decodeTime: rescale(dts), duration: rescale(s.duration), isKeyFrame: s.isSync,
                                    skippedSamplesAtEnd: skipped)
        }
    }

    /// tx3g, or QuickTime text (whose samples start the same way: a length and UTF-8 text).
    static func isTimedText(_ format: FormatDescription) -> Bool {
        (format.codec == "tx3g" || format.codec == "text") && format.sampleEntry != nil
    }

    static func isDefaultHandlerName(_ name: String) -> Bool {
        ["VideoHandler", "SoundHandler", "SubtitleHandler", "TextHandler", "DataHandler", "MetadataHandler",
         "TimeCodeHandler", "Core Media Video", "Core Media Audio", "Core Media Text", "ISO Media file produced by Google Inc."]
            .contains(name) || name.isEmpty
    }

    // MARK: Text subtitles between containers

    /// The samples to write for `sample`: text subtitle packets become tx3g samples in MP4/MOV
    /// (through a timed-text builder, which may hold a cue until the next arrives), tx3g samples
    /// become the container's text packets elsewhere (empty ones dropped); other samples pass.
    func convertText(_ sample: SampleBuffer, for input: AssetWriterInput) throws -> [SampleBuffer] {
        let format = sample.formatDescription
        if fileType.isISO {
            guard format.sampleEntry == nil, let text = SubtitlePacketFormat(codecName: format.codecName ?? "") else { return [sample] }
            if input.timescale == 0 { input.timescale = input.mediaTimeScale > 0 ? input.mediaTimeScale : sample.presentationTime.timescale }
            let scale = input.timescale
            let builder = input.textBuilder ?? TimedTextBuilder()
            input.textBuilder = builder
            let start = sample.presentationTime.converted(to: scale).value
            let end = start + (sample.duration.isNumeric ? sample.duration.converted(to: scale).value : 0)
            let (body, styles) = text.decode(try sample.loadData())
            return tx3gSamples(builder.add(start: start, end: end, text: body, styles: styles), input: input)
        }
        let source: SubtitlePacketFormat?
        if AssetWriter.isTimedText(format) {
            source = nil
            if TX3G.isForcedOnly(format.sampleEntry) { input.sawForcedText = true }
        } else if let t = SubtitlePacketFormat(codecName: format.codecName ?? "") { source = t } else { return [sample] }
        // The source's own text format when the container takes it, else the container's.
        if input.textPacketFormat == nil, let name = fileType.muxerName, muxerTextFormat != nil {
            input.textPacketFormat = source.flatMap { OutputFormatContext.canHold($0.rawValue, formatName: name) ? $0 : nil } ?? muxerTextFormat
        }
        guard let target = input.textPacketFormat else { return [sample] }
        if source == target { return [sample] }
        let bytes = try sample.loadData()
        let (body, styles) = source.map { $0.decode(bytes) } ?? TX3G.decode(bytes)
        if body.isEmpty { return [] }
        var out = sample
        out.data = target.encode(body, styles: styles)
        out.formatDescription = FormatDescription(mediaType: .subtitle, codec: "text", codecName: target.rawValue)
        return [out]
    }

    /// The remaining tx3g samples of a text input at its end.
    func finishText(for input: AssetWriterInput) -> [SampleBuffer] {
        guard let builder = input.textBuilder else { return [] }
        input.textBuilder = nil
        return tx3gSamples(builder.finish(), input: input)
    }

    private func tx3gSamples(_ samples: [TimedTextSample], input: AssetWriterInput) -> [SampleBuffer] {
        let format = input.tx3gFormat ?? FormatDescription(mediaType: .subtitle, codec: "tx3g", codecName: "mov_text",
                                                           sampleEntry: TX3G.sampleEntry(forced: input.isForced))
        input.tx3gFormat = format
        let scale = input.timescale
        return samples.map { s in
            let start = MediaTime(value: s.start, timescale: scale)
            return SampleBuffer(data: TX3G.encode(s.text, styles: s.styles), decodeTime: start, presentationTime: start,
                                duration: MediaTime(value: s.end - s.start, timescale: scale), isSync: true,
                                formatDescription: format)
        }
    }
}
