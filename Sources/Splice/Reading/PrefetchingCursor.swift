import Foundation
import MediaCore

/// Decodes ahead on a thread of its own: a decoding cursor's next few samples are made while the
/// caller encodes (or otherwise uses) the ones before, so that decode → convert → encode of one
/// track run as a pipeline. At most `capacity` samples wait, which bounds the memory it adds
/// (four 1080p pictures: 12 MB). The thread starts with the first `next()` and ends at the end,
/// on an error (handed out after the samples before it) or on `close()`, which does not wait for
/// a sample being decoded: the thread closes the source once that sample is made.
final class PrefetchingCursor: SampleCursor, @unchecked Sendable {   // state under `condition`; `source` used by one thread at a time
    private let source: any SampleCursor
    /// The decoder's count of damaged packets skipped so far, and what it said since last asked.
    private let damage: () -> Int
    private let messages: () -> [String]
    private let capacity: Int
    private let condition = NSCondition()
    /// At most `capacity` samples, oldest first (a few: removing the first is cheap).
    private var queue: [SampleBuffer] = []
    private var ended: Error?? = nil
    private var started = false
    private var closed = false
    private var running = false
    private var damaged = 0
    /// Who waits: each side wakes the other only then (a wake is a futex call and a context
    /// switch; audio buffers come fast enough for that to cost more than decoding them).
    private var consumerWaiting = false
    private var producerWaiting = false

    /// - Parameter capacity: the samples decoded ahead; 0 decodes on the caller's thread (audio:
    ///   it decodes faster than a handoff between threads costs — the mix benchmark spent 9 %
    ///   more CPU time prefetching it), still keeping what the decoder skipped and said.
    init(_ source: any SampleCursor, capacity: Int, damagedPackets: @escaping () -> Int, messages: @escaping () -> [String] = { [] }) {
        self.source = source
        damage = damagedPackets
        self.messages = messages
        self.capacity = max(0, capacity)
    }

    /// `close()` wakes a waiting `next()` and leaves the decode in progress to its thread (with
    /// a thread; without one, a closing reader waits for `next()` to return).
    var closesWhileReading: Bool { capacity > 0 }

    /// Damaged packets the decoder has skipped so far.
    var damagedPackets: Int { condition.withLock { damaged } }
    /// What the decoder said so far (the first 100 lines).
    var decoderMessages: [String] { condition.withLock { said } }
    private var said: [String] = []

    func next() throws -> SampleBuffer? {
        if capacity == 0 { return try nextInline() }
        condition.lock()
        defer { condition.unlock() }
        if !started {
            started = true
            running = true
            let thread = Thread { [self] in work() }
            thread.name = "splice.decode"
            thread.start()
        }
        while queue.isEmpty && ended == nil && !closed {
            consumerWaiting = true
            condition.wait()
            consumerWaiting = false
        }
        if !queue.isEmpty {
            // The decoder, stopped at a full queue, goes on once half of it is taken.
            if producerWaiting && queue.count <= capacity / 2 + 1 { condition.signal() }
            return queue.removeFirst()
        }
        if case .some(.some(let error)) = ended { ended = .some(nil); throw error }
        return nil
    }

    /// Without a thread: the source's next sample, and what its decoder skipped and said.
    private func nextInline() throws -> SampleBuffer? {
        let sample = try source.next()
        let lines = messages()
        condition.withLock {
            damaged = damage()
            said += lines.prefix(max(0, 100 - said.count))
        }
        return sample
    }

    func close() {
        // Closed here when no thread runs, else by the thread after its sample: the source is
        // never closed while it decodes, and a cancel never waits for a decode.
        let closesHere: Bool = condition.withLock {
            closed = true
            queue = []
            condition.broadcast()
            return !running
        }
        if closesHere { source.close() }
    }

    private func work() {
        while true {
            condition.lock()
            while queue.count >= capacity && !closed {
                producerWaiting = true
                condition.wait()
                producerWaiting = false
            }
            let stop = closed
            condition.unlock()
            if stop { break }
            let result = Result { try source.next() }
            let lines = messages()
            condition.lock()
            damaged = damage()
            said += lines.prefix(max(0, 100 - said.count))
            switch result {
            case .success(let sample?): if !closed { queue.append(sample) }
            case .success(nil): ended = .some(nil)
            case .failure(let error): ended = .some(error)
            }
            let done = ended != nil
            if consumerWaiting || done { condition.broadcast() }
            condition.unlock()
            if done { break }
        }
        let closesHere: Bool = condition.withLock {
            running = false
            condition.broadcast()
            return closed
        }
        if closesHere { source.close() }
    }
}
