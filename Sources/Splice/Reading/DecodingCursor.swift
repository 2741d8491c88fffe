import Foundation
import MediaCore
import ISOBMFF
import FFmpegBridge

/// Decoded output of a track: the compressed samples of its timeline cursor through libavcodec
/// and a converter, cut frame-exactly to the range read — pictures shown before the start or
/// from the end on are dropped, audio is cut to the sample (AAC priming and an edit's trimmed
/// end removed).
final class DecodingCursor: DecodedSampleCursor {
    private let source: any SampleCursor
    private let trackID: Int
    private let settings: OutputSettings
    /// The span of the timeline handed out.
    private var start: MediaTime
    private var end: MediaTime
    private var decoder: Decoder?
    private var audio: AudioConverter?
    private var pictures: PictureConverter?
    /// HDR to SDR, when the settings ask for it and the pictures are HDR (made at the first).
    private var toneMapper: ToneMapper?
    private var trackParameters: CodecParameters?
    private var ready: [SampleBuffer] = []
    private var drained = false
    /// Where the compressed samples fed so far stop being shown (an audio edit's end).
    private var presentationEnd: MediaTime?
    /// Whether the last sample fed said how much of it is not shown (`trimDurationAtEnd`).
    private var endIsTrimmed = false
    private var timescale: Int32 = 0
    private var frameDuration = MediaTime.invalid
    /// Where the audio converted so far ends (what the resampler gives at the end follows it).
    private var audioClock: MediaTime?
    private var framesDecoded = 0

    init(source: any SampleCursor, track: AssetTrack, settings: OutputSettings, timeRange: TimeRange) {
        self.source = source
        trackID = track.trackID
        self.settings = settings
        start = timeRange == .everything ? (track.segments.isEmpty ? .zero : track.timeRange.start) : timeRange.start
        end = timeRange == .everything ? .positiveInfinity : timeRange.end
    }

    /// Damaged packets the decoder skipped.
    var damagedPackets: Int { decoder?.damagedPackets ?? 0 }
    var timelineOrigin: MediaTime? { nil }
    /// What the decoder said since the last call (its frame threads' lines included).
    func takeDecoderMessages() -> [String] { decoder?.log.take() ?? [] }

    func next() throws -> SampleBuffer? {
        while ready.isEmpty && !drained { try step() }
        return ready.isEmpty ? nil : ready.removeFirst()
    }

    func close() {
        source.close()
        ready = []
        drained = true
    }

    /// Feeds one compressed sample (or drains at the end) and collects the frames it gives.
    private func step() throws {
        guard let sample = try source.next() else {
            if let decoder {
                _ = try decoder.send(nil, presentationTime: 0, decodeTime: 0, duration: 0, isKeyFrame: false)
                try collect(from: decoder)
                if let rest = try audio?.flush(), let pcm = rest.pcm, let clock = audioClock {
                    try queueAudio(pcm, at: clock)
                }
            }
            drained = true
            // A range with no samples hands out nothing; samples that gave no frame are damage.
            if let decoder, framesDecoded == 0 {
                throw MediaError(.invalidData, "no frame could be decoded (\(decoder.damagedPackets) damaged packets)", location: "track \(trackID)")
            }
            return
        }
        let decoder = try self.decoder ?? makeDecoder(for: sample)
        let ts = timescale
        func ticks(_ t: MediaTime) -> Int64 { t.convertScale(ts).value }
        let shownEnd = sample.presentationTimeStamp + sample.duration - sample.trimDurationAtEnd
        presentationEnd = presentationEnd.map { max($0, shownEnd) } ?? shownEnd
        endIsTrimmed = sample.trimDurationAtEnd > .zero
        if frameDuration == .invalid, sample.duration > .zero { frameDuration = sample.duration }
        let data = try sample.loadData()
        while try !decoder.send(data, presentationTime: ticks(sample.presentationTimeStamp), decodeTime: ticks(sample.decodeTimeStamp),
                                duration: ticks(sample.duration), isKeyFrame: sample.isSync) {
            try collect(from: decoder)
        }
        try collect(from: decoder)
    }

    private func makeDecoder(for sample: SampleBuffer) throws -> Decoder {
        let format = sample.formatDescription
        let parameters = format.entryCodecParameters() ?? format.parameters
        guard !parameters.codecName.isEmpty else {
            throw MediaError(.unsupported, "'\(format.codec)' samples cannot be decoded", location: "track \(trackID)")
        }
        timescale = sample.decodeTimeStamp.timescale
        var threads = 0
        if case .video(let v) = settings { threads = v.decoderThreadCount }
        let decoder = try Decoder(parameters: parameters, timescale: timescale, threads: threads)
        trackParameters = parameters
        switch settings {
        case .audio(let a):
            audio = try AudioConverter(output: PCMBuffer.Format(
                sampleFormat: a.sampleFormat, isPlanar: !a.isInterleaved, sampleRate: a.sampleRate ?? 0,
                channelCount: a.channelCount ?? 0, channelLayoutMask: a.channelLayoutMask ?? 0))
        case .video(let v):
            if let exact = v.size {
                pictures = try PictureConverter(pixelFormat: v.pixelFormat, size: (exact.width + exact.width % 2, exact.height + exact.height % 2),
                                                letterbox: v.scalingMode == .resizeAspect)
            } else {
                pictures = try PictureConverter(pixelFormat: v.pixelFormat, size: v.size(forSource: parameters.width, parameters.height))
            }
        }
        self.decoder = decoder
        return decoder
    }

    private func collect(from decoder: Decoder) throws {
        while let frame = try decoder.receive() {
            framesDecoded += 1
            try emit(frame)
        }
    }

    /// Converts a decoded frame and queues what of it lies inside the span.
    private func emit(_ decoded: Frame) throws {
        if let audio {
            let frame = try audio.convert(decoded)
            guard let pcm = frame.pcm, pcm.frameCount > 0, let pts = decoded.presentationTime(timescale: timescale) else { return }
            try queueAudio(pcm, at: pts)
        } else if let pictures {
            // (pictures outside the span, a GOP's lead-in, are neither tone-mapped nor converted)
            guard let pts = decoded.presentationTime(timescale: timescale), pts >= start, pts < end else { return }
            guard let picture = try pictures.convert(try toneMapped(decoded)).picture else { return }
            let duration = decoded.duration(timescale: timescale) ?? frameDuration
            let format = FormatDescription(parameters: CodecParameters(picture: picture), codec: FourCC(picture.pixelFormat.rawValue))
            ready.append(SampleBuffer(pixels: picture, presentationTimeStamp: pts, duration: duration, formatDescription: format))
        }
    }

    /// `decoded` as SDR when the settings ask for tone mapping and it is HDR (by its own tags,
    /// else the track's), else `decoded`.
    private func toneMapped(_ decoded: Frame) throws -> Frame {
        guard case .video(let v) = settings, let mapping = v.toneMapping, let track = trackParameters else { return decoded }
        let own = decoded.colorTags
        guard own.isHDR || (own.transfer == 2 && track.color.isHDR) else { return decoded }
        if toneMapper == nil {
            let supported: Set<PixelBuffer.PixelFormat> = [.yuv420p, .yuv422p, .yuv444p, .yuv420p10le, .yuv422p10le, .yuv444p10le,
                                                           .yuv420p12le, .yuv422p12le, .yuv444p12le, .gray]
            toneMapper = try ToneMapper(mapping, pixelFormat: supported.contains(v.pixelFormat) ? v.pixelFormat : .yuv444p, color: track.color,
                                        masteringDisplay: track.masteringDisplay, contentLightLevel: track.contentLightLevel)
        }
        return try toneMapper!.convert(decoded)
    }

    /// Queues the part of `pcm` (shown from `time`) inside the span, cut to the sample.
    private func queueAudio(_ pcm: PCMBuffer, at time: MediaTime) throws {
        let rate = Int32(clamping: pcm.format.sampleRate)
        let slack = Int64(widening: max(1, rate / 500))   // 2 ms
        var first = time.convertScale(rate, method: .nearest).value
        // Decoded (and resampled) audio is one continuous stream, but each buffer carries its
        // packet's time: off from where the stream has got to by the resampler's delay, by
        // rounding (940 or 941 frames for 1,024 at 48 kHz into 44.1 kHz) and by the container's
        // precision (Matroska's milliseconds). Placed at those times, buffers overlapped or left
        // gaps of a frame or so, and the cut at the end of what was sent dropped frames: clicks.
        // Within 2 ms of the stream's own clock a buffer follows on.
        if let clock = audioClock, clock.timescale == rate {
            let offset = first.subtractingReportingOverflow(clock.value)
            if !offset.overflow, offset.partialValue.magnitude <= slack.magnitude { first = clock.value }
        }
        var lower = start.isNumeric ? start.convertScale(rate, method: .nearest).value : Int64.min
        var upper = first + Int64(widening: pcm.frameCount)
        if end.isNumeric { upper = min(upper, end.convertScale(rate, method: .nearest).value) }
        // The end of what was fed cuts a trimmed end (an edit's, padding), or audio past it by
        // more than the slack; not the rounding of packet durations (Matroska's 23 ms for 23.2).
        if let shown = presentationEnd?.convertScale(rate, method: .nearest).value {
            let past = upper.subtractingReportingOverflow(shown)
            if endIsTrimmed || past.overflow || past.partialValue > slack { upper = min(upper, shown) }
        }
        audioClock = MediaTime(value: first + Int64(widening: pcm.frameCount), timescale: rate)
        lower = max(lower, first)
        guard upper > lower else { return }
        let slice = lower == first && upper == first + Int64(widening: pcm.frameCount)
            ? pcm : pcm.copy(from: Int(widening: lower - first), count: Int(widening: upper - lower))
        let format = FormatDescription(parameters: CodecParameters(pcm: pcm.format), codec: "lpcm")
        ready.append(SampleBuffer(pcm: slice, presentationTimeStamp: MediaTime(value: lower, timescale: rate), formatDescription: format))
    }
}

extension CodecParameters {
    /// The description of decoded audio in `format`.
    init(pcm format: PCMBuffer.Format) {
        let names: [PCMBuffer.SampleFormat: String] = [.s16: "pcm_s16le", .s32: "pcm_s32le", .f32: "pcm_f32le"]
        self.init(mediaType: .audio, codecName: names[format.sampleFormat] ?? "")
        sampleRate = format.sampleRate
        channelCount = format.channelCount
        channelLayoutMask = format.channelLayoutMask
    }

    /// The description of decoded pictures like `picture`.
    init(picture: PixelBuffer) {
        self.init(mediaType: .video, codecName: "rawvideo")
        width = picture.width
        height = picture.height
        colorPrimaries = picture.color.primaries
        transferCharacteristics = picture.color.transfer
        matrixCoefficients = picture.color.matrix
        isFullRange = picture.color.isFullRange
    }
}

extension PCMBuffer {
    /// `count` frames from frame `offset`, copied.
    func copy(from offset: Int, count: Int) -> PCMBuffer {
        let bytesPerSample = format.sampleFormat.bytesPerSample
        let perFrame = format.isPlanar ? bytesPerSample : format.bytesPerFrame
        let planes = (0..<format.planeCount).map { p in
            withPlane(p) { Array($0[(offset * perFrame)..<((offset + count) * perFrame)]) }
        }
        return PCMBuffer(format: format, frameCount: count, storage: OwnedStorage(planes: planes, strides: planes.map(\.count)))
    }
}
