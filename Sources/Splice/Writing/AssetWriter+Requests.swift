import Dispatch
import Foundation

/// The request plumbing of `AssetWriterInput.requestMediaDataWhenReady(on:using:)`: an input's
/// block runs on its queue whenever the input is ready, one run at a time, and once more after
/// writing ends so that it sees the writer's status.
extension AssetWriter {
    func isReady(at i: Int) -> Bool {
        core.withLock { $0.isReady(i) }
    }

    func setRequest(at i: Int, queue: DispatchQueue, block: @escaping @Sendable () -> Void) {
        core.withLock { c in
            c.states[i].requestQueue = queue
            c.states[i].requestBlock = block
        }
        pump(i)
    }

    /// Runs input `i`'s request block on its queue if it is ready (or must see a terminal status).
    private func pump(_ i: Int) {
        let scheduled: (block: @Sendable () -> Void, queue: DispatchQueue)? = core.withLock { c in
            guard let block = c.states[i].requestBlock, let queue = c.states[i].requestQueue, !c.states[i].isScheduled else { return nil }
            let run: Bool
            if c.hasEnded {
                run = !c.states[i].sawTerminalStatus && !c.states[i].isFinished
                c.states[i].sawTerminalStatus = true
            } else {
                run = c.isReady(i)
            }
            guard run else { return nil }
            c.states[i].isScheduled = true
            return (block, queue)
        }
        guard let (block, queue) = scheduled else { return }
        queue.async { [self] in
            block()
            core.withLock { c in
                c.states[i].isScheduled = false
                // The block is released once the input is done (it often holds its feeder), or once
                // it has run after writing ended — if writing ended while it ran, it runs once more.
                if c.states[i].isFinished || (c.hasEnded && c.states[i].sawTerminalStatus) { c.states[i].requestBlock = nil }
            }
            pump(i)
        }
    }

    func pumpAll() {
        for i in core.withLock({ $0.states.indices }) { pump(i) }
    }
}
