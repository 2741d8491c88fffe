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
public final class MutableComposition: @unchecked Sendable {
    public private(set) var tracks: [CompositionTrack] = []
    /// Lay the composition out for a container without edit lists (Matroska, WebM, MPEG-TS):
    /// each segment's samples placed at its time, video samples shown from a segment's end on
    /// left out, no AAC pre-roll packet (which only an edit list can skip) — exact when segments
    /// start and end at sync samples (`AssetTrack.syncSampleTime(atOrBefore:)` and
    /// `(atOrAfter:)` find them). `false` (the default, for MP4/MOV): each segment brings the
    /// samples from its sync sample (and, for AAC, the packet before its start, so that the
    /// decoder does not click at the joins) and the edit list shows exactly its range.
    public var writesWithoutEditLists = false

    public init() {}

    /// Where the longest track ends.
    public var duration: MediaTime {
        tracks.map(\.timeRange.end).max() ?? .zero
    }

    /// Adds an empty track. `preferredTrackID` 0 (AVFoundation's `kCMPersistentTrackID_Invalid`)
    /// takes the next free ID; an ID already in use gives nil.
    @discardableResult
    public func addMutableTrack(withMediaType mediaType: MediaType, preferredTrackID: Int = 0) -> CompositionTrack? {
        let id = preferredTrackID > 0 ? preferredTrackID : (tracks.map(\.trackID).max() ?? 0) + 1
        guard !tracks.contains(where: { $0.trackID == id }) else { return nil }
        let track = CompositionTrack(trackID: id, mediaType: mediaType)
        tracks.append(track)
        return track
    }

    public func track(withTrackID trackID: Int) -> CompositionTrack? { tracks.first { $0.trackID == trackID } }

    public func tracks(withMediaType mediaType: MediaType) -> [CompositionTrack] { tracks.filter { $0.mediaType == mediaType } }

    public func removeTrack(_ track: CompositionTrack) { tracks.removeAll { $0 === track } }

    /// Inserts `range` of every video, audio and text track of `asset` at `time`: the n-th
    /// source track of a media type goes into the n-th composition track of that type (added
    /// when missing); every other track gets an empty range there, so that tracks stay in step.
    /// - Throws: when the range is empty or lies past the asset's end.
    public func insertTimeRange(_ range: TimeRange, of asset: Asset, at time: MediaTime) throws {
        try CompositionTrack.check(range, within: TimeRange(start: .zero, duration: asset.duration), of: asset.url.lastPathComponent)
        var used: [MediaType: Int] = [:]
        var filled: [CompositionTrack] = []
        var placed: [Int: CompositionTrack] = [:]
        for source in asset.tracks where [.video, .audio, .subtitle, .text].contains(source.mediaType) {
            let n = used[source.mediaType, default: 0]
            used[source.mediaType] = n + 1
            let existing = tracks(withMediaType: source.mediaType)
            let target = n < existing.count ? existing[n] : addMutableTrack(withMediaType: source.mediaType)!
            let clipped = range.intersection(source.timeRange)
            if clipped.duration > .zero {
                try target.insert(clipped, of: source, at: time + (clipped.start - range.start), padTo: range.duration, insertedAt: time)
            } else {
                target.insertEmptyTimeRange(TimeRange(start: time, duration: range.duration))
            }
            filled.append(target)
            placed[source.trackID] = target
        }
        for track in tracks where !filled.contains(where: { $0 === track }) {
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

    /// Inserts nothing for `range.duration` at `range.start` in every track.
    public func insertEmptyTimeRange(_ range: TimeRange) {
        for t in tracks { t.insertEmptyTimeRange(range) }
    }

    /// Removes `range` from every track; what follows moves earlier.
    public func removeTimeRange(_ range: TimeRange) {
        for t in tracks { t.removeTimeRange(range) }
    }

    /// Plays `range` of every track in `duration`.
    public func scaleTimeRange(_ range: TimeRange, toDuration duration: MediaTime) {
        for t in tracks { t.scaleTimeRange(range, toDuration: duration) }
    }

    /// The composition as it is now, as an asset to read or export.
    /// - Throws: when a source cannot be read.
    public func makeAsset() throws -> Asset {
        try Asset(composition: self)
    }
}

/// One segment of a composition track: a range of a source track shown over a range of the
/// composition's timeline, or nothing (`isEmpty`).
public struct CompositionTrackSegment: Sendable {
    /// The file the media comes from; nil for an empty segment.
    public var sourceURL: URL? { sourceTrack?.asset?.url }
    /// The source track's ID; 0 for an empty segment.
    public var sourceTrackID: Int { sourceTrack?.trackID ?? 0 }
    /// The range of the source asset's timeline shown; nil for an empty segment.
    public var sourceRange: TimeRange?
    /// Where it is shown on the composition's timeline.
    public var targetRange: TimeRange
    public var isEmpty: Bool { sourceRange == nil }
    /// Whether the segment plays at another speed than its source (`scaleTimeRange`).
    public var isScaled: Bool {
        guard let sourceRange else { return false }
        return sourceRange.duration != targetRange.duration
    }

    let sourceTrack: AssetTrack?
    /// Keeps the source asset alive (an `AssetTrack` holds its asset weakly).
    let sourceAsset: Asset?

    init(source: AssetTrack?, sourceRange: TimeRange?, targetRange: TimeRange) {
        sourceTrack = source
        sourceAsset = source?.asset
        self.sourceRange = sourceRange
        self.targetRange = targetRange
    }
}

/// A track of a `MutableComposition` (AVFoundation's `AVMutableCompositionTrack`).
public final class CompositionTrack: @unchecked Sendable {
    public let trackID: Int
    public let mediaType: MediaType
    /// The segments, in timeline order, without gaps (a gap is an empty segment).
    public private(set) var segments: [CompositionTrackSegment] = []
    public var languageCode: String?
    public var extendedLanguageTag: String?
    public var isEnabled = true
    /// The media timescale written; 0: the first source track's.
    public var naturalTimeScale: Int32 = 0
    /// The display matrix; nil: the first source track's.
    public var preferredTransform: AffineTransform2D?
    /// The alternate group (0: none); the enabled track of a group is its default.
    public var alternateGroup = 0
    /// The track's name (`hdlr`); nil: the first source track's.
    public var name: String?
    /// Its references to other tracks of the composition, by type (`tref`): track IDs.
    public private(set) var associations: [TrackAssociationType: [Int]] = [:]

    /// Refers this track to `track` (AVFoundation's `addTrackAssociation(to:type:)`).
    public func addTrackAssociation(to track: CompositionTrack, type: TrackAssociationType) {
        guard track !== self, !(associations[type] ?? []).contains(track.trackID) else { return }
        associations[type, default: []].append(track.trackID)
    }
    /// Whether a source track's properties were taken (by the first insertion).
    private var adopted = false

    init(trackID: Int, mediaType: MediaType) {
        self.trackID = trackID
        self.mediaType = mediaType
    }

    /// From 0 to the end of the last segment.
    public var timeRange: TimeRange {
        TimeRange(start: .zero, duration: segments.last.map(\.targetRange.end) ?? .zero)
    }

    /// Inserts `range` (on `track`'s asset's timeline) of `track` at `time`; what lies at or after
    /// `time` moves later. Past the track's end, the gap becomes an empty segment.
    /// - Throws: when the media types differ, the range is empty or lies past the source's end.
    public func insertTimeRange(_ range: TimeRange, of track: AssetTrack, at time: MediaTime) throws {
        guard track.mediaType == mediaType || (track.mediaType.isLegible && mediaType.isLegible) else {
            throw MediaError(.invalidOperation, "a \(track.mediaType) track cannot go into \(mediaType) track \(trackID)")
        }
        try CompositionTrack.check(range, within: TimeRange(start: .zero, end: max(track.timeRange.end, track.asset?.duration ?? .zero)),
                                   of: "\(track.asset?.url.lastPathComponent ?? "?") track \(track.trackID)")
        try insert(range, of: track, at: time, padTo: range.duration, insertedAt: time)
    }

    /// Inserts nothing for `range.duration` at `range.start`; what follows moves later.
    public func insertEmptyTimeRange(_ range: TimeRange) {
        guard range.duration > .zero else { return }
        open(at: range.start)
        shift(from: range.start, by: range.duration)
        place(CompositionTrackSegment(source: nil, sourceRange: nil, targetRange: range))
    }

    /// Removes `range`; what follows moves earlier.
    public func removeTimeRange(_ range: TimeRange) {
        guard range.duration > .zero, range.start < timeRange.end else { return }
        let end = min(range.end, timeRange.end)
        split(at: range.start)
        split(at: end)
        segments.removeAll { $0.targetRange.start >= range.start && $0.targetRange.end <= end }
        shift(from: end, by: .zero - (end - range.start))
        trimTrailingEmpty()
    }

    /// Plays `range` in `duration`: its segments' target ranges scale, what follows moves.
    public func scaleTimeRange(_ range: TimeRange, toDuration duration: MediaTime) {
        guard range.duration > .zero, duration > .zero, range.start < timeRange.end else { return }
        let end = min(range.end, timeRange.end)
        split(at: range.start)
        split(at: end)
        let factor = duration.seconds / range.duration.seconds
        let scale = max(Int32(600), segments.first { !$0.isEmpty }?.sourceTrack?.naturalTimeScale ?? 600)
        var cursor = range.start
        for i in segments.indices where segments[i].targetRange.start >= range.start && segments[i].targetRange.end <= end {
            let d = MediaTime(seconds: segments[i].targetRange.duration.seconds * factor, preferredTimescale: scale)
            segments[i].targetRange = TimeRange(start: cursor, duration: d)
            cursor = cursor + d
        }
        let delta = cursor - end
        for i in segments.indices where segments[i].targetRange.start >= end {
            segments[i].targetRange.start = segments[i].targetRange.start + delta
        }
    }

    // MARK: Segment arithmetic

    /// Inserts `range` of `track` at `at`, making room for `room` at `insertedAt` first (a whole
    /// asset's range, of which this track may cover less).
    func insert(_ range: TimeRange, of track: AssetTrack, at: MediaTime, padTo room: MediaTime, insertedAt: MediaTime) throws {
        open(at: insertedAt)
        shift(from: insertedAt, by: room)
        if at > insertedAt { place(CompositionTrackSegment(source: nil, sourceRange: nil, targetRange: TimeRange(start: insertedAt, end: at))) }
        place(CompositionTrackSegment(source: track, sourceRange: range, targetRange: TimeRange(start: at, duration: range.duration)))
        let after = at + range.duration, end = insertedAt + room
        if end > after { place(CompositionTrackSegment(source: nil, sourceRange: nil, targetRange: TimeRange(start: after, end: end))) }
        if naturalTimeScale == 0 { naturalTimeScale = track.naturalTimeScale }
        if preferredTransform == nil, track.mediaType == .video { preferredTransform = track.preferredTransform }
        if !adopted {
            // The first source track gives its language, flags and group (each can be set after).
            adopted = true
            languageCode = languageCode ?? track.languageCode
            extendedLanguageTag = extendedLanguageTag ?? track.extendedLanguageTag
            isEnabled = track.isEnabled
            alternateGroup = track.alternateGroup
            name = name ?? track.name
        }
    }

    /// Makes `time` a segment boundary: past the end, the gap becomes an empty segment.
    private func open(at time: MediaTime) {
        let end = timeRange.end
        if time > end {
            segments.append(CompositionTrackSegment(source: nil, sourceRange: nil, targetRange: TimeRange(start: end, end: time)))
        } else {
            split(at: time)
        }
    }

    /// Splits the segment that `time` falls inside into two.
    private func split(at time: MediaTime) {
        guard let i = segments.firstIndex(where: { $0.targetRange.start < time && time < $0.targetRange.end }) else { return }
        let s = segments[i]
        let head = TimeRange(start: s.targetRange.start, end: time), tail = TimeRange(start: time, end: s.targetRange.end)
        var first = s, second = s
        first.targetRange = head
        second.targetRange = tail
        if let source = s.sourceRange {
            // Source time advances with target time at the segment's own speed.
            let ratio = source.duration.seconds / s.targetRange.duration.seconds
            let scale = max(source.start.timescale, time.timescale)
            let cut = source.start + MediaTime(seconds: head.duration.seconds * ratio, preferredTimescale: scale)
            let exact = ratio == 1 ? source.start + head.duration : cut
            first.sourceRange = TimeRange(start: source.start, end: exact)
            second.sourceRange = TimeRange(start: exact, end: source.end)
        }
        segments.replaceSubrange(i...i, with: [first, second])
    }

    private func shift(from time: MediaTime, by delta: MediaTime) {
        for i in segments.indices where segments[i].targetRange.start >= time {
            segments[i].targetRange.start = segments[i].targetRange.start + delta
        }
    }

    /// Puts `segment` in timeline order (its span must be free).
    private func place(_ segment: CompositionTrackSegment) {
        let i = segments.firstIndex { $0.targetRange.start >= segment.targetRange.end } ?? segments.endIndex
        segments.insert(segment, at: i)
    }

    private func trimTrailingEmpty() {
        while segments.last?.isEmpty == true { segments.removeLast() }
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
