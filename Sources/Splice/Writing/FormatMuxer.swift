import Foundation
import MediaCore
import ISOBMFF
import Subtitles
import FFmpegBridge

/// Writes Matroska, WebM, MPEG-TS and AVI through libavformat: one stream per input, declared
/// when the first samples are written (a stream's format is that of its first sample when the
/// input has no hint), packets handed to `av_interleaved_write_frame` in decode order.
final class FormatMuxer: Muxer {
    private let context: OutputFormatContext
    private let fileType: FileType
    private let formatName: String
    private let groups: [AssetWriterInputGroup]
    private let chapters: [Asset.Chapter]
    /// One input's stream: its index, its time base, ticks (of the input's timescale) added to
    /// its times, and ticks its decode times are moved earlier so that none comes after its
    /// presentation (negative composition offsets, which libavformat's muxers refuse).
    private struct Stream {
        var index: Int
        var timeBase: (num: Int32, den: Int32)
        var shift: Int64
        var lead: Int64
    }
    /// Packets handed to libavformat.
    private var packetsWritten = 0
    /// Per input; empty until the header is written.
    private var streams: [Stream] = []

    private let metadata: [MetadataItem]

    init(fileType: FileType, muxerName: String, file: OutputFile, groups: [AssetWriterInputGroup], chapters: [Asset.Chapter],
         metadata: [MetadataItem] = []) throws {
        self.metadata = metadata
        do {
            context = try OutputFormatContext(formatName: muxerName, file: file)
        } catch { throw error.mediaError }
        self.fileType = fileType
        formatName = muxerName
        self.groups = groups
        self.chapters = chapters
    }

    /// What a track's descriptions tell its decoder, per input (by index): the first is the one
    /// its stream is declared with; a sample refers to one by its description index.
    private var configurations: [Int: [Configuration]] = [:]
    /// Inputs that have written a sample of a description other than their first: from then on
    /// each of their H.264/HEVC sync samples carries its parameter sets in the samples (Matroska).
    private var changedDescription: Set<Int> = []
    /// Per input, the last sample's description and its number.
    private var lastDescription: [Int: (format: FormatDescription, index: UInt32)] = [:]

    /// A description as a decoder sees it (what differs between two descriptions that matters).
    private struct Configuration: Equatable {
        var codecName: String
        var extradata: [UInt8]
        var width: Int, height: Int, sampleRate: Int, channelCount: Int
        /// H.264/HEVC: the NAL length size and parameter sets of `extradata`.
        var nal: NALConfiguration?

        init(_ p: CodecParameters) {
            codecName = p.codecName
            extradata = p.extradata
            (width, height, sampleRate, channelCount) = (p.width, p.height, p.sampleRate, p.channelCount)
            nal = NALConfiguration(codecName: p.codecName, record: p.extradata)
        }
    }

    /// Numbers the distinct decoder configurations of an audio or video track (1 for its
    /// first). A change of H.264/HEVC parameter sets is carried into the stream (see
    /// `write`); any other codec whose configuration changes is refused, since the container
    /// has one configuration per stream and the later samples would not decode.
    func descriptionIndex(for sample: SampleBuffer, input: AssetWriterInput, index key: Int, label: String) throws -> UInt32 {
        guard input.mediaType == .video || input.mediaType == .audio else { return 1 }
        let format = sample.formatDescription
        // Most samples share their predecessor's description: no sample entry parsed for them.
        if let last = lastDescription[key], last.format == format { return last.index }
        // What a decoder sees of the description: its sample entry's mapping, or (samples read
        // through libavformat) its codec parameters.
        let config = Configuration(format.entryCodecParameters(mediaType: input.mediaType) ?? format.parameters)
        var known = configurations[key] ?? []
        if let i = known.firstIndex(of: config) {
            lastDescription[key] = (format, UInt32(clamping: i + 1))
            return UInt32(clamping: i + 1)
        }
        if let first = known.first {
            guard first.nal != nil, config.nal != nil, first.codecName == config.codecName else {
                let what = first.codecName == config.codecName ? "its \(config.codecName) configuration changes" : "its codec changes from \(first.codecName) to \(config.codecName)"
                throw MediaError(.unsupported, "\(label): \(what) partway (a second sample description), which \(formatName) "
                                 + "files cannot carry: they have one configuration per stream, so the later samples would not decode; "
                                 + "mp4 and mov can, or re-encode")
            }
        }
        known.append(config)
        configurations[key] = known
        lastDescription[key] = (format, UInt32(clamping: known.count))
        return UInt32(clamping: known.count)
    }

    func write(_ counts: [Int], of inputs: [AssetWriterInput], states: inout [InputState], session: WriterSession) throws {
        if streams.isEmpty { try start(inputs, states: &states, session: session) }
        var order: [(time: Double, input: Int, k: Int)] = []
        for (i, state) in states.enumerated() {
            let scale = Double(state.timescale)
            for k in 0..<counts[i] { order.append((Double(state.pending[k].decodeTime + streams[i].shift) / scale, i, k)) }
        }
        order.sort { ($0.time, $0.input, $0.k) < ($1.time, $1.input, $1.k) }
        // (what each write needs of its input's state, read once, not a copy of the state a sample)
        let tracks = states.map { Track(index: $0.index, label: $0.label, timescale: $0.timescale, firstFormat: $0.firstFormat) }
        for (_, i, k) in order { try write(states[i].pending[k], of: inputs[i], track: tracks[i], stream: streams[i], session: session) }
    }

    /// What writing a sample needs of its input's state.
    private struct Track {
        let index: Int
        let label: String
        let timescale: Int32
        let firstFormat: FormatDescription?
    }

    private func write(_ s: PendingSample, of input: AssetWriterInput, track state: Track, stream: Stream, session: WriterSession) throws {
        let scale = state.timescale
        func ticks(_ v: Int64) -> Int64 {
            MediaTime(value: v, timescale: scale).ticks(numerator: stream.timeBase.num, denominator: stream.timeBase.den)
        }
        var data: Data
        var owner: PacketBuffer?
        switch s.storage {
        case .bytes(let d): data = d
        case .file(let r):
            // Read straight into a packet buffer the muxer keeps by reference.
            let buffer = try PacketBuffer(count: r.length)
            try r.file.read(at: r.offset, into: buffer.bytes)
            owner = buffer
            data = buffer.bytes.count == 0 ? Data() : Data(bytesNoCopy: buffer.bytes.baseAddress!, count: buffer.bytes.count, deallocator: .none)
        case .pcm, .pixels: throw MediaError(.invalidOperation, "decoded samples reached the muxer without an encoder")
        }
        var configuration: [UInt8]?
        if let known = configurations[state.index], known.count > 1, let first = known.first,
           known.indices.contains(Int(widening: s.descriptionIndex) - 1) {
            let own = known[Int(widening: s.descriptionIndex) - 1]
            if s.descriptionIndex != 1 { changedDescription.insert(state.index) }
            if !fileType.startCodeCodecs.contains(first.codecName), let stream = first.nal, let nal = own.nal,
               changedDescription.contains(state.index) {
                // One configuration per stream, and no filter to put the new parameter sets in
                // band: they go in each sync sample.
                data = Data(try nal.inBand([UInt8](data), for: stream, withParameterSets: s.isSync))
                owner = nil
            } else if s.descriptionIndex != 1 {
                configuration = own.extradata
            }
        }
        let pts = s.decodeTime + stream.shift + s.compositionOffset
        let dts = s.decodeTime + stream.shift - stream.lead
        // A sample shown past the session's end lasts until it (a cut's last frame, partly shown:
        // the file's duration is the session's).
        var duration = s.duration
        if let end = session.end.map({ ($0 - session.start).convertScale(scale).value }), pts < end { duration = min(duration, end - pts) }
        var skipped = 0
        if s.trimDurationAtEnd > .zero, let rate = state.firstFormat?.sampleRate ?? input.sourceFormatHint?.sampleRate {
            skipped = max(0, min(1_000_000_000, (s.trimDurationAtEnd.seconds * rate).rounded(saturating: Int.self) ?? 0))
        }
        packetsWritten += 1
        do {
            try context.write(data, stream: stream.index, presentationTime: ticks(pts),
                              decodeTime: ticks(dts), duration: ticks(duration), isKeyFrame: s.isSync,
                              skippedSamplesAtEnd: skipped, configuration: configuration, owner: owner)
        } catch let error as MediaError where error.underlying is FFmpegError {
            // Name the sample, not libavformat's stream index and errno.
            let time = { (v: Int64) in String(format: "%.3f s", MediaTime(value: v, timescale: scale).seconds) }
            // (libavformat's stream index is not one the user knows: the track is named first.)
            let why = context.lastMessage.map { ": " + $0.replacingOccurrences(of: #" in stream \d+$"#, with: "", options: .regularExpression) } ?? ""
            throw MediaError(error.code, "\(state.label): the \(formatName) muxer refused the sample at decode time \(time(dts)), "
                             + "presentation time \(time(pts)) (\(data.count) bytes)\(why)")
        }
    }

    func finish(_ inputs: [AssetWriterInput], states: [InputState], session: WriterSession) throws {
        // libavformat 5.1 writes Matroska and WebM without a sample that its own reader cannot
        // open, and MPEG-TS as an empty file: no output is better than one that does not open.
        guard packetsWritten > 0 else {
            throw MediaError(.invalidData, "nothing to write: no track has a sample, and a \(formatName) file without any does not open")
        }
        try context.writeTrailer()
    }

    /// Adds one stream per input and writes the header (before the first packet).
    private func start(_ inputs: [AssetWriterInput], states: inout [InputState], session: WriterSession) throws {
        let assignments = AssetWriterInputGroup.assignments(groups)
        for (i, input) in inputs.enumerated() {
            let state = states[i]
            guard let format = state.firstFormat ?? input.sourceFormatHint else {
                throw MediaError(.invalidOperation, "\(state.label) has no samples and no format hint")
            }
            let codec: CodecParameters
            do {
                codec = try codecParameters(input, text: state.text, format: format, track: state.label)
            } catch var error as MediaError {
                error.trackID = error.trackID ?? input.sourceTrackID
                throw error
            }
            var metadata = StreamMetadata()
            metadata.isDefault = assignments[ObjectIdentifier(input)]?.enabled ?? input.marksOutputTrackAsEnabled
            let forcedTarget = inputs.contains { other in other.associations.contains { $0.type == .forcedSubtitlesOnly && $0.input === input } }
            let forcedText = [format, input.sourceFormatHint].contains { $0?.codec == "tx3g" && TX3G.isForcedOnly($0?.sampleEntry) }
            metadata.isForced = input.isForced || forcedTarget || forcedText || (state.text?.sawForcedText ?? false)
            metadata.isHearingImpaired = input.mediaCharacteristics.contains(.describesMusicAndSoundForAccessibility)
            metadata.isVisualImpaired = input.mediaCharacteristics.contains(.describesVideoForAccessibility)
            if let l = input.languageCode, l != "und" { metadata.language = fileType.bibliographicLanguages ? ISO639.bibliographic(l) : l }
            if let name = input.name, !MediaType.isDefaultHandlerName(name) { metadata.title = name }
            metadata.timecode = input.timecodeTag
            let scale = state.writtenTimescale(input, fallback: 1000)
            states[i].timescale = scale
            let rate = input.mediaType == .video ? input.frameRateHint ?? constantFrameRate(states[i]) : nil
            // AVI counts video time in frames, an index entry a tick: in a finer time base its
            // muxer writes empty frames between the real ones (1,725 of them in 3 s at 1/600).
            let timeBase = fileType == .avi ? rate.map { ($0.den, $0.num) } ?? (1, scale) : (1, scale)
            // NAL lengths and an avcC/hvcC record, for a muxer that takes start codes only.
            let toStartCodes = fileType.startCodeCodecs.contains(codec.codecName) && codec.configuration != nil
            let index = try context.addStream(codec, metadata: metadata, timeBase: timeBase, frameRate: rate,
                                              toStartCodes: toStartCodes)
            // Presentation on the movie timeline: the first edit's shift, less the session start.
            var shift = MediaTime.zero - session.start
            if let first = input.segments?.first(where: { !$0.isEmpty }), let source = first.source {
                shift = shift + first.target.start - source.start
            }
            let lead = max(input.presentationLead.convertScale(scale).value, -(state.pending.map(\.compositionOffset).min() ?? 0))
            streams.append(Stream(index: index, timeBase: (1, 1), shift: shift.convertScale(scale).value, lead: max(0, lead)))
        }
        // Chapters on the session's timeline: cut to it (a trim keeps what it shows of each),
        // those wholly outside left out.
        let shown = chapters.compactMap { c -> (String, Int64, Int64)? in
            let start = max(c.timeRange.start, session.start), end = min(c.timeRange.end, session.end ?? c.timeRange.end)
            guard start < end || (c.timeRange.isEmpty && start == c.timeRange.start) else { return nil }
            return (c.title, (start - session.start).convertScale(1000).value, (end - session.start).convertScale(1000).value)
        }
        if !shown.isEmpty { try context.setChapters(shown, timescale: 1000) }
        context.setFormatTags(metadata.compactMap { item in
            MetadataItem.movieKeys.first { $0.common == item.commonKey }.map { ($0.tag, item.value) }
        })
        try context.writeHeader()
        for i in streams.indices { streams[i].timeBase = context.timeBase(ofStream: streams[i].index) }
    }

    /// Frames per second when all but one in ten (or one) of the input's first samples last the
    /// same (at least two of them, in its timescale; the last one is not counted): Matroska's `DefaultDuration`.
    /// A stream cut out of a longer one (an MPEG-TS segment) may start with an odd first gap;
    /// variable-rate video gets none, so that readers take each frame's duration from the
    /// timestamps, not from a wrong default.
    private func constantFrameRate(_ state: InputState) -> (num: Int32, den: Int32)? {
        let first = state.pending.prefix(64).map(\.duration)
        let durations = first.count > 2 ? first.dropLast() : first[...]
        let counts = Dictionary(durations.map { ($0, 1) }, uniquingKeysWith: +)
        guard durations.count >= 2, let (d, n) = counts.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }),
              n >= 2, n >= durations.count - max(1, durations.count / 10), d > 0, d <= Int64(widening: Int32.max) else { return nil }
        return (state.timescale, Int32(truncatingIfNeeded: d))
    }

    /// The codec of an input's stream: its text packet format, or what its sample entry (or, for
    /// samples without one, its format's codec parameters) describes.
    private func codecParameters(_ input: AssetWriterInput, text facts: TextFacts?, format: FormatDescription, track: String) throws -> CodecParameters {
        var p: CodecParameters
        if TextConversion.isMP4Text(format) || (format.sampleEntry == nil && SubtitlePacketFormat(codecName: format.codecName ?? "") != nil) {
            guard let text = facts?.streamFormat else {
                throw MediaError(.unsupported, "\(track): \(formatName) files cannot hold text subtitles; mkv (SRT) and webm (WebVTT) can")
            }
            p = CodecParameters(mediaType: .subtitle, codecName: text.rawValue)
            p.extradata = facts?.header ?? []
        } else if let entry = format.sampleEntry {
            switch CodecMapping.extendedCoding(sampleEntry: [UInt8](entry), mediaType: input.mediaType) {
            case .mvHEVC?:
                throw MediaError(.unsupported, "\(track): \(CodecMapping.ExtendedCoding.mvHEVC.rawValue) cannot be carried in \(formatName) "
                                 + "files: they have no place for the second view's configuration, so a copy would lose it; mp4 and mov can")
            case .usac? where fileType.aacInADTS:
                throw MediaError(.unsupported, "\(track): \(CodecMapping.ExtendedCoding.usac.rawValue) cannot be carried in \(formatName) files: "
                                 + "they carry AAC in ADTS headers, which cannot say its object type; mp4, mov and mkv can")
            default: break
            }
            guard let c = format.entryCodecParameters(mediaType: input.mediaType) else {
                throw MediaError(.unsupported, "\(track): '\(format.codec)' samples cannot be written to \(formatName)")
            }
            if c.codecName == "dvd_subtitle" {
                throw MediaError(.unsupported, "\(track): VobSub from MP4 ('mp4s') cannot be written to \(formatName) files: its palette "
                                 + "(in 'esds') is not converted to the .idx header they store; mp4 and mov can hold it")
            }
            p = c
        } else if format.codecName != nil {
            p = format.parameters
        } else {
            throw MediaError(.unsupported, "\(track): '\(format.codec)' samples cannot be written to \(formatName)")
        }
        if let size = input.naturalSize, input.mediaType == .video { p.width = size.width; p.height = size.height }
        guard fileType.canHold(p.codecName) else {
            let others = FileType.containers(holding: p.codecName)
            throw MediaError(.unsupported, "\(track): \(formatName) files cannot hold \(p.codecName)"
                             + (others.isEmpty ? "" : "; \(others.joined(separator: ", ")) can"))
        }
        return p
    }
}
