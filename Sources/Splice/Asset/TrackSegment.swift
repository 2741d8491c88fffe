import MediaCore

/// One edit of a track: a span of the movie timeline and the media it shows.
public struct TrackSegment: Sendable, Hashable {
    /// The span of the movie's timeline (in the movie timescale).
    public var target: TimeRange
    /// The media shown (in the media timescale), or `nil` for an empty edit.
    public var source: TimeRange?
    /// Playback rate of the media in this segment (1 = normal; 0 = dwell on one frame).
    public var rate: Double

    /// A segment showing `source` (nil: nothing) over `target` at `rate`.
    public init(target: TimeRange, source: TimeRange?, rate: Double = 1) {
        self.target = target
        self.source = source
        self.rate = rate
    }

    /// An empty edit: the track shows nothing during `target`.
    public var isEmpty: Bool { source == nil }

    /// The segments with each run that shows media continuously — the next one's media
    /// starting where the one before ends, at the same rate — made one segment. The picture
    /// is the same; players that handle one edit per track well (GStreamer never plays a
    /// multi-edit track's last edit) get one where the cuts allow it.
    public static func coalesced(_ segments: [TrackSegment]) -> [TrackSegment] {
        var out: [TrackSegment] = []
        for segment in segments {
            if let last = out.last, let a = last.source, let b = segment.source, last.rate == 1, segment.rate == 1,
               a.end == b.start, last.target.end == segment.target.start {
                out[out.count - 1] = TrackSegment(target: TimeRange(start: last.target.start, end: segment.target.end),
                                                  source: TimeRange(start: a.start, end: b.end))
            } else {
                out.append(segment)
            }
        }
        return out
    }
}
