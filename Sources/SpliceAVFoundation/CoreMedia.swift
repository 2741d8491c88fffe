// CoreMedia's Swift spellings over Splice's time types: `CMTime` is `MediaTime`, `CMTimeRange`
// is `TimeRange` (the same rational arithmetic, rounding and invalid/infinite values).
@_exported import Splice

/// CoreMedia's rational time: Splice's `MediaTime`.
public typealias CMTime = MediaTime
/// CoreMedia's time range: Splice's `TimeRange`.
public typealias CMTimeRange = TimeRange
/// A time's numerator.
public typealias CMTimeValue = Int64
/// A time's denominator (ticks per second).
public typealias CMTimeScale = Int32
/// A track ID. Splice's are `Int` (CoreMedia's `Int32`): the values are the same.
public typealias CMPersistentTrackID = Int
/// "No particular track ID": `addMutableTrack(withMediaType:preferredTrackID:)` takes the next free one.
public let kCMPersistentTrackID_Invalid: CMPersistentTrackID = 0

/// 0 s.
public let kCMTimeZero = CMTime.zero
/// A time that is no time (not numeric).
public let kCMTimeInvalid = CMTime.invalid
/// +∞.
public let kCMTimePositiveInfinity = CMTime.positiveInfinity
/// −∞.
public let kCMTimeNegativeInfinity = CMTime.negativeInfinity
/// An empty range at 0.
public let kCMTimeRangeZero = CMTimeRange.zero

/// `value / timescale` seconds.
public func CMTimeMake(value: CMTimeValue, timescale: CMTimeScale) -> CMTime { CMTime(value: value, timescale: timescale) }

/// `seconds` in `preferredTimescale` ticks, rounded to the nearest.
public func CMTimeMakeWithSeconds(_ seconds: Double, preferredTimescale: CMTimeScale) -> CMTime {
    CMTime(seconds: seconds, preferredTimescale: preferredTimescale)
}

/// The time in seconds (NaN for a time that is not numeric, ±∞ for the infinities).
public func CMTimeGetSeconds(_ time: CMTime) -> Double { time.seconds }

/// `lhs + rhs` (exact, in a common timescale).
public func CMTimeAdd(_ lhs: CMTime, _ rhs: CMTime) -> CMTime { lhs + rhs }

/// `lhs − rhs` (exact, in a common timescale).
public func CMTimeSubtract(_ lhs: CMTime, _ rhs: CMTime) -> CMTime { lhs - rhs }

/// `time × multiplier` (exact).
public func CMTimeMultiply(_ time: CMTime, multiplier: Int32) -> CMTime { time * Int64(multiplier) }

/// −1, 0 or 1 as `time1` is before, at or after `time2`.
public func CMTimeCompare(_ time1: CMTime, _ time2: CMTime) -> Int32 { time1 < time2 ? -1 : time1 == time2 ? 0 : 1 }

/// The earlier of two times.
public func CMTimeMinimum(_ time1: CMTime, _ time2: CMTime) -> CMTime { min(time1, time2) }

/// The later of two times.
public func CMTimeMaximum(_ time1: CMTime, _ time2: CMTime) -> CMTime { max(time1, time2) }

/// `time` in `newTimescale` ticks (CoreMedia's `CMTimeConvertScale`, rounding to the nearest).
public func CMTimeConvertScale(_ time: CMTime, timescale newTimescale: CMTimeScale) -> CMTime { time.convertScale(newTimescale) }

/// The range from `start` lasting `duration`.
public func CMTimeRangeMake(start: CMTime, duration: CMTime) -> CMTimeRange { CMTimeRange(start: start, duration: duration) }

/// The range from `start` to `end`.
public func CMTimeRangeFromTimeToTime(start: CMTime, end: CMTime) -> CMTimeRange { CMTimeRange(start: start, end: end) }

/// Where the range ends (`start + duration`).
public func CMTimeRangeGetEnd(_ range: CMTimeRange) -> CMTime { range.end }

extension MediaTime {
    /// CoreMedia's `CMTime.isIndefinite`: Splice has no indefinite times.
    public var isIndefinite: Bool { false }
    /// CoreMedia's `CMTime.isPositiveInfinity`.
    public var isPositiveInfinity: Bool { self == .positiveInfinity }
    /// CoreMedia's `CMTime.isNegativeInfinity`.
    public var isNegativeInfinity: Bool { self == .negativeInfinity }
}
