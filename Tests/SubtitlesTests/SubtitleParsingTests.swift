import Foundation
import Testing
@testable import Subtitles

@Suite("SRT and WebVTT parsing")
struct SubtitleParsingTests {
    func srt(_ text: String) throws -> [SubtitleCue] {
        try SubtitleFile.parse(try TextDecoding.decode(Data(text.utf8), file: "t.srt"), format: .srt, file: "t.srt")
    }

    func vtt(_ text: String) throws -> [SubtitleCue] {
        try SubtitleFile.parse(try TextDecoding.decode(Data(text.utf8), file: "t.vtt"), format: .webVTT, file: "t.vtt")
    }

    func expectError(line: Int?, containing text: String, sourceLocation: SourceLocation = #_sourceLocation,
                     _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected an error", sourceLocation: sourceLocation)
        } catch let e as SubtitleError {
            #expect(e.line == line, "\(e)", sourceLocation: sourceLocation)
            #expect(e.message.contains(text), "\(e)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func plainSRT() throws {
        let cues = try srt("1\n00:00:01,000 --> 00:00:02,500\nHello\nworld\n\n2\n00:01:02,003 --> 01:00:00,000\nBye\n")
        #expect(cues.map(\.start) == [1000, 62003])
        #expect(cues.map(\.end) == [2500, 3_600_000])
        #expect(cues.map(\.text) == ["Hello\nworld", "Bye"])
        #expect(cues.map(\.line) == [2, 7])
    }

    @Test func realWorldShapes() throws {
        // BOM, CRLF, missing and wrong indices, extra blank lines, trailing spaces, period separator,
        // SRT coordinates after the end time, an empty cue.
        let text = "\u{FEFF}\r\n\r\n00:00:01,000 --> 00:00:02,000  \r\nNo index   \r\n\r\n\r\n\r\n7\r\n00:00:03.000 --> 00:00:04,000 X1:100 X2:200\r\nPeriod\r\n\r\n8\r\n00:00:05,000 --> 00:00:05,500\r\n\r\n9\r\n00:00:06,000 --> 00:00:07,000\r\nlast"
        let cues = try srt(text)
        #expect(cues.map(\.text) == ["No index", "Period", "", "last"])
        #expect(cues.map(\.start) == [1000, 3000, 5000, 6000])
        // A missing blank line between cues.
        let joined = try srt("1\n00:00:01,000 --> 00:00:02,000\nfirst\n2\n00:00:03,000 --> 00:00:04,000\nsecond\n00:00:05,000 --> 00:00:06,000\nthird\n")
        #expect(joined.map(\.text) == ["first", "second", "third"])
        #expect(joined.map(\.line) == [2, 5, 7])
        // Old Mac line endings.
        #expect(try srt("1\r00:00:01,000 --> 00:00:02,000\rMac\r").map(\.text) == ["Mac"])
    }

    @Test func markupBecomesStyles() throws {
        let cues = try srt("1\n00:00:01,000 --> 00:00:02,000\n<i>It</i> is <b><u>very</u></b> <font color=\"#00ff00\">green</font> {\\an8}<x>odd</x> a < b\n")
        let c = try #require(cues.first)
        #expect(c.text == "It is very green odd a < b")
        #expect(c.styles == [
            TextStyle(start: 0, end: 2, italic: true),
            TextStyle(start: 6, end: 10, bold: true, underline: true),
            TextStyle(start: 11, end: 16, color: 0x00FF00FF),
        ])
        #expect(Markup.render(c.text, c.styles, .srt) == "<i>It</i> is <b><u>very</u></b> <font color=\"#00ff00\">green</font> odd a < b")
    }

    @Test func webVTT() throws {
        let text = """
            WEBVTT - a title
            Kind: captions

            NOTE this is
            a comment

            STYLE
            ::cue { color: red }

            intro
            00:01.000 --> 00:02.000 align:start position:10%
            <v Roger>Hi <i>there</i> &amp; <c.loud>hello</c> <00:01.500>world</v>

            01:00:00.000 --> 01:00:01.250
            Late &lt;tag&gt;
            """
        let cues = try vtt(text)
        #expect(cues.map(\.text) == ["Hi there & hello world", "Late <tag>"])
        #expect(cues.map(\.start) == [1000, 3_600_000])
        #expect(cues[0].styles == [TextStyle(start: 3, end: 8, italic: true)])
        #expect(SubtitleFile.render(cues, format: .webVTT).contains("Late &lt;tag&gt;"))
    }

    @Test func errorsNameTheLine() {
        expectError(line: 2, containing: "malformed start time") { _ = try srt("1\n00:00:0x,000 --> 00:00:02,000\nx\n") }
        expectError(line: 1, containing: "expected a timing line") { _ = try srt("Hello there\nno timing\n") }
        expectError(line: 2, containing: "malformed end time") { _ = try srt("1\n00:00:01,000 --> 00:00:61,000\nx\n") }
        expectError(line: 1, containing: "first line must be 'WEBVTT'") { _ = try vtt("00:01.000 --> 00:02.000\nx\n") }
        // A file with no cue at all is an error (one whose cues were all left out is not).
        expectError(line: nil, containing: "has no cues") { _ = try vtt("WEBVTT\n\nNOTE nothing here\n") }
        expectError(line: nil, containing: "has no cues") { _ = try srt("\n\n") }
    }

    @Test func encodings() throws {
        let text = "1\n00:00:01,000 --> 00:00:02,000\nçà ü 字\n"
        func utf16(_ bigEndian: Bool) -> Data {
            var d = Data(bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE])
            for u in text.utf16 { d += bigEndian ? [UInt8(u >> 8), UInt8(u & 0xFF)] : [UInt8(u & 0xFF), UInt8(u >> 8)] }
            return d
        }
        for data in [Data(text.utf8), Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8), utf16(false), utf16(true)] {
            let cues = try SubtitleFile.parse(try TextDecoding.decode(data, file: "x.srt"), format: .srt, file: "x.srt")
            #expect(cues.first?.text == "çà ü 字")
        }
        expectError(line: 3, containing: "not UTF-8 (byte 0xE9)") {
            _ = try TextDecoding.decode(Data("1\n00:00:01,000 --> 00:00:02,000\ncaf".utf8) + Data([0xE9, 0x0A]), file: "latin1.srt")
        }
    }

    @Test func overlapsBecomeOneSampleAtATime() {
        let cues = [
            SubtitleCue(start: 1000, end: 3000, text: "A", styles: [TextStyle(start: 0, end: 1, bold: true)]),
            SubtitleCue(start: 2000, end: 4000, text: "B"),
            SubtitleCue(start: 5000, end: 5000, text: "empty"),
            SubtitleCue(start: 6000, end: 7000, text: "C"),
        ]
        let s = TimedText.samples(cues)
        #expect(s.map(\.start) == [0, 1000, 2000, 3000, 4000, 6000, 7000])
        #expect(s.map(\.end) == [1000, 2000, 3000, 4000, 6000, 7000, 7000])
        #expect(s.map(\.text) == ["", "A", "A\nB", "B", "", "C", ""])
        #expect(s[2].styles == [TextStyle(start: 0, end: 1, bold: true)])
    }

    @Test func tx3gSamplesRoundTrip() {
        let styles = [TextStyle(start: 0, end: 3, italic: true), TextStyle(start: 4, end: 7, bold: true, color: 0xFF0000FF)]
        let data = TX3G.encode("Été bon", styles: styles)
        #expect(data.prefix(2) == Data([0, 9]))  // UTF-8 bytes, not characters
        let (text, decoded) = TX3G.decode(data)
        #expect(text == "Été bon")
        #expect(decoded == styles)
        #expect(TX3G.decode(Data([0, 0])).text == "")
        #expect(TX3G.decode(Data([0, 50, 65])).text == "A")  // a length past the end is cut, not trusted
        let entry = TX3G.sampleEntry(forced: true)
        #expect(entry[4..<8] == Data("tx3g".utf8))
        #expect(entry[16] & 0x80 != 0)
        #expect(TX3G.isForcedOnly(entry) && !TX3G.isForcedOnly(TX3G.sampleEntry()))
    }

    @Test func languageTags() {
        #expect(LanguageTag("en")?.iso639 == "eng")
        #expect(LanguageTag("fre")?.iso639 == "fra")
        #expect(LanguageTag("spa")?.iso639 == "spa")
        #expect(LanguageTag("pt-br") == LanguageTag(iso639: "por", bcp47: "pt-BR"))
        #expect(LanguageTag("zh-hant-tw")?.bcp47 == "zh-Hant-TW")
        #expect(LanguageTag("xx") == nil)
        #expect(LanguageTag("english") == nil)
        #expect(LanguageTag(fileName: "movie.es.srt")?.iso639 == "spa")
        #expect(LanguageTag(fileName: "movie.spa.srt")?.iso639 == "spa")
        #expect(LanguageTag(fileName: "movie.pt-BR.srt")?.bcp47 == "pt-BR")
        #expect(LanguageTag(fileName: "movie.srt") == nil)
        #expect(LanguageTag(fileName: "movie.final.srt") == nil)
    }
}
