import Foundation
import Splice
#if canImport(Glibc)
import Glibc
#endif

/// How every subcommand runs a job: the output check, a progress line or JSON lines, Ctrl-C
/// (SIGINT, SIGTERM, SIGHUP: the job cancelled, nothing left, exit 128 + the signal), and the
/// report of what was written.
enum JobRunner {
    /// Refuses an output that is one of `inputs` (a clip's `#t=` part is ignored), or that exists
    /// without `--force`; the library's check (`OutputFile.checkDestination`), before anything is read.
    static func checkOutput(_ url: URL, force: Bool, inputs: [String]) throws {
        let files = inputs.flatMap { [$0, String($0.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0])] }
        try OutputFile.checkDestination(url.path, replacing: force, inputs: files)
    }

    /// Runs `session` with progress and Ctrl-C, and reports its notes, warnings and output.
    static func export(_ session: ExportSession, _ args: ParsedArguments) throws -> Int32 {
        session.replacesExistingFile = args.has("--force")
        session.syncsToDisk = Terminal.syncsToDisk
        session.shouldOptimizeForNetworkUse = args.has("--faststart")
        if let url = session.outputURL, let type = session.outputFileType ?? FileType(pathExtension: url.pathExtension) {
            FragmentOptions.apply(try FragmentOptions.parse(args, output: type), to: session)
        }
        let announced = session.notes.count
        for note in session.notes { Terminal.note(note) }
        let url = session.outputURL!
        let interrupted = try run(output: url, mediaSeconds: session.exportedRange.duration.seconds, json: try args.jsonProgress(),
                                  install: { session.progressHandler = $0 }, cancel: { [weak session] in session?.cancelExport() }) { try session.run() }
        if let interrupted { return interrupted }
        for note in session.notes.dropFirst(announced) { Terminal.note(note) }
        for warning in session.warnings { Terminal.error("warning: \(warning)\n") }
        for line in session.cutSummary { Terminal.note(line) }
        let how = session.preset == .passthrough ? (session.audioMix == nil ? "copied" : "copied, audio mixed") : "re-encoded (\(session.preset))"
        try summarize(url, how)
        return ExitCode.success
    }

    /// The one line a job prints when its movie is in place: the path, what was done, how long
    /// the movie is and its tracks, read back from the file (`extra` after them).
    static func summarize(_ url: URL, _ how: String, _ extra: String? = nil) throws {
        guard !Terminal.isQuiet else { return }
        let written = try Asset(url: url)
        let tracks = written.tracks.map { t in "\(t.mediaType) \(t.codecName)" + (t.naturalSize.map { " \($0)" } ?? "") }
        Terminal.summary("\(url.relativePath): \(how), \(String(format: "%.3f", written.duration.seconds)) s, \(tracks.joined(separator: ", "))"
                         + (extra.map { "; \($0)" } ?? ""))
    }

    /// Runs `body` with a progress reporter installed and `cancel` as what a signal does.
    /// - Returns: nil when it ran to the end, or 128 + the signal that interrupted it (said on stderr).
    static func run(output: URL, mediaSeconds: Double, json: Bool, install: (@escaping @Sendable (Double) -> Void) -> Void,
                    cancel: @escaping @Sendable () -> Void, _ body: () throws -> Void) throws -> Int32? {
        let reporter = ProgressReporter(mediaSeconds: mediaSeconds, json: json, host: CommandHost.current)
        if reporter.isEnabled { install { reporter.update($0) } }
        do {
            try Terminal.whileRunning(cancel: cancel, body)
            reporter.finish()
            return nil
        } catch let e as MediaError where e.code == .cancelled {
            reporter.clear()
            guard let status = CommandHost.current.interruption(output.path) else { throw e }
            return status
        } catch {
            reporter.clear()
            throw error
        }
    }
}

/// Progress on stderr: a one-line bar (percent, speed, ETA) when stderr is a terminal, or one
/// JSON object per line (`--progress json`: `{"progress":…,"speed":…,"eta":…}`).
final class ProgressReporter: @unchecked Sendable {   // `last`, `lastFraction` under `lock`; the rest immutable
    private let json: Bool
    private let bar: Bool
    private let host: CommandHost
    private let mediaSeconds: Double
    private let start = Date()
    private let lock = NSLock()
    private var last = Date.distantPast
    private var lastFraction = 0.0

    init(mediaSeconds: Double, json: Bool, host: CommandHost) {
        self.json = json
        self.host = host
        self.bar = host.drawsProgressBar
        self.mediaSeconds = mediaSeconds
    }

    var isEnabled: Bool { json || bar || host.progress != nil }

    func update(_ fraction: Double) {
        if let progress = host.progress { return progress(fraction) }
        guard isEnabled else { return }
        let now = Date()
        lock.withLock {
            guard now.timeIntervalSince(last) >= (json ? 0.25 : 0.1) || (json && fraction >= 1), !json || fraction > lastFraction else { return }
            last = now
            lastFraction = fraction
            write(fraction, now)
        }
    }

    private func write(_ fraction: Double, _ now: Date) {
        let elapsed = max(now.timeIntervalSince(start), 1e-6)
        let speed = mediaSeconds.isFinite ? fraction * mediaSeconds / elapsed : 0
        let eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : (json ? -1 : 0)
        guard !json else {
            return host.write(.diagnostics, String(format: "{\"progress\":%.4f,\"speed\":%.2f,\"eta\":%.1f}\n", fraction, speed, max(0, eta)))
        }
        let width = 30
        let filled = max(0, min(width, (fraction * Double(width)).rounded(saturating: Int.self, .down) ?? 0))
        let seconds = eta.rounded(saturating: Int.self, .towardZero) ?? 0
        host.write(.diagnostics, String(format: "\r[%@] %3d%%  %.0fx  ETA %d:%02d ", String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled),
                              (fraction * 100).rounded(saturating: Int.self, .towardZero) ?? 0, speed, seconds / 60, seconds % 60))
    }

    func finish() {
        if let progress = host.progress { return progress(1) }
        guard isEnabled else { return }
        lock.withLock {
            if json && lastFraction >= 1 { return }
            write(1, Date())
        }
        if !json { host.write(.diagnostics, "\n") }
    }

    func clear() { if host.progress == nil && bar && !json { host.write(.diagnostics, "\r\u{1B}[K") } }
}
