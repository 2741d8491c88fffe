/// A track's samples on the asset's timeline — the timeline rule of `AssetReaderTrackOutput`.
///
/// Each sample's decode and presentation times are its media times mapped through the track's
/// edit list: an empty edit leaves a gap, a segment that repeats media repeats its samples, and
/// a dwell (rate 0) presents one sample for the whole segment. A track without an edit list is
/// shifted by its source's timeline offset (libavformat containers: the file's start time).
///
/// A segment or a time range that starts between sync samples also hands out the samples from
/// the sync sample before it, with times before its start, so that the bytes stay decodable;
/// a writer session that starts at the range start hides them with its edit list.
import MediaCore

/// The cursor is a shell over one `TimelineReader` value, as `ISOSampleCursor` is: a sample
/// costs one exclusivity check, not one per field.
final class TimelineCursor: SampleCursor {
    private var reader: TimelineReader

    /// - Parameter open: a media-time cursor for a span of media, positioned at the sync sample
    ///   before its start where the source can (`RangeFilter` cuts what it hands out).
    /// - Parameter carriesPreroll: a piece of AAC starts one packet early (its pre-roll), which a
    ///   decoder needs and an edit list hides; `false` for containers without edit lists.
    init(track: AssetTrack, timeRange: TimeRange, carriesPreroll: Bool = true, open: @escaping (MediaSpan) throws -> any SampleCursor) {
        reader = TimelineReader(track: track, timeRange: timeRange, carriesPreroll: carriesPreroll, open: open)
    }

    /// Media times as stored, cut to `timeRange` mapped to media time through the track's first
    /// edit (what `presentsMediaTimeline` hands out).
    init(mediaTimesOf track: AssetTrack, timeRange: TimeRange, open: @escaping (MediaSpan) throws -> any SampleCursor) {
        reader = TimelineReader(mediaTimesOf: track, timeRange: timeRange, open: open)
    }

    func next() throws -> SampleBuffer? { try reader.next() }

    func close() { reader.close() }
}

/// The state of a `TimelineCursor`.
struct TimelineReader {
    /// One span of media shown on the timeline: a non-empty edit, clipped to the read range.
    struct Piece {
        /// The media shown, in media time (either end may be infinite).
        var media: MediaSpan
        /// Where it is shown: media time + shift = timeline time.
        var shift: MediaTime
        /// A dwell: one sample shown from `target.start` for `target.duration`.
        var dwell: TimeRange?
        /// Where the edit shows its media on the timeline, for samples that are cut to it (text:
        /// a cue begun before the edit shows from its start, one going on past it ends there).
        var shown: TimeRange?
    }

    private let trackID: Int
    private var pieces: [Piece]
    /// Why the track cannot be handed out on the timeline (thrown by the first `next()`).
    private var refusal: MediaError?
    private let open: (MediaSpan) throws -> any SampleCursor
    /// The piece being read: its cursor and filter.
    private struct Reading {
        let cursor: any SampleCursor
        var filter: RangeFilter
        let piece: Piece

        init(cursor: any SampleCursor, piece: Piece, preroll: Int) {
            self.cursor = cursor
            self.piece = piece
            filter = RangeFilter(span: piece.media, keepsTaken: piece.dwell != nil, preroll: preroll)
        }

        /// Past its start, shown as it is: its cursor, its end, and its shift (nil: none).
        var steady: (cursor: any SampleCursor, end: MediaTime, shift: MediaTime?)? {
            guard filter.released, piece.dwell == nil, piece.shown == nil else { return nil }
            return (cursor, filter.span.end, piece.shift == .zero ? nil : piece.shift)
        }
    }
    private var current: Reading?
    /// Packets handed out before a piece's first one that a decoder needs to start cleanly (AAC: 1).
    private let preroll: Int
    /// How much media those packets span (AAC: 1024 samples a packet).
    private var prerollSpan = MediaTime.zero
    private var ready: [SampleBuffer] = []
    private var lastDecodeTime: MediaTime?

    init(track: AssetTrack, timeRange: TimeRange, carriesPreroll: Bool = true, open: @escaping (MediaSpan) throws -> any SampleCursor) {
        trackID = track.trackID
        preroll = carriesPreroll ? TimelineReader.preroll(of: track) : 0
        prerollSpan = TimelineReader.prerollSpan(of: track, packets: preroll)
        pieces = TimelineReader.pieces(of: track, in: timeRange)
        self.open = open
        // Each edit positions a cursor by walking the sample table: bound edits × samples.
        if pieces.count > 1, pieces.count * max(1, track.sampleCount ?? 1) > TimelineReader.maximumEditWork {
            refusal = MediaError(.unsupported, "\(pieces.count) edits of \(track.sampleCount ?? 0) samples are too many to hand out on "
                                 + "the asset's timeline; read the track with presentsMediaTimeline", location: "track \(track.trackID)")
        }
    }

    /// The packets before a cut a decoder of the track needs (ISO/IEC 14496-12's roll distance):
    /// AAC's overlapped transform needs the one before.
    static func preroll(of track: AssetTrack) -> Int {
        track.mediaType == .audio ? CodecFacts.of(track.codecName)?.prerollPackets ?? 0 : 0
    }

    /// The media `packets` AAC packets of `track` span (1024 samples each), in its timescale.
    static func prerollSpan(of track: AssetTrack, packets: Int) -> MediaTime {
        guard packets > 0, let rate = track.formatDescriptions.first?.sampleRate, rate > 0 else { return .zero }
        return MediaTime(seconds: Double(packets * SmartAudioSource.frame) / rate, preferredTimescale: track.naturalTimeScale).convertScale(track.naturalTimeScale, method: .up)
    }

    /// The most edits × samples a track's timeline is built from.
    static let maximumEditWork = 50_000_000

    /// See `TimelineCursor.init(mediaTimesOf:timeRange:open:)`.
    init(mediaTimesOf track: AssetTrack, timeRange: TimeRange, open: @escaping (MediaSpan) throws -> any SampleCursor) {
        trackID = track.trackID
        preroll = TimelineReader.preroll(of: track)
        prerollSpan = TimelineReader.prerollSpan(of: track, packets: preroll)
        pieces = [Piece(media: MediaSpan(timeRange, shiftedBy: track.timelineShift), shift: .zero)]
        self.open = open
    }

    /// The non-empty edits of `track` that show media inside `range`, in timeline order.
    static func pieces(of track: AssetTrack, in range: TimeRange) -> [Piece] {
        let scale = track.naturalTimeScale
        let whole = range == .everything
        guard !track.segments.isEmpty else {
            let shift = track.timelineShift
            return [Piece(media: MediaSpan(range, shiftedBy: shift), shift: shift)]
        }
        var pieces: [Piece] = []
        let shown = track.segments.filter { !$0.isEmpty }
        for (i, segment) in shown.enumerated() {
            guard let source = segment.source else { continue }
            let target = whole ? segment.target : segment.target.intersection(range)
            guard target.duration > .zero else { continue }
            if segment.rate == 0 {
                let at = source.start.convertScale(scale)
                pieces.append(Piece(media: MediaSpan(start: at, end: at + MediaTime(value: 1, timescale: scale)),
                                    shift: .zero, dwell: target))
                continue
            }
            let shift = (segment.target.start - source.start).convertScale(scale)
            // A whole read keeps what lies before the first edit (priming, reordered frames); so
            // does a range that starts before it, as far as it reaches.
            let reach = i == 0 && range.start < segment.target.start ? range.start : target.start
            let start = whole && i == 0 ? MediaTime.negativeInfinity : (reach - shift).convertScale(scale, method: .down)
            var end = target.end.isNumeric ? (target.end - shift).convertScale(scale, method: .up) : MediaTime.positiveInfinity
            // Text: a zero-length sample at the edit's end ends the cue before it there (the
            // track's last sample, mostly); it is read too, so that a copy keeps it.
            let legible = track.mediaType.isLegible
            if legible, end.isNumeric { end = end + MediaTime(value: 1, timescale: scale) }
            pieces.append(Piece(media: MediaSpan(start: start, end: end), shift: shift, shown: legible ? target : nil))
        }
        return pieces
    }

    mutating func next() throws -> SampleBuffer? {
        if let refusal { throw refusal }
        // Steady state: a piece past its start, nothing queued — one sample in, one out.
        if ready.isEmpty, let c = current?.steady {
            if var sample = try c.cursor.next(), !(c.end.isNumeric && sample.decodeTimeStamp >= c.end) {
                if let shift = c.shift { TimelineReader.shift(&sample, by: shift) }
                try checkOrder(sample)
                return sample
            }
            // The piece has ended (the cursor ran out, or its next sample lies past the end).
            c.cursor.close()
            current = nil
        }
        while true {
            if !ready.isEmpty { return try handOut(ready.removeFirst()) }
            if current == nil {
                guard !pieces.isEmpty else { return nil }
                let piece = pieces.removeFirst()
                // A source positions itself at the sync sample before the span's start; the
                // pre-roll packets lie before that, so it opens that much earlier.
                var opened = piece.media
                if preroll > 0, opened.start.isNumeric { opened.start = opened.start - prerollSpan }
                current = Reading(cursor: try open(opened), piece: piece, preroll: preroll)
            }
            guard let cursor = current?.cursor else { return nil }
            let outcome: RangeFilter.Outcome
            if let sample = try cursor.next() { outcome = try current!.filter.push(sample) } else { outcome = .end }
            let piece = current!.piece
            switch outcome {
            case .pass(let sample) where piece.dwell == nil:
                guard let s = TimelineReader.placed(sample, in: piece) else { continue }
                return try handOut(s)
            case .release(let samples) where piece.dwell == nil:
                ready = samples.compactMap { TimelineReader.placed($0, in: piece) }
            case .end:
                let taken = current!.filter.taken
                cursor.close()
                current = nil
                if let dwell = piece.dwell { ready = TimelineReader.dwell(taken, at: piece.media.start, shownAt: dwell) }
            case .pass, .release, .held:
                break
            }
        }
    }

    mutating func close() {
        current?.cursor.close()
        current = nil
        pieces = []
        ready = []
    }

    private mutating func handOut(_ sample: SampleBuffer) throws -> SampleBuffer {
        try checkOrder(sample)
        return sample
    }

    /// Checks that decode times keep increasing across edits.
    private mutating func checkOrder(_ sample: SampleBuffer) throws {
        if let last = lastDecodeTime, sample.decodeTimeStamp < last {
            throw MediaError(.unsupported, "an edit that starts between sync samples follows another edit, so its samples "
                             + "cannot be handed out in decode order on the asset's timeline; read the track with "
                             + "presentsMediaTimeline and write its edit list with AssetWriterInput.segments",
                             location: "track \(trackID)")
        }
        lastDecodeTime = sample.decodeTimeStamp
    }

    /// `sample` on the timeline through `piece`: moved by its shift, and for a piece whose
    /// samples are cut to it, shown from the piece's start at the earliest and to its end at the
    /// latest (nil when nothing of it is shown there).
    private static func placed(_ sample: SampleBuffer, in piece: Piece) -> SampleBuffer? {
        var s = sample
        shift(&s, by: piece.shift)
        guard let shown = piece.shown else { return s }
        let scale = s.presentationTimeStamp.timescale
        let start = max(s.presentationTimeStamp, shown.start.convertScale(scale, method: .up))
        let limit = shown.end.isNumeric ? shown.end.convertScale(scale, method: .down) : .positiveInfinity
        let end = min(s.presentationTimeStamp + s.duration, limit)
        // (a zero-length sample inside the edit or at its end is kept as it is: a cue's end)
        if s.duration == .zero, s.presentationTimeStamp >= start, s.presentationTimeStamp <= limit { return s }
        guard end > start else { return nil }
        s.presentationTimeStamp = start
        s.decodeTimeStamp = start
        s.duration = end - start
        return s
    }

    /// Moves `sample` by `shift` (media time → timeline time).
    private static func shift(_ sample: inout SampleBuffer, by shift: MediaTime) {
        guard shift != .zero else { return }
        let delta = shift.convertScale(sample.decodeTimeStamp.timescale)
        sample.decodeTimeStamp = sample.decodeTimeStamp + delta
        sample.presentationTimeStamp = sample.presentationTimeStamp + delta
    }

    /// A dwell: the sample shown at the segment's media time `at`, for the whole segment, after
    /// the samples decoded before it that it may need (placed one tick apart just before it).
    private static func dwell(_ taken: [SampleBuffer], at: MediaTime, shownAt target: TimeRange) -> [SampleBuffer] {
        guard let k = taken.firstIndex(where: { $0.presentationTimeStamp <= at && at < $0.presentationTimeStamp + $0.duration })
                ?? taken.indices.last else { return [] }
        let scale = taken[k].decodeTimeStamp.timescale
        let start = target.start.convertScale(scale)
        return taken[...k].enumerated().map { i, s in
            var t = s
            let time = start + MediaTime(value: Int64(widening: i - k), timescale: scale)
            t.decodeTimeStamp = time
            t.presentationTimeStamp = time
            t.duration = i == k ? target.duration.convertScale(scale) : MediaTime(value: 1, timescale: scale)
            return t
        }
    }
}

/// A span of media time whose ends may be infinite (a `TimeRange` cannot start at −∞).
struct MediaSpan: Equatable {
    var start: MediaTime
    var end: MediaTime

    static let all = MediaSpan(start: .negativeInfinity, end: .positiveInfinity)

    init(start: MediaTime, end: MediaTime) {
        self.start = start
        self.end = end
    }

    /// The media under a span of the timeline, where timeline time = media time + `shift`
    /// (everything for `.everything`).
    init(_ timeline: TimeRange, shiftedBy shift: MediaTime) {
        self = timeline == .everything ? .all : MediaSpan(start: timeline.start - shift, end: timeline.end - shift)
    }
}

/// Cuts a media-time stream of samples to a span: from the sync sample before the span's
/// start (samples before a later sync sample that is wholly presented before the start are
/// dropped) up to the first sample decoded at or after its end.
struct RangeFilter {
    enum Outcome {
        /// The sample, handed on.
        case pass(SampleBuffer)
        /// Held: it may be needed to decode what is shown from the start.
        case held
        /// The first sample shown from the start, after the held samples it needs.
        case release([SampleBuffer])
        /// The span has ended.
        case end
    }

    let span: MediaSpan
    private var held: [SampleBuffer] = []
    private var heldBytes = 0
    private(set) var released = false
    /// With `keepsTaken` (a dwell), every sample let go so far.
    private(set) var taken: [SampleBuffer] = []
    private let keepsTaken: Bool
    /// Sync samples kept before the first one shown (a decoder's pre-roll).
    private let preroll: Int

    /// The most bytes held between a sync sample and the span's start (a damaged file may have
    /// one sync sample for all its media).
    static let maximumHeldBytes = 512 << 20

    init(span: MediaSpan, keepsTaken: Bool = false, preroll: Int = 0) {
        self.span = span
        self.keepsTaken = keepsTaken
        self.preroll = preroll
    }

    /// What becomes of `sample` (the next in decode order).
    /// - Throws: when more than `maximumHeldBytes` lie between the sync sample and the start.
    mutating func push(_ sample: SampleBuffer) throws -> Outcome {
        if released {
            if span.end.isNumeric, sample.decodeTimeStamp >= span.end { return .end }
            if keepsTaken { taken.append(sample) }
            return .pass(sample)
        }
        let presentedEnd = sample.presentationTimeStamp + max(sample.duration, MediaTime(value: 1, timescale: sample.duration.timescale))
        if span.start.isNumeric, presentedEnd <= span.start {
            if sample.isSync {
                held = Array(held.suffix(preroll)) + [sample]
                heldBytes = held.reduce(0) { $0 + $1.totalSampleSize }
            } else {
                held.append(sample)
                heldBytes += sample.totalSampleSize
            }
            guard heldBytes <= RangeFilter.maximumHeldBytes else {
                throw MediaError(.unsupported, "more than \(RangeFilter.maximumHeldBytes >> 20) MB of samples lie between the sync sample "
                                 + "and the start of the range; read from an earlier time")
            }
            return .held
        }
        released = true
        let out = (sample.isSync ? Array(held.suffix(preroll)) : held) + [sample]
        held = []
        heldBytes = 0
        if keepsTaken { taken = out }
        return out.count == 1 ? .pass(sample) : .release(out)
    }
}
