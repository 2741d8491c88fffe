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
