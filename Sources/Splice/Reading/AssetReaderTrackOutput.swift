import Foundation
import MediaCore
import FFmpegBridge

/// Hands out the samples of one track, in decode order.
public final class AssetReaderTrackOutput: @unchecked Sendable {   // settings @Guarded; state under `lock`, the cursor under `reading`
    /// The track whose samples are handed out.
    public let track: AssetTrack
    /// `nil`: samples pass through as stored. `.audio(…)`: decoded PCM; `.video(…)`: decoded
    /// pictures — in both cases on the asset's timeline, cut frame-exactly to the reader's range.
    public let outputSettings: OutputSettings?
    /// `true` (the default): each sample's bytes are read into memory. `false`: samples refer to
    /// their bytes in the file, read only when `data` is asked for — a writer copies them file
    /// to file without reading them (what `SamplePipe.mirroring` uses). Set before reading.
    @Guarded public var alwaysCopiesSampleData: Bool = true
    /// `false` (the default): samples are on the asset's timeline — each sample's decode and
    /// presentation times are its media times mapped through the track's edit list (see
    /// `AssetReader`). `true`: samples keep their media times, as stored, and the track's
    /// `segments` say where they are shown; a writer input given those `segments` rebuilds the
    /// edit list exactly (what `SamplePipe.mirroring` does). Set before reading.
    @Guarded public var presentsMediaTimeline: Bool = false
    /// The cut this output follows (a ranged copy's): it reads `cut.read` — from its sync sample,
    /// no pre-roll added — and decodes to `cut.shown`; nil: the reader's range.
    @Guarded var cut: TrackCut? = nil
    weak var reader: AssetReader?

    /// Guards `cursor`, `finished` and `last`; never held while the cursor reads or decodes, so
    /// that `stop()` (a cancel) does not wait for a sample.
    private let lock = NSLock()
    /// Held while the cursor makes a sample: one caller reads at a time.
    private let reading = NSLock()
    private var cursor: (any SampleCursor)?
    private var finished = false
    /// A read is in progress; `stop()` during it leaves the close to the reader (`closeAfterRead`)
    /// unless the cursor closes while reading.
    private var isReading = false
    private var closeAfterRead = false

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
    deinit { cursor?.close() }

    var isFinished: Bool { lock.withLock { finished } }

    /// What decoding skipped (damaged packets) and what the decoder said (repeated lines once,
    /// with a count; at most 20), for the reader's warnings.
    var decodingWarnings: [String] {
        guard let decoding = lock.withLock({ cursor as? PrefetchingCursor }) else { return [] }
        let n = decoding.damagedPackets
        let skipped = n > 0 ? ["\(n) damaged packet\(n == 1 ? " was" : "s were") skipped by the decoder"] : []
        return (skipped + FFmpegLog.summary(decoding.decoderMessages)).map { "track \(track.trackID): " + $0 }
    }

    /// How far on its timeline this output has handed out samples (decode time + duration of
    /// the latest sample); nil before the first.
    var position: MediaTime? {
        lock.withLock { last.map { $0.decodeTimeStamp + ($0.duration.isNumeric ? $0.duration : .zero) } }
    }
    /// The times of the latest sample handed out.
    private var last: (decodeTimeStamp: MediaTime, duration: MediaTime)?

    /// Starts handing out `cursor`'s samples (the reader started reading).
    func start(_ cursor: any SampleCursor) {
        lock.withLock { self.cursor = cursor }
    }

    /// Ends this output's samples (the reader was cancelled or failed), without waiting for a
    /// sample being read or decoded.
    func stop() {
        lock.lock()
        finished = true
        let cursor = self.cursor
        let closesNow = cursor.map { !isReading || $0.closesWhileReading } ?? false
        if !closesNow { closeAfterRead = isReading }
        lock.unlock()
        if closesNow { cursor?.close() }
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
        let (samples, outcome): ([SampleBuffer], Result<Void, Error>?) = reading.withLock {
            let reader: (any SampleCursor)? = lock.withLock {
                guard !finished, let cursor else { return nil }
                isReading = true
                return cursor
            }
            guard let cursor = reader else { return ([], lock.withLock { takeTerminal() } ?? .success(())) }
            var samples: [SampleBuffer] = [], size = 0
            var end: Result<Void, Error>?
            while samples.count < max(1, limit) && size < bytes {
                do {
                    guard let s = try cursor.next() else { end = .success(()); break }
                    samples.append(s)
                    size += s.totalSampleSize
                    // Only samples left in their file go many at a time: reading ahead in one
                    // demuxed stream would queue the packets of the others in memory.
                    guard case .file = s.storage else { break }
                } catch {
                    end = .failure(error)
                    break
                }
            }
            let (kept, outcome, closes): ([SampleBuffer], Result<Void, Error>?, Bool) = lock.withLock {
                isReading = false
                defer { closeAfterRead = false }
                // Stopped while the cursor read: what it made is not handed out.
                if finished { return ([], .success(()), closeAfterRead) }
                if let s = samples.last(where: { $0.decodeTimeStamp.isNumeric }) { last = (s.decodeTimeStamp, s.duration) }
                if let end {
                    finished = true
                    // Told now when nothing else is; else by the next call.
                    if !samples.isEmpty { terminal = end; return (samples, nil, false) }
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

    /// An end or failure met after the samples of the call that met it, for the next call.
    private var terminal: Result<Void, Error>?

    private func takeTerminal() -> Result<Void, Error>? {
        defer { terminal = nil }
        return terminal
    }
}
