import Foundation
import MediaCore

/// A track of a `MutableComposition` (AVFoundation's `AVMutableCompositionTrack`). Safe to use
/// from several threads: its state is one value under one lock, and each edit is made whole
/// under it.
public final class CompositionTrack: Sendable {
    /// The track's ID in the composition.
    public let trackID: Int
    /// What the track carries.
    public let mediaType: MediaType
    private let state = Locked(Segments())
    /// How many edits the track has had: a composition's asset is made again when it changes.
    private let edits = Locked(0)
    /// The composition the track belongs to (for an `AssetTrack` of it: `assetTrack()`).
    var composition: MutableComposition? {
        get { owner.withLock { $0.composition } }
        set { owner.withLock { $0.composition = newValue } }
    }
    private struct Owner { weak var composition: MutableComposition? }
    private let owner = Mutex(Owner())

    /// Leaves `composition` (removed from it), unless another has taken the track since.
    func leave(_ composition: MutableComposition) {
        owner.withLock { if $0.composition === composition { $0.composition = nil } }
    }

    init(trackID: Int, mediaType: MediaType) {
        self.trackID = trackID
        self.mediaType = mediaType
    }

    /// Makes an edit whole under the track's lock, and counts it.
    private func edit(_ body: (inout Segments) -> Void) {
        state.withLock { body(&$0) }
        edits.withLock { $0 += 1 }
    }

    var editCount: Int { edits.withLock { $0 } }

    /// The track as a track of its composition's asset (`MutableComposition.asset()`): what
    /// AVFoundation's composition track is, an asset track.
    /// - Throws: when the track is no longer in a composition, or a source cannot be read.
    public func assetTrack() throws -> AssetTrack {
        guard let composition, let track = try composition.asset().track(withTrackID: trackID) else {
            throw MediaError(.invalidOperation, "composition track \(trackID) is not in a composition (it was removed, or the composition is gone)")
        }
        return track
    }

    /// The segments, in timeline order, without gaps (a gap is an empty segment).
    public var segments: [CompositionTrackSegment] { state[\.segments] }
    /// The ISO 639-2/T language written; nil: the first source track's.
    public var languageCode: String? { get { state[\.languageCode] } set { edit { $0.languageCode = newValue } } }
    /// The BCP 47 tag written (`elng`); nil: the first source track's.
    public var extendedLanguageTag: String? { get { state[\.extendedLanguageTag] } set { edit { $0.extendedLanguageTag = newValue } } }
    /// Whether the track is written enabled (true unless set).
    public var isEnabled: Bool { get { state[\.isEnabled] } set { edit { $0.isEnabled = newValue } } }
    /// The media timescale written; 0: the first source track's.
    public var naturalTimeScale: Int32 { get { state[\.naturalTimeScale] } set { edit { $0.naturalTimeScale = newValue } } }
    /// The display matrix; nil: the first source track's.
    public var preferredTransform: AffineTransform2D? { get { state[\.preferredTransform] } set { edit { $0.preferredTransform = newValue } } }
    /// The alternate group (0: none); the enabled track of a group is its default.
    public var alternateGroup: Int { get { state[\.alternateGroup] } set { edit { $0.alternateGroup = newValue } } }
    /// The track's name (`hdlr`); nil: the first source track's.
    public var name: String? { get { state[\.name] } set { edit { $0.name = newValue } } }
    /// Its references to other tracks of the composition, by type (`tref`): track IDs.
    public var associations: [TrackAssociationType: [Int]] { state[\.associations] }

    /// Refers this track to `track` (AVFoundation's `addTrackAssociation(to:type:)`).
    public func addTrackAssociation(to track: CompositionTrack, type: TrackAssociationType) {
        guard track !== self else { return }
        edit { s in
            if !(s.associations[type] ?? []).contains(track.trackID) { s.associations[type, default: []].append(track.trackID) }
        }
    }

    /// From 0 to the end of the last segment.
    public var timeRange: TimeRange { state.withLock { $0.timeRange } }

    /// Inserts `range` (on `track`'s asset's timeline) of `track` at `time`; what lies at or after
    /// `time` moves later. Past the track's end, the gap becomes an empty segment.
    /// - Throws: when the media types differ, the range is empty or lies past the source's end,
    ///   or `time` is negative.
    public func insertTimeRange(_ range: TimeRange, of track: AssetTrack, at time: MediaTime) throws {
        try CompositionTrack.check(insertionTime: time, into: "composition track \(trackID)")
        guard track.mediaType == mediaType || (track.mediaType.isLegible && mediaType.isLegible) else {
            throw MediaError(.invalidOperation, "a \(track.mediaType) track cannot go into \(mediaType) track \(trackID)")
        }
        try CompositionTrack.check(range, within: TimeRange(start: .zero, end: max(track.timeRange.end, track.origin.duration)),
                                   of: "\(track.origin.url.lastPathComponent) track \(track.trackID)")
        insert(range, of: track, at: time, padTo: range.duration, insertedAt: time)
    }

    /// Inserts nothing for `range.duration` at `range.start`; what follows moves later.
    public func insertEmptyTimeRange(_ range: TimeRange) {
        edit { $0.insertEmpty(range) }
    }

    /// Removes `range`; what follows moves earlier.
    public func removeTimeRange(_ range: TimeRange) {
        edit { $0.remove(range) }
    }

    /// Plays `range` in `duration`: its segments' target ranges scale, what follows moves.
    public func scaleTimeRange(_ range: TimeRange, toDuration duration: MediaTime) {
        edit { $0.scale(range, toDuration: duration) }
    }

    /// Inserts `range` of `track` at `at`, making room for `room` at `insertedAt` first (a whole
    /// asset's range, of which this track may cover less).
    func insert(_ range: TimeRange, of track: AssetTrack, at: MediaTime, padTo room: MediaTime, insertedAt: MediaTime) {
        edit { $0.insert(range, of: track, at: at, padTo: room, insertedAt: insertedAt) }
    }

    /// Where an insertion goes: a time on the timeline, 0 or later (AVFoundation leaves a
    /// negative time undefined; Splice refuses it).
    static func check(insertionTime time: MediaTime, into name: String) throws {
        guard time.isNumeric, time >= .zero else {
            throw MediaError(.invalidOperation, "\(name): cannot insert at \(time.isNumeric ? String(format: "%.3f s", time.seconds) : "a time that is not a number"); "
                             + "the timeline starts at 0")
        }
    }

    /// AVFoundation's rule: a range must be non-empty and lie within its source.
    static func check(_ range: TimeRange, within source: TimeRange, of name: String) throws {
        func s(_ t: MediaTime) -> String { String(format: "%.3f", t.seconds) }
        guard range.start.isNumeric else { throw MediaError(.invalidOperation, "\(name): a range must start at a time in seconds") }
        guard range.duration.isNumeric else {
            throw MediaError(.invalidOperation, "\(name): the range from \(s(range.start)) s has no end (give its duration in seconds)")
        }
        guard range.duration > .zero else {
            throw MediaError(.invalidOperation, "\(name): the range \(s(range.start))–\(s(range.end)) s is empty")
        }
        guard range.start >= source.start else {
            throw MediaError(.invalidOperation, "\(name): the range \(s(range.start))–\(s(range.end)) s starts before 0")
        }
        guard range.end <= source.end else {
            throw MediaError(.invalidOperation, "\(name): the range \(s(range.start))–\(s(range.end)) s lies past its end (\(s(source.end)) s)")
        }
    }
}
