import Foundation

/// WebVTT files parsed as the W3C's WebVTT file-parsing algorithm says (WebVTT §6.1): a
/// block that is not a cue — a malformed timing line, an arrow line before the timing line, a
/// stylesheet-like block — is dropped, and the cues around it are kept; a timing line right
/// after the `WEBVTT` line starts a cue. Dropped blocks are reported (`file:line` and why)
/// through `warnings`; `NOTE` blocks are skipped silently. Cue ids, settings and payloads are
/// kept as written, and the `STYLE` and `REGION` blocks before the first cue are collected.
struct WebVTTParser {
    let file: String
    private let scalars: [Unicode.Scalar]
    private var position = 0
    /// Line number (1-based) of `position`.
    private var line = 1
    private(set) var warnings: [String] = []
    /// The timing lines of cues whose end is not after their start (left out).
    /// The CSS of the `STYLE` blocks and the settings of the `REGION` blocks, in file order.
    private(set) var styleSheets: [String] = []
    private(set) var regions: [String] = []
    /// The regions the `REGION` blocks define (a later one replaces an earlier one of its id).
    private(set) var parsedRegions: [WebVTTRegion] = []
    private var seenAnyCue = false   // a cue was read: later STYLE and REGION blocks are not the header's

    init(_ text: String, file: String) {
        self.file = file
        // Preprocessing: CR LF and CR become LF, NUL becomes U+FFFD.
        var out: [Unicode.Scalar] = []
        out.reserveCapacity(text.unicodeScalars.count)
        var afterCR = false
        for c in text.unicodeScalars {
            if c == "\n", afterCR { afterCR = false; continue }
            afterCR = c == "\r"
            out.append(c == "\r" ? "\n" : c == "\u{0}" ? "\u{FFFD}" : c)
        }
        scalars = out
    }

    private static let lf: Unicode.Scalar = "\n"
    private var atEnd: Bool { position >= scalars.count }

    mutating func parse() throws(SubtitleError) -> [SubtitleCue] {
        if scalars.first == "\u{FEFF}" {
            throw SubtitleError(file: file, line: 1, message: "not a WebVTT file: a second byte-order mark before 'WEBVTT'")
        }
        let signature = Array("WEBVTT".unicodeScalars)
        guard scalars.starts(with: signature), scalars.count == 6 || [" ", "\t", "\n"].contains(scalars[6]) else {
            throw SubtitleError(file: file, line: 1, message: "not a WebVTT file: the first line must be 'WEBVTT'")
        }
        _ = collectLine()
        var cues: [SubtitleCue] = []
        guard !atEnd else { return cues }
        _ = collectBlock(inHeader: true)
        skipLineFeeds()
        while !atEnd {
            if let cue = collectBlock(inHeader: false) { cues.append(cue) }
            skipLineFeeds()
        }
        let colors = CueClasses.colors(in: styleSheets)
        return cues.map { cue in
            var cue = cue
            if case .webVTT(let payload) = cue.markup { (cue.text, cue.styles) = Markup.parse(payload, .webVTT, classColors: colors) }
            return cue
        }
    }

    /// The characters up to the next LF (which is consumed).
    private mutating func collectLine() -> String {
        var s = String.UnicodeScalarView()
        while !atEnd, scalars[position] != Self.lf { s.append(scalars[position]); position += 1 }
        if !atEnd { position += 1; line += 1 }
        return String(s)
    }

    private mutating func skipLineFeeds() {
        while !atEnd, scalars[position] == Self.lf { position += 1; line += 1 }
    }

    /// "Collect a WebVTT block": a cue, or nil for anything else (with a warning when it looked
    /// like neither a cue nor a NOTE/STYLE/REGION block).
    private mutating func collectBlock(inHeader: Bool) -> SubtitleCue? {
        var lineCount = 0, seenArrow = false, seenCue = false
        var previous = (position, line)
        var buffer = ""
        var timing: (start: Int64, end: Int64, settings: String)?
        var identifier = ""
        var failure: String?
        let firstLine = line
        var timingLine = line
        while true {
            let here = line
            let text = collectLine()
            lineCount += 1
            let seenEOF = atEnd && (position == scalars.count)
            if text.contains("-->") {
                if !inHeader, lineCount == 1 || (lineCount == 2 && !seenArrow) {
                    seenArrow = true
                    previous = (position, line)
                    timingLine = here
                    switch WebVTTParser.timings(text) {
                    case .success(let t): timing = t; identifier = buffer; buffer = ""; seenCue = true; failure = nil
                    case .failure(let why): timing = nil; failure = why.description
                    }
                } else {
                    (position, line) = previous
                    break
                }
            } else if text.isEmpty {
                break
            } else {
                if !buffer.isEmpty { buffer += "\n" }
                buffer += text
                previous = (position, line)
            }
            if seenEOF || atEnd { break }
        }
        guard let timing, seenCue else {
            if inHeader { return nil }
            otherBlock(buffer, failure: failure.map { "\(file):\(timingLine): \($0); the block is left out" }, line: firstLine)
            return nil
        }
        seenAnyCue = true
        let payload = buffer
        var cue = SubtitleCue(start: timing.start, end: timing.end, text: "", line: timingLine)
        cue.identifier = identifier
        cue.settings = timing.settings
        cue.placement = CueSettings.placement(of: timing.settings, regions: parsedRegions)
        cue.markup = .webVTT(payload)
        return cue
    }

    /// A block that is not a cue: a STYLE or REGION block before the first cue is kept, a NOTE
    /// skipped, anything else told (with `failure` when its timing line was malformed).
    private mutating func otherBlock(_ buffer: String, failure: String?, line: Int) {
        let head = buffer.split(separator: "\n").first.map(String.init) ?? ""
        let body = buffer.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().joined(separator: "\n")
        // NOTE, then a space, a tab or the line's end; STYLE and REGION alone on their line, text after.
        let note = head == "NOTE" || head.hasPrefix("NOTE ") || head.hasPrefix("NOTE\t")
        func named(_ name: String) -> Bool { head.hasPrefix(name) && head.dropFirst(name.count).allSatisfy { $0 == " " || $0 == "\t" || $0 == "\u{0C}" } }
        let lines = buffer.contains("\n")
        if !seenAnyCue, lines, named("STYLE") {
            styleSheets.append(body)
        } else if !seenAnyCue, lines, named("REGION") {
            regions.append(body)
            let region = WebVTTRegion(body)
            parsedRegions.removeAll { $0.identifier == region.identifier && !region.identifier.isEmpty }
            parsedRegions.append(region)
        }
        if let failure {
            warnings.append(failure)
        } else if !note && !named("STYLE") && !named("REGION") {
            warnings.append("\(file):\(line): a block without a cue timing line ('\(head.prefix(30))') is left out")
        }
    }

    /// "Collect WebVTT cue timings and settings": start and end in milliseconds, and the
    /// settings that follow (trimmed); or why the line is not a timing line.
    static func timings(_ line: String) -> Result<(start: Int64, end: Int64, settings: String), TimingError> {
        var s = Substring(line).unicodeScalars[...]
        func skipWhitespace() { while let c = s.first, [" ", "\t", "\u{0C}", "\r", "\n"].contains(c) { s.removeFirst() } }
        skipWhitespace()
        guard let start = timestamp(&s) else { return .failure(TimingError("malformed start time in '\(line.prefix(40))'")) }
        skipWhitespace()
        for c in "-->".unicodeScalars {
            guard s.first == c else { return .failure(TimingError("expected '-->' after the start time in '\(line.prefix(40))'")) }
            s.removeFirst()
        }
        skipWhitespace()
        guard let end = timestamp(&s) else { return .failure(TimingError("malformed end time in '\(line.prefix(40))'")) }
        let settings = String(s).trimmingCharacters(in: .whitespaces)
        return .success((start, end, settings.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")))
    }

    struct TimingError: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    /// "Collect a WebVTT timestamp" → milliseconds; nil when it is not one.
    static func timestamp(_ s: inout Substring.UnicodeScalarView.SubSequence) -> Int64? {
        func digits() -> String {
            var out = ""
            while let c = s.first, ("0"..."9").contains(c) { out.unicodeScalars.append(c); s.removeFirst() }
            return out
        }
        guard let c = s.first, ("0"..."9").contains(c) else { return nil }
        let first = digits()
        guard let v1 = Int64(first.prefix(12)) else { return nil }   // lint: checked (parses text: nil when it is not a number)
        let hoursFirst = first.count != 2 || v1 > 59
        guard s.first == ":" else { return nil }
        s.removeFirst()
        let second = digits()
        guard second.count == 2, let v2 = Int64(second) else { return nil }   // lint: checked (parses text: nil when it is not a number)
        var (h, m, sec) = (Int64(0), v1, v2)
        if hoursFirst || s.first == ":" {
            guard s.first == ":" else { return nil }
            s.removeFirst()
            let third = digits()
            guard third.count == 2, let v3 = Int64(third) else { return nil }   // lint: checked (parses text: nil when it is not a number)
            (h, m, sec) = (v1, v2, v3)
        }
        guard s.first == "." else { return nil }
        s.removeFirst()
        let fraction = digits()
        guard fraction.count == 3, let ms = Int64(fraction), m <= 59, sec <= 59, h < 1_000_000 else { return nil }   // lint: checked (parses text: nil when it is not a number)
        return ((h * 60 + m) * 60 + sec) * 1000 + ms
    }
}
