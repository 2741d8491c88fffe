import Foundation

/// The error every layer of Splice reports: what kind of failure, where
/// (file, box path or line), what is wrong, and the cause underneath.
///
/// Its `description` is the one-line message the CLI prints:
/// `movie.mp4: moov/trak[2]/mdia/minf/stbl/stsz: entry count 4294967295 needs 17179869180 bytes, box has 20`.
public struct MediaError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure an error is.
    public enum Code: Sendable, Hashable {
        /// The data breaks the format's rules.
        case invalidData
        /// The data ends before a structure does.
        case truncated
        /// Valid, but something Splice does not handle.
        case unsupported
        /// The file does not exist.
        case fileNotFound
        /// The output exists, and replacing it was not asked for.
        case fileExists
        /// Reading or writing the file system failed.
        case io
        /// The caller asked for something that cannot be done in this state.
        case invalidOperation
        /// The job was cancelled (`cancelReading()`, `cancelWriting()`, `cancelExport()`, an interrupt).
        case cancelled
    }

    /// What kind of failure.
    public var code: Code
    /// What is wrong, in words (without the file and location).
    public var message: String
    /// The file the error is about.
    public var file: String?
    /// Where in the file: a box path like `moov/trak[2]/mdia`, or `line 12`.
    public var location: String?
    /// The cause underneath: an `Errno`, or libav's error.
    public var underlying: (any Error & Sendable)?
    /// The source track the error is about, when it is about one that the output cannot hold
    /// (so that a caller can say how to leave it out: the CLI's `--exclude-tracks`).
    public var trackID: Int?

    /// An error of kind `code` saying `message`, about `file` at `location`, caused by `underlying`.
    public init(_ code: Code, _ message: String, file: String? = nil, location: String? = nil,
                underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.file = file
        self.location = location
        self.underlying = underlying
    }

    public var description: String {
        [file, location, message].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
    }

    /// The same error, about `file` (kept if already set).
    public func inFile(_ path: String) -> MediaError {
        var e = self
        if e.file == nil { e.file = path }
        return e
    }
}

extension MediaError: LocalizedError {
    /// The one-line message (`description`): what `localizedDescription` gives, as code written
    /// for Apple platforms prints it.
    public var errorDescription: String? { description }
}
