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
public final class AssetReader: @unchecked Sendable {   // state under `lock`
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
    private let lock = NSLock()
    private var _outputs: [AssetReaderTrackOutput] = []
    private var _status: Status = .unknown
    private var _error: MediaError?
    private var _timeRange: TimeRange = .everything
    private var session: (any ReadSession)?
    private var _warnings: [String] = []

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
    public var warnings: [String] { lock.withLock { _warnings } }

    /// The outputs added, in order.
    public var outputs: [AssetReaderTrackOutput] { lock.withLock { _outputs } }
    /// Where the reader is.
    public var status: Status { lock.withLock { _status } }
    /// Why reading failed, when `status` is `.failed`.
    public var error: MediaError? { lock.withLock { _error } }

    /// The span of the movie timeline to read; set before `startReading()`. Reading starts at the
    /// sync sample at or before the start, so that what is read can be decoded.
    public var timeRange: TimeRange {
        get { lock.withLock { _timeRange } }
        set { lock.withLock { if _status == .unknown { _timeRange = newValue } } }
    }

    /// Whether `output` can be added: a track of this asset, not yet added, before reading starts.
    public func canAdd(_ output: AssetReaderTrackOutput) -> Bool {
        lock.withLock { refusal(of: output) == nil }
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
        let failure: (MediaError, [AssetReaderTrackOutput])? = lock.withLock {
            guard let reason = refusal(of: output) else {
                output.reader = self
                _outputs.append(output)
                return nil
            }
            let error = MediaError(.invalidOperation, reason, file: asset.filePath())
            guard _status == .unknown || _status == .reading else { return (error, []) }
            _status = .failed
            _error = error
            return (error, _outputs)
        }
        guard let (error, outputs) = failure else { return }
        for o in outputs { o.stop() }
        throw error
    }

    private func refusal(of output: AssetReaderTrackOutput) -> String? {
        if _status != .unknown { return "outputs are added before startReading()" }
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
        let (outputs, range) = lock.withLock { (_outputs, _timeRange) }
        let end = readEnd(range)
        let positions = outputs.map { $0.isFinished ? end : ($0.position ?? range.start) }
        return positions.min() ?? range.start
    }

    /// `currentTime` as a fraction (0…1) of the range read (of the asset's duration when the
    /// range is everything): for a progress bar while pulling samples by hand.
    public var progress: Double {
        let range = lock.withLock { _timeRange }
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
        let started: (outputs: [AssetReaderTrackOutput], range: TimeRange)? = lock.withLock {
            guard _status == .unknown else { return nil }
            _status = .reading
            return (_outputs, _timeRange)
        }
        guard let (outputs, range) = started else { return false }
        do {
            let session = try asset.source.makeSession(reading: outputs.map(\.track), timeRange: range)
            lock.withLock { self.session = session }
            for output in outputs {
                let (track, copies) = (output.track, output.alwaysCopiesSampleData)
                let open = { (span: MediaSpan) in try session.makeCursor(for: track, span: span, copiesSampleData: copies) }
                let cut = output.cut
                var read = cut?.read ?? range
                if output.outputSettings != nil, cut == nil, !output.presentsMediaTimeline, range != .everything, !asset.source.structure.isCut {
                    // (from a sync sample whose pictures have recovered by the start)
                    read = TimeRange(start: try track.decodingStart(showing: range.start), end: range.end)
                }
                let timeline = output.presentsMediaTimeline ? TimelineCursor(mediaTimesOf: track, timeRange: range, open: open)
                                                            : TimelineCursor(track: track, timeRange: read, carriesPreroll: cut == nil, open: open)
                if let settings = output.outputSettings {
                    let decoding: any DecodedSampleCursor
                    if cut == nil, !asset.source.structure.isCut, let spans = EditsDecodingCursor.spans(of: track, in: range) {
                        decoding = EditsDecodingCursor(spans: spans) { span in
                            let read = TimeRange(start: try track.decodingStart(showing: span.start), end: span.end)
                            return try session.makeDecodingCursor(for: track, timeline: TimelineCursor(track: track, timeRange: read, open: open),
                                                                  settings: settings, timeRange: span)
                        }
                    } else {
                        decoding = try session.makeDecodingCursor(for: track, timeline: timeline, settings: settings, timeRange: cut?.shown ?? range)
                    }
                    let timed = ConstantRateCursor.applying(settings, to: decoding, from: range == .everything ? decoding.timelineOrigin : range.start)
                    output.start(PrefetchingCursor(timed, capacity: track.mediaType == .video ? 4 : 0,
                                                   damagedPackets: { decoding.damagedPackets }, messages: { decoding.takeDecoderMessages() }))
                } else {
                    output.start(timeline)
                }
            }
        } catch {
            fail(error as? MediaError ?? MediaError(.io, "\(error)"))
            return false
        }
        return true
    }

    /// Stops reading; outputs return `nil` from then on.
    public func cancelReading() {
        let outputs = lock.withLock { () -> [AssetReaderTrackOutput] in
            if _status == .reading || _status == .unknown { _status = .cancelled }
            return _outputs
        }
        for o in outputs { o.stop() }
    }

    /// Fails the reader with `error` met reading `track` (which names the file it came from).
    func fail(_ error: MediaError, track: AssetTrack? = nil) {
        let outputs = lock.withLock { () -> [AssetReaderTrackOutput] in
            guard _status == .reading else { return [] }
            _status = .failed
            _error = asset.filePath(of: track).map { error.inFile($0) } ?? error
            return _outputs
        }
        for o in outputs { o.stop() }
    }

    /// Called by an output at its end: the reader completes when every output has.
    func outputDidFinish() {
        lock.withLock {
            guard _status == .reading && _outputs.allSatisfy({ $0.isFinished }) else { return }
            _status = .completed
            _warnings = (session?.warnings() ?? []) + _outputs.flatMap(\.decodingWarnings)
        }
    }
}
