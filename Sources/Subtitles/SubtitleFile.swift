import Foundation
import MediaCore

/// A subtitle file's format.
public enum SubtitleFormat: String, Sendable {
    /// SubRip (`.srt`).
    case srt
    /// WebVTT (`.vtt`).
    case webVTT = "vtt"
    /// Advanced SubStation Alpha and SubStation Alpha (`.ass`, `.ssa`).
    case ass

    /// The format of a file ending in `pathExtension` (`srt`, `vtt`, `webvtt`, `ass`, `ssa`); nil for others.
    public init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "srt": self = .srt
        case "vtt", "webvtt": self = .webVTT
        case "ass", "ssa": self = .ass
        default: return nil
        }
    }
}

/// Reading and writing SRT, WebVTT and ASS/SSA files.
public enum SubtitleFile {
    /// Reads the cues of an SRT, WebVTT or ASS/SSA file (by extension, else by content).
    /// - Throws: `SubtitleError` with the file and line of the first problem.
    public static func read(_ url: URL) throws(SubtitleError) -> [SubtitleCue] {
        try readDocument(url, encoding: nil, warnings: nil).cues
    }

    /// Reads the cues of a file as `readDocument(_:encoding:warnings:)` does.
    public static func read(_ url: URL, encoding: String?, warnings: ((String) -> Void)?) throws(SubtitleError) -> [SubtitleCue] {
        try readDocument(url, encoding: encoding, warnings: warnings).cues
    }

    /// Reads an SRT, WebVTT or ASS/SSA file — its cues, and WebVTT's STYLE and REGION blocks or
    /// an ASS script's header — in `encoding` (an IANA charset name:
    /// `windows-1252`, `iso-8859-2`, `cp1251`, `shift_jis`, `gb18030`, …); without one, a file
    /// that is not UTF-8 or UTF-16 is read as Windows-1252 when `warnings` is given (and told),
    /// else refused.
    /// - Throws: `SubtitleError` for an encoding Foundation does not know, text that is not
    ///   valid in it, or the file and line of the first problem.
    public static func readDocument(_ url: URL, encoding: String?, warnings: ((String) -> Void)?) throws(SubtitleError) -> SubtitleDocument {
        let data: Data
        do {
            let file = try ReadOnlyFile(path: url.path)
            guard file.size <= 1 << 30 else { throw MediaError(.unsupported, "more than Splice reads (1 GiB)") }
            data = try file.readData(at: 0, count: Int(clamping: file.size))
        } catch {
            var failure = SubtitleError(file: url.path, line: nil, message: (error as? MediaError)?.message ?? "cannot read the file")
            failure.code = (error as? MediaError)?.code ?? .io
            throw failure
        }
        var named: (String, String.Encoding)?
        if let encoding {
            guard let e = TextDecoding.encoding(named: encoding) else {
                throw SubtitleError(file: url.path, line: nil, message: "'\(encoding)' is not an encoding Splice knows (windows-1252, iso-8859-2, cp1251, shift_jis, gb18030, …)")
            }
            named = (encoding, e)
        }
        let text = try TextDecoding.decode(data, file: url.path, encoding: named, fallback: warnings)
        let format = SubtitleFormat(pathExtension: url.pathExtension)
            ?? (text.hasPrefix("WEBVTT") ? .webVTT : SubStationAlpha.isScript(text) ? .ass : .srt)
        return try parseDocument(text, format: format, file: url.path, warnings: warnings)
    }

    /// Parses the bytes of a file (UTF-8 or UTF-16 with BOM, any line endings).
    public static func parse(data: Data, format: SubtitleFormat, file: String) throws(SubtitleError) -> [SubtitleCue] {
        try parse(try TextDecoding.decode(data, file: file), format: format, file: file)
    }

    /// Parses decoded text. WebVTT follows the W3C's parsing algorithm: malformed blocks are
    /// left out, each told to `warnings` with `file:line` and why; SRT, which has no such
    /// specification, is strict: its first malformed block is an error.
    /// - Throws: `SubtitleError` naming `file:line`, or saying the file has no cues.
    public static func parse(_ text: String, format: SubtitleFormat, file: String,
                             warnings: ((String) -> Void)? = nil) throws(SubtitleError) -> [SubtitleCue] {
        try parseDocument(text, format: format, file: file, warnings: warnings).cues
    }

    /// Parses decoded text as `parse(_:format:file:warnings:)` does, keeping WebVTT's STYLE and
    /// REGION blocks and an ASS script's header.
    public static func parseDocument(_ text: String, format: SubtitleFormat, file: String,
                                     warnings: ((String) -> Void)? = nil) throws(SubtitleError) -> SubtitleDocument {
        var text = text
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        if text.hasPrefix("\u{FEFF}") {
            throw SubtitleError(file: file, line: 1, message: secondBOM)
        }
        var document = SubtitleDocument(cues: [])
        var leftOut = false
        let tell: (String) -> Void = { leftOut = true; warnings?($0) }
        switch format {
        case .srt: document.cues = try parseSRT(text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init), file: file, warnings: tell)
        case .webVTT:
            var parser = WebVTTParser(text, file: file)
            let cues = try parser.parse()
            for w in parser.warnings { tell(w) }
            // The W3C algorithm keeps cues that end before they start, which no browser shows.
            document.cues = cues.filter { $0.end > $0.start }
            if let w = leftOutWarning(cues.filter { $0.end <= $0.start }.map(\.line), file: file) { tell(w) }
            document.styleSheets = parser.styleSheets
            document.regions = parser.regions
        case .ass: (document.assHeader, document.cues) = try SubStationAlpha.parse(text, file: file, warnings: tell)
        }
        // A file whose cues were all left out is still a subtitle file (the warnings say why).
        guard !document.cues.isEmpty || leftOut else { throw SubtitleError(file: file, line: nil, message: "has no cues") }
        return document
    }

    /// What a file with two byte-order marks is told.
    static let secondBOM = "starts with a second byte-order mark (U+FEFF): the text was encoded twice; remove the extra one"

    /// Blocks of non-blank lines: (first line number, lines).
    static func blocks(_ lines: [String], from first: Int = 0) -> [(Int, [String])] {
        var result: [(Int, [String])] = []
        var current: [String] = []
        var start = 0
        for i in first..<lines.count {
            let line = lines[i]
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                if !current.isEmpty { result.append((start + 1, current)); current = [] }
            } else {
                if current.isEmpty { start = i }
                current.append(line)
            }
        }
        if !current.isEmpty { result.append((start + 1, current)) }
        return result
    }

    static func parseSRT(_ lines: [String], file: String, warnings: ((String) -> Void)? = nil) throws(SubtitleError) -> [SubtitleCue] {
        var cues: [SubtitleCue] = []
        var notAfterStart: [Int] = []
        defer { if let w = leftOutWarning(notAfterStart, file: file) { warnings?(w) } }
        for (line, block) in splitMissingBlankLines(blocks(lines)) {
            // The timing line is the first or second line (after an index, which may be missing or wrong).
            guard let t = block.prefix(2).firstIndex(where: { $0.contains("-->") }) else {
                if block.count == 1 && isIndex(block[0]) { continue }
                if var last = cues.popLast() {
                    // Text after a blank line inside a cue: part of the cue before it.
                    let (more, styles) = Markup.parse(block.joined(separator: "\n"), .srt)
                    let shift = last.text.unicodeScalars.count + 2
                    last.text += "\n\n" + more
                    last.styles += styles.map { $0.shifted(by: shift) }
                    if case .srt(let body) = last.markup { last.markup = .srt(body + "\n\n" + block.joined(separator: "\n")) }
                    cues.append(last)
                    continue
                }
                throw SubtitleError(file: file, line: line, message: "expected a timing line such as '00:00:01,000 --> 00:00:02,000', found '\(block[0].prefix(40))'")
            }
            let c = try cue(block, timingAt: t, line: line, file: file)
            if c.end <= c.start { notAfterStart.append(c.line); continue }
            cues.append(c)
        }
        return cues
    }

    /// The one warning for the cues whose end is not after their start, which both formats
    /// leave out (by the lines of their timings); nil when there are none.
    static func leftOutWarning(_ lines: [Int], file: String) -> String? {
        guard !lines.isEmpty else { return nil }
        let shown = lines.prefix(10).map(String.init).joined(separator: ", ") + (lines.count > 10 ? ", …" : "")
        return "\(file): \(lines.count) cue\(lines.count == 1 ? "" : "s") whose end is not after the start left out (line\(lines.count == 1 ? "" : "s") \(shown))"
    }

    /// The SRT cue of a block whose timing line is at `t`: the lines after it are its text.
    static func cue(_ block: [String], timingAt t: Int, line: Int, file: String) throws(SubtitleError) -> SubtitleCue {
        let timingLine = line + t
        let (start, end) = try timing(block[t], file: file, line: timingLine)
        let body = block[(t + 1)...].map { $0.trimmingTrailingWhitespace() }.joined(separator: "\n")
        let (plain, styles) = Markup.parse(body, .srt)
        var cue = SubtitleCue(start: start, end: end, text: plain, styles: styles, line: timingLine)
        cue.placement = Markup.placementTag(in: body) ?? .bottomCenter
        cue.markup = .srt(body)
        return cue
    }

    /// A line holding only an SRT cue index.
    static func isIndex(_ line: String) -> Bool {
        line.trimmingCharacters(in: .whitespaces).allSatisfy(\.isNumber)
    }

    /// SRT files often lack the blank line between two cues: a valid timing line inside a
    /// block's text (with the index line before it, if any) starts a new block.
    static func splitMissingBlankLines(_ blocks: [(Int, [String])]) -> [(Int, [String])] {
        var result: [(Int, [String])] = []
        func isTiming(_ line: String) -> Bool {
            line.contains("-->") && (try? timing(line, file: "", line: 0)) != nil
        }
        for (line, block) in blocks {
            var start = 0
            for i in block.indices.dropFirst() where isTiming(block[i]) {
                // The new cue starts at its index line when there is one.
                let cut = i - 1 >= start && isIndex(block[i - 1]) ? i - 1 : i
                if cut > start {
                    result.append((line + start, Array(block[start..<cut])))
                    start = cut
                }
            }
            result.append((line + start, Array(block[start...])))
        }
        return result
    }

    /// An SRT `start --> end [settings]` in milliseconds (WebVTT's is `WebVTTParser.timings`).
    static func timing(_ line: String, file: String, line number: Int) throws(SubtitleError) -> (Int64, Int64) {
        let parts = line.components(separatedBy: "-->")
        guard parts.count == 2 else {
            throw SubtitleError(file: file, line: number, message: "malformed timing line '\(line.prefix(60))'")
        }
        let startText = parts[0].trimmingCharacters(in: .whitespaces)
        let endText = parts[1].trimmingCharacters(in: .whitespaces).prefix { !$0.isWhitespace }
        guard let start = timestamp(startText) else {
            throw SubtitleError(file: file, line: number, message: "malformed start time '\(startText.prefix(30))'")
        }
        guard let end = timestamp(String(endText)) else {
            throw SubtitleError(file: file, line: number, message: "malformed end time '\(endText.prefix(30))'")
        }
        return (start, end)
    }

    /// An SRT `[H…:]MM:SS(,|.)mmm` → milliseconds (a period is taken for the comma too).
    static func timestamp(_ s: String) -> Int64? {
        let separators: Set<Character> = [",", "."]
        guard let sep = s.lastIndex(where: { separators.contains($0) }) else { return nil }
        let fraction = s[s.index(after: sep)...]
        guard (1...3).contains(fraction.count), fraction.allSatisfy(\.isASCII), let f = Int64(fraction) else { return nil }   // lint: checked (parses text: nil when it is not a number)
        let ms = f * [1, 100, 10, 1][fraction.count]
        let fields = s[..<sep].split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2 || fields.count == 3, fields.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else { return nil }
        let numbers = fields.compactMap { Int64($0) }   // lint: checked (parses text: nil when it is not a number)
        guard numbers.count == fields.count else { return nil }
        let (h, m, sec) = numbers.count == 3 ? (numbers[0], numbers[1], numbers[2]) : (0, numbers[0], numbers[1])
        // Seconds and minutes have two digits; hours any number.
        guard m < 60, sec < 60, h < 10_000, fields[fields.count - 1].count == 2, fields[fields.count - 2].count == 2 else { return nil }
        return ((h * 60 + m) * 60 + sec) * 1000 + ms
    }

    // MARK: Writing

    /// The cues as SRT, WebVTT or ASS text, markup restored.
    public static func render(_ cues: [SubtitleCue], format: SubtitleFormat) -> String {
        render(SubtitleDocument(cues: cues), format: format)
    }

    /// A document as SRT, WebVTT or ASS text: each cue's own markup when it is in the format's
    /// (WebVTT payloads, ASS events), else markup made from its text, styles and place (SRT:
    /// `{\an8}`-style tags; WebVTT: settings, and a `STYLE` block for the colour classes).
    public static func render(_ document: SubtitleDocument, format: SubtitleFormat) -> String {
        if format == .ass { return SubStationAlpha.render(document.cues, header: document.assHeader) }
        var out = format == .webVTT ? document.webVTTHeader(adding: document.cues) + "\n\n" : ""
        for (i, cue) in document.cues.enumerated() {
            if format == .srt { out += "\(i + 1)\n" }
            if format == .webVTT, !cue.identifier.isEmpty, !cue.identifier.contains("-->") { out += cue.identifier + "\n" }
            out += clock(cue.start, format) + " --> " + clock(cue.end, format)
            if format == .webVTT, !cue.webVTTSettings.isEmpty { out += " " + cue.webVTTSettings }
            out += "\n"
            // A blank line would end the cue: drop lines that are empty (e.g. once markup is gone).
            // An arrow in the text could be read as a timing line: WebVTT escapes it, SRT (which
            // has no escapes) gets a shorter arrow.
            let text = (format == .srt ? cue.srtText : cue.webVTTPayload)
                .split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.allSatisfy { $0 == " " || $0 == "\t" } }
                .map { line -> String in
                    var line = String(line)
                    // Repeated: shortening "--->" once would leave "-->".
                    while line.contains("-->") { line = line.replacingOccurrences(of: "-->", with: format == .srt ? "->" : "--&gt;") }
                    return line
                }
                .joined(separator: "\n")
            // (a blank line between cues; WebVTT's last cue ends with its line, as ffmpeg writes it)
            out += text + (format == .webVTT && i == document.cues.count - 1 ? "\n" : "\n\n")
        }
        return out
    }

    static func clock(_ ms: Int64, _ format: SubtitleFormat) -> String {
        let h = ms / 3_600_000, m = ms / 60_000 % 60, s = ms / 1000 % 60, f = ms % 1000
        return String(format: "%02lld:%02lld:%02lld%@%03lld", h, m, s, format == .srt ? "," : ".", f)
    }
}

extension String {
    func trimmingTrailingWhitespace() -> String {
        var s = Substring(self)
        while let last = s.last, last == " " || last == "\t" { s = s.dropLast() }
        return String(s)
    }
}
