import CFFmpeg
import MediaCore

/// A failure reported by a libav* call: its code, FFmpeg's text for it, and what was being done.
public struct FFmpegError: Error, Sendable, CustomStringConvertible {
    public let code: Int32
    public let operation: String

    public var message: String {
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
        case splice_averror_eof(): kind = .truncated
        case splice_averror(EIO), splice_averror(EACCES), splice_averror(ENOSPC), splice_averror(EFBIG): kind = .io
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

/// FFmpeg's own log output: silent unless asked for.
public enum FFmpegLog {
    /// Shows FFmpeg's messages on stderr (`true`) or keeps it silent (the default).
    public static func setVerbose(_ verbose: Bool) {
        _ = quietByDefault
        av_log_set_level(verbose ? AV_LOG_INFO : AV_LOG_QUIET)
    }

    /// Silences FFmpeg once, before the first libav call.
    static let quietByDefault: Void = av_log_set_level(AV_LOG_QUIET)
}
