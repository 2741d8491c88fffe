import Dispatch
import Foundation

/// The request plumbing of `AssetWriterInput.requestMediaDataWhenReady(on:using:)`: an input's
/// block runs on its queue whenever the input is ready, one run at a time, and once more after
/// writing ends so that it sees the writer's status.
extension AssetWriter {
    func isReady(_ input: AssetWriterInput) -> Bool {
        lock.withLock { isReadyLocked(input) }
    }

    /// Ready to take a sample — or, once writing has failed or been cancelled, ready to be told
    /// so by `append(_:)` returning `false`, until the input is marked finished: a feeding loop
    /// always gets to the end of its block.
    private func isReadyLocked(_ input: AssetWriterInput) -> Bool {
        if _status == .failed || _status == .cancelled { return !input.state.isFinished }
        return _status == .writing && sessionStarted && interleaver.isReady(input.state)
    }

    private var hasEnded: Bool { _status != .writing && _status != .unknown }

    func setRequest(_ input: AssetWriterInput, queue: DispatchQueue, block: @escaping @Sendable () -> Void) {
        lock.withLock {
            input.state.requestQueue = queue
            input.state.requestBlock = block
        }
        pump(input)
    }

    /// Runs an input's request block on its queue if it is ready (or must see a terminal status).
    private func pump(_ input: AssetWriterInput) {
        let scheduled: (block: @Sendable () -> Void, queue: DispatchQueue)? = lock.withLock {
            let state = input.state
            guard let block = state.requestBlock, let queue = state.requestQueue, !state.isScheduled else { return nil }
            let run: Bool
            if hasEnded {
                run = !state.sawTerminalStatus && !state.isFinished
                state.sawTerminalStatus = true
            } else {
                run = isReadyLocked(input)
            }
            guard run else { return nil }
            state.isScheduled = true
            return (block, queue)
        }
        guard let (block, queue) = scheduled else { return }
        queue.async { [self] in
            block()
            lock.withLock {
                let state = input.state
                state.isScheduled = false
                // The block is released once the input is done (it often holds its feeder), or once
                // it has run after writing ended — if writing ended while it ran, it runs once more.
                if state.isFinished || (hasEnded && state.sawTerminalStatus) { state.requestBlock = nil }
            }
            pump(input)
        }
    }

    func pumpAll() {
        for input in inputs { pump(input) }
    }
}
