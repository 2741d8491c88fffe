import Dispatch
import Foundation
import MediaCore

/// Anything that hands out sample buffers in decode order: a reader's track output, a subtitle reader…
public protocol SampleBufferSource: AnyObject, Sendable {
    /// The next sample, or `nil` when there are no more (or reading failed).
    func copyNextSampleBuffer() -> SampleBuffer?
}

extension AssetReaderTrackOutput: SampleBufferSource {}

/// A source that can fail: at its end, `failure` says whether it ended because reading failed
/// (the pipe then fails with that error instead of writing a short track).
protocol FailableSampleBufferSource: SampleBufferSource {
    var failure: MediaError? { get }
}

/// Samples from an array or any other sequence, handed out one at a time: a source made in
/// memory (generated subtitles, synthesised samples) for a feeding loop or `SamplePipe.connect`.
///
/// ```swift
/// let source = SampleBufferSequence(samples)
/// while let sample = source.copyNextSampleBuffer() { … }
/// ```
public final class SampleBufferSequence: SampleBufferSource, Sendable {
    private let iterator: Mutex<AnyIterator<SampleBuffer>>

    /// A source handing out `samples` in order.
    public init<S: Sequence>(_ samples: sending S) where S.Element == SampleBuffer {
        var it = samples.makeIterator()
        iterator = Mutex(AnyIterator { it.next() })
    }

    public func copyNextSampleBuffer() -> SampleBuffer? {
        iterator.withLock { $0.next() }
    }
}

/// The plumbing between sources and a writer, as in AVFoundation's sample code: for each
/// (source, input) pair a serial queue that copies samples into the input while it is ready,
/// marks it finished at the end, and leaves a `DispatchGroup`; when the group is empty the
/// writer finishes. Reader and writer errors end the run; `cancel()` stops it and leaves no output.
///
/// ```swift
/// let pipe = try SamplePipe.mirroring(asset, to: URL(fileURLWithPath: "copy.mp4"))
/// pipe.progressHandler = { print(Int($0 * 100), "%") }
/// try pipe.run()
/// ```
public final class SamplePipe: Sendable {
    /// The reader the samples come from; nil when every source is of the caller's own.
    public let reader: AssetReader?
    /// The writer the samples go to.
    public let writer: AssetWriter
    /// Called with the fraction done (0…1), from the pipe's queues, one call at a time (never
    /// holding a lock that `cancel()` takes), at most about ten times a second, 1.0 once.
    public var progressHandler: (@Sendable (Double) -> Void)? {
        get { settings.withLock { $0.progressHandler } }
        set { settings.withLock { $0.progressHandler = newValue } }
    }

    private struct Connection {
        let source: any SampleBufferSource
        let input: AssetWriterInput
        let queue: DispatchQueue
        /// Expected media duration, and where the source's times start, for progress.
        let duration: MediaTime?
        let start: MediaTime
    }

    /// What the pipe is set up with, and what it says of itself.
    private struct Settings {
        var progressHandler: (@Sendable (Double) -> Void)?
        var sessionStartTime = MediaTime.zero
        var sessionEndTime: MediaTime?
        var warnings: [String] = []
        var notes: [String] = []
        var mixes: [AssetReaderAudioMixOutput] = []
        var cutReports: [@Sendable () -> String] = []
    }

    /// Where a run is: its connections, the progress of each, which have left the group.
    private struct State {
        var connections: [Connection] = []
        var isCancelled = false
        var progress: [Double] = []
        var left: [Bool] = []
        var pacing = ProgressPacing()
        /// Why a source (`FailableSampleBufferSource`) ended early.
        var sourceFailure: MediaError?
    }

    private let settings = Mutex(Settings())
    private let state = Mutex(State())
    private let group = DispatchGroup()

    /// The source time the writer's session starts at (the first timestamp of a libavformat
    /// source, which MPEG-TS files put anywhere; 0 otherwise).
    public var sessionStartTime: MediaTime {
        get { settings.withLock { $0.sessionStartTime } }
        set { settings.withLock { $0.sessionStartTime = newValue } }
    }
    /// Where the writer's session ends (`endSession(atSourceTime:)`), if not at the last sample.
    public var sessionEndTime: MediaTime? {
        get { settings.withLock { $0.sessionEndTime } }
        set { settings.withLock { $0.sessionEndTime = newValue } }
    }
    /// What the pipe set up could not carry into the output (chapters a container has no place for).
    public internal(set) var warnings: [String] {
        get { settings.withLock { $0.warnings } }
        set { settings.withLock { $0.warnings = newValue } }
    }
    /// What the pipe set up decided that changes the structure copied: references dropped to
    /// tracks left out, new default tracks of groups (`TrackSelection`).
    public internal(set) var notes: [String] {
        get { settings.withLock { $0.notes } }
        set { settings.withLock { $0.notes = newValue } }
    }
    /// The audio mixes it feeds (for their clipping counts): set while the pipe is made, before it runs.
    var mixes: [AssetReaderAudioMixOutput] {
        get { settings.withLock { $0.mixes } }
        set { settings.withLock { $0.mixes = newValue } }
    }
    /// What each smart cut re-encoded and copied, read after the run.
    var cutReports: [@Sendable () -> String] {
        get { settings.withLock { $0.cutReports } }
        set { settings.withLock { $0.cutReports = newValue } }
    }

    /// A pipe from `reader`'s outputs (and other sources) into `writer`'s inputs; connect them, then `run()`.
    public init(reader: AssetReader?, writer: AssetWriter) {
        self.reader = reader
        self.writer = writer
    }

    /// Feeds `input` from `source` (on its own serial queue) when the pipe runs.
    /// - Parameters:
    ///   - source: the samples (a reader's output, a `SampleBufferSequence`, a mix).
    ///   - input: a writer input of this pipe's writer.
    ///   - duration: how much media the source holds, for `progressHandler`.
    public func connect(_ source: any SampleBufferSource, to input: AssetWriterInput, duration: MediaTime? = nil) {
        connect(source, to: input, duration: duration, start: .zero)
    }

    /// - Parameter start: where the source's decode times start (a range's start), for progress.
    func connect(_ source: any SampleBufferSource, to input: AssetWriterInput, duration: MediaTime?, start: MediaTime) {
        state.withLock {
            let queue = DispatchQueue(label: "splice.pipe.\($0.connections.count)")
            $0.connections.append(Connection(source: source, input: input, queue: queue, duration: duration, start: start))
        }
    }

    /// Runs the pipe to the end and finishes the writer.
    /// - Throws: the reader's or writer's error, or `.cancelled` after `cancel()`; the output is then not created.
    public func run() throws {
        if let reader {
            do { try FileIdentity.checkOutput(writer.outputURL.path, isNotAnyOf: reader.asset.sourceURLs.map(\.path)) } catch {
                writer.cancelWriting()
                throw error
            }
        }
        if let reader, !reader.startReading() {
            writer.cancelWriting()
            throw reader.error ?? MediaError(.cancelled, "reading was cancelled")
        }
        guard writer.startWriting() else {
            reader?.cancelReading()
            // A cancel that lands before the writer starts leaves it cancelled, with no error.
            if cancelled { throw MediaError(.cancelled, "writing was cancelled", file: writer.outputURL.path) }
            throw writer.error ?? MediaError(.io, "cannot start writing", file: writer.outputURL.path)
        }
        writer.startSession(atSourceTime: sessionStartTime)
        // (known from the start: what is written before the samples, chapters, is cut to it too)
        if let end = sessionEndTime { writer.endSession(atSourceTime: end) }
        let connections = state.withLock { s -> [Connection] in
            s.progress = Array(repeating: 0, count: s.connections.count)
            s.left = Array(repeating: false, count: s.connections.count)
            return s.connections
        }
        for (i, c) in connections.enumerated() {
            group.enter()
            c.input.requestMediaDataWhenReady(on: c.queue) { [self] in pump(i, c) }
        }
        group.wait()
        // Let each queue finish the block that left the group, so nothing of this run is still
        // running (or holding the writer) when `run()` returns.
        for c in connections { c.queue.sync {} }
        try finishRun()
    }

    /// Runs the pipe without blocking the caller; see `run()`.
    public func run() async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
            DispatchQueue.global().async {
                do { try self.run(); c.resume() } catch { c.resume(throwing: error) }
            }
        }
    }

    /// Stops the run: the reader and writer are cancelled and no output is left.
    public func cancel() {
        state.withLock { $0.isCancelled = true }
        reader?.cancelReading()
        writer.cancelWriting()
    }

    private var cancelled: Bool { state.withLock { $0.isCancelled } }

    private func pump(_ i: Int, _ c: Connection) {
        let output = c.source as? AssetReaderTrackOutput
        while c.input.isReadyForMoreMediaData && !cancelled {
            // A reader's output hands over small samples many at a time (up to 64, or 256 KiB):
            // one lock each side for them all.
            let samples = output.map { $0.copyNextSampleBuffers(limit: 64, bytes: 256 << 10) }
                ?? c.source.copyNextSampleBuffer().map { [$0] } ?? []
            guard let sample = samples.last else {
                if let failure = (c.source as? any FailableSampleBufferSource)?.failure {
                    state.withLock { $0.sourceFailure = $0.sourceFailure ?? failure }
                    writer.cancelWriting()
                    leave(i)
                    return
                }
                c.input.markAsFinished()
                report(i, 1)
                leave(i)
                return
            }
            guard c.input.append(contentsOf: samples) else { break }
            if let d = c.duration, d > .zero, progressHandler != nil {
                let end = sample.decodeTimeStamp + (sample.duration.isNumeric ? sample.duration : .zero) - c.start
                report(i, max(0, min(1, end.seconds / d.seconds)))
            }
        }
        let readerStopped = reader.map { $0.status == .failed || $0.status == .cancelled } ?? false
        if cancelled || writer.status != .writing || readerStopped {
            leave(i)
        }
    }

    private func leave(_ i: Int) {
        let first: Bool = state.withLock {
            guard !$0.left[i] else { return false }
            $0.left[i] = true
            return true
        }
        if first { group.leave() }
    }

    /// Calls `progressHandler` one call at a time (the connections' queues report concurrently),
    /// at most about ten times a second, and with 1.0 once.
    private let delivery = NSLock()

    private func report(_ i: Int, _ fraction: Double) {
        guard let handler = progressHandler else { return }
        delivery.withLock {
            let total: Double? = state.withLock { s in
                s.progress[i] = fraction
                let total = s.progress.allSatisfy { $0 >= 1 } ? 1 : min(0.999, s.progress.reduce(0, +) / Double(max(1, s.progress.count)))
                return s.pacing.tells(total) ? total : nil
            }
            if let total { handler(total) }
        }
    }

    private func finishRun() throws {
        if let failure = state.withLock({ $0.sourceFailure }) {
            writer.cancelWriting()
            throw failure
        }
        if cancelled {
            writer.cancelWriting()
            throw MediaError(.cancelled, "cancelled", file: writer.outputURL.path)
        }
        if let reader, reader.status == .failed || reader.status == .cancelled {
            writer.cancelWriting()
            throw reader.error ?? MediaError(.cancelled, "reading was cancelled")
        }
        guard writer.status == .writing else {
            throw writer.error ?? MediaError(.cancelled, "writing was cancelled", file: writer.outputURL.path)
        }
        if let end = sessionEndTime { writer.endSession(atSourceTime: end) }
        writer.finish()
        guard writer.status == .completed else {
            throw writer.error ?? MediaError(.cancelled, "writing was cancelled", file: writer.outputURL.path)
        }
    }
}
