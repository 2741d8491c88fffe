import Dispatch
import Foundation
import Splice
#if canImport(Glibc)
import Glibc
#endif

/// How `splice` ends on SIGINT, SIGTERM and SIGHUP: caught for the whole run, so that none is
/// lost between two steps. A job in progress is cancelled (its output discarded, nothing left)
/// and splice exits 128 + the signal (130, 143, 129); with no job running it exits at once.
/// SIGPIPE is ignored: a closed stdout or stderr never ends a job (see `Terminal`).
enum Signals {
    private static let state = Locked(State())

    private struct State {
        var received: Int32?
        /// The running job's cancellation, if a job runs.
        var cancel: (@Sendable () -> Void)?
    }

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
        let cancel: (@Sendable () -> Void)? = state.withLock { s in
            if s.received == nil { s.received = sig }
            return s.cancel
        }
        guard let cancel else { _exit(128 + sig) }
        cancel()
    }

    /// The first signal received, if any.
    static var received: Int32? { state.withLock { $0.received } }

    /// Runs `body` with `cancel` as what a signal does; a signal that came before is acted on at once.
    static func whileRunning<T>(cancel: @escaping @Sendable () -> Void, _ body: () throws -> T) rethrows -> T {
        let pending: Bool = state.withLock { s in
            s.cancel = cancel
            return s.received != nil
        }
        if pending { cancel() }
        defer { state.withLock { $0.cancel = nil } }
        return try body()
    }

    /// After a job stopped: when a signal stopped it, says so — naming the output not written
    /// (nil: "nothing was written") — and returns the exit status, 128 + the signal; else nil.
    static func reportInterruption(of output: String?) -> Int32? {
        guard let sig = received else { return nil }
        let name = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP"][sig] ?? "signal \(sig)"
        Terminal.error("error: interrupted (\(name)); \(output.map { "\($0) was not written" } ?? "nothing was written")\n")
        return 128 + sig
    }
}

/// Writing to the terminal's streams without ever failing a job: a write to a closed pipe
/// (`… 2>&1 | head -1`) is dropped, and the job goes on.
enum Terminal {
    /// `--quiet`: no summary line and no notes; warnings and errors still go to stderr.
    nonisolated(unsafe) static var isQuiet = false
    /// `--sync`: every output of this run is flushed to disk before it is put in place (set
    /// once, before any job starts; each job's writer is told).
    nonisolated(unsafe) static var syncsToDisk = false

    /// A job's one line on success, on stdout (not with `--quiet`).
    static func summary(_ line: String) {
        if !isQuiet { print(line) }
    }

    /// What a job decided (`note: …` on stderr; not with `--quiet`).
    static func note(_ text: String) {
        if !isQuiet { error("note: \(text)\n") }
    }

    /// Writes `text` to stderr as it is.
    static func error(_ text: String) {
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            done += n
        }
    }
}
