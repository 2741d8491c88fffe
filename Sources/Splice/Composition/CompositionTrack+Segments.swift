import Foundation
import MediaCore

/// A composition track's state, and the segment arithmetic of its edits (AVFoundation's rules):
/// a value, edited whole under the track's lock.
struct Segments: Sendable {
    /// In timeline order, without gaps (a gap is an empty segment).
    var segments: [CompositionTrackSegment] = []
    var languageCode: String?
    var extendedLanguageTag: String?
    var isEnabled = true
    var naturalTimeScale: Int32 = 0
    var preferredTransform: AffineTransform2D?
    var alternateGroup = 0
    var name: String?
    var associations: [TrackAssociationType: [Int]] = [:]
    /// Whether a source track's properties were taken (by the first insertion).
    var adopted = false

    var timeRange: TimeRange {
        TimeRange(start: .zero, duration: segments.last.map(\.targetRange.end) ?? .zero)
    }

    mutating func insertEmpty(_ range: TimeRange) {
        guard range.duration > .zero else { return }
        open(at: range.start)
        shift(from: range.start, by: range.duration)
        place(CompositionTrackSegment(source: nil, sourceRange: nil, targetRange: range))
    }

    mutating func remove(_ range: TimeRange) {
        guard range.duration > .zero, range.start < timeRange.end else { return }
        let end = min(range.end, timeRange.end)
        split(at: range.start)
        split(at: end)
        segments.removeAll { $0.targetRange.start >= range.start && $0.targetRange.end <= end }
        shift(from: end, by: .zero - (end - range.start))
        trimTrailingEmpty()
    }

    mutating func scale(_ range: TimeRange, toDuration duration: MediaTime) {
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

    /// Inserts `range` of `track` at `at`, making room for `room` at `insertedAt` first (a whole
    /// asset's range, of which this track may cover less).
    mutating func insert(_ range: TimeRange, of track: AssetTrack, at: MediaTime, padTo room: MediaTime, insertedAt: MediaTime) {
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
    private mutating func open(at time: MediaTime) {
        let end = timeRange.end
        if time > end {
            segments.append(CompositionTrackSegment(source: nil, sourceRange: nil, targetRange: TimeRange(start: end, end: time)))
        } else {
            split(at: time)
        }
    }

    /// Splits the segment that `time` falls inside into two.
    private mutating func split(at time: MediaTime) {
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

    private mutating func shift(from time: MediaTime, by delta: MediaTime) {
        for i in segments.indices where segments[i].targetRange.start >= time {
            segments[i].targetRange.start = segments[i].targetRange.start + delta
        }
    }

    /// Puts `segment` in timeline order (its span must be free).
    private mutating func place(_ segment: CompositionTrackSegment) {
        let i = segments.firstIndex { $0.targetRange.start >= segment.targetRange.end } ?? segments.endIndex
        segments.insert(segment, at: i)
    }

    private mutating func trimTrailingEmpty() {
        while segments.last?.isEmpty == true { segments.removeLast() }
    }
}
