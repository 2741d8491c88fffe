import Foundation

/// ASS and SSA scripts (Advanced SubStation Alpha v4.00+, SubStation Alpha v4.00): the script
/// header with its styles, and `Dialogue` events read as cues. Each cue keeps its event as
/// written (`CueMarkup.ass`), so that an ASS target gets it back whole; the plain text, bold,
/// italic, underline, colour and alignment — of the event's style and its override tags — are
/// what other formats get. What they cannot hold is named by `SubStationAlpha.losses`.
public enum SubStationAlpha {
    /// One style of a script's styles section.
    public struct Style: Sendable, Hashable {
        /// Bold, italic, underline and colour (RGBA; nil for white, the default).
        public var style = TextStyle(start: 0, end: 0)
        /// Where its events show.
        public var placement = CuePlacement.bottomCenter
        /// Its font's name.
        public var font = ""
    }

    /// A script's header: `[Script Info]`, the styles section and the `[Events]` line with its
    /// `Format` line, as written; and its styles by name.
    public struct Header: Sendable, Hashable {
        /// The header's text, up to and including the events' `Format` line.
        public var text: String
        /// The styles by name.
        public var styles: [String: Style]

        /// The header of a script whose text is `text`.
        public init(_ text: String) {
            self.text = text
            styles = SubStationAlpha.styles(in: text)
        }

        /// The header libass and FFmpeg assume when a script has none: one `Default` style,
        /// white 16-point Arial at the bottom centre of a 384×288 script.
        public static let standard = Header("""
            [Script Info]
            ScriptType: v4.00+
            PlayResX: 384
            PlayResY: 288
            ScaledBorderAndShadow: yes

            [V4+ Styles]
            Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
            Style: Default,Arial,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,0

            [Events]
            Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
            """)
    }

    /// Whether `text` is an ASS/SSA script (it starts with `[Script Info]`).
    public static func isScript(_ text: String) -> Bool {
        text.drop { $0 == "\u{FEFF}" || $0.isWhitespace }.lowercased().hasPrefix("[script info]")
    }

    /// The header and cues of a script. Events that are not `Dialogue` (comments, pictures,
    /// sounds, commands) are skipped; a `Dialogue` line without its fields or with malformed
    /// times is an error.
    /// - Throws: `SubtitleError` with the file and line.
    static func parse(_ text: String, file: String, warnings: ((String) -> Void)?) throws(SubtitleError) -> (Header, [SubtitleCue]) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0).trimmingTrailingWhitespace() }
        guard let first = lines.firstIndex(where: { !$0.isEmpty }), lines[first].lowercased() == "[script info]" else {
            throw SubtitleError(file: file, line: 1, message: "not an ASS/SSA script: the first line must be '[Script Info]'")
        }
        var section = ""
        var eventFields: [String] = []
        var headerEnd: Int?
        var cues: [SubtitleCue] = []
        var notAfterStart: [Int] = []
        defer { if let w = SubtitleFile.leftOutWarning(notAfterStart, file: file) { warnings?(w) } }
        var header = Header.standard
        for (i, line) in lines.enumerated() {
            if line.hasPrefix("[") && line.hasSuffix("]") { section = line.lowercased(); continue }
            guard section == "[events]", let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].lowercased(), value = line[line.index(after: colon)...].drop { $0 == " " }
            if key == "format" {
                eventFields = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                if headerEnd == nil {
                    // Events are kept in Matroska's order, so the header says that order.
                    headerEnd = i
                    let first = eventFields.first == "marked" ? "Marked" : "Layer"
                    header = Header((lines[..<i] + ["Format: \(first), Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text"]).joined(separator: "\n"))
                }
                continue
            }
            guard key == "dialogue" else { continue }
            if eventFields.isEmpty { eventFields = ["layer", "start", "end", "style", "name", "marginl", "marginr", "marginv", "effect", "text"] }
            let fields = value.split(separator: ",", maxSplits: eventFields.count - 1, omittingEmptySubsequences: false).map(String.init)
            guard fields.count == eventFields.count, let t = eventFields.firstIndex(of: "text"), t == fields.count - 1 else {
                throw SubtitleError(file: file, line: i + 1, message: "a Dialogue line with \(fields.count) of its \(eventFields.count) fields")
            }
            func field(_ name: String) -> String { eventFields.firstIndex(of: name).map { fields[$0] } ?? "" }
            guard let start = timestamp(field("start")), let end = timestamp(field("end")) else {
                throw SubtitleError(file: file, line: i + 1, message: "malformed time in '\(field("start")),\(field("end"))' (expected H:MM:SS.cc)")
            }
            // The event as Matroska blocks hold it, after the read order and without the times.
            let layer = eventFields.firstIndex(of: "layer").map { fields[$0] } ?? "0"
            let event = ([layer] + ["style", "name", "marginl", "marginr", "marginv", "effect"].map(field) + [fields[t]]).joined(separator: ",")
            guard end > start else { notAfterStart.append(i + 1); continue }
            cues.append(cue(event: event, start: start, end: end, header: header, line: i + 1))
        }
        return (header, cues)
    }

    /// The cue of an event `Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text`.
    public static func cue(event: String, start: Int64, end: Int64, header: Header, line: Int = 0) -> SubtitleCue {
        let fields = event.split(separator: ",", maxSplits: 7, omittingEmptySubsequences: false)
        let styleName = fields.count > 1 ? fields[1].trimmingCharacters(in: .whitespaces).drop { $0 == "*" } : "Default"
        let style = header.styles[String(styleName)] ?? header.styles["Default"] ?? Style()
        let parsed = Override.parse(fields.count == 8 ? String(fields[7]) : "", base: style)
        var cue = SubtitleCue(start: start, end: end, text: parsed.text, styles: parsed.styles, line: line)
        cue.placement = parsed.placement ?? style.placement
        cue.markup = .ass(event)
        return cue
    }

    /// What a format that holds text, bold, italic, underline, colour and alignment loses of
    /// these cues and this header: fonts, karaoke, drawings, transforms, positions, …
    public static func losses(_ cues: [SubtitleCue], header: Header?) -> [String] {
        var lost = Set<String>()
        for c in cues { if case .ass(let event) = c.markup { lost.formUnion(Override.parse(String(event.split(separator: ",", maxSplits: 7, omittingEmptySubsequences: false).last ?? ""), base: Style()).dropped) } }
        if let header, header.styles.values.contains(where: { !$0.font.isEmpty }) { lost.insert("fonts") }
        return lost.sorted()
    }

    /// `H:MM:SS.cc` → milliseconds.
    static func timestamp(_ s: String) -> Int64? {
        let parts = s.trimmingCharacters(in: .whitespaces).split(separator: ":")
        guard parts.count == 3, let h = Int64(parts[0]), let m = Int64(parts[1]), h >= 0, h < 10_000, m >= 0, m < 60 else { return nil }   // lint: checked (parses text: nil when it is not a number)
        let secs = parts[2].split(separator: ".", omittingEmptySubsequences: false)
        guard secs.count == 2, let sec = Int64(secs[0]), sec >= 0, sec < 60, (1...3).contains(secs[1].count),   // lint: checked (parses text: nil when it is not a number)
              secs[1].allSatisfy(\.isNumber), let f = Int64(secs[1]) else { return nil }   // lint: checked (parses text: nil when it is not a number)
        return ((h * 60 + m) * 60 + sec) * 1000 + f * [1, 100, 10, 1][secs[1].count]
    }

    /// Milliseconds → `H:MM:SS.cc` (rounded to the nearest centisecond).
    static func clock(_ ms: Int64) -> String {
        let cs = (max(0, ms) + 5) / 10
        return String(format: "%lld:%02lld:%02lld.%02lld", cs / 360_000, cs / 6000 % 60, cs / 100 % 60, cs % 100)
    }

    /// A script: `header` (the standard one when nil) and a `Dialogue` line per cue — its own
    /// event when it came from ASS, else one in the `Default` style with override tags for its
    /// styles and place.
    public static func render(_ cues: [SubtitleCue], header: Header?) -> String {
        var out = (header ?? .standard).text + "\n"
        for cue in cues {
            // (An event from another container's packet may hold a line break: a Dialogue line cannot.)
            let event = cue.assEvent.replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\n", with: "\\N")
            let comma = event.firstIndex(of: ",") ?? event.endIndex
            out += "Dialogue: " + event[..<comma] + "," + clock(cue.start) + "," + clock(cue.end) + event[comma...] + "\n"
        }
        return out
    }

    /// The styles of a header's styles section, by name.
    static func styles(in header: String) -> [String: Style] {
        var format: [String] = []
        var styles: [String: Style] = [:]
        var legacy = false
        for line in header.split(separator: "\n") {
            let l = line.trimmingCharacters(in: .whitespaces)
            if l.lowercased() == "[v4 styles]" { legacy = true }
            guard let colon = l.firstIndex(of: ":") else { continue }
            let key = l[..<colon].lowercased(), value = String(l[l.index(after: colon)...])
            if key == "format", format.isEmpty || !value.lowercased().contains("text") {
                if !value.lowercased().contains("text") { format = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() } }
            } else if key == "style" {
                let fields = value.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                func field(_ name: String) -> String? { format.firstIndex(of: name).flatMap { $0 < fields.count ? fields[$0] : nil } }
                guard let name = field("name") else { continue }
                var style = Style()
                style.font = field("fontname") ?? ""
                style.style.bold = (field("bold").flatMap { Int($0) } ?? 0) != 0   // lint: checked (parses text: nil when it is not a number)
                style.style.italic = (field("italic").flatMap { Int($0) } ?? 0) != 0   // lint: checked (parses text: nil when it is not a number)
                style.style.underline = (field("underline").flatMap { Int($0) } ?? 0) != 0   // lint: checked (parses text: nil when it is not a number)
                style.style.color = field("primarycolour").flatMap(Override.color).flatMap { $0 == 0xFFFF_FFFF ? nil : $0 }
                if let a = field("alignment").flatMap({ Int($0) }) {   // lint: checked (parses text: nil when it is not a number)
                    style.placement = (legacy ? CuePlacement(legacy: a) : CuePlacement(numpad: a)) ?? .bottomCenter
                }
                styles[name] = style
            }
        }
        return styles
    }
}
