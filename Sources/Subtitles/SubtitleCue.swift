import MediaCore

/// A styled stretch of a cue's text, in Unicode scalars (what tx3g style records count).
public struct TextStyle: Sendable, Hashable {
    public var start: Int
    public var end: Int
    public var bold = false
    public var italic = false
    public var underline = false
    /// RGBA.
    public var color: UInt32?

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
    /// Milliseconds.
    public var start: Int64
    public var end: Int64
    /// The text without markup; lines separated by `\n`.
    public var text: String
    public var styles: [TextStyle]
    /// Where the cue starts in its file (1-based line), for messages.
    public var line: Int

    public init(start: Int64, end: Int64, text: String, styles: [TextStyle] = [], line: Int = 0) {
        self.start = start
        self.end = end
        self.text = text
        self.styles = styles
        self.line = line
    }

    public var startTime: MediaTime { MediaTime(value: start, timescale: 1000) }
    public var endTime: MediaTime { MediaTime(value: end, timescale: 1000) }
}

/// A subtitle file's problem: `file:line: what is wrong`.
public struct SubtitleError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String

    public init(file: String, line: Int?, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
    }

    public var mediaError: MediaError {
        MediaError(.invalidData, message, file: line.map { "\(file):\($0)" } ?? file)
    }
}
