import CFFmpeg
import FFmpegLoader
import MediaCore
import Foundation

/// A failure reported by a libav* call: its code, FFmpeg's text for it, and what was being done.
public struct FFmpegError: Error, Sendable, CustomStringConvertible {
    public let code: Int32
    public let operation: String
    /// Text that replaces FFmpeg's message for `code` (when FFmpeg itself could not be loaded).
    public let text: String?

    public init(code: Int32, operation: String, text: String? = nil) {
        self.code = code
        self.operation = operation
        self.text = text
    }

    public var message: String {
        if let text { return text }
        var buffer = [CChar](repeating: 0, count: 256)
        if av_strerror(code, &buffer, buffer.count) < 0 { return "error \(code)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var isEndOfFile: Bool { code == splice_averror_eof() }

    public var description: String { "\(operation): \(message)" }

    /// As a `MediaError`: missing files, invalid data and the rest told apart.
    public var mediaError: MediaError {
        let kind: MediaError.Code
        switch code {
        case splice_averror(ENOENT): kind = .fileNotFound
        // Reading a local file, FFmpeg's EIO and EOF mean the data ended early.
        case splice_averror_eof(), splice_averror(EIO): kind = .truncated
        case splice_averror(EACCES), splice_averror(ENOSPC), splice_averror(EFBIG): kind = .io
        case splice_averror(ENOSYS), splice_averror(EINVAL): kind = .unsupported
        default: kind = .invalidData
        }
        return MediaError(kind, description, underlying: self)
    }
}

/// Returns `result` when it is not negative, else throws it as an `FFmpegError`.
@discardableResult
func check(_ result: Int32, _ operation: @autoclosure () -> String) throws(FFmpegError) -> Int32 {
    if result < 0 { throw FFmpegError(code: result, operation: operation()) }
    return result
}

/// FFmpeg's libraries, opened on first use rather than linked.
public enum FFmpegLibraries {
    /// Loads libavutil, libavcodec and libavformat.
    /// - Parameter purpose: what needs them, for the error ("reading mkv files").
    /// - Throws: `FFmpegError` with `AVERROR(ENOSYS)` saying which library could not be loaded.
    public static func load(for purpose: String = "this container") throws(FFmpegError) {
        if let message = splice_ffmpeg_load() {
            throw FFmpegError(code: splice_averror(ENOSYS), operation: "\(purpose) needs FFmpeg's libraries",
                              text: String(cString: message) + " (install Debian's libavformat59)")
        }
        _ = FFmpegLog.installed    // FFmpeg's messages go to FFmpegLog, never straight to stderr
    }
}

/// FFmpeg's own log output: silent unless asked for, but warnings and errors are kept (the
/// most recent 100) so that a job can say what FFmpeg skipped in a damaged input.
public enum FFmpegLog {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var verbose = false
    nonisolated(unsafe) private static var kept: [String] = []
    static let capacity = 100

    /// Shows FFmpeg's messages on stderr, prefixed `ffmpeg:` (`true`), or only keeps its warnings
    /// and errors (the default).
    public static func setVerbose(_ verbose: Bool) {
        guard (try? FFmpegLibraries.load()) != nil else { return }
        _ = installed
        lock.withLock { self.verbose = verbose }
        av_log_set_level(verbose ? AV_LOG_INFO : AV_LOG_WARNING)
    }

    /// The warnings and errors FFmpeg reported since the last call, oldest first.
    public static func takeMessages() -> [String] {
        lock.withLock {
            defer { kept = [] }
            return kept
        }
    }

    /// The newest kept message from the component `name` (`[mpegts] …`), without its prefix;
    /// the messages stay kept.
    public static func lastMessage(from name: String) -> String? {
        let prefix = "[\(name)] "
        return lock.withLock { kept.last { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) } }
    }

    /// Routes FFmpeg's log to `receive`, once, before the first libav call.
    static let installed: Void = {
        av_log_set_level(AV_LOG_WARNING)
        splice_ffmpeg_set_log_handler { level, line in
            guard let line else { return }
            FFmpegLog.receive(level, String(cString: line))
        }
    }()

    private static func receive(_ level: Int32, _ line: String) {
        var text = line.trimmingCharacters(in: .whitespacesAndNewlines)
        // "[mpegts @ 0x55f4…] message" → "[mpegts] message"; continuation lines of punctuation dropped.
        if text.hasPrefix("["), let at = text.range(of: " @ 0x"), let close = text[at.upperBound...].firstIndex(of: "]") {
            text.removeSubrange(at.lowerBound..<close)
        }
        let body = text.hasPrefix("[") ? text.drop { $0 != "]" }.dropFirst() : Substring(text)
        guard body.contains(where: { $0.isLetter || $0.isNumber }) else { return }
        let show: Bool = lock.withLock {
            if level <= AV_LOG_WARNING {
                if kept.count == capacity { kept.removeFirst() }
                kept.append(text)
            }
            return verbose
        }
        if show { FileHandle.standardError.write(Data("ffmpeg: \(text)\n".utf8)) }
    }
}
