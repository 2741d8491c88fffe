import Foundation
import MediaCore

/// Reads an asset's samples, one `AssetReaderTrackOutput` per track.
///
/// Passthrough only (`outputSettings: nil`): samples come out as stored — bytes,
/// decode and presentation times, durations, sync and dependency flags, and the
/// track's original format description. Times are media times, in the track's
/// timescale; the track's `segments` (its edit list) map them to the movie.
///
/// ```swift
/// let reader = try AssetReader(asset: asset)
/// let output = AssetReaderTrackOutput(track: asset.tracks[0], outputSettings: nil)
/// reader.add(output)
/// reader.startReading()
/// while let sample = output.copyNextSampleBuffer() { … }
/// if reader.status == .failed { throw reader.error! }
/// ```
public final class AssetReader: Sendable {
    /// Where a reader is (AVFoundation's `AVAssetReader.Status`).
    public enum Status: Sendable, Equatable {
        /// Outputs can be added; reading has not started.
        case unknown
        /// Samples are being handed out.
        case reading
        /// Every output has handed out its last sample.
        case completed
        /// Reading stopped on an error (`error`).
        case failed
        /// Reading was cancelled (`cancelReading()`).
        case cancelled
    }

    /// The asset read.
    public let asset: Asset
    /// Where the reader is: its outputs, status, range, the session it reads through.
    private struct State {
        var outputs: [AssetReaderTrackOutput] = []
        var status: Status = .unknown
        var error: MediaError?
        var timeRange: TimeRange = .everything
        var session: (any ReadSession)?
        var warnings: [String] = []

        /// Fails the reader with `error` (when it is not finished); the outputs to stop.
        mutating func fail(_ error: MediaError) -> [AssetReaderTrackOutput] {
            guard status == .unknown || status == .reading else { return [] }
            status = .failed
            self.error = error
            return outputs
        }
    }

    private let state = Mutex(State())

    /// Reads `composition` as it is now (`composition.asset()`): outputs of its tracks
    /// (`AssetReaderTrackOutput(track: compositionTrack)`) can be added.
    public convenience init(asset composition: MutableComposition) throws {
        try self.init(asset: composition.asset())
    }

    /// Makes a reader for `asset`.
    public init(asset: Asset) throws {
        self.asset = asset
    }

    /// What was wrong with the input but read anyway (damaged packets of MKV, TS and other
    /// containers read through libavformat, and what FFmpeg said of them); set when reading ends.
    public var warnings: [String] { state.withLock { $0.warnings } }

    /// The outputs added, in order.
    public var outputs: [AssetReaderTrackOutput] { state.withLock { $0.outputs } }
    /// Where the reader is.
    public var status: Status { state.withLock { $0.status } }
    /// Why reading failed, when `status` is `.failed`.
    public var error: MediaError? { state.withLock { $0.error } }

    /// The span of the movie timeline to read; set before `startReading()`. Reading starts at the
    /// sync sample at or before the start, so that what is read can be decoded.
    public var timeRange: TimeRange {
        get { state.withLock { $0.timeRange } }
        set { state.withLock { if $0.status == .unknown { $0.timeRange = newValue } } }
    }

    /// Whether `output` can be added: a track of this asset, not yet added, before reading starts.
    public func canAdd(_ output: AssetReaderTrackOutput) -> Bool {
        state.withLock { refusal(of: output, in: $0) == nil }
    }

    /// Adds a mixing output: its tracks are read (decoded) by outputs of its own.
    public func add(_ output: AssetReaderAudioMixOutput) throws {
        for o in output.outputs { try add(o) }
    }

    /// Adds a video composition output: its tracks are read (decoded) by outputs of its own.
    public func add(_ output: AssetReaderVideoCompositionOutput) throws {
        for o in output.outputs { try add(o) }
        output.reader = self
    }

    /// Adds `output`: a track of this asset, before reading starts.
    /// - Throws: why it cannot be added (reading has started, it belongs to a reader already, its
    ///   track is not one of this asset's, or it has output settings); the reader then fails with
    ///   the same error, so `startReading()` returns `false`.
    public func add(_ output: AssetReaderTrackOutput) throws {
        let failure: (MediaError, [AssetReaderTrackOutput])? = state.withLock { s in
            guard let reason = refusal(of: output, in: s) else {
                output.reader = self
                s.outputs.append(output)
                return nil
            }
            let error = MediaError(.invalidOperation, reason, file: asset.filePath())
            return (error, s.fail(error))
        }
        guard let (error, outputs) = failure else { return }
        for o in outputs { o.stop() }
        throw error
    }

    private func refusal(of output: AssetReaderTrackOutput, in state: borrowing State) -> String? {
        if state.status != .unknown { return "outputs are added before startReading()" }
        if output.reader === self { return "the output was added already" }
        if output.reader != nil { return "the output belongs to another reader" }
        if !asset.tracks.contains(where: { $0 === output.track }) {
            return "track \(output.track.trackID) of \(output.track.asset?.url.lastPathComponent ?? "another asset") is not a track of this asset"
        }
        switch output.outputSettings {
        case .audio where output.track.mediaType != .audio:
            return "audio output settings are for audio tracks; track \(output.track.trackID) is \(output.track.mediaType)"
        case .video where output.track.mediaType != .video:
            return "video output settings are for video tracks; track \(output.track.trackID) is \(output.track.mediaType)"
        case .some where output.presentsMediaTimeline:
            return "decoded output is on the asset's timeline; presentsMediaTimeline is for passthrough"
        default: break
        }
        return nil
    }

    /// How far reading has got on the asset's timeline: the position of the output that is
    /// furthest behind (finished outputs count as done), from the range's start.
    public var currentTime: MediaTime {
        let (outputs, range) = state.withLock { ($0.outputs, $0.timeRange) }
        let end = readEnd(range)
        let positions = outputs.map { $0.isFinished ? end : ($0.position ?? range.start) }
        return positions.min() ?? range.start
    }

    /// `currentTime` as a fraction (0…1) of the range read (of the asset's duration when the
    /// range is everything): for a progress bar while pulling samples by hand.
    public var progress: Double {
        let range = state.withLock { $0.timeRange }
        let length = (readEnd(range) - range.start).seconds
        guard length > 0 else { return status == .completed ? 1 : 0 }
        return min(1, max(0, (currentTime - range.start).seconds / length))
    }

    private func readEnd(_ range: TimeRange) -> MediaTime {
        range.end.isNumeric ? min(range.end, asset.duration) : asset.duration
    }

    /// Starts reading. Returns `false` (with `status` `.failed` and `error` set) when reading cannot start.
    @discardableResult
    public func startReading() -> Bool {
        let started: (outputs: [AssetReaderTrackOutput], range: TimeRange)? = state.withLock {
            guard $0.status == .unknown else { return nil }
            $0.status = .reading
            return ($0.outputs, $0.timeRange)
        }
        guard let (outputs, range) = started else { return false }
        do {
            let session = try asset.source.makeSession(reading: outputs.map(\.track), timeRange: range)
            state.withLock { $0.session = session }
            for output in outputs { output.start(try cursor(for: output, session: session, range: range)) }
        } catch {
            fail(error as? MediaError ?? MediaError(.io, "\(error)"))
            return false
        }
        return true
    }

    /// The cursor `output` reads in `range` through `session`: its track's timeline (stored
    /// samples), or decoded from it as the output's settings say.
    private func cursor(for output: AssetReaderTrackOutput, session: any ReadSession, range: TimeRange) throws -> sending any SampleCursor {
        let (track, cut) = (output.track, output.cut)
        guard let settings = output.outputSettings else { return try timeline(for: output, session: session, range: range) }
        let decoding: any DecodedSampleCursor
        if cut == nil, !asset.source.structure.isCut, let spans = EditsDecodingCursor.spans(of: track, in: range) {
            let open = Self.opener(of: track, session: session, copiesSampleData: output.alwaysCopiesSampleData)
            decoding = EditsDecodingCursor(spans: spans) { span in
                let read = TimeRange(start: try track.decodingStart(showing: span.start), end: span.end)
                return try session.makeDecodingCursor(for: track, timeline: TimelineCursor(track: track, timeRange: read, open: open),
                                                      settings: settings, timeRange: span)
            }
        } else {
            var shown = cut?.shown ?? range
            // A whole video track shows what its edit shows: not a frame that starts where it ends.
            if cut == nil, range == .everything, track.mediaType == .video, !track.segments.isEmpty, !asset.source.structure.isCut {
                shown = track.timeRange
            }
            decoding = try session.makeDecodingCursor(for: track, timeline: try timeline(for: output, session: session, range: range),
                                                      settings: settings, timeRange: shown)
        }
        let timed = ConstantRateCursor.applying(settings, to: decoding, from: range == .everything ? decoding.timelineOrigin : range.start)
        return PrefetchingCursor(.init(cursor: timed, decoding: decoding), capacity: track.mediaType == .video ? 4 : 0)
    }

    /// `output`'s track's stored samples in `range` (or its cut), on the asset's timeline or in
    /// media time as the output says.
    private func timeline(for output: AssetReaderTrackOutput, session: any ReadSession, range: TimeRange) throws -> TimelineCursor {
        let (track, cut) = (output.track, output.cut)
        let open = Self.opener(of: track, session: session, copiesSampleData: output.alwaysCopiesSampleData)
        if output.presentsMediaTimeline { return TimelineCursor(mediaTimesOf: track, timeRange: range, open: open) }
        var read = cut?.read ?? range
        if output.outputSettings != nil, cut == nil, range != .everything, !asset.source.structure.isCut {
            // (from a sync sample whose pictures have recovered by the start)
            read = TimeRange(start: try track.decodingStart(showing: range.start), end: range.end)
        }
        return TimelineCursor(track: track, timeRange: read, carriesPreroll: cut == nil, open: open)
    }

    /// What opens `track`'s stored samples in a span of media time.
    private static func opener(of track: AssetTrack, session: any ReadSession,
                               copiesSampleData: Bool) -> (MediaSpan) throws -> any SampleCursor {
        { span in try session.makeCursor(for: track, span: span, copiesSampleData: copiesSampleData) }
    }

    /// Stops reading; outputs return `nil` from then on.
    public func cancelReading() {
        let outputs = state.withLock { s -> [AssetReaderTrackOutput] in
            if s.status == .reading || s.status == .unknown { s.status = .cancelled }
            return s.outputs
        }
        for o in outputs { o.stop() }
    }

    /// Fails the reader with `error` met reading `track` (which names the file it came from).
    func fail(_ error: MediaError, track: AssetTrack? = nil) {
        let outputs = state.withLock { s -> [AssetReaderTrackOutput] in
            guard s.status == .reading else { return [] }
            return s.fail(asset.filePath(of: track).map { error.inFile($0) } ?? error)
        }
        for o in outputs { o.stop() }
    }

    /// Called by an output at its end: the reader completes when every output has.
    func outputDidFinish() {
        state.withLock { s in
            guard s.status == .reading && s.outputs.allSatisfy({ $0.isFinished }) else { return }
            s.status = .completed
            s.warnings = (s.session?.warnings() ?? []) + s.outputs.flatMap(\.decodingWarnings)
        }
    }
}
