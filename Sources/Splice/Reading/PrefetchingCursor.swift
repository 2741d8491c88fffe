import Dispatch
import Foundation
import MediaCore

/// Decodes ahead on a thread of its own: a decoding cursor's next few samples are made while the
/// caller encodes (or otherwise uses) the ones before, so that decode → convert → encode of one
/// track run as a pipeline. At most `capacity` samples wait, which bounds the memory it adds
/// (four 1080p pictures: 12 MB). The thread starts with the first `next()` and ends at the end,
/// on an error (handed out after the samples before it) or on `close()`, which does not wait for
/// a sample being decoded: the thread closes the source once that sample is made.
///
/// The source is handed over (`sending`) and lives in `state` while no thread uses it; the
/// decoding thread takes it out, and closes it when it ends (at the source's end, on an error
/// or on `close()`). Each side sleeps on a semaphore of its own, woken by the other only when its flag says
/// it waits (a wake is a futex call and a context switch; audio buffers come fast enough for
/// that to cost more than decoding them).
final class PrefetchingCursor: SampleCursor, Sendable {
    /// The cursor read, with the decoding cursor behind it (what the decoder skipped and said).
    struct Source {
        var cursor: any SampleCursor
        var decoding: (any DecodedSampleCursor)?
    }

    private struct State: ~Copyable {
        /// Here while no thread reads it.
        var source: Source?
        /// At most `capacity` samples, oldest first (a few: removing the first is cheap).
        var queue: [SampleBuffer] = []
        var ended: Result<Void, Error>?
        var started = false
        var closed = false
        var running = false
        var damaged = 0
        var said: [String] = []
        var consumerWaiting = false
        var producerWaiting = false

        /// Keeps what the decoder skipped and said.
        mutating func note(damaged: Int, lines: [String]) {
            self.damaged = damaged
            said += lines.prefix(max(0, 100 - said.count))
        }
    }

    private let state: Mutex<State>
    private let capacity: Int
    private let consumerWakes = DispatchSemaphore(value: 0)
    private let producerWakes = DispatchSemaphore(value: 0)

    /// - Parameter capacity: the samples decoded ahead; 0 decodes on the caller's thread (audio:
    ///   it decodes faster than a handoff between threads costs — the mix benchmark spent 9 %
    ///   more CPU time prefetching it), still keeping what the decoder skipped and said.
    init(_ source: sending Source, capacity: Int) {
        state = Mutex(State(source: source))
        self.capacity = max(0, capacity)
    }

    /// `close()` wakes a waiting `next()` and leaves the decode in progress to its thread (with
    /// a thread; without one, a closing reader waits for `next()` to return).
    var closesWhileReading: Bool { capacity > 0 }

    /// Damaged packets the decoder has skipped so far.
    var damagedPackets: Int { state.withLock { $0.damaged } }
    /// What the decoder said so far (the first 100 lines).
    var decoderMessages: [String] { state.withLock { $0.said } }

    func next() throws -> SampleBuffer? {
        if capacity == 0 { return try nextInline() }
        while true {
            let taken: Result<SampleBuffer?, Error>? = state.withLock { s in
                if !s.started {
                    s.started = true
                    s.running = true
                    let thread = Thread { [self] in work() }
                    thread.name = "splice.decode"
                    thread.start()
                }
                if !s.queue.isEmpty {
                    // The decoder, stopped at a full queue, goes on once half of it is taken.
                    if s.producerWaiting && s.queue.count <= capacity / 2 + 1 { wake(producer: &s) }
                    return .success(s.queue.removeFirst())
                }
                if s.closed { return .success(nil) }
                if let ended = s.ended {
                    s.ended = .success(())
                    return ended.map { nil }
                }
                s.consumerWaiting = true
                return nil
            }
            if let taken { return try taken.get() }
            consumerWakes.wait()
        }
    }

    /// Without a thread: the source's next sample, and what its decoder skipped and said (read
    /// under the lock: a close waits for it).
    private func nextInline() throws -> SampleBuffer? {
        try state.withLock { s in
            guard !s.closed, let source = s.source else { return nil }
            let sample = try source.cursor.next()
            if let decoding = source.decoding { s.note(damaged: decoding.damagedPackets, lines: decoding.takeDecoderMessages()) }
            return sample
        }
    }

    func close() {
        // Closed here when no thread runs, else by the thread after its sample: the source is
        // never closed while it decodes, and a cancel never waits for a decode.
        state.withLock { s in
            s.closed = true
            s.queue = []
            if s.consumerWaiting { s.consumerWaiting = false; consumerWakes.signal() }
            if s.producerWaiting { wake(producer: &s) }
            if !s.running { s.source.take()?.cursor.close() }
        }
    }

    private func wake(producer s: inout State) {
        s.producerWaiting = false
        producerWakes.signal()
    }

    private func work() {
        guard let source = state.withLock({ $0.source.take() }) else { return }
        while true {
            let go: Bool? = state.withLock { s in
                if s.closed { return false }
                if s.queue.count < capacity { return true }
                s.producerWaiting = true
                return nil
            }
            guard let go else { producerWakes.wait(); continue }
            guard go else { break }
            let result = Result { try source.cursor.next() }
            let damaged = source.decoding?.damagedPackets ?? 0
            let lines = source.decoding?.takeDecoderMessages() ?? []
            let done: Bool = state.withLock { s in
                s.note(damaged: damaged, lines: lines)
                switch result {
                case .success(let sample?): if !s.closed { s.queue.append(sample) }
                case .success(nil): s.ended = .success(())
                case .failure(let error): s.ended = .failure(error)
                }
                let done = s.ended != nil
                if s.consumerWaiting { s.consumerWaiting = false; consumerWakes.signal() }
                return done
            }
            if done { break }
        }
        // Done with the source: the end, an error or a close.
        source.cursor.close()
        state.withLock { $0.running = false }
    }
}
