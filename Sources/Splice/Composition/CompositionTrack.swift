import Foundation
import MediaCore

/// A track of a `MutableComposition` (AVFoundation's `AVMutableCompositionTrack`). Safe to use
/// from several threads: its state is one value under one lock, and each edit is made whole
/// under it.
public final class CompositionTrack: @unchecked Sendable {   // all mutable state is in `state`
    public let trackID: Int
    public let mediaType: MediaType
    private let state = Locked(Segments())

    init(trackID: Int, mediaType: MediaType) {
        self.trackID = trackID
        self.mediaType = mediaType
    }

    /// The segments, in timeline order, without gaps (a gap is an empty segment).
    public var segments: [CompositionTrackSegment] { state[\.segments] }
    public var languageCode: String? { get { state[\.languageCode] } set { state[\.languageCode] = newValue } }
    public var extendedLanguageTag: String? { get { state[\.extendedLanguageTag] } set { state[\.extendedLanguageTag] = newValue } }
    public var isEnabled: Bool { get { state[\.isEnabled] } set { state[\.isEnabled] = newValue } }
    /// The media timescale written; 0: the first source track's.
    public var naturalTimeScale: Int32 { get { state[\.naturalTimeScale] } set { state[\.naturalTimeScale] = newValue } }
    /// The display matrix; nil: the first source track's.
    public var preferredTransform: AffineTransform2D? { get { state[\.preferredTransform] } set { state[\.preferredTransform] = newValue } }
    /// The alternate group (0: none); the enabled track of a group is its default.
    public var alternateGroup: Int { get { state[\.alternateGroup] } set { state[\.alternateGroup] = newValue } }
    /// The track's name (`hdlr`); nil: the first source track's.
    public var name: String? { get { state[\.name] } set { state[\.name] = newValue } }
    /// Its references to other tracks of the composition, by type (`tref`): track IDs.
    public var associations: [TrackAssociationType: [Int]] { state[\.associations] }

    /// Refers this track to `track` (AVFoundation's `addTrackAssociation(to:type:)`).
    public func addTrackAssociation(to track: CompositionTrack, type: TrackAssociationType) {
        guard track !== self else { return }
        state.withLock { s in
            if !(s.associations[type] ?? []).contains(track.trackID) { s.associations[type, default: []].append(track.trackID) }
        }
    }

    /// From 0 to the end of the last segment.
    public var timeRange: TimeRange { state.withLock { $0.timeRange } }

    /// Inserts `range` (on `track`'s asset's timeline) of `track` at `time`; what lies at or after
    /// `time` moves later. Past the track's end, the gap becomes an empty segment.
    /// - Throws: when the media types differ, the range is empty or lies past the source's end.
    public func insertTimeRange(_ range: TimeRange, of track: AssetTrack, at time: MediaTime) throws {
        guard track.mediaType == mediaType || (track.mediaType.isLegible && mediaType.isLegible) else {
            throw MediaError(.invalidOperation, "a \(track.mediaType) track cannot go into \(mediaType) track \(trackID)")
        }
        try CompositionTrack.check(range, within: TimeRange(start: .zero, end: max(track.timeRange.end, track.asset?.duration ?? .zero)),
                                   of: "\(track.asset?.url.lastPathComponent ?? "?") track \(track.trackID)")
        insert(range, of: track, at: time, padTo: range.duration, insertedAt: time)
    }

    /// Inserts nothing for `range.duration` at `range.start`; what follows moves later.
    public func insertEmptyTimeRange(_ range: TimeRange) {
        state.withLock { $0.insertEmpty(range) }
    }

    /// Removes `range`; what follows moves earlier.
    public func removeTimeRange(_ range: TimeRange) {
        state.withLock { $0.remove(range) }
    }

    /// Plays `range` in `duration`: its segments' target ranges scale, what follows moves.
    public func scaleTimeRange(_ range: TimeRange, toDuration duration: MediaTime) {
        state.withLock { $0.scale(range, toDuration: duration) }
    }

    /// Inserts `range` of `track` at `at`, making room for `room` at `insertedAt` first (a whole
    /// asset's range, of which this track may cover less).
    func insert(_ range: TimeRange, of track: AssetTrack, at: MediaTime, padTo room: MediaTime, insertedAt: MediaTime) {
        state.withLock { $0.insert(range, of: track, at: at, padTo: room, insertedAt: insertedAt) }
    }

    /// AVFoundation's rule: a range must be non-empty and lie within its source.
    static func check(_ range: TimeRange, within source: TimeRange, of name: String) throws {
        guard range.start.isNumeric, range.duration.isNumeric, range.duration > .zero else {
            throw MediaError(.invalidOperation, "\(name): the range \(range) is empty")
        }
        guard range.start >= source.start, range.end <= source.end else {
            throw MediaError(.invalidOperation, "\(name): the range \(String(format: "%.3f", range.start.seconds))–\(String(format: "%.3f", range.end.seconds)) s "
                             + "lies past its end (\(String(format: "%.3f", source.end.seconds)) s)")
        }
    }
}
