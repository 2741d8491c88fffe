import MediaCore

/// How one track is cut to a range of its asset's timeline: the one place Splice decides a cut.
/// `shown` is what the output shows (the range, within the track); `read` what is read for it —
/// the whole groups of pictures the range needs, from the sync sample shown at or before its
/// start (for AAC, from the packet before it: the decoder's pre-roll) to its end. What is read
/// before `shown` is there to be decoded, and the output's edit list hides it (a smart cut
/// re-encodes those frames instead).
///
/// A ranged copy (`TrackMirror`) decides one per track: the reader's output reads `read`, and the
/// writer's input keeps video only from `read`'s sync sample and shows `shown`. A composition's
/// layout records one per segment; jobs writing files without edit lists move it to sync
/// samples (`atSyncSamples(of:)`).
public struct TrackCut: Sendable, Hashable {
    /// What the output shows, on the asset's timeline.
    public let shown: TimeRange
    /// What is read to show it: from the sync sample shown at or before `shown`'s start.
    public let read: TimeRange

    /// A cut of explicit ranges (`read` starts at or before `shown`).
    init(shown: TimeRange, read: TimeRange) {
        self.shown = shown
        self.read = read
    }

    /// The cut of `track` to `range` (`.everything`: the whole track, read as it is).
    /// - Throws: when the track cannot be read to find its sync sample.
    public init(track: AssetTrack, range: TimeRange) throws {
        guard range != .everything else {
            self.init(shown: track.timeRange, read: track.timeRange)
            return
        }
        let shown = range.intersection(track.timeRange)
        // (an H.264 recovery point that recovers after the start is no start: the one before is)
        let start = shown.isEmpty ? shown.start : try track.recoveredSyncSampleTime(atOrBefore: shown.start) ?? shown.start
        self.init(shown: shown, read: TimeRange(start: start, end: shown.end))
    }

    /// Whether samples shown before `shown` are read (more than half a millisecond: times
    /// rounded between timescales do not count): only an edit list can hide them.
    public var startsBetweenSyncSamples: Bool {
        shown.start - read.start > MediaTime(value: 1, timescale: 2000)
    }

    /// The cut moved to sync samples, for files that cannot hide what is read: shown from where
    /// reading starts to the first sync sample at or after the end (the track's end when none
    /// follows, or when the cut reaches it).
    public func atSyncSamples(of track: AssetTrack) throws -> TrackCut {
        let end = shown.end >= track.timeRange.end ? shown.end : try track.syncSampleTime(atOrAfter: shown.end) ?? track.timeRange.end
        return TrackCut(shown: TimeRange(start: read.start, end: end), read: TimeRange(start: read.start, end: end))
    }

    /// Whether an end of `range` falls inside one of `track`'s audio frames (AAC's 1024 samples,
    /// counted from the media time its edit list starts at): such a cut cannot be copied
    /// sample-exactly, and the audio is re-encoded.
    static func cutsInsideAFrame(_ range: TimeRange, of track: AssetTrack) -> Bool {
        let shown = range == .everything ? track.timeRange : range.intersection(track.timeRange)
        guard shown != track.timeRange, let rate = track.formatDescriptions.first?.sampleRate, rate > 0 else { return false }
        let priming = track.segments.first(where: { !$0.isEmpty })?.source.map { $0.start.seconds * rate } ?? 0
        let trackStart = track.timeRange.start, frame = Double(CodecFacts.aac.frameSamples ?? 1024)
        for t in [shown.start, shown.end] where t > trackStart && t < track.timeRange.end {
            let samples = (t - trackStart).seconds * rate + priming
            if abs(samples - (samples / frame).rounded() * frame) > 0.5 { return true }
        }
        return false
    }
}
