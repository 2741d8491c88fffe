import MediaCore

/// A styled stretch of a cue's text, in Unicode scalars (what tx3g style records count).
public struct TextStyle: Sendable, Hashable {
    /// The first styled scalar (0-based).
    public var start: Int
    /// The scalar after the last styled one.
    public var end: Int
    /// Bold text.
    public var bold = false
    /// Italic text.
    public var italic = false
    /// Underlined text.
    public var underline = false
    /// RGBA.
    public var color: UInt32?

    /// A style over scalars `start..<end`.
    public init(start: Int, end: Int, bold: Bool = false, italic: Bool = false, underline: Bool = false, color: UInt32? = nil) {
        self.start = start
        self.end = end
        self.bold = bold
        self.italic = italic
        self.underline = underline
        self.color = color
    }

    var hasStyle: Bool { bold || italic || underline || color != nil }

    /// The same style over a run `offset` scalars later (when texts are joined).
    func shifted(by offset: Int) -> TextStyle {
        var s = self
        s.start += offset
        s.end += offset
        return s
    }
}

/// One subtitle: when it shows, its plain text, and the styled runs of that text.
public struct SubtitleCue: Sendable, Hashable {
    /// When the cue shows, in milliseconds.
    public var start: Int64
    /// When it stops showing, in milliseconds.
    public var end: Int64
    /// The text without markup; lines separated by `\n`.
    public var text: String
    /// The styled runs of `text`.
    public var styles: [TextStyle]
    /// Where the cue starts in its file (1-based line), for messages.
    public var line: Int

    /// A cue of `text` from `start` to `end` milliseconds.
    public init(start: Int64, end: Int64, text: String, styles: [TextStyle] = [], line: Int = 0) {
        self.start = start
        self.end = end
        self.text = text
        self.styles = styles
        self.line = line
    }

    /// When the cue shows.
    public var startTime: MediaTime { MediaTime(value: start, timescale: 1000) }
    /// When it stops showing.
    public var endTime: MediaTime { MediaTime(value: end, timescale: 1000) }
}

/// A subtitle file's problem: `file:line: what is wrong`.
public struct SubtitleError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// The 1-based line of the problem, when it has one.
    public var line: Int?
    /// What is wrong.
    public var message: String

    /// The problem `message` at `line` of `file`.
    public init(file: String, line: Int?, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
    }

    /// The same problem as a `MediaError` (`.invalidData`, at `file:line`).
    public var mediaError: MediaError {
        MediaError(.invalidData, message, file: line.map { "\(file):\($0)" } ?? file)
    }
}
