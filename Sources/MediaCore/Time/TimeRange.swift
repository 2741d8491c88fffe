/// A span of media time: where it starts and how long it lasts.
public struct TimeRange: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Where the range starts.
    public var start: MediaTime
    /// How long it lasts (`.positiveInfinity`: without end).
    public var duration: MediaTime

    /// The range from `start` lasting `duration`.
    public init(start: MediaTime, duration: MediaTime) {
        self.start = start
        self.duration = duration
    }

    /// The range from `start` up to `end` (not included).
    public init(start: MediaTime, end: MediaTime) {
        self.start = start
        self.duration = end - start
    }

    /// Everything: from zero, without end. The default range of a reader.
    public static let everything = TimeRange(start: .zero, duration: .positiveInfinity)
    /// The empty range at zero.
    public static let zero = TimeRange(start: .zero, duration: .zero)

    /// Where the range ends (the first time after it).
    public var end: MediaTime { start + duration }
    /// Whether the range lasts no time.
    public var isEmpty: Bool { duration.isNumeric && duration.value == 0 }

    /// Whether `time` lies in `[start, end)`.
    public func contains(_ time: MediaTime) -> Bool { time >= start && time < end }

    /// The overlap of two ranges, or an empty range at the later start.
    public func intersection(_ other: TimeRange) -> TimeRange {
        let s = max(start, other.start), e = min(end, other.end)
        return e > s ? TimeRange(start: s, end: e) : TimeRange(start: s, duration: .zero)
    }

    /// "1.5 s to 3 s" (`debugDescription` gives the ticks).
    public var description: String { "\(start) to \(end)" }
    public var debugDescription: String { "[\(start.debugDescription), \(end.debugDescription))" }
}
