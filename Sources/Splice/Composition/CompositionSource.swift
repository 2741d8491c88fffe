import Foundation
import MediaCore
import ISOBMFF
import FFmpegBridge

/// Where a composition's samples come from. Each composition track is laid out as one track of
/// a movie: its segments' samples one after the other in a continuous media timeline — each run
/// from the sync sample before its segment's start (audio: from the packet before, which the
/// decoder needs to start cleanly) to its end — and an edit list that shows exactly each
/// segment's range (empty edits for empty segments). Read through that edit list, the track is
/// on the composition's timeline; read as media (`presentsMediaTimeline`), a writer given the
/// edit list rebuilds it byte for byte: AVFoundation's passthrough layout.
final class CompositionSource: AssetSource, Sendable {
    /// One non-empty segment's samples in the track's media.
    struct Run {
        let segment: CompositionTrackSegment
        let track: AssetTrack
        /// The segment's cut of its source: `shown` is the segment's range of the source's
        /// timeline (what is read: the cursor starts at the sync sample before it), `read` starts
        /// at the earliest presentation of the samples read (before the segment when it starts
        /// between sync samples).
        let cut: TrackCut
        /// Source timeline → the track's media: media time = source time + shift.
        let shift: MediaTime
        /// Where the run lies in the track's media.
        let mediaStart: MediaTime
        let mediaEnd: MediaTime
        /// Whether AAC brings its pre-roll packet (not without edit lists).
        var preroll = true
        /// What is left out of the source's samples (written without edit lists).
        var filter = Filter()

        struct Filter {
            /// Samples shown from here on are left out (source timeline).
            var presentationEnd: MediaTime?
            /// Samples decoded at or before this are left out (source timeline).
            var decodeAfter: MediaTime?

            func keeps(_ s: SampleBuffer) -> Bool {
                if let end = presentationEnd, s.presentationTimeStamp >= end { return false }
                if let after = decodeAfter, s.decodeTimeStamp <= after { return false }
                return true
            }
        }
    }

    /// A composition track as laid out.
    struct Layout {
        var runs: [Run] = []
        var edits: [TrackSegment] = []
        var formats: [FormatDescription] = []
        var sampleCount = 0
        var bytes: Int64 = 0
    }

    let layouts: [Int: Layout]
    var containerChapters: [Asset.Chapter]? { [] }
    var movieMetadata: [MetadataItem] { [] }
    var structure: SourceStructure { .composition }
    /// New files take the first clip's movie header times.
    let movieHeaderTemplate: MovieHeader?

    init(layouts: [Int: Layout]) {
        self.layouts = layouts
        let firstClip = layouts.keys.sorted().lazy.compactMap { layouts[$0]?.runs.first?.track.origin }.first
        movieHeaderTemplate = firstClip?.source.movieHeaderTemplate
    }

    /// Lays out `track`: reads each segment's sample times (not its bytes, where the source can
    /// leave them in the file). `withoutEditLists` (Matroska, MPEG-TS): no audio pre-roll, each
    /// run placed at its segment's time rather than after the run before, video samples shown
    /// from the segment's end on left out (whole GOPs, when segments are cut at sync samples),
    /// and an audio packet that would overlap the run before left out.
    static func layout(_ track: CompositionTrack, withoutEditLists: Bool = false) throws -> Layout {
        var layout = Layout()
        var next = MediaTime.zero
        var lastDecode: MediaTime?
        let scale = track.naturalTimeScale > 0 ? track.naturalTimeScale : 600
        for segment in track.segments {
            guard let range = segment.sourceRange, let source = segment.sourceTrack else {
                layout.edits.append(TrackSegment(target: segment.targetRange, source: nil))
                continue
            }
            // (AAC brings its pre-roll packet, which the edit list skips: see TimelineCursor.)
            let read = range
            let placed = withoutEditLists ? (segment.targetRange.start - range.start).convertScale(scale) : nil
            var filter = Run.Filter(presentationEnd: withoutEditLists && source.mediaType == .video ? range.end : nil,
                                    decodeAfter: withoutEditLists && source.mediaType != .video ? lastDecode.map { $0 - (placed ?? .zero) } : nil)
            var first: MediaTime?, end = MediaTime.zero, earliest = MediaTime.positiveInfinity, last = MediaTime.zero
            let cursor = try CompositionSource.cursor(source, read, copies: false, preroll: !withoutEditLists)
            defer { cursor.close() }
            while let s = try cursor.next() {
                guard filter.keeps(s) else { continue }
                if first == nil { first = s.decodeTimeStamp }
                earliest = min(earliest, s.presentationTimeStamp)
                end = max(end, s.decodeTimeStamp + (s.duration.isNumeric ? s.duration : .zero))
                last = s.decodeTimeStamp
                layout.sampleCount += 1
                layout.bytes += Int64(widening: s.totalSampleSize)
                if !layout.formats.contains(s.formatDescription) { layout.formats.append(s.formatDescription) }
            }
            guard let first else {
                layout.edits.append(TrackSegment(target: segment.targetRange, source: nil))
                continue
            }
            var shift = placed ?? (next - first).convertScale(scale)
            if let previous = lastDecode, first + shift <= previous {
                // Decode times must keep increasing (video at a GOP boundary: by a tick).
                shift = (previous - first).convertScale(scale) + MediaTime(value: 1, timescale: scale)
                filter.decodeAfter = filter.decodeAfter.map { _ in previous - shift }
            }
            let cut = TrackCut(shown: read, read: TimeRange(start: min(earliest, read.start), end: read.end))
            let run = Run(segment: segment, track: source, cut: cut, shift: shift, mediaStart: first + shift, mediaEnd: end + shift,
                          preroll: !withoutEditLists, filter: filter)
            layout.runs.append(run)
            layout.edits += edits(segment, showing: range, from: earliest, shift: shift, scale: scale)
            next = run.mediaEnd
            lastDecode = last + shift
        }
        // Nothing shown after the last media: the track simply ends (no trailing empty edit).
        while layout.edits.last?.isEmpty == true { layout.edits.removeLast() }
        return layout
    }

    /// The edits that show `range` of a segment's source moved by `shift` into the track's media:
    /// one, or an empty one first when the source shows nothing before `earliest`.
    private static func edits(_ segment: CompositionTrackSegment, showing range: TimeRange, from earliest: MediaTime,
                              shift: MediaTime, scale: Int32) -> [TrackSegment] {
        let rate = segment.isScaled ? range.duration.seconds / segment.targetRange.duration.seconds : 1
        var target = segment.targetRange, shown = range
        var out: [TrackSegment] = []
        if !segment.isScaled, earliest > range.start, earliest < range.end {
            // The source shows nothing before its first sample (an empty edit of its own).
            let gap = earliest - range.start
            out.append(TrackSegment(target: TimeRange(start: target.start, duration: gap), source: nil))
            target = TimeRange(start: target.start + gap, end: target.end)
            shown = TimeRange(start: earliest, end: range.end)
        }
        out.append(TrackSegment(target: target, source: TimeRange(start: (shown.start + shift).convertScale(scale), duration: shown.duration.convertScale(scale)),
                                rate: rate))
        return out
    }

    /// A cursor over `track`'s samples on its asset's timeline, cut to `range` (from the sync
    /// sample before its start).
    static func cursor(_ track: AssetTrack, _ range: TimeRange, copies: Bool, preroll: Bool = true) throws -> any SampleCursor {
        let session = try track.origin.source.makeSession(reading: [track], timeRange: range)
        return TimelineCursor(track: track, timeRange: range, carriesPreroll: preroll) { span in
            try session.makeCursor(for: track, span: span, copiesSampleData: copies)
        }
    }

    func makeSession(reading tracks: [AssetTrack], timeRange: TimeRange) throws -> any ReadSession {
        CompositionSession(source: self)
    }
}

/// What a composition track's `AssetTrack` keeps: its layout.
struct CompositionTrackBacking: TrackBacking {
    let layout: CompositionSource.Layout
    let segments: [CompositionTrackSegment]
    var composedSegments: [CompositionTrackSegment]? { segments }
    var isoStructure: TrackPassthrough? { nil }
    var isoProblem: String? { nil }
    var accessibility: Set<MediaCharacteristic> { [] }
    var isAttachment: Bool { false }
    var mediaDuration: MediaTime? { layout.runs.last?.mediaEnd }
    /// Segments of encrypted tracks make the track encrypted, and not carriable: their IVs go
    /// only with whole tracks.
    var encryption: TrackEncryption? {
        guard var e = segments.lazy.compactMap({ $0.sourceTrack?.encryption }).first else { return nil }
        e.problem = "it is cut or joined from encrypted clips, whose per-sample IVs Splice carries only with whole tracks"
        return e
    }

    /// Whether a segment's samples start before it (it starts between sync samples).
    var startsBetweenSyncSamples: Bool {
        layout.runs.contains(where: \.cut.startsBetweenSyncSamples)
    }
}

/// A reader's session over a composition: a cursor per output over its track's media.
final class CompositionSession: ReadSession, Sendable {
    let source: CompositionSource
    init(source: CompositionSource) { self.source = source }

    func makeCursor(for track: AssetTrack, span: MediaSpan, copiesSampleData: Bool) throws -> any SampleCursor {
        guard let layout = source.layouts[track.trackID] else {
            throw MediaError(.invalidOperation, "track \(track.trackID) is not a track of this composition")
        }
        let runs = layout.runs.filter { run in
            !(span.end.isNumeric && run.mediaStart >= span.end) && !(span.start.isNumeric && run.mediaEnd <= span.start)
        }
        return CompositionMediaCursor(runs: runs, copies: copiesSampleData)
    }

    func warnings() -> [String] { [] }

    /// Decoded, a composition track is read segment by segment (`CompositionDecodingCursor`):
    /// segments may differ in codec, and audio gaps are silence.
    func makeDecodingCursor(for track: AssetTrack, timeline: any SampleCursor, settings: OutputSettings,
                            timeRange: TimeRange) throws -> any DecodedSampleCursor {
        guard let backing = track.backing as? CompositionTrackBacking else {
            throw MediaError(.invalidOperation, "track \(track.trackID) is not a track of this composition")
        }
        return CompositionDecodingCursor(track: track, segments: backing.segments, settings: settings, timeRange: timeRange)
    }
}

/// A composition track's media: its runs' samples one after the other, moved into the track's
/// continuous media timeline.
final class CompositionMediaCursor: SampleCursor {
    private var runs: [CompositionSource.Run]
    private let copies: Bool
    private var current: (cursor: any SampleCursor, shift: MediaTime, filter: CompositionSource.Run.Filter)?

    init(runs: [CompositionSource.Run], copies: Bool) {
        self.runs = runs
        self.copies = copies
    }

    func next() throws -> SampleBuffer? {
        while true {
            if let (cursor, shift, filter) = current {
                if var s = try cursor.next() {
                    guard filter.keeps(s) else { continue }
                    let delta = shift.convertScale(s.decodeTimeStamp.timescale)
                    s.decodeTimeStamp = s.decodeTimeStamp + delta
                    s.presentationTimeStamp = s.presentationTimeStamp + delta
                    return s
                }
                cursor.close()
                current = nil
            }
            guard !runs.isEmpty else { return nil }
            let run = runs.removeFirst()
            current = (try CompositionSource.cursor(run.track, run.cut.shown, copies: copies, preroll: run.preroll), run.shift, run.filter)
        }
    }

    func close() {
        current?.cursor.close()
        current = nil
        runs = []
    }
}
