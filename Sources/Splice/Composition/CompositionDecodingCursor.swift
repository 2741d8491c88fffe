import Foundation
import MediaCore
import FFmpegBridge

/// A composition track decoded: each segment's source read through its own timeline cursor and
/// `DecodingCursor` (its own decoder: segments may differ in codec), cut to the segment, and
/// moved (stretched, for a scaled segment) onto the composition's timeline in exact `MediaTime`
/// arithmetic; empty segments of audio are silence and of video black pictures (at the size
/// and rate of the first source's decoded pictures), so that sound and picture stay in step.
/// The reader wraps it like any decoded cursor (constant rate, prefetching), and what its
/// decoders skipped or said reaches the reader's warnings.
final class CompositionDecodingCursor: DecodedSampleCursor {
    private var segments: [CompositionTrackSegment]
    private let settings: OutputSettings
    private let range: TimeRange
    private let mediaType: MediaType
    private var current: (cursor: DecodingCursor, segment: CompositionTrackSegment)?
    private var silenceFormat: PCMBuffer.Format?
    /// Where the audio handed out so far ends (audio is made continuous).
    private var audioEnd: MediaTime?
    private var pending: [SampleBuffer] = []
    /// Silence still to hand out, up to here: made a buffer at a time when asked for (an
    /// empty segment may last an hour: `mix --at 3000` held 576 MB of it at once).
    private var silenceEnd: MediaTime?
    /// Video: the black picture shown over empty segments (made when first needed), how long
    /// each lasts, and the stretch still to show.
    private var black: (picture: PixelBuffer, step: MediaTime)?
    private var blackGap: TimeRange?
    private var blackGapIsNew = false
    private let blackSource: AssetTrack?
    /// The colour of the last decoded picture, which black pictures take.
    private var lastColor: PixelBuffer.Color = .unspecified
    /// A scaled audio segment's speed change (pitch kept) and where its output has got to.
    private var tempo: (filter: AudioTempo, clock: MediaTime)?
    /// What the decoders of the segments already read skipped and said.
    private var damagedBefore = 0
    private var messages: [String] = []

    init(track: AssetTrack, segments: [CompositionTrackSegment], settings: OutputSettings, timeRange: TimeRange) {
        self.segments = segments.filter { $0.targetRange.duration > .zero }
        self.settings = settings
        self.range = timeRange == .everything ? TimeRange(start: .zero, duration: track.timeRange.duration) : timeRange
        mediaType = track.mediaType
        blackSource = track.mediaType == .video ? segments.first(where: { !$0.isEmpty })?.sourceTrack : nil
        if case .audio(let a) = settings, let first = segments.first(where: { !$0.isEmpty })?.sourceTrack?.formatDescriptions.first {
            silenceFormat = PCMBuffer.Format(sampleFormat: a.sampleFormat, isPlanar: !a.isInterleaved,
                                             sampleRate: a.sampleRate ?? ((first.sampleRate ?? 48000).rounded(saturating: Int.self) ?? 48000),
                                             channelCount: a.channelCount ?? (first.channelCount ?? 2))
        }
    }

    var damagedPackets: Int { damagedBefore + (current?.cursor.damagedPackets ?? 0) }
    var timelineOrigin: MediaTime? { .zero }

    func takeDecoderMessages() -> [String] {
        defer { messages = [] }
        return messages + (current?.cursor.takeDecoderMessages() ?? [])
    }

    func next() throws -> SampleBuffer? {
        while true {
            if !pending.isEmpty { return pending.removeFirst() }
            if let silence = nextSilence() { return silence }
            if let picture = try nextBlack() { return picture }
            if let (cursor, segment) = current {
                if let s = try cursor.next() {
                    guard tempo != nil else { return place(s, segment) }
                    try stretch(s)
                    continue
                }
                endSegment()
                if tempo != nil {
                    try stretch(nil)
                    tempo = nil
                }
                fillSilence(to: min(segment.targetRange.end, range.end))
                continue
            }
            guard !segments.isEmpty else { return nil }
            try startSegment(segments.removeFirst())
        }
    }

    /// Opens the decoding of the part of `segment` shown inside the range (silence for an empty one).
    private func startSegment(_ segment: CompositionTrackSegment) throws {
        let shown = segment.targetRange.intersection(range)
        guard shown.duration > .zero else { return }
        guard let source = segment.sourceRange, let track = segment.sourceTrack else {
            if mediaType == .video { (blackGap, blackGapIsNew) = (shown, true) }
            return fillSilence(to: shown.end)
        }
        let target = segment.targetRange
        if mediaType == .audio, segment.isScaled {
            // Faster or slower at the same pitch (libavfilter's atempo), from the segment's start.
            tempo = (try AudioTempo(tempo: source.duration.seconds / target.duration.seconds), audioEnd ?? shown.start)
        }
        // The part of the source shown inside the range read.
        let read: TimeRange
        if segment.isScaled {
            let scale = source.start.timescale
            read = TimeRange(start: source.start + (shown.start - target.start).multiplied(by: source.duration, dividedBy: target.duration, timescale: scale),
                             end: source.start + (shown.end - target.start).multiplied(by: source.duration, dividedBy: target.duration, timescale: scale))
        } else {
            read = TimeRange(start: source.start + (shown.start - target.start), duration: shown.duration)
        }
        var uniform = settings
        if case .audio(var a) = settings, let format = silenceFormat {
            // One rate and layout for the whole track, whatever each source's.
            a.sampleRate = format.sampleRate
            a.channelCount = format.channelCount
            uniform = .audio(a)
        }
        // (from a sync sample whose pictures have recovered by the start)
        let from = TimeRange(start: try track.decodingStart(showing: read.start), end: read.end)
        current = (DecodingCursor(source: try CompositionSource.cursor(track, from, copies: true), track: track, settings: uniform, timeRange: read), segment)
    }

    /// Closes the segment's decoding, keeping what its decoder skipped and said.
    private func endSegment() {
        guard let (cursor, _) = current else { return }
        damagedBefore += cursor.damagedPackets
        messages += cursor.takeDecoderMessages()
        cursor.close()
        current = nil
    }

    /// Moves a decoded sample from its source's timeline onto the composition's (exactly: in the
    /// sample's timescale when the move is a whole number of its ticks).
    private func place(_ s: SampleBuffer, _ segment: CompositionTrackSegment) -> SampleBuffer {
        guard let source = segment.sourceRange else { return s }
        var out = s
        let scale = s.presentationTimeStamp.timescale
        if segment.isScaled {
            let target = segment.targetRange
            let t = target.start + (s.presentationTimeStamp - source.start).multiplied(by: target.duration, dividedBy: source.duration, timescale: scale)
            out.presentationTimeStamp = t
            out.decodeTimeStamp = t
            if s.duration.isNumeric { out.duration = s.duration.multiplied(by: target.duration, dividedBy: source.duration, timescale: scale) }
        } else {
            let delta = segment.targetRange.start - source.start
            out.presentationTimeStamp = (s.presentationTimeStamp + delta).inTimescaleIfExact(scale)
            out.decodeTimeStamp = (s.decodeTimeStamp + delta).inTimescaleIfExact(scale)
        }
        if mediaType == .audio { audioEnd = out.presentationTimeStamp + out.duration }
        if let picture = out.imageBuffer { lastColor = picture.color }
        return out
    }

    /// A scaled audio segment: `sample` (nil: the end) through the tempo filter, what comes out
    /// queued one after the other from where the segment's audio has got to.
    private func stretch(_ sample: SampleBuffer?) throws {
        guard let (filter, clock) = tempo else { return }
        let input = try sample?.pcmBuffer.map { pcm in try (pcm.storage as? Frame) ?? Frame.copying(pcm) }
        var at = clock
        for frame in try filter.process(input) {
            guard let pcm = frame.pcm, pcm.frameCount > 0 else { continue }
            let rate = Int32(clamping: pcm.format.sampleRate)
            let time = at.convertScale(rate)
            pending.append(SampleBuffer(pcm: pcm, presentationTimeStamp: time,
                                        formatDescription: FormatDescription(parameters: CodecParameters(pcm: pcm.format), codec: "lpcm")))
            at = time + MediaTime(value: Int64(widening: pcm.frameCount), timescale: rate)
        }
        tempo = (filter, at)
        audioEnd = at
    }

    /// Audio: silence from where the audio handed out ends to `end`, in whole samples (handed
    /// out by `nextSilence`).
    private func fillSilence(to end: MediaTime) {
        guard mediaType == .audio, silenceFormat != nil else { return }
        silenceEnd = silenceEnd.map { max($0, end) } ?? end
    }

    /// The next buffer of silence (up to 4,096 frames), or nil when there is none to hand out.
    private func nextSilence() -> SampleBuffer? {
        guard let end = silenceEnd, let format = silenceFormat else { return nil }
        let rate = Int32(clamping: format.sampleRate)
        let at = (audioEnd ?? range.start).convertScale(rate)
        let stop = end.convertScale(rate).value
        guard at.value < stop else {
            silenceEnd = nil
            return nil
        }
        let n = Int(clamping: min(stop - at.value, 4096))
        let planes = format.isPlanar ? format.channelCount : 1
        let bytes = [UInt8](repeating: 0, count: n * format.bytesPerFrame / planes)
        let pcm = PCMBuffer(format: format, frameCount: n,
                            storage: OwnedStorage(planes: Array(repeating: bytes, count: planes), strides: Array(repeating: bytes.count, count: planes)))
        audioEnd = at + MediaTime(value: Int64(widening: n), timescale: rate)
        return SampleBuffer(pcm: pcm, presentationTimeStamp: at, formatDescription: FormatDescription(parameters: CodecParameters(pcm: format), codec: "lpcm"))
    }

    /// The next black picture of an empty video segment, or nil when there is none to show.
    private func nextBlack() throws -> SampleBuffer? {
        guard let gap = blackGap, case .video(let v) = settings else { return nil }
        if black == nil {
            guard let track = blackSource, let dimensions = track.formatDescriptions.first?.dimensions else {
                throw MediaError(.invalidOperation, "a video track without pictures cannot be decoded")
            }
            let size = v.size.map { ($0.width, $0.height) } ?? v.size(forSource: dimensions.width, dimensions.height)
            let step = v.frameRate.flatMap { r in r > 0 && r.isFinite ? MediaTime(seconds: 1 / r, preferredTimescale: 90_000) : nil }
                ?? SmartVideoSource.frameDuration(of: track)
            black = (PixelBuffer.black(v.pixelFormat, width: size.0, height: size.1), step)
        }
        // (a stretch shorter than a frame is no black picture: the last one stays on screen)
        guard let (picture, step) = black, gap.start < gap.end, !(blackGapIsNew && gap.duration < step) else {
            blackGap = nil
            return nil
        }
        blackGapIsNew = false
        blackGap = TimeRange(start: gap.start + step, end: max(gap.start + step, gap.end))
        var shown = picture
        shown.color = lastColor
        let format = FormatDescription(parameters: CodecParameters(picture: shown), codec: FourCC(shown.pixelFormat.rawValue))
        return SampleBuffer(pixels: shown, presentationTimeStamp: gap.start, duration: min(step, gap.end - gap.start), formatDescription: format)
    }

    func close() {
        current?.cursor.close()
        current = nil
        segments = []
        pending = []
        silenceEnd = nil
        blackGap = nil
    }
}
