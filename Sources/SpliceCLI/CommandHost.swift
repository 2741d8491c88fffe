import Foundation
import Splice
#if canImport(Glibc)
import Glibc
#endif

/// What a command runs in: where its words go, what cancels it and what a cancel means.
///
/// `splice` runs every command in `terminal` (stdout, stderr, Ctrl-C); the C library runs each
/// call in a host of its own, whose words go to the caller's log callback and whose switch the
/// caller's cancel token throws, so that commands run at once on several threads never share
/// a setting. The host a command sees is the task-local `current`.
public struct CommandHost: Sendable {
    /// The two streams a command writes: its result (`inspect --json`, the summary line) and its
    /// diagnostics (notes, warnings, errors, the progress line).
    public enum Stream: Sendable { case output, diagnostics }

    /// `--quiet`: no summary line and no notes; warnings and errors are still written.
    public var isQuiet = false
    /// `--sync`: every output is flushed to disk before it is put in place.
    public var syncsToDisk = false
    /// Writes text as it is to one of the streams.
    public var write: @Sendable (Stream, String) -> Void
    /// Where a job's progress goes (a fraction in 0...1); nil: a bar or JSON lines on the
    /// diagnostics stream, as the terminal has them.
    public var progress: (@Sendable (Double) -> Void)?
    /// What the running job's cancellation is registered with.
    public var cancellation: CancelSwitch
    /// After a job stopped by `cancellation`: says so, naming the output not written (nil:
    /// nothing was written), and returns the exit status — or nil, and the cancellation error
    /// is thrown to the caller.
    public var interruption: @Sendable (_ output: String?) -> Int32?
    /// Whether a progress bar may be drawn (the diagnostics stream is a terminal).
    public var drawsProgressBar = false

    /// A host writing to `write`, cancelled through `cancellation`.
    public init(write: @escaping @Sendable (Stream, String) -> Void, cancellation: CancelSwitch = CancelSwitch(),
                interruption: @escaping @Sendable (String?) -> Int32? = { _ in nil }) {
        self.write = write
        self.cancellation = cancellation
        self.interruption = interruption
    }

    /// The process's standard streams, a write to a closed pipe dropped (`… 2>&1 | head -1`
    /// never ends a job).
    public static func terminal(cancellation: CancelSwitch = CancelSwitch(),
                                interruption: @escaping @Sendable (String?) -> Int32? = { _ in nil }) -> CommandHost {
        var host = CommandHost(write: { stream, text in writeAll(stream == .output ? 1 : 2, text) },
                               cancellation: cancellation, interruption: interruption)
        host.drawsProgressBar = isatty(2) != 0
        return host
    }

    /// The host of the command running on this task or thread.
    @TaskLocal public static var current = CommandHost.terminal()

    private static func writeAll(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            done += n
        }
    }
}

/// The switch jobs' cancellations are registered with: thrown from any thread, once, it
/// cancels every job registered; a job that registers after it was thrown is cancelled at once,
/// so no cancel is lost between two steps of a command. (A C caller's cancel token is one, with
/// each job's own switch registered.)
public final class CancelSwitch: Sendable {
    private struct State {
        var isOn = false
        var next = 0
        var cancels: [Int: @Sendable () -> Void] = [:]
    }

    private let state = Locked(State())

    public init() {}

    /// Whether the switch was thrown.
    public var isCancelled: Bool { state.withLock { $0.isOn } }

    /// Throws the switch: cancels every job registered.
    /// - Returns: Whether a job was registered (and was told).
    @discardableResult
    public func cancel() -> Bool {
        let cancels = state.withLock { s in
            s.isOn = true
            return Array(s.cancels.values)
        }
        for cancel in cancels { cancel() }
        return !cancels.isEmpty
    }

    /// Runs `body` with `cancel` as what throwing the switch does; a switch thrown before is
    /// acted on at once.
    public func whileRunning<T>(cancel: @escaping @Sendable () -> Void, _ body: () throws -> T) rethrows -> T {
        let (key, pending): (Int, Bool) = state.withLock { s in
            s.next += 1
            s.cancels[s.next] = cancel
            return (s.next, s.isOn)
        }
        if pending { cancel() }
        defer { _ = state.withLock { $0.cancels.removeValue(forKey: key) } }
        return try body()
    }
}

/// A command's words, to the current host's streams.
enum Terminal {
    /// `--quiet`.
    static var isQuiet: Bool { CommandHost.current.isQuiet }
    /// `--sync`.
    static var syncsToDisk: Bool { CommandHost.current.syncsToDisk }

    /// A job's one line on success, on the output stream (not with `--quiet`).
    static func summary(_ line: String) {
        if !isQuiet { output(line + "\n") }
    }

    /// What a job decided (`note: …` on the diagnostics stream; not with `--quiet`).
    static func note(_ text: String) {
        if !isQuiet { error("note: \(text)\n") }
    }

    /// Writes `text` as it is to the output stream.
    static func output(_ text: String) { CommandHost.current.write(.output, text) }

    /// Writes `text` as it is to the diagnostics stream.
    static func error(_ text: String) { CommandHost.current.write(.diagnostics, text) }

    /// Runs `body` with `cancel` as what cancelling the current host's job does.
    static func whileRunning<T>(cancel: @escaping @Sendable () -> Void, _ body: () throws -> T) rethrows -> T {
        try CommandHost.current.cancellation.whileRunning(cancel: cancel, body)
    }
}
