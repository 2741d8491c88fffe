import Foundation
@testable import Subtitles
import Testing

/// The facts of web-platform-tests' `webvtt/parsing/file-parsing` set — for each test page,
/// the cues, ids, times, settings, regions and style sheets the W3C parser yields — on inputs
/// written here to the same shape. The parser is held to the spec; Splice's own policy on top
/// (cues that end before they start left out with a warning) is checked beside it.
@Suite("WebVTT file parsing (web-platform-tests' facts)")
struct WPTFileParsingTests {
    static let timing = "00:00:00.000 --> 00:00:01.000"

    /// The spec parser's cues and what it collected.
    static func parse(_ text: String) throws -> ([SubtitleCue], WebVTTParser) {
        var parser = WebVTTParser(text, file: "t.vtt")
        let cues = try parser.parse()
        return (cues, parser)
    }

    static func texts(_ text: String) throws -> [String] { try parse(text).0.map(\.text) }

    static func settings(_ text: String) throws -> [WebVTTCueSettings] {
        let (cues, parser) = try parse(text)
        return cues.map { WebVTTCueSettings($0.settings, regions: parser.parsedRegions) }
    }

    /// One cue per settings string, in order.
    static func cues(withSettings list: [String]) -> String {
        "WEBVTT\n\n" + list.map { "\(timing) \($0)\ntext\n" }.joined(separator: "\n")
    }

    @Test func arrowsBeforeTheTimingLine() throws {
        let t = Self.timing
        let file = "WEBVTT\n\n-->\n\(t)\none\nid-->\n\(t)\ntwo\n-->id\n\(t)\nthree\n--->\n\(t)\nfour\n-->-->\n\(t)\nfive\n\(t)\nsix\n\n"
            + "00:00:00.000 -b -->\n\n00:00:00.000 --b -->\n\n00:00:00.000 - -->\n\n00:00:00.000 -- -->\n"
        #expect(try Self.texts(file) == ["one", "two", "three", "four", "five", "six"])
    }

    @Test func headersAndSignatures() throws {
        let cue = "\n\n\(Self.timing)\ntext\n"
        for header in ["WEBVTT garbage after the signature\nand a header line", "WEBVTT ", "WEBVTT\t", "WEBVTT header"] {
            let (cues, _) = try Self.parse(header + cue)
            #expect(cues.map { [$0.start, $0.end] } == [[0, 1000]] && cues.map(\.text) == ["text"], "\(header)")
        }
        // A timing line right after the signature line is a cue; on the signature line it is header.
        #expect(try Self.texts("WEBVTT\n\(Self.timing)\ntext\n") == ["text"])
        #expect(try Self.texts("WEBVTT \(Self.timing)\ntext\n").isEmpty)
        for bare in ["WEBVTT", "WEBVTT ", "WEBVTT\t"] { #expect(try Self.texts(bare).isEmpty) }
        // A byte-order mark is the decoder's (SubtitleFile strips one).
        #expect(try SubtitleFile.parse("\u{FEFF}WEBVTT" + cue, format: .webVTT, file: "t.vtt").count == 1)
        #expect(throws: SubtitleError.self) { try Self.parse("WEBVTTX" + cue) }
    }

    @Test func identifiers() throws {
        let t = Self.timing
        let (cues, _) = try Self.parse("WEBVTT\n\n leading space\n\(t)\na\n\ntrailing space \n\(t)\nb\n\n-- >\n\(t)\nc\n\n->\n\(t)\nd\n\n \n\(t)\ne")
        #expect(cues.map(\.identifier) == [" leading space", "trailing space ", "-- >", "->", " "])
    }

    @Test func lineEndings() throws {
        let t = Self.timing
        let file = "WEBVTT\n\ncr\r\(t)\rtext1\r\rlf\n\(t)\ntext2\n\ncrlf\r\n\(t)\r\ntext3\r\n\r\nmixed\r\n\(t)\ntext4\r"
        let (cues, _) = try Self.parse(file)
        #expect(cues.map(\.identifier) == ["cr", "lf", "crlf", "mixed"] && cues.map(\.text) == ["text1", "text2", "text3", "text4"])
    }

    @Test func nulls() throws {
        let t = Self.timing
        var file = "WEBVTT\n\u{0}\nthe NUL line above keeps this in the header\n\(t)\ntext1\n\n\u{0} (id)\n\(t)\ntext2\n\n"
        file += "\u{FFFD} (in data)\n\(t)\n\u{FFFD}text\u{0}3\n\n\(t) align\u{0}:end\ntext4\n\n\(t) align:end\u{0}\ntext5\n\n"
        file += "\(t)\u{0}align:end\ntext6\n\n\(t)\u{0} align:end\ntext7\n\n"
        // A NUL anywhere in the times breaks the timing line.
        for i in 0..<t.count where t[t.index(t.startIndex, offsetBy: i)] != " " {
            var broken = t
            broken.insert("\u{0}", at: broken.index(broken.startIndex, offsetBy: i))
            file += "\(broken)\nFAIL\n\n"
        }
        let (cues, parser) = try Self.parse(file)
        #expect(cues.map(\.text) == ["text1", "text2", "\u{FFFD}text\u{FFFD}3", "text4", "text5", "text6", "text7"])
        #expect(cues[1].identifier == "\u{FFFD} (id)" && cues[2].identifier == "\u{FFFD} (in data)")
        #expect(cues.dropFirst(3).map { WebVTTCueSettings($0.settings, regions: parser.parsedRegions).align } == ["center", "center", "center", "end"])
    }

    @Test func whitespaceAroundTheTimes() throws {
        let (cues, _) = try Self.parse("WEBVTT\n\nspaces\n   00:00:00.000    -->  00:00:01.000 \n   text1\n\ntabs\n\t\t00:00:00.000\t\t-->\t00:00:01.000\t\ntext2\n\n"
            + "form feeds\n\u{0C}00:00:00.000\u{0C}\u{0C}-->\u{0C}00:00:01.000\u{0C}\ntext3\n\nvertical tabs\n\u{0B}00:00:00.000\u{0B}-->\u{0B}00:00:01.000\ntext4\n")
        #expect(cues.map(\.identifier) == ["spaces", "tabs", "form feeds"] && cues.map(\.text) == ["   text1", "text2", "text3"])
    }

    @Test func timestamps() throws {
        func times(_ lines: [String]) throws -> [[Int64]] {
            try Self.parse("WEBVTT\n\n" + lines.map { "\($0)\ntext\n" }.joined(separator: "\n")).0.map { [$0.start, $0.end] }
        }
        // Too short, too long, omitted hours.
        #expect(try times(["0:00:00.000 --> 00:00:01.000", "0000:00.000 --> 00:00:01.000", "00:0:00.000 --> 00:00:01.000",
                           "00:00:0.000 --> 00:00:01.000", "00:00:00.00 --> 00:00:01.000", "00:00:00 --> 00:00:01.000",
                           "00:00 --> 00:00:01.000", " --> 00:00:01.000", "0:00.000 --> 00:01.000", "00:00. --> 00:01.000",
                           "00:00.000 --> 0:01.000", "00:00:00.000 --> 0:00:01.000"]) == [[0, 1000], [0, 1000]])
        #expect(try times(["000:00:00.000 --> 00:00:01.000", "00::00:00.000 --> 00:00:01.000", "00:000:00.000 --> 00:00:01.000",
                           "00:00:000.000 --> 00:00:01.000", "00:00:00..000 --> 00:00:01.000", "00:00:00.0000 --> 00:00:01.000",
                           "000:00.000 --> 00:01.000", "00:00.000 --> 000:01.000", "00:00:00.000 --> 000:00:01.000"]) == [[0, 1000], [0, 1000]])
        #expect(try times(["00:00.000 --> 00:00:01.000", "00:00:00.000 --> 00:01.000", "00:00.000 --> 00:01.000"]) == Array(repeating: [0, 1000], count: 3))
        // Hours past 59; minutes and seconds not.
        #expect(try times(["00:00:00.000 --> 60:00:01.000", "60:00:00.000 --> 60:00:01.000", "00:60:00.000 --> 01:00:00.000",
                           "00:00:60.000 --> 00:01:01.000"]) == [[0, 216_001_000], [216_000_000, 216_001_000]])
        // Garbage, and a timing line cut short by the file's end.
        #expect(try times(["00:00:00.000 --> 00:00:01,000", "x00:00:00.000 --> 00:00:01.000", "00:00:00.000 -> 00:00:01.000",
                           "00:00:00.000 --> x", "00:00:00.000 \u{2192} 00:00:01.000"]).isEmpty)
        #expect(try Self.parse("WEBVTT\n\n00:00:00.000 -->").0.isEmpty && Self.parse("WEBVTT\n\n00:00:00.000 --> 00:00:0").0.isEmpty)
        // Ends before starts: the spec keeps them (no browser shows them); Splice leaves them out, with one warning.
        let backwards = ["00:00:00.000 --> 00:00:00.000", "00:00:01.000 --> 00:00:00.999", "00:01:00.000 --> 00:00:59.999", "01:00:00.000 --> 00:59:59.999"]
        #expect(try times(backwards) == [[0, 0], [1000, 999], [60_000, 59_999], [3_600_000, 3_599_999]])
        var warnings: [String] = []
        let kept = try SubtitleFile.parse("WEBVTT\n\n" + backwards.map { "\($0)\nx\n" }.joined(separator: "\n"), format: .webVTT, file: "t.vtt") { warnings.append($0) }
        #expect(kept.isEmpty && warnings == ["t.vtt: 4 cues whose end is not after the start left out (lines 3, 6, 9, 12)"])
    }
}
