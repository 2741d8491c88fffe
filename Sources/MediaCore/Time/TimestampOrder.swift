/// The rules that put a demuxed track's times in order, one frame at a time, as `ffmpeg` does
/// when it writes — shared by every reader that takes times from a container (libavformat's
/// packets, Splice's Matroska reader), so that one file reads the same through either:
///
/// - a decode time at the previous one, or behind it by at most the previous frame's duration,
///   moves a tick past it; one further behind drops the frame;
/// - a presentation time before the decode time pulls the decode time back to it (never behind
///   that floor), and is then raised to the decode time.
///
/// The times are the file's: the arithmetic saturates rather than traps.
public struct TimestampOrder: Sendable {
    /// How far past the previous decode time the next one must be: a tick, or none where times
    /// may repeat (subtitle cues that start together).
    private let step: Int64
    /// The previous frame's decode time (nil before the first).
    public private(set) var lastDecodeTime: Int64?
    /// The previous frame's duration: how far behind a decode time may be and still be moved.
    /// Set by the caller once it knows the duration.
    public var lastDuration: Int64 = 0
    /// Frames whose times were changed.
    public private(set) var repaired = 0
    /// Frames dropped: their decode time went back by more than a frame.
    public private(set) var dropped = 0
    /// The largest change made to a repaired frame's times, in ticks.
    public private(set) var largestRepair: Int64 = 0

    /// Rules for one track, from its first frame.
    /// - Parameter allowsRepeatedDecodeTimes: whether frames may share a decode time (subtitle
    ///   cues that start together); else each decode time must be a tick past the previous one.
    public init(allowsRepeatedDecodeTimes: Bool = false) {
        step = allowsRepeatedDecodeTimes ? 0 : 1
    }

    /// The frame's decode and presentation times in order after the previous frame's, or nil
    /// when it is dropped.
    /// - Parameter statedPresentationTime: whether the file states `presentationTime` (one
    ///   derived by the caller is not counted as repaired when it moves).
    public mutating func place(decodeTime: Int64, presentationTime: Int64,
                               statedPresentationTime: Bool = true) -> (decodeTime: Int64, presentationTime: Int64)? {
        var dts = decodeTime, pts = presentationTime
        let floor = lastDecodeTime.map { $0.addingSaturating(step) } ?? .min
        if dts < floor {
            guard floor.distanceSaturating(to: dts) <= max(lastDuration, 1) else {
                dropped += 1
                return nil
            }
            dts = floor
        }
        if pts < dts { dts = max(pts, floor) }
        pts = max(pts, dts)
        let moved = max(dts.distanceSaturating(to: decodeTime), statedPresentationTime ? pts.distanceSaturating(to: presentationTime) : 0)
        if moved > 0 {
            repaired += 1
            largestRepair = max(largestRepair, moved)
        }
        lastDecodeTime = dts
        return (dts, pts)
    }
}

extension Int64 {
    /// |self − other|, saturated at `Int64.max`.
    fileprivate func distanceSaturating(to other: Int64) -> Int64 {
        Int64(clamping: self > other ? UInt64(bitPattern: self &- other) : UInt64(bitPattern: other &- self))
    }
}
