import Foundation
import MediaCore
import FFmpegBridge

/// Hands out the samples of one track, in decode order.
///
/// Its settings are one value behind one lock; the cursor it reads is handed over (`sending`)
/// into a `CursorSlot` and read under the slot's lock, which `stop()` never waits for while a
/// sample is being read or decoded.
public final class AssetReaderTrackOutput: Sendable {
    /// The track whose samples are handed out.
    public let track: AssetTrack
    /// `nil`: samples pass through as stored. `.audio(…)`: decoded PCM; `.video(…)`: decoded
    /// pictures — in both cases on the asset's timeline, cut frame-exactly to the reader's range.
    public let outputSettings: OutputSettings?

    private struct Settings {
        var alwaysCopiesSampleData = true
        var presentsMediaTimeline = false
        var cut: TrackCut?
        weak var reader: AssetReader?
    }

    private let settings = Mutex(Settings())

    /// `true` (the default): each sample's bytes are read into memory. `false`: samples refer to
    /// their bytes in the file, read only when `data` is asked for — a writer copies them file
    /// to file without reading them (what `SamplePipe.mirroring` uses). Set before reading.
    public var alwaysCopiesSampleData: Bool {
        get { settings.withLock { $0.alwaysCopiesSampleData } }
        set { settings.withLock { $0.alwaysCopiesSampleData = newValue } }
    }
    /// `false` (the default): samples are on the asset's timeline — each sample's decode and
    /// presentation times are its media times mapped through the track's edit list (see
    /// `AssetReader`). `true`: samples keep their media times, as stored, and the track's
    /// `segments` say where they are shown; a writer input given those `segments` rebuilds the
    /// edit list exactly (what `SamplePipe.mirroring` does). Set before reading.
    public var presentsMediaTimeline: Bool {
        get { settings.withLock { $0.presentsMediaTimeline } }
        set { settings.withLock { $0.presentsMediaTimeline = newValue } }
    }
    /// The cut this output follows (a ranged copy's): it reads `cut.read` — from its sync sample,
    /// no pre-roll added — and decodes to `cut.shown`; nil: the reader's range.
    var cut: TrackCut? {
        get { settings.withLock { $0.cut } }
        set { settings.withLock { $0.cut = newValue } }
    }
    /// The reader this output was added to.
    var reader: AssetReader? {
        get { settings.withLock { $0.reader } }
        set { settings.withLock { $0.reader = newValue } }
    }

    /// Where the output is; never held while the cursor reads or decodes, so that `stop()` (a
    /// cancel) does not wait for a sample.
    private struct State {
        /// The cursor, from the start of reading.
        var slot: CursorSlot?
        var finished = false
        /// A read is in progress; `stop()` during it leaves the close to the reader (`closeAfterRead`)
        /// unless the cursor closes while reading (`concurrent`).
        var isReading = false
        var closeAfterRead = false
        /// The cursor when it can be closed while it reads, and tells what its decoder met.
        var concurrent: PrefetchingCursor?
        /// The times of the latest sample handed out.
        var last: (decodeTimeStamp: MediaTime, duration: MediaTime)?
        /// An end or failure met after the samples of the call that met it, for the next call.
        var terminal: Result<Void, Error>?
    }

    private let state = Mutex(State())

    /// An output of `track` (of the reader's asset): stored samples, or decoded as `outputSettings` says.
    public init(track: AssetTrack, outputSettings: OutputSettings? = nil) {
        self.track = track
        self.outputSettings = outputSettings
    }

    /// An output of a composition's track, for a reader of the composition as it is now
    /// (`AssetReader(asset: composition)`). Unlike AVFoundation's, it throws: the composition is
    /// laid out here, which reads its sources.
    public convenience init(track: CompositionTrack, outputSettings: OutputSettings? = nil) throws {
        self.init(track: try track.assetTrack(), outputSettings: outputSettings)
    }

    /// An output let go of mid-read stops its cursor (a decoding one ends its thread).
    deinit { state.withLock { $0.slot }?.cursor.withLock { $0?.close() } }

    var isFinished: Bool { state.withLock { $0.finished } }

    /// What decoding skipped (damaged packets) and what the decoder said (repeated lines once,
    /// with a count; at most 20), for the reader's warnings.
    var decodingWarnings: [String] {
        guard let decoding = state.withLock({ $0.concurrent }) else { return [] }
        let n = decoding.damagedPackets
        let skipped = n > 0 ? ["\(n) damaged packet\(n == 1 ? " was" : "s were") skipped by the decoder"] : []
        return (skipped + FFmpegLog.summary(decoding.decoderMessages)).map { "track \(track.trackID): " + $0 }
    }

    /// How far on its timeline this output has handed out samples (decode time + duration of
    /// the latest sample); nil before the first.
    var position: MediaTime? {
        state.withLock { $0.last.map { $0.decodeTimeStamp + ($0.duration.isNumeric ? $0.duration : .zero) } }
    }

    /// Starts handing out `cursor`'s samples (the reader started reading).
    func start(_ cursor: sending any SampleCursor) {
        let concurrent = cursor as? PrefetchingCursor
        let slot = CursorSlot(cursor)
        state.withLock {
            $0.slot = slot
            $0.concurrent = concurrent
        }
    }

    /// Ends this output's samples (the reader was cancelled or failed), without waiting for a
    /// sample being read or decoded.
    func stop() {
        let (slot, concurrent): (CursorSlot?, PrefetchingCursor?) = state.withLock { s in
            s.finished = true
            if let c = s.concurrent { return (nil, c) }
            if s.isReading { s.closeAfterRead = true }
            return (s.isReading ? nil : s.slot, nil)
        }
        // A cursor that closes while it reads is closed now; another once its read is done
        // (here when none runs: a caller that takes the slot now finds the output finished).
        concurrent?.close()
        slot?.cursor.withLock { $0?.close() }
    }

    /// The next sample in decode order, or `nil` at the end, after `cancelReading()`, or on failure
    /// (then the reader's `status` is `.failed` and its `error` says why).
    public func copyNextSampleBuffer() -> SampleBuffer? {
        copyNextSampleBuffers(limit: 1, bytes: 1).first
    }

    /// The next samples in decode order — up to `limit`, fewer once they hold `bytes` bytes —
    /// read under one lock: what as many calls of `copyNextSampleBuffer()` hand out, for a
    /// caller that copies many small samples. Only samples that refer to their file (an MP4
    /// read without copying sample data) come more than one at a time. Empty at the end or on failure, as
    /// `copyNextSampleBuffer()` returns `nil`; an end or a failure met after some samples is
    /// told by the next call.
    func copyNextSampleBuffers(limit: Int, bytes: Int) -> [SampleBuffer] {
        let slot = state.withLock { $0.slot }
        let (samples, outcome): ([SampleBuffer], Result<Void, Error>?) = Self.withCursor(slot) { cursor in
            let proceed: Bool = state.withLock { s in
                guard !s.finished, s.slot != nil else { return false }
                s.isReading = true
                return true
            }
            guard proceed, let cursor else { return ([], state.withLock { s in s.terminal.take() } ?? .success(())) }
            let (samples, end) = Self.read(cursor, limit: limit, bytes: bytes)
            let (kept, outcome, closes): ([SampleBuffer], Result<Void, Error>?, Bool) = state.withLock { s in
                s.isReading = false
                defer { s.closeAfterRead = false }
                // Stopped while the cursor read: what it made is not handed out.
                if s.finished { return ([], .success(()), s.closeAfterRead) }
                if let last = samples.last(where: { $0.decodeTimeStamp.isNumeric }) { s.last = (last.decodeTimeStamp, last.duration) }
                if let end {
                    s.finished = true
                    // Told now when nothing else is; else by the next call.
                    if !samples.isEmpty { s.terminal = end; return (samples, nil, false) }
                }
                return (samples, end, false)
            }
            if closes { cursor.close() }
            return (kept, outcome)
        }
        if samples.isEmpty {
            switch outcome {
            case .failure(let error)?: reader?.fail(error as? MediaError ?? MediaError(.io, "\(error)"), track: track)
            case .success?, nil: reader?.outputDidFinish()
            }
        }
        return samples
    }

    /// `body` run with the slot's cursor under its lock (nil: not started).
    private static func withCursor<R>(_ slot: CursorSlot?, _ body: ((any SampleCursor)?) -> sending R) -> sending R {
        guard let slot else { return body(nil) }
        return slot.cursor.withLock { body($0) }
    }

    /// Up to `limit` samples of `cursor`, fewer once they hold `bytes`; the end or failure met.
    private static func read(_ cursor: any SampleCursor, limit: Int, bytes: Int) -> ([SampleBuffer], Result<Void, Error>?) {
        var samples: [SampleBuffer] = [], size = 0
        while samples.count < max(1, limit) && size < bytes {
            do {
                guard let s = try cursor.next() else { return (samples, .success(())) }
                samples.append(s)
                size += s.totalSampleSize
                // Only samples left in their file go many at a time: reading ahead in one
                // demuxed stream would queue the packets of the others in memory.
                guard case .file = s.storage else { break }
            } catch {
                return (samples, .failure(error))
            }
        }
        return (samples, nil)
    }
}

/// A cursor handed over to the output that reads it, and the lock it is read under (one caller
/// at a time).
final class CursorSlot: Sendable {
    let cursor: Mutex<(any SampleCursor)?>

    init(_ cursor: sending any SampleCursor) {
        self.cursor = Mutex(cursor)
    }
}
