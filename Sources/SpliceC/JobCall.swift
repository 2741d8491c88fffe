import CSplice
import Foundation
import Splice
import SpliceCLI

/// One job called from C: its arguments turned into the subcommand's command line, run on a
/// thread of the library's in a host of its own, while the calling thread delivers the job's
/// progress and log lines to the caller's callbacks and waits for its end.
struct JobCall {
    /// The subcommand (`["subtitles", "add"]`).
    var command: [String]
    /// Whether the output is the last positional argument (remux) rather than `-o`.
    var outputIsPositional = false

    /// Runs the job; returns its status, with `error` set on failure.
    func run(inputs: UnsafePointer<UnsafePointer<CChar>?>?, count: Int, output: UnsafePointer<CChar>?, options: UnsafePointer<CChar>?,
             job: UnsafePointer<splice_job>?, error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
        error?.pointee = nil
        let callbacks = JobCallbacks(job)
        let arguments: [String]
        let syncs: Bool
        do {
            let paths = try Self.strings(inputs, count)
            guard let output else { throw UsageError(message: "no output path", command: command.first) }
            let out = String(cString: output)
            let parsed = try JobOptions(json: options.map { String(cString: $0) }, command: command.first ?? "")
            syncs = parsed.syncsToDisk
            arguments = command + parsed.arguments + (outputIsPositional ? ["--"] + paths + [out] : ["-o", out, "--"] + paths)
        } catch let e {
            return Self.fail(e, error)
        }
        let channel = JobChannel()
        let cancellation = CancelSwitch()
        var host = CommandHost(write: { stream, text in channel.write(stream, text) }, cancellation: cancellation)
        host.syncsToDisk = syncs
        if callbacks.progress != nil { host.progress = { channel.progress($0) } }
        let result = callbacks.token.map { token in token.whileRunning(cancel: { cancellation.cancel() }) { run(arguments, host, channel, callbacks) } }
            ?? run(arguments, host, channel, callbacks)
        switch result {
        case .success:
            if callbacks.deliveredProgress < 1 { _ = callbacks.report(progress: 1) }
            return SPLICE_OK.rawValue.int32
        case .failure(let e):
            return Self.fail(e, error)
        }
    }

    private func run(_ arguments: [String], _ host: CommandHost, _ channel: JobChannel, _ callbacks: JobCallbacks) -> Result<Void, any Error> {
        let job = JobThread {
            let result = Result<Void, any Error> {
                let status = try CommandHost.$current.withValue(host) { try CommandLine.execute(arguments) }
                if status != 0 { throw MediaError(.cancelled, "the job was stopped (status \(status))") }
            }
            channel.finish(result)
        }
        guard let thread = job.start() else { return .failure(MediaError(.io, "cannot start the job's thread: \(String(cString: strerror(errno)))")) }
        let result = channel.deliver(to: callbacks, cancelling: host.cancellation)
        // Joined: when the call returns, nothing of the job runs or holds memory any more.
        pthread_join(thread, nil)
        return result
    }

    /// `count` UTF-8 paths; a NULL array with a count, or a NULL path, is a usage error.
    static func strings(_ array: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int) throws -> [String] {
        guard count > 0 else { return [] }
        guard let array else { throw UsageError(message: "no input paths (NULL with a count of \(count))") }
        return try (0..<count).map { i in
            guard let p = array[i] else { throw UsageError(message: "input \(i + 1) of \(count) is NULL") }
            return String(cString: p)
        }
    }

    /// Sets `error` (where the caller asked for one) and returns the status of `e`.
    static func fail(_ e: any Error, _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
        let (status, message, file) = describe(e)
        error?.pointee = ErrorBlock.make(status: status, message: message, file: file)
        return status
    }

    /// A status, a one-line message and the file it names.
    static func describe(_ e: any Error) -> (Int32, String, String?) {
        switch e {
        case let e as MediaError:
            let status: splice_status = switch e.code {
            case .invalidData: SPLICE_INVALID_DATA
            case .truncated: SPLICE_TRUNCATED
            case .unsupported: SPLICE_UNSUPPORTED
            case .fileNotFound: SPLICE_FILE_NOT_FOUND
            case .fileExists: SPLICE_FILE_EXISTS
            case .io: SPLICE_IO
            case .invalidOperation: SPLICE_INVALID_OPERATION
            case .cancelled: SPLICE_CANCELLED
            }
            return (status.rawValue.int32, e.description, e.file)
        case let e as UsageError:
            return (SPLICE_USAGE.rawValue.int32, e.description, nil)
        default:
            return (SPLICE_INTERNAL.rawValue.int32, "\(e)", nil)
        }
    }
}

extension UInt32 {
    /// A status's value (every one is small).
    var int32: Int32 { Int32(truncatingIfNeeded: self) }
}

/// A job's own thread: a 16 MiB stack (the CLI's main thread has 8 MiB; a job never gets less
/// here, whatever thread the caller calls from), joined by the caller.
final class JobThread {
    private let body: () -> Void

    init(_ body: @escaping () -> Void) { self.body = body }

    /// Starts `body` on a new thread; nil (errno set) when none can be made.
    func start() -> pthread_t? {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 16 << 20)
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { context in
            Unmanaged<JobThread>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<JobThread>.fromOpaque(context).release()
            errno = status
            return nil
        }
        return thread
    }
}

/// The caller's splice_job, read as far as its `size` says.
final class JobCallbacks {
    let progress: splice_progress_fn?
    let progressContext: UnsafeMutableRawPointer?
    let log: splice_log_fn?
    let logContext: UnsafeMutableRawPointer?
    let token: CancelSwitch?
    private(set) var deliveredProgress = -1.0

    init(_ job: UnsafePointer<splice_job>?) {
        var copy = splice_job()
        if let job {
            let size = min(job.pointee.size, MemoryLayout<splice_job>.size)
            withUnsafeMutableBytes(of: &copy) { $0.copyMemory(from: UnsafeRawBufferPointer(start: job, count: size)) }
        }
        progress = copy.progress
        progressContext = copy.progress_context
        log = copy.log
        logContext = copy.log_context
        token = copy.cancel.map(CancelSwitch.token)
    }

    /// Calls the progress callback with `fraction` when it moved on; its answer: whether to cancel.
    func report(progress fraction: Double) -> Bool {
        guard let progress, fraction.isFinite else { return false }
        let f = min(max(fraction, 0), 1)
        guard f > deliveredProgress else { return false }
        deliveredProgress = f
        return progress(f, progressContext) != 0
    }

    /// Calls the log callback with each line.
    func report(lines: [(Int32, String)]) {
        guard let log else { return }
        for (level, line) in lines { line.withCString { log(level, $0, logContext) } }
    }
}

/// What a job's thread hands the calling thread: its newest progress, its log lines and its end.
final class JobChannel: @unchecked Sendable {   // every var under `condition`
    private let condition = NSCondition()
    private var fraction: Double?
    private var lines: [(Int32, String)] = []
    private var pending = ""
    private var result: Result<Void, any Error>?

    func progress(_ f: Double) {
        condition.withLock {
            fraction = max(fraction ?? 0, f)
            condition.signal()
        }
    }

    /// Text the command wrote: split into lines, each with its level.
    func write(_ stream: CommandHost.Stream, _ text: String) {
        condition.withLock {
            pending += text
            while let newline = pending.firstIndex(of: "\n") {
                let line = String(pending[..<newline])
                pending = String(pending[pending.index(after: newline)...])
                guard !line.isEmpty else { continue }
                let level = stream == .output || line.hasPrefix("note: ") ? SPLICE_LOG_INFO : line.hasPrefix("error: ") ? SPLICE_LOG_ERROR : SPLICE_LOG_WARNING
                lines.append((level.rawValue.int32, line))
            }
            condition.signal()
        }
    }

    func finish(_ result: Result<Void, any Error>) {
        condition.withLock {
            if !pending.isEmpty { lines.append((SPLICE_LOG_INFO.rawValue.int32, pending)); pending = "" }
            self.result = result
            condition.signal()
        }
    }

    /// On the calling thread until the job ends: its progress and lines to `callbacks`, and a
    /// non-zero answer from the progress callback to `cancellation`.
    func deliver(to callbacks: JobCallbacks, cancelling cancellation: CancelSwitch) -> Result<Void, any Error> {
        while true {
            condition.lock()
            while fraction == nil && lines.isEmpty && result == nil { condition.wait() }
            let (f, l, r) = (fraction, lines, result)
            fraction = nil
            lines = []
            condition.unlock()
            callbacks.report(lines: l)
            if let f, r == nil, callbacks.report(progress: f) { cancellation.cancel() }
            if let r { return r }
        }
    }
}
