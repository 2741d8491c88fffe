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
    /// The cue's identifier (a WebVTT cue id); empty when it has none.
    public var identifier = ""
    /// The cue's WebVTT settings as written (`line:0 align:start`); empty when it has none.
    public var settings = ""
    /// Where the cue shows on the picture (bottom centre unless its file says otherwise).
    public var placement = CuePlacement.bottomCenter
    /// The cue as its own format wrote it, kept so that the same format is written back
    /// whole (voices, classes, ruby, override tags); nil for cues made from text and styles.
    /// Writers of that format use it instead of `text` and `styles`.
    public var markup: CueMarkup?

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

/// A cue as written in its own format.
public enum CueMarkup: Sendable, Hashable {
    /// An SRT cue's text as written (`{\an8}<font face="Serif">Hi</font>`).
    case srt(String)
    /// A WebVTT cue payload (`<v Roger>Hi <c.loud>there</c>`).
    case webVTT(String)
    /// An ASS/SSA event's fields after its times: `Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text`.
    case ass(String)
}

/// Where a cue shows: one of nine places, as ASS's `\an1`…`\an9` name them (the keypad's layout:
/// 1 bottom left, 2 bottom centre, 8 top centre, 9 top right).
public struct CuePlacement: Sendable, Hashable {
    /// Top, middle or bottom of the picture.
    public enum Vertical: Int, Sendable, Hashable {
        /// The bottom (ASS 1–3).
        case bottom = 0
        /// The middle (ASS 4–6).
        case middle = 1
        /// The top (ASS 7–9).
        case top = 2
    }
    /// Left, centre or right.
    public enum Horizontal: Int, Sendable, Hashable {
        /// The left (ASS 1, 4, 7).
        case left = 1
        /// The centre (ASS 2, 5, 8).
        case center = 2
        /// The right (ASS 3, 6, 9).
        case right = 3
    }
    /// Top, middle or bottom.
    public var vertical: Vertical
    /// Left, centre or right.
    public var horizontal: Horizontal

    /// The place `vertical` and `horizontal` name.
    public init(_ vertical: Vertical, _ horizontal: Horizontal) {
        self.vertical = vertical
        self.horizontal = horizontal
    }

    /// The place of ASS's `\an<number>` (1–9); nil for other numbers.
    public init?(numpad: Int) {
        guard (1...9).contains(numpad) else { return nil }
        self.init(Vertical(rawValue: (numpad - 1) / 3)!, Horizontal(rawValue: (numpad - 1) % 3 + 1)!)
    }

    /// The place of SSA's legacy `\a<number>` (1–3 bottom, 5–7 top, 9–11 middle); nil for others.
    public init?(legacy: Int) {
        let column = legacy & 3
        guard (1...11).contains(legacy), column != 0 else { return nil }
        self.init(legacy & 4 != 0 ? .top : legacy & 8 != 0 ? .middle : .bottom, Horizontal(rawValue: column)!)
    }

    /// ASS's number for the place (1–9).
    public var numpad: Int { vertical.rawValue * 3 + horizontal.rawValue }

    /// Bottom centre: where subtitles show unless told otherwise.
    public static let bottomCenter = CuePlacement(.bottom, .center)
    /// Top centre.
    public static let topCenter = CuePlacement(.top, .center)
}

/// A subtitle file's problem: `file:line: what is wrong`.
public struct SubtitleError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// The 1-based line of the problem, when it has one.
    public var line: Int?
    /// What is wrong.
    public var message: String
    /// The kind of problem: `.invalidData` for what the text says; a file that cannot be read
    /// keeps its reason (`.fileNotFound`, `.io`, …).
    public var code: MediaError.Code = .invalidData

    /// The problem `message` at `line` of `file`.
    public init(file: String, line: Int?, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
    }

    /// The same problem as a `MediaError` (its `code`, at `file:line`).
    public var mediaError: MediaError {
        MediaError(code, message, file: line.map { "\(file):\($0)" } ?? file)
    }
}
