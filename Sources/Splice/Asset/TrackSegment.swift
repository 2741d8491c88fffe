import MediaCore

/// One edit of a track: a span of the movie timeline and the media it shows.
public struct TrackSegment: Sendable, Hashable {
    /// The span of the movie's timeline (in the movie timescale).
    public var target: TimeRange
    /// The media shown (in the media timescale), or `nil` for an empty edit.
    public var source: TimeRange?
    /// Playback rate of the media in this segment (1 = normal; 0 = dwell on one frame).
    public var rate: Double

    public init(target: TimeRange, source: TimeRange?, rate: Double = 1) {
        self.target = target
        self.source = source
        self.rate = rate
    }

    /// An empty edit: the track shows nothing during `target`.
    public var isEmpty: Bool { source == nil }
}
