import Foundation
import MediaCore

/// A movie made of time ranges of other movies (AVFoundation's `AVMutableComposition`): tracks
/// whose segments each show a range of a source track, or nothing (an empty segment). Sources
/// may be any container Splice reads. `makeAsset()` turns it into an `Asset` that an
/// `AssetReader` reads (samples retimed onto the composition's timeline, or decoded) and an
/// `ExportSession` exports.
///
/// ```swift
/// let composition = MutableComposition()
/// try composition.insertTimeRange(TimeRange(start: .zero, duration: MediaTime(seconds: 5, preferredTimescale: 600)),
///                                 of: intro, at: .zero)
/// try composition.insertTimeRange(TimeRange(start: MediaTime(seconds: 60, preferredTimescale: 600), duration: MediaTime(seconds: 10, preferredTimescale: 600)),
///                                 of: talk, at: composition.duration)
/// let session = try ExportSession(asset: composition.makeAsset(), presetName: "passthrough")
/// ```
public final class MutableComposition: Sendable {
    private struct State: Sendable {
        var tracks: [CompositionTrack] = []
        var writesWithoutEditLists = false
        /// The asset last made, and the state it was made of.
        var made: (key: AssetKey, asset: Asset)?
    }

    /// What a made asset depends on: the tracks, each edit of them, the layout.
    private struct AssetKey: Equatable {
        var edits: [ObjectIdentifier: Int]
        var order: [ObjectIdentifier]
        var writesWithoutEditLists: Bool
    }
    /// Held for each edit as a whole (a track's own lock is taken inside it, never the other way).
    private let state = Locked(State())

    /// The tracks, in the order they were added.
    public var tracks: [CompositionTrack] { state[\.tracks] }
    /// Lay the composition out for a container without edit lists (Matroska, WebM, MPEG-TS):
    /// each segment's samples placed at its time, video samples shown from a segment's end on
    /// left out, no AAC pre-roll packet (which only an edit list can skip) — exact when segments
    /// start and end at sync samples (`AssetTrack.syncSampleTime(atOrBefore:)` and
    /// `(atOrAfter:)` find them). `false` (the default, for MP4/MOV): each segment brings the
    /// samples from its sync sample (and, for AAC, the packet before its start, so that the
    /// decoder does not click at the joins) and the edit list shows exactly its range.
    public var writesWithoutEditLists: Bool { get { state[\.writesWithoutEditLists] } set { state[\.writesWithoutEditLists] = newValue } }

    /// An empty composition.
    public init() {}

    /// Where the longest track ends.
    public var duration: MediaTime {
        tracks.map(\.timeRange.end).max() ?? .zero
    }

    /// Adds an empty track. `preferredTrackID` 0 (AVFoundation's `kCMPersistentTrackID_Invalid`)
    /// takes the next free ID; an ID already in use gives nil.
    @discardableResult
    public func addMutableTrack(withMediaType mediaType: MediaType, preferredTrackID: Int = 0) -> CompositionTrack? {
        state.withLock { addTrack(to: &$0.tracks, mediaType: mediaType, preferredTrackID: preferredTrackID) }
    }

    private func addTrack(to tracks: inout [CompositionTrack], mediaType: MediaType, preferredTrackID: Int) -> CompositionTrack? {
        let id = preferredTrackID > 0 ? preferredTrackID : (tracks.map(\.trackID).max() ?? 0) + 1
        guard !tracks.contains(where: { $0.trackID == id }) else { return nil }
        let track = CompositionTrack(trackID: id, mediaType: mediaType)
        track.composition = self
        tracks.append(track)
        return track
    }

    /// The track with ID `trackID`, if there is one.
    public func track(withTrackID trackID: Int) -> CompositionTrack? { tracks.first { $0.trackID == trackID } }

    /// The tracks of `mediaType`, in order.
    public func tracks(withMediaType mediaType: MediaType) -> [CompositionTrack] { tracks.filter { $0.mediaType == mediaType } }

    /// Takes `track` out of the composition.
    public func removeTrack(_ track: CompositionTrack) {
        state.withLock { $0.tracks.removeAll { $0 === track } }
        track.leave(self)
    }

    /// Inserts `range` of every video, audio and text track of `asset` at `time`: the n-th
    /// source track of a media type goes into the n-th composition track of that type (added
    /// when missing); every other track gets an empty range there, so that tracks stay in step.
    /// - Throws: when the range is empty or lies past the asset's end, or `time` is negative.
    public func insertTimeRange(_ range: TimeRange, of asset: Asset, at time: MediaTime) throws {
        try CompositionTrack.check(insertionTime: time, into: "the composition")
        try CompositionTrack.check(range, within: TimeRange(start: .zero, duration: asset.duration), of: asset.url.lastPathComponent)
        state.withLock { s in
            var used: [MediaType: Int] = [:]
            var filled: [CompositionTrack] = []
            var placed: [Int: CompositionTrack] = [:]
            for source in asset.tracks where [.video, .audio, .subtitle, .text].contains(source.mediaType) {
                let n = used[source.mediaType, default: 0]
                used[source.mediaType] = n + 1
                let existing = s.tracks.filter { $0.mediaType == source.mediaType }
                let target = n < existing.count ? existing[n] : addTrack(to: &s.tracks, mediaType: source.mediaType, preferredTrackID: 0)!
                let clipped = range.intersection(source.timeRange)
                if clipped.duration > .zero {
                    target.insert(clipped, of: source, at: time + (clipped.start - range.start), padTo: range.duration, insertedAt: time)
                } else {
                    target.insertEmptyTimeRange(TimeRange(start: time, duration: range.duration))
                }
                filled.append(target)
                placed[source.trackID] = target
            }
            for track in s.tracks where !filled.contains(where: { $0 === track }) {
                track.insertEmptyTimeRange(TimeRange(start: time, duration: range.duration))
            }
            // The asset's associations between the tracks it filled (fall, forc, folw, chap, …).
            for source in asset.tracks {
                guard let from = placed[source.trackID] else { continue }
                for (type, ids) in source.associations {
                    for id in ids { if let to = placed[id] { from.addTrackAssociation(to: to, type: type) } }
                }
            }
        }
    }

    /// Inserts nothing for `range.duration` at `range.start` in every track.
    public func insertEmptyTimeRange(_ range: TimeRange) {
        state.withLock { for t in $0.tracks { t.insertEmptyTimeRange(range) } }
    }

    /// Removes `range` from every track; what follows moves earlier.
    public func removeTimeRange(_ range: TimeRange) {
        state.withLock { for t in $0.tracks { t.removeTimeRange(range) } }
    }

    /// Plays `range` of every track in `duration`.
    public func scaleTimeRange(_ range: TimeRange, toDuration duration: MediaTime) {
        state.withLock { for t in $0.tracks { t.scaleTimeRange(range, toDuration: duration) } }
    }

    /// The composition as it is now, as an asset to read or export: a new one each call.
    /// - Throws: when a source cannot be read.
    public func makeAsset() throws -> Asset {
        try Asset(composition: self)
    }

    /// The composition as an asset: the same object until the composition changes, so that a
    /// reader of `asset()` takes outputs of `track.assetTrack()` (what AVFoundation's
    /// composition, itself an asset, does). `AssetReader`, `ExportSession`, the outputs and the
    /// mix and layer parameters take a composition and its tracks through it.
    /// - Throws: when a source cannot be read.
    public func asset() throws -> Asset {
        let key: AssetKey = state.withLock { s in
            AssetKey(edits: Dictionary(uniqueKeysWithValues: s.tracks.map { (ObjectIdentifier($0), $0.editCount) }),
                     order: s.tracks.map { ObjectIdentifier($0) }, writesWithoutEditLists: s.writesWithoutEditLists)
        }
        if let made = state[\.made], made.key == key { return made.asset }
        let asset = try makeAsset()
        state.withLock { $0.made = (key, asset) }
        return asset
    }
}

/// One segment of a composition track: a range of a source track shown over a range of the
/// composition's timeline, or nothing (`isEmpty`).
public struct CompositionTrackSegment: Sendable {
    /// The file the media comes from; nil for an empty segment.
    public var sourceURL: URL? { sourceTrack?.origin.url }
    /// The source track's ID; 0 for an empty segment.
    public var sourceTrackID: Int { sourceTrack?.trackID ?? 0 }
    /// The range of the source asset's timeline shown; nil for an empty segment.
    public var sourceRange: TimeRange?
    /// Where it is shown on the composition's timeline.
    public var targetRange: TimeRange
    /// Whether the segment shows nothing (a gap).
    public var isEmpty: Bool { sourceRange == nil }
    /// Whether the segment plays at another speed than its source (`scaleTimeRange`).
    public var isScaled: Bool {
        guard let sourceRange else { return false }
        return sourceRange.duration != targetRange.duration
    }

    /// The source track, which keeps its file and source alive (`AssetTrack.origin`).
    let sourceTrack: AssetTrack?

    init(source: AssetTrack?, sourceRange: TimeRange?, targetRange: TimeRange) {
        sourceTrack = source
        self.sourceRange = sourceRange
        self.targetRange = targetRange
    }
}
