import Dispatch
import Foundation
import Splice
import SpliceCLI
#if canImport(Glibc)
import Glibc
#endif

/// How `splice` ends on SIGINT, SIGTERM and SIGHUP: caught for the whole run, so that none is
/// lost between two steps. A job in progress is cancelled (its output discarded, nothing left)
/// and splice exits 128 + the signal (130, 143, 129); with no job running it exits at once.
/// SIGPIPE is ignored: a closed stdout or stderr never ends a job (see `Terminal`).
enum Signals {
    /// What the running job's cancellation is registered with (the terminal host's).
    static let cancellation = CancelSwitch()
    private static let first = Locked<Int32?>(nil)

    /// Keeps the dispatch sources alive for the whole run.
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// Installs the handlers; call once, first thing.
    static func install() {
        signal(SIGPIPE, SIG_IGN)
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { received(sig) }
            source.resume()
            sources.append(source)
        }
    }

    private static func received(_ sig: Int32) {
        first.withLock { if $0 == nil { $0 = sig } }
        if !cancellation.cancel() { _exit(128 + sig) }
    }

    /// The first signal received, if any.
    static var received: Int32? { first.withLock { $0 } }

    /// After a job stopped: when a signal stopped it, says so — naming the output not written
    /// (nil: "nothing was written") — and returns the exit status, 128 + the signal; else nil.
    static func reportInterruption(of output: String?) -> Int32? {
        guard let sig = received else { return nil }
        let name = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP"][sig] ?? "signal \(sig)"
        CommandHost.current.write(.diagnostics, "error: interrupted (\(name)); \(output.map { "\($0) was not written" } ?? "nothing was written")\n")
        return 128 + sig
    }
}
