import Foundation
import MediaCore
import FFmpegBridge

/// Several audio tracks mixed into one stream of PCM (AVFoundation's
/// `AVAssetReaderAudioMixOutput`): each track decoded and converted to one rate and layout
/// (libswresample), multiplied by its volume curve sample by sample, and summed in float. The
/// sum is clipped only when it is handed out (to ±1 in float, or to the integer format asked
/// for); `clippedSampleCount` says how many samples were.
///
/// ```swift
/// let mixed = AssetReaderAudioMixOutput(audioTracks: asset.tracks(withMediaType: .audio), audioSettings: nil)
/// mixed.audioMix = mix
/// try reader.add(mixed)
/// ```
public final class AssetReaderAudioMixOutput: SampleBufferSource, Sendable {
    /// The tracks mixed.
    public let audioTracks: [AssetTrack]
    /// The PCM handed out; nil: 32-bit float, interleaved, at the first track's rate and channel count.
    public let audioSettings: AudioOutputSettings?
    /// The volume curves; nil: every track at 1. Set before reading.
    public var audioMix: AudioMix? {
        get { mix.withLock { $0 } }
        set { mix.withLock { $0 = newValue } }
    }

    /// Frames per buffer handed out.
    static let blockFrames = 1024

    /// One decoding output per track, in the mix's common format (f32, interleaved).
    let outputs: [AssetReaderTrackOutput]
    private let mix = Mutex<AudioMix?>(nil)
    private let mixer: Mutex<Mixer>

    /// An output mixing `audioTracks` (of the reader's asset) into PCM of `audioSettings`.
    public init(audioTracks: [AssetTrack], audioSettings: AudioOutputSettings?) {
        self.audioTracks = audioTracks
        self.audioSettings = audioSettings
        let first = audioTracks.first?.formatDescriptions.first
        let rate = audioSettings?.sampleRate ?? ((first?.sampleRate ?? 48000).rounded(saturating: Int.self) ?? 48000)
        let channels = audioSettings?.channelCount ?? (first?.channelCount ?? 2)
        let format = PCMBuffer.Format(sampleFormat: .f32, isPlanar: false, sampleRate: max(1, rate), channelCount: max(1, channels))
        outputs = audioTracks.map { track in
            AssetReaderTrackOutput(track: track, outputSettings: .audio(AudioOutputSettings(sampleFormat: .f32, isInterleaved: true,
                                                                                          sampleRate: max(1, rate), channelCount: max(1, channels))))
        }
        mixer = Mutex(Mixer(outputs: outputs, trackIDs: audioTracks.map(\.trackID), format: format, audioSettings: audioSettings))
    }

    /// Samples the sum pushed past full scale (clipped when handed out), so far.
    public var clippedSampleCount: Int { mixer.withLock { $0.clipped } }

    /// The next mixed buffer (`blockFrames` frames, fewer at the end), or nil at the end (or when
    /// reading failed: the reader's `status` says).
    public func copyNextSampleBuffer() -> SampleBuffer? {
        let mix = audioMix
        return mixer.withLock { $0.next(mix: mix) }
    }
}

/// The mixing state of an `AssetReaderAudioMixOutput`, behind its lock.
private struct Mixer {
    let outputs: [AssetReaderTrackOutput]
    let trackIDs: [Int]
    let format: PCMBuffer.Format
    let audioSettings: AudioOutputSettings?
    var inputs: [Input] = []
    /// The next frame to mix, in frames of `format.sampleRate` from the start of the timeline.
    var position: Int64?
    var clipped = 0
    var converter: AudioConverter?

    /// A track's decoded samples waiting to be mixed: interleaved, from frame `start` on.
    struct Input {
        var samples: [Float] = []
        var start: Int64 = 0
        var ended = false
        var gain: GainCurve?
        /// A decoded buffer (from frame `first`) not queued yet: the silence before it goes in
        /// as it is needed, a block at a time (a file's times may jump by hours).
        var next: (first: Int64, values: [Float])?
    }

    /// The next mixed buffer, the tracks' gains taken from `mix` on the first call.
    mutating func next(mix: AudioMix?) -> SampleBuffer? {
        if inputs.isEmpty {
            inputs = trackIDs.map { Input(gain: mix?.parameters(forTrackID: $0)?.gain) }
        }
        let channels = format.channelCount
        let block = AssetReaderAudioMixOutput.blockFrames
        for i in inputs.indices { fill(i, through: (position ?? 0) + Int64(widening: block)) }
        if position == nil {
            // The mix starts where the earliest track does.
            position = inputs.filter { !$0.samples.isEmpty }.map(\.start).min() ?? 0
            for i in inputs.indices { fill(i, through: position! + Int64(widening: block)) }
        }
        guard let at = position else { return nil }
        let available = inputs.map { $0.start + Int64(widening: $0.samples.count / channels) }.max() ?? at
        let frames = Int(widening: min(Int64(widening: block), max(0, available - at)))
        guard frames > 0 else { return nil }
        var sum = [Float](repeating: 0, count: frames * channels)
        let time = Double(at) / Double(format.sampleRate)
        for i in inputs.indices {
            var part = take(i, from: at, frames: frames)
            if let gain = inputs[i].gain {
                part.withUnsafeMutableBufferPointer { gain.apply(to: $0, frames: frames, channels: channels, time: time, sampleRate: Double(format.sampleRate)) }
            }
            for k in sum.indices { sum[k] += part[k] }
        }
        for k in sum.indices where abs(sum[k]) > 1 {
            clipped += 1
            sum[k] = sum[k] > 0 ? 1 : -1
        }
        position = at + Int64(widening: frames)
        return hand(sum, frames: frames, at: at)
    }

    /// Pulls track `i`'s decoded samples until they reach frame `end` (or the track ends).
    private mutating func fill(_ i: Int, through end: Int64) {
        let channels = format.channelCount
        while inputs[i].start + Int64(widening: inputs[i].samples.count / channels) < end {
            if inputs[i].next == nil {
                guard !inputs[i].ended, let sample = outputs[i].copyNextSampleBuffer(), let pcm = sample.pcmBuffer else {
                    inputs[i].ended = true
                    break
                }
                let first = ((sample.presentationTimeStamp.seconds * Double(format.sampleRate)).rounded(saturating: Int64.self) ?? 0)
                var values = [Float](repeating: 0, count: pcm.frameCount * channels)
                pcm.withPlane(0) { raw in
                    values.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw.prefix($0.count))) }
                }
                if inputs[i].samples.isEmpty, position == nil {
                    inputs[i].start = first
                }
                inputs[i].next = (first, values)
            }
            guard let next = inputs[i].next else { break }
            var values = next.values
            let endOfQueue = inputs[i].start + Int64(widening: inputs[i].samples.count / channels)
            let gap = next.first.subtractingReportingOverflow(endOfQueue)
            if next.first > endOfQueue {
                // A gap: silence, up to `end` for now (the loop stops there).
                let needed = gap.overflow ? Int64.max : gap.partialValue
                let now = min(needed, end - endOfQueue)
                inputs[i].samples += [Float](repeating: 0, count: Int(widening: now) * channels)
                if now < needed { continue }
            } else if next.first < endOfQueue {
                // An overlap: the newer goes.
                let overlap = gap.overflow ? Int.max : Int(clamping: gap.partialValue.magnitude)
                values.removeFirst(min(values.count / channels, overlap) * channels)
            }
            inputs[i].samples += values
            inputs[i].next = nil
        }
    }

    /// Track `i`'s frames [`from`, `from + frames`), silence where it has none; drops what is taken.
    private mutating func take(_ i: Int, from: Int64, frames: Int) -> [Float] {
        let channels = format.channelCount
        var out = [Float](repeating: 0, count: frames * channels)
        let offset = Int(widening: from - inputs[i].start)
        if offset < 0 {
            let n = min(frames + offset, inputs[i].samples.count / channels)
            if n > 0 { out.replaceSubrange((-offset * channels)..<((-offset + n) * channels), with: inputs[i].samples[0..<(n * channels)]) }
            return out
        }
        let have = max(0, min(frames, inputs[i].samples.count / channels - offset))
        if have > 0 { out.replaceSubrange(0..<(have * channels), with: inputs[i].samples[(offset * channels)..<((offset + have) * channels)]) }
        let drop = min(inputs[i].samples.count, (offset + frames) * channels)
        if drop > 0 {
            inputs[i].samples.removeFirst(drop)
            inputs[i].start += Int64(widening: drop / channels)
        }
        return out
    }

    /// The mixed block as a sample buffer, in the format asked for.
    private mutating func hand(_ sum: [Float], frames: Int, at: Int64) -> SampleBuffer? {
        let bytes = sum.withUnsafeBytes { Array($0) }
        var pcm = PCMBuffer(format: format, frameCount: frames, storage: OwnedStorage(planes: [bytes], strides: [bytes.count]))
        if let wanted = audioSettings, wanted.sampleFormat != .f32 || !wanted.isInterleaved {
            do {
                let target = PCMBuffer.Format(sampleFormat: wanted.sampleFormat, isPlanar: !wanted.isInterleaved,
                                              sampleRate: format.sampleRate, channelCount: format.channelCount)
                if converter == nil { converter = try AudioConverter(output: target) }
                guard let converted = try converter?.convert(Frame.copying(pcm)).pcm else { return nil }
                pcm = converted
            } catch {
                return nil
            }
        }
        let time = MediaTime(value: at, timescale: Int32(clamping: format.sampleRate))
        return SampleBuffer(pcm: pcm, presentationTimeStamp: time, formatDescription: FormatDescription(parameters: CodecParameters(pcm: pcm.format), codec: "lpcm"))
    }
}
