import MediaCore

/// Decoded pictures at a constant frame rate (`VideoOutputSettings.frameRate`): on a grid of
/// 1/rate s from the start of what is read (else from the first picture's time), each tick
/// shows the picture shown then — repeated when pictures are longer than a tick, left out when
/// several fall in one; ticks before the first picture show it.
final class ConstantRateCursor: SampleCursor {
    private let source: any SampleCursor
    /// One tick: `step` of 1/`scale` s (25 fps: 1000/25000; 29.97: 1000/29970).
    private let step: MediaTime
    private var shown: SampleBuffer?
    private var following: SampleBuffer?
    private var ended = false
    private var tick: Int64 = 0
    private let origin: MediaTime?

    init(_ source: any SampleCursor, frameRate: Double, from origin: MediaTime?) {
        self.source = source
        self.origin = origin
        step = MediaTime(value: 1000, timescale: max(1, (frameRate * 1000).rounded(saturating: Int32.self) ?? 1))
    }

    /// `cursor` at the settings' constant rate, if they ask for one, from `origin`.
    static func applying(_ settings: OutputSettings, to cursor: any SampleCursor, from origin: MediaTime?) -> any SampleCursor {
        guard case .video(let v) = settings, let rate = v.frameRate, rate > 0, rate.isFinite else { return cursor }
        return ConstantRateCursor(cursor, frameRate: rate, from: origin)
    }

    func next() throws -> SampleBuffer? {
        if shown == nil {
            guard let first = try source.next() else { return nil }
            shown = first
            tick = ((origin ?? first.presentationTimeStamp).seconds / step.seconds).rounded(saturating: Int64.self) ?? 0
        }
        while let current = shown {
            let time = MediaTime(value: tick * step.value, timescale: step.timescale)
            if following == nil, !ended {
                following = try source.next()
                ended = following == nil
            }
            // The picture shown until the next one's time (the last: until its own end).
            let until = following?.presentationTimeStamp ?? current.presentationTimeStamp + (current.duration.isNumeric ? current.duration : step)
            if time < until {
                tick += 1
                var out = current
                out.presentationTimeStamp = time
                out.decodeTimeStamp = time
                out.duration = step
                return out
            }
            shown = following
            following = nil
        }
        return nil
    }

    func close() {
        source.close()
        shown = nil
        following = nil
    }
}
