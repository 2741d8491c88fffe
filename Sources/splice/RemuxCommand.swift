import Dispatch
import Foundation
import MediaCore
import Splice
#if canImport(Glibc)
import Glibc
#endif

enum RemuxCommand: Command {
    static let name = "remux"
    static let abstract = "Copy a movie into a new file, losing nothing."
    static let usage = "splice remux <input> <output> [--faststart] [--force] [--verify]"
    static let help = """
        OVERVIEW: \(abstract)

        Copies every sample of every track, byte for byte, into a new MP4, MOV, M4A or
        M4V file, and keeps the track structure: alternate groups and their default
        tracks, track associations (fall, forc, folw, chap, …), enabled flags,
        languages and elng tags, names, and edit lists. The output is written to a
        temporary file beside <output> and renamed into place only on success.

        USAGE: \(usage)

        ARGUMENTS:
          <input>                 An MP4, MOV, M4A or M4V file.
          <output>                The file to write (.mp4, .mov, .m4a or .m4v).

        OPTIONS:
          --faststart             Put the movie header before the media data (for streaming).
          --force                 Replace <output> if it exists (it may be <input> itself).
          --verify                Read the output back and compare every sample with the input.
          -h, --help              Show help information.

        EXIT STATUS: 0 success, 1 failure (output exists, write error, verification failed),
        64 usage error, 65 invalid or unsupported input, 66 missing input, 130 interrupted.

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: ["--faststart", "--force", "--verify"])
        guard args.positionals.count == 2 else {
            throw UsageError(message: args.positionals.count < 2 ? "expected <input> and <output>" : "too many arguments")
        }
        let inputURL = URL(fileURLWithPath: args.positionals[0])
        let outputURL = URL(fileURLWithPath: args.positionals[1])
        guard FileType(pathExtension: outputURL.pathExtension) != nil else {
            throw MediaError(.unsupported, "cannot write '.\(outputURL.pathExtension)' files; remux writes .mp4, .mov, .m4a and .m4v (MKV, WebM and TS come with container support)", file: outputURL.path)
        }
        if !args.flags.contains("--force") && FileManager.default.fileExists(atPath: outputURL.path) {
            throw MediaError(.invalidOperation, "already exists (use --force to replace it)", file: outputURL.path)
        }
        let asset = try Asset(url: inputURL)
        let pipe = try SamplePipe.mirroring(asset, to: outputURL)
        pipe.writer.shouldOptimizeForNetworkUse = args.flags.contains("--faststart")
        pipe.writer.replacesExistingFile = args.flags.contains("--force")

        let progress = ProgressBar(mediaSeconds: asset.duration.seconds)
        if progress.isEnabled { pipe.progressHandler = { progress.update($0) } }
        let interrupt = Interrupt { [weak pipe] in pipe?.cancel() }
        defer { interrupt.restore() }
        do {
            try pipe.run()
            progress.finish()
        } catch let e as MediaError where e.code == .cancelled && interrupt.fired {
            progress.clear()
            FileHandle.standardError.write(Data("error: interrupted; \(outputURL.path) was not written\n".utf8))
            return 130
        } catch {
            progress.clear()
            throw error
        }

        if args.flags.contains("--verify") {
            let result = try SampleComparison.compare(asset, try Asset(url: outputURL))
            print("verified: \(result.tracks) tracks, \(result.samples) samples identical in bytes and timing")
        }
        return ExitCode.success
    }
}

/// Turns SIGINT and SIGTERM into a cancellation while a job runs.
final class Interrupt: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let lock = NSLock()
    private var _fired = false
    var fired: Bool { lock.withLock { _fired } }

    init(_ handler: @escaping @Sendable () -> Void) {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [weak self] in
                self?.lock.withLock { self?._fired = true }
                handler()
            }
            source.resume()
            sources.append(source)
        }
    }

    func restore() {
        for s in sources { s.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

/// A one-line progress bar on stderr (percent, speed, ETA), only when stderr is a terminal.
final class ProgressBar: @unchecked Sendable {
    let isEnabled = isatty(2) != 0
    private let mediaSeconds: Double
    private let start = Date()
    private let lock = NSLock()
    private var lastDraw = Date.distantPast

    init(mediaSeconds: Double) { self.mediaSeconds = mediaSeconds }

    func update(_ fraction: Double) {
        guard isEnabled else { return }
        let now = Date()
        lock.withLock {
            guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
            lastDraw = now
            draw(fraction, now)
        }
    }

    private func draw(_ fraction: Double, _ now: Date) {
        let elapsed = now.timeIntervalSince(start)
        let width = 30
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let speed = elapsed > 0 && mediaSeconds.isFinite ? fraction * mediaSeconds / elapsed : 0
        let eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
        let line = String(format: "\r[%@] %3d%%  %.0fx  ETA %d:%02d ", bar, Int(fraction * 100), speed, Int(eta) / 60, Int(eta) % 60)
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        guard isEnabled else { return }
        lock.withLock { draw(1, Date()) }
        FileHandle.standardError.write(Data("\n".utf8))
    }

    func clear() {
        guard isEnabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
