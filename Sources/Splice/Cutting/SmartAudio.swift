import Foundation
import MediaCore
import ISOBMFF

/// The sound of a smart cut (AAC): one stream of 1024-sample frames from the output's start,
/// after one frame of encoder priming (the track's one edit hides it; none without edit lists).
///
/// Each span's sound is placed whole-frame: its packets land on the output's frame grid, moved
/// by less than half a frame from where the picture puts them (`offsets`). Packets are copied
/// except around each join (and the start, and a span without sound), where the sound is
/// decoded, joined with a short crossfade (`crossfade` samples: no click), and encoded. An
/// encoded stretch starts with one frame of the copied sound before it and ends with one frame
/// of the copied sound after it, so that the overlapping transforms of copied and encoded frames
/// represent the same signal and their aliasing cancels.
final class SmartAudioSource: SampleBufferSource, Sendable {
    /// AAC's frame, in samples.
    static let frame = CodecFacts.aac.frameSamples ?? 1024
    /// The crossfade at a join: 256 samples (5.3 ms at 48 kHz), unless a transition asks for more.
    static let crossfade = 256
    /// Samples of each join's linear crossfade, centred on it.
    private let crossfade: Int

    private enum Piece {
        /// Packets copied, each with its output start (in samples from the origin).
        case copy([(SampleBuffer, Int)])
        /// Samples [from, to) of the output, encoded (`keepsPriming`: the track's first frames).
        case encode(from: Int, to: Int, keepsPriming: Bool)
    }

    private struct Placed {
        let span: CutSpan
        /// Output samples of the span: [start, end).
        let start: Int, end: Int
        /// Output sample = source sample + offset (source samples counted from its time 0).
        let offset: Int
        /// The span's packets (decode order, from the one before its start) and their output starts.
        let packets: [(SampleBuffer, Int)]
    }

    let format: FormatDescription
    /// Samples per packet: 1024 (AAC), 960 (Opus: 20 ms, copied only).
    private let frame: Int
    private let rate: Int
    private let channels: Int
    private let origin: MediaTime
    private let length: Int
    private let placed: [Placed]
    private let pieces: [Piece]
    private let encoding: AudioEncodingSettings
    private let failure: @Sendable (MediaError) -> Void

    /// The next piece, the samples of the last one made not handed out yet, and the packets
    /// encoded and copied so far.
    private struct Progress {
        var next = 0
        var ready: [SampleBuffer] = []
        var counts = (encoded: 0, copied: 0)
    }

    private let progress = Mutex(Progress())

    /// Packets encoded and copied so far.
    var counts: (encoded: Int, copied: Int) { progress.withLock { $0.counts } }

    /// - Parameters:
    ///   - spans: the track's spans, in output order, from `origin`.
    ///   - reencodes: false for keyframe cuts: packets copied at every join, only spans without
    ///     sound encoded (silence).
    ///   - priming: the stream starts with the encoder's priming frame, which the track's edit
    ///     hides (MP4/MOV). Files without edit lists would play it, and players differ on where
    ///     their timeline starts then: there the first frame is the one at the origin (its
    ///     decoder starts it from nothing, as after any cut of AAC).
    ///   - crossfade: how long each join's crossfade lasts (a concat's transitions; nil: 256 samples).
    init(spans: [CutSpan], origin: MediaTime, reencodes: Bool, priming: Bool = true, crossfade: MediaTime? = nil,
         failure: @escaping @Sendable (MediaError) -> Void) throws {
        guard let first = spans.first(where: { $0.track != nil })?.track, let source = first.formatDescriptions.first,
              first.codecName == "aac" || (first.codecName == "opus" && !reencodes && !spans.contains { $0.track == nil }),
              let sampleRate = source.sampleRate, sampleRate >= 8000, sampleRate <= 384_000,
              let channels = first.codecName == "aac" ? SmartAudioSource.channels(of: source) : source.channelCount, channels > 0, channels <= 8 else {
            throw MediaError(.unsupported, "smart cut copies AAC sound (and Opus, whole packets)")
        }
        let frame = CodecFacts.of(first.codecName)?.frameSamples ?? SmartAudioSource.frame
        self.frame = frame
        guard let rate = sampleRate.rounded(saturating: Int.self, .towardZero) else { throw MediaError(.unsupported, "smart cut copies AAC sound") }
        self.rate = rate
        self.channels = channels
        let fade = crossfade.map { Int(widening: $0.convertScale(Int32(clamping: rate)).value) } ?? SmartAudioSource.crossfade
        self.crossfade = min(max(2, fade), 600 * rate)
        self.origin = origin
        self.failure = failure
        format = source
        let bitRate = max(64_000, min(320_000, ((first.estimatedDataRate / 16_000).rounded(saturating: Int.self) ?? 8) * 16_000))
        encoding = AudioEncodingSettings(codec: .aac, sampleRate: rate, channelCount: channels, bitRate: bitRate)
        let scale = Int32(clamping: rate)
        func sample(_ t: MediaTime) -> Int { Int(widening: (t - origin).convertScale(scale).value) }
        var placed: [Placed] = []
        for span in spans where !span.target.isEmpty {
            let (start, end) = (sample(span.target.start), sample(span.target.end))
            guard let track = span.track else {
                placed.append(Placed(span: span, start: start, end: end, offset: 0, packets: []))
                continue
            }
            guard track.codecName == first.codecName, let f = track.formatDescriptions.first, f.sampleRate == sampleRate,
                  f.parameters.extradata == source.parameters.extradata || track.codecName == "aac" && SmartAudioSource.channels(of: f) == channels else {
                throw MediaError(.unsupported, "smart cut joins sound of one codec, rate and channel count")
            }
            let packets = try track.packets(over: span.source)
            // Where the span's source time 0 lands, and the nearest offset that puts its packets on the grid.
            let ideal = (span.target.start - origin - span.source.start).convertScale(scale).value
            let phase = packets.first.map { Int(widening: $0.presentationTimeStamp.convertScale(scale).value % Int64(widening: frame)) } ?? 0
            let offset = SmartAudioSource.onGrid(Int(widening: ideal), phase: phase, frame: frame)
            // (times past what a sample count holds are refused, not wrapped)
            let starts = try packets.map { p in
                let (n, overflow) = Int(widening: p.presentationTimeStamp.convertScale(scale).value).addingReportingOverflow(offset)
                guard !overflow else { throw MediaError(.invalidData, "a sound packet's time is out of range", file: track.origin.url.path) }
                return n
            }
            placed.append(Placed(span: span, start: start, end: end, offset: offset, packets: Array(zip(packets, starts))))
        }
        self.placed = placed
        length = placed.last?.end ?? 0
        let made = reencodes ? SmartAudioSource.smartPieces(placed, length: length, priming: priming, crossfade: self.crossfade)
            : SmartAudioSource.keyframePieces(placed, length: length, priming: priming, frame: frame)
        // Encoded stretches of at most 480 frames (10 s at 48 kHz), each made from the signal
        // around it like any other: a long clip without sound takes no more memory than a short one.
        let most = 480 * SmartAudioSource.frame
        pieces = made.flatMap { piece -> [Piece] in
            guard case .encode(let from, let to, let priming) = piece, to - from > most else { return [piece] }
            return stride(from: from, to: to, by: most).map { .encode(from: $0, to: min(to, $0 + most), keepsPriming: priming && $0 == from) }
        }
    }

    /// The channels AAC frames carry: the AudioSpecificConfig's channel configuration (an MP4
    /// sample entry says 2 for mono too), else the entry's count.
    static func channels(of format: FormatDescription) -> Int? {
        AudioSpecificConfig(format.parameters.extradata)?.codedChannels ?? format.channelCount
    }

    /// The offset nearest `ideal` that puts packets starting at `phase` (+ offset) on the frame grid.
    private static func onGrid(_ ideal: Int, phase: Int, frame: Int) -> Int {
        let n = ideal + phase
        let r = ((n % frame) + frame) % frame
        return ideal - (r < frame / 2 ? r : r - frame)
    }

    /// Copied runs inside each span, clear of the crossfades and a frame of copied sound either
    /// side of them; encoded stretches between (the first with its priming).
    private static func smartPieces(_ placed: [Placed], length: Int, priming: Bool, crossfade: Int) -> [Piece] {
        var pieces: [Piece] = []
        var encodedFrom = 0
        let half = crossfade / 2
        for (k, p) in placed.enumerated() {
            let low = k == 0 ? frame : p.start + half
            let high = k == placed.count - 1 ? length + frame - 1 : p.end - half - frame
            let run = p.packets.filter { $0.1 >= low && $0.1 + frame <= high }
            let contiguous = run.count > 0 && zip(run, run.dropFirst()).allSatisfy { $1.1 - $0.1 == frame }
            guard contiguous, let firstStart = run.first?.1 else { continue }
            pieces.append(.encode(from: encodedFrom, to: firstStart, keepsPriming: priming && encodedFrom == 0))
            pieces.append(.copy(run))
            encodedFrom = run.last!.1 + frame
        }
        if encodedFrom < length { pieces.append(.encode(from: encodedFrom, to: length, keepsPriming: priming && encodedFrom == 0)) }
        return pieces.filter { if case .encode(let a, let b, _) = $0 { b > a } else { true } }
    }

    /// Keyframe cuts: each span's packets from the grid point nearest its start (the first span
    /// from one packet earlier with `priming`: the decoder's pre-roll, hidden by the edit); spans
    /// without sound encoded.
    private static func keyframePieces(_ placed: [Placed], length: Int, priming: Bool, frame: Int) -> [Piece] {
        func grid(_ n: Int) -> Int {   // the grid point nearest n
            let m = n + frame / 2
            return (m >= 0 ? m / frame : -((-m + frame - 1) / frame)) * frame
        }
        var pieces: [Piece] = []
        for (k, p) in placed.enumerated() {
            let low = k == 0 ? (priming ? -frame : 0) : grid(p.start)
            let high = k == placed.count - 1 ? length : grid(p.end)
            guard p.span.track != nil else {
                pieces.append(.encode(from: max(0, low), to: high, keepsPriming: priming && k == 0))
                continue
            }
            pieces.append(.copy(p.packets.filter { $0.1 >= low && $0.1 < high }))
        }
        return pieces
    }

    func copyNextSampleBuffer() -> SampleBuffer? {
        let (sample, error): (SampleBuffer?, MediaError?) = progress.withLock { p in
            while p.ready.isEmpty, p.next < pieces.count {
                do {
                    let piece = pieces[p.next]
                    let made = try samples(of: piece)
                    p.ready = made.reversed()
                    p.next += 1
                    if case .copy = piece { p.counts.copied += made.count } else { p.counts.encoded += made.count }
                } catch {
                    p.next = pieces.count
                    return (nil, error as? MediaError ?? MediaError(.io, "\(error)"))
                }
            }
            return (p.ready.popLast(), nil)
        }
        if let error { failure(error) }
        return sample
    }

    private func time(_ n: Int) -> MediaTime { origin + MediaTime(value: Int64(widening: n), timescale: Int32(clamping: rate)) }

    private func samples(of piece: Piece) throws -> [SampleBuffer] {
        switch piece {
        case .copy(let packets):
            return packets.map { (p, start) in
                var s = p
                s.presentationTimeStamp = time(start)
                s.decodeTimeStamp = s.presentationTimeStamp
                s.duration = MediaTime(value: Int64(widening: frame), timescale: Int32(clamping: rate))
                s.formatDescription = format
                s.trimDurationAtStart = .zero
                s.trimDurationAtEnd = .zero
                return s
            }
        case .encode(let from, let to, let keepsPriming):
            // The encoder's input starts two frames before the stretch and runs three past it:
            // the copied frames either side overlap its first and last frames, which then see the
            // same steady signal as those did (no block switch at a made-up start or end).
            let pre = keepsPriming ? 0 : 2 * SmartAudioSource.frame
            let pcm = try signal(from: from - pre, to: to + 3 * SmartAudioSource.frame)
            let stage = EncodingStage(settings: .audio(encoding), label: "smart cut")
            let buffer = PCMBuffer(format: PCMBuffer.Format(sampleFormat: .f32, isPlanar: false, sampleRate: rate, channelCount: channels),
                                   frameCount: pcm.count / channels,
                                   storage: OwnedStorage(planes: [pcm.withUnsafeBytes { Array($0) }], strides: [pcm.count * 4]))
            let scale = Int32(clamping: rate)
            var out = try stage.process(SampleBuffer(pcm: buffer, presentationTimeStamp: time(from - pre), formatDescription: format), timescale: scale)
            out += try stage.finish(timescale: scale)
            let kept = out.filter { s in
                let n = Int(widening: (s.presentationTimeStamp - origin).convertScale(scale).value)
                return (n >= from || keepsPriming) && n < to
            }.map { s -> SampleBuffer in
                var c = s
                c.formatDescription = format
                c.trimDurationAtStart = .zero
                c.trimDurationAtEnd = .zero
                return c
            }
            return kept
        }
    }

    /// The output's sound over samples [from, to), interleaved: each span's source placed at its
    /// offset, weighted by its window (linear ramps of `crossfade` samples centred on each join);
    /// silence where a span has no sound or its source none.
    private func signal(from: Int, to: Int) throws -> [Float] {
        var out = [Float](repeating: 0, count: max(0, to - from) * channels)
        let half = crossfade / 2
        for (k, p) in placed.enumerated() {
            let rampIn = k > 0, rampOut = k < placed.count - 1
            let low = max(from, rampIn ? p.start - half : from), high = min(to, rampOut ? p.end + half : to)
            guard high > low, let track = p.span.track else { continue }
            let source = try decode(track, from: low - p.offset, to: high - p.offset)
            for n in low..<high {
                var w: Float = 1
                if rampIn, n < p.start + half { w = min(w, Float(n - (p.start - half)) / Float(2 * half)) }
                if rampOut, n >= p.end - half { w = min(w, Float(p.end + half - n) / Float(2 * half)) }
                let i = (n - low) * channels, o = (n - from) * channels
                for c in 0..<channels { out[o + c] += w * source[i + c] }
            }
        }
        return out
    }

    /// `track`'s decoded sound over source samples [from, to) (interleaved; silence where it has none).
    private func decode(_ track: AssetTrack, from: Int, to: Int) throws -> [Float] {
        var out = [Float](repeating: 0, count: max(0, to - from) * channels)
        guard to > from else { return out }
        let asset = track.owningAsset
        let scale = Int32(clamping: rate)
        let reader = try AssetReader(asset: asset)
        let start = max(MediaTime.zero, MediaTime(value: Int64(widening: from), timescale: scale))
        let end = MediaTime(value: Int64(widening: to), timescale: scale)
        guard start < min(end, asset.duration) else { return out }
        reader.timeRange = TimeRange(start: start, end: min(end, asset.duration))
        let output = AssetReaderTrackOutput(track: track, outputSettings: .audio(AudioOutputSettings(sampleFormat: .f32, isInterleaved: true,
                                                                                                   sampleRate: rate, channelCount: channels)))
        try reader.add(output)
        guard reader.startReading() else { throw reader.error ?? MediaError(.io, "cannot read \(asset.url.lastPathComponent)") }
        defer { reader.cancelReading() }
        while let s = output.copyNextSampleBuffer() {
            guard let pcm = s.pcmBuffer else { continue }
            let first = Int(widening: s.presentationTimeStamp.convertScale(scale).value)
            pcm.withPlane(0) { raw in
                let floats = raw.bindMemory(to: Float.self)
                for f in 0..<pcm.frameCount {
                    let n = first + f - from
                    guard n >= 0, n < to - from else { continue }
                    for c in 0..<channels { out[n * channels + c] = floats[f * channels + c] }
                }
            }
        }
        if reader.status == .failed { throw reader.error ?? MediaError(.io, "cannot decode \(asset.url.lastPathComponent)") }
        return out
    }
}
