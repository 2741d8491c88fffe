import CFFmpeg
import FFmpegLoader
import Foundation
import Glibc

/// FFmpeg's own log output, routed to the job that caused it.
///
/// libav logs through one process-wide callback, with the context that logged. Each owner of
/// libav contexts (an input, an output, a codec) keeps a `Sink` and registers its contexts with
/// it, so that a line about one file never lands in another job's warnings, however many jobs
/// run at once. A line whose context is not registered (a parser or probing decoder inside a
/// demuxer, a bitstream filter) goes to the sink routing the calling thread (`routing(to:_:)`,
/// set around each libav call an owner makes); a line with neither is dropped (or shown, with
/// `--verbose`). Only warnings and errors are kept: the newest 100 per sink.
public enum FFmpegLog {
    /// The warnings and errors of one owner's libav contexts.
    public final class Sink: @unchecked Sendable {   // state guarded by `lock`
        private let lock = NSLock()
        private var kept: [String] = []
        static let capacity = 100

        public init() {}

        func append(_ line: String) {
            lock.withLock {
                if kept.count == Sink.capacity { kept.removeFirst() }
                kept.append(line)
            }
        }

        /// The messages kept since the last call, oldest first.
        public func take() -> [String] {
            lock.withLock {
                defer { kept = [] }
                return kept
            }
        }

        /// The newest kept message from the component `name` (`[mpegts] …`), without its
        /// prefix; the messages stay kept.
        public func lastMessage(from name: String) -> String? {
            let prefix = "[\(name)] "
            return lock.withLock { kept.last { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) } }
        }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var verbose = false             // guarded by `lock`
    nonisolated(unsafe) private static var sinks: [UnsafeRawPointer: Sink] = [:]   // guarded by `lock`
    nonisolated(unsafe) private static var handler: (@Sendable (Int32, String) -> Void)?   // guarded by `lock`

    /// Sends the warnings and errors no job claims (and, with `setVerbose(true)`, every line
    /// shown) to `handler` — with libav's level (`AV_LOG_ERROR`, …) — instead of stderr; nil
    /// restores stderr. The handler is called on the thread that logged, possibly on several at once.
    public static func setHandler(_ handler: (@Sendable (Int32, String) -> Void)?) {
        lock.withLock { self.handler = handler }
    }

    /// Shows FFmpeg's messages on stderr, prefixed `ffmpeg:` (`true`), or only keeps its warnings
    /// and errors (the default).
    public static func setVerbose(_ verbose: Bool) {
        guard (try? FFmpegLibraries.load()) != nil else { return }
        _ = installed
        lock.withLock { self.verbose = verbose }
        av_log_set_level(verbose ? AV_LOG_INFO : AV_LOG_WARNING)
    }

    /// Sends what `context` (an `AVFormatContext`, an `AVIOContext`, …, or the `opaque` of an
    /// `AVCodecContext`, which its frame threads' copies share) logs to `sink`, until
    /// `unregister`. Call `unregister` before the context is freed.
    static func register(_ context: UnsafeRawPointer?, to sink: Sink) {
        guard let context else { return }
        lock.withLock { sinks[context] = sink }
    }

    static func unregister(_ context: UnsafeRawPointer?) {
        guard let context else { return }
        _ = lock.withLock { sinks.removeValue(forKey: context) }
    }

    /// Runs `body` with the calling thread's unregistered contexts logging to `sink`.
    static func routing<T, E: Error>(to sink: Sink, _ body: () throws(E) -> T) throws(E) -> T {
        let key = threadSink
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(sink).toOpaque())
        defer { pthread_setspecific(key, previous) }
        return try body()
    }

    /// The thread's routing sink (unretained: `routing` holds it for as long as it is set).
    private static let threadSink: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Warnings for a job from what FFmpeg said: `ffmpeg: <line>`, a repeated line once with its
    /// count, at most `limit` lines and then how many others there were.
    public static func summary(_ messages: [String], limit: Int = 20) -> [String] {
        var lines: [(text: String, count: Int)] = []
        for m in messages {
            if let i = lines.firstIndex(where: { $0.text == m }) { lines[i].count += 1 } else { lines.append((m, 1)) }
        }
        var out = lines.prefix(limit).map { "ffmpeg: \($0.text)" + ($0.count > 1 ? " (\($0.count) times)" : "") }
        if lines.count > limit { out.append("ffmpeg: … and \(lines.count - limit) other messages") }
        return out
    }

    /// Routes FFmpeg's log to `receive`, once, before the first libav call.
    static let installed: Void = {
        _ = threadSink
        av_log_set_level(AV_LOG_WARNING)
        splice_ffmpeg_set_log_handler { context, root, level, line in
            guard let line else { return }
            FFmpegLog.receive(context.map(UnsafeRawPointer.init), root.map(UnsafeRawPointer.init), level, String(cString: line))
        }
    }()

    private static func receive(_ context: UnsafeRawPointer?, _ root: UnsafeRawPointer?, _ level: Int32, _ line: String) {
        var text = line.trimmingCharacters(in: .whitespacesAndNewlines)
        // "[mpegts @ 0x55f4…] message" → "[mpegts] message"; continuation lines of punctuation dropped.
        if text.hasPrefix("["), let at = text.range(of: " @ 0x"), let close = text[at.upperBound...].firstIndex(of: "]") {
            text.removeSubrange(at.lowerBound..<close)
        }
        let body = text.hasPrefix("[") ? text.drop { $0 != "]" }.dropFirst() : Substring(text)
        guard body.contains(where: { $0.isLetter || $0.isNumber }) else { return }
        let (sink, show, route): (Sink?, Bool, (@Sendable (Int32, String) -> Void)?) = lock.withLock {
            (context.flatMap { sinks[$0] } ?? root.flatMap { sinks[$0] }, verbose, Self.handler)
        }
        var claimed = false
        if level <= AV_LOG_WARNING {
            if let sink {
                sink.append(text)
                claimed = true
            } else if let routed = pthread_getspecific(threadSink) {
                Unmanaged<Sink>.fromOpaque(routed).takeUnretainedValue().append(text)
                claimed = true
            }
        }
        if let handler = route {
            if show || (level <= AV_LOG_WARNING && !claimed) { handler(level, text) }
        } else if show { let line = Array("ffmpeg: \(text)\n".utf8); _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) } }   // a closed stderr drops the line
    }
}
