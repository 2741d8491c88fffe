/// A track's volume over time, with AVFoundation's audio-mix semantics: a volume set at a time
/// holds until the next setting; a ramp is linear in amplitude over its range and its end
/// volume holds after it; before the first setting (or with none) the volume is 1. A setting
/// that starts at or after another one replaces it from its start on.
///
/// Pure arithmetic, without FFmpeg: the mixer applies it sample by sample.
public struct GainCurve: Sendable, Hashable {
    /// One setting: `from` at `start` going linearly to `to` at `end` (a step: start == end).
    public struct Ramp: Sendable, Hashable {
        /// When the setting starts, in seconds.
        public var start: Double
        /// When the ramp reaches `to`, in seconds (`start` for a step).
        public var end: Double
        /// The volume at `start`.
        public var from: Float
        /// The volume at `end`, held after it.
        public var to: Float
    }

    /// Settings in start order.
    public private(set) var ramps: [Ramp] = []

    /// A curve without settings: volume 1 throughout.
    public init() {}

    /// The volume `volume` from `time` (seconds) on.
    public mutating func setVolume(_ volume: Float, at time: Double) {
        insert(Ramp(start: time, end: time, from: volume, to: volume))
    }

    /// A linear ramp from `from` at `start` to `to` at `end` (seconds).
    public mutating func setRamp(from: Float, to: Float, start: Double, end: Double) {
        insert(Ramp(start: start, end: max(start, end), from: from, to: to))
    }

    private mutating func insert(_ ramp: Ramp) {
        ramps.removeAll { $0.start == ramp.start }
        let i = ramps.firstIndex { $0.start > ramp.start } ?? ramps.endIndex
        ramps.insert(ramp, at: i)
    }

    /// The setting in force at `time`, if any.
    public func ramp(at time: Double) -> Ramp? {
        var found: Ramp?
        for r in ramps {
            if r.start <= time { found = r } else { break }
        }
        return found
    }

    /// The volume at `time` (seconds).
    public func volume(at time: Double) -> Float {
        guard let r = ramp(at: time) else { return 1 }
        guard time < r.end, r.end > r.start else { return r.to }
        return r.from + (r.to - r.from) * Float((time - r.start) / (r.end - r.start))
    }

    /// Multiplies `frames` interleaved frames of `channels` samples, the first at `time` seconds,
    /// by the volume at each sample's own time.
    public func apply(to samples: UnsafeMutableBufferPointer<Float>, frames: Int, channels: Int, time: Double, sampleRate: Double) {
        guard !ramps.isEmpty else { return }
        var i = 0
        while i < frames {
            let t = time + Double(i) / sampleRate
            let r = ramp(at: t)
            // The run of samples this setting covers, up to the next setting.
            let runEnd = ramps.first { $0.start > t }.map { min(frames, max(0, (($0.start - time) * sampleRate).rounded(saturating: Int.self, .up) ?? 0)) } ?? frames
            let last = max(i + 1, runEnd)
            if let r, r.end > r.start, t < r.end {
                for k in i..<last {
                    let tk = time + Double(k) / sampleRate
                    let g = tk < r.end ? r.from + (r.to - r.from) * Float((tk - r.start) / (r.end - r.start)) : r.to
                    for c in 0..<channels { samples[k * channels + c] *= g }
                }
            } else {
                let g = r?.to ?? 1
                if g != 1 { for k in (i * channels)..<(last * channels) { samples[k] *= g } }
            }
            i = last
        }
    }
}
