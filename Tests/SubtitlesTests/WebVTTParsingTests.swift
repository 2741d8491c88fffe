import Foundation
import MediaCore
import Testing
@testable import Subtitles

/// WebVTT against the W3C WebVTT file-parsing algorithm (the cases of the web-platform-tests'
/// file-parsing set that Splice got wrong): each malformed block is left out with a warning at
/// its `file:line`, and the cues around it are kept — what the W3C parser yields.
@Suite("WebVTT parsing (W3C)")
struct WebVTTParsingTests {
    /// The cues (start ms, end ms, text) and the warnings of `text`.
    func parse(_ text: String) throws -> ([(Int64, Int64, String)], [String]) {
        var warnings: [String] = []
        let cues = try SubtitleFile.parse(text, format: .webVTT, file: "t.vtt") { warnings.append($0) }
        return (cues.map { ($0.start, $0.end, $0.text) }, warnings)
    }

    func expectCues(_ text: String, _ expected: [(Int64, Int64, String)], warning: String? = nil,
                    sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let (cues, warnings) = try parse(text)
            #expect(cues.count == expected.count && zip(cues, expected).allSatisfy { $0 == $1 }, "\(cues)", sourceLocation: sourceLocation)
            if let warning { #expect(warnings.contains { $0.contains(warning) }, "\(warnings)", sourceLocation: sourceLocation) }
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func malformedBlocksAreLeftOutAndTheRestKept() {
        let good = "\n\n00:05.000 --> 00:06.000\ngood\n"
        expectCues("WEBVTT\n\n-->\n00:00.000 --> 00:01.000\ntext\n", [(0, 1000, "text")], warning: "t.vtt:3: malformed start time")
        expectCues("WEBVTT\n\nfoo-->\n00:00.000 --> 00:01.000\ntext\n", [(0, 1000, "text")], warning: "t.vtt:3:")
        expectCues("WEBVTT\n\n00:00:60.000 --> 00:01:00.000\nbad" + good, [(5000, 6000, "good")], warning: "t.vtt:3: malformed start time")
        expectCues("WEBVTT\n\n00:60:00.000 --> 01:00:00.000\nbad" + good, [(5000, 6000, "good")], warning: "t.vtt:3:")
        expectCues("WEBVTT\n\n00::00:00.000 --> 00:01.000\nbad" + good, [(5000, 6000, "good")])
        expectCues("WEBVTT\n\n0000:00.000 --> 00:01.000\nbad" + good, [(5000, 6000, "good")])
        expectCues("WEBVTT\n\n.bar {\ncolor: red\n}" + good, [(5000, 6000, "good")], warning: "t.vtt:3: a block without a cue timing line")
        expectCues("WEBVTT\n\n00:02.000 --> 00:01.000\nbackwards" + good, [(5000, 6000, "good")], warning: "t.vtt: 1 cue whose end is not after the start left out (line 3)")
    }

    @Test func whitespaceAndNulFollowTheAlgorithm() throws {
        // Form feeds are whitespace around the arrow.
        expectCues("WEBVTT\n\n\u{0C}00:00.000\u{0C}-->\u{0C}00:01.000\ntext\n", [(0, 1000, "text")])
        // A NUL ends the end time (it becomes U+FFFD, read as a setting); after the start time it
        // breaks the arrow and the block goes.
        expectCues("WEBVTT\n\n00:00.000 --> 00:01.000\u{0}\ntext\n", [(0, 1000, "text")])
        #expect(try SubtitleFile.parse("WEBVTT\n\n00:00.000 --> 00:01.000\u{0}\ntext\n", format: .webVTT, file: "t.vtt")[0].settings == "\u{FFFD}")
        expectCues("WEBVTT\n\n00:00.000\u{0} --> 00:01.000\nbad\n\n00:02.000 --> 00:03.000\ngood\n", [(2000, 3000, "good")])
        // Hours are any number of digits; minutes and seconds two.
        expectCues("WEBVTT\n\n100:00:00.000 --> 100:00:01.000\nlate\n", [(360_000_000, 360_001_000, "late")])
    }

    /// Before: a timing line right after `WEBVTT` (no blank line) gave no cue, and exit 0.
    @Test func aCueRightAfterTheSignature() {
        expectCues("WEBVTT\n00:00.000 --> 00:01.000\ntext\n", [(0, 1000, "text")])
        expectCues("WEBVTT header text\nKind: captions\n\n00:00.500 --> 00:01.000\ntext\n", [(500, 1000, "text")])
    }

    @Test func headerBOMsZeroLengthAndSettings() throws {
        let once = "\u{FEFF}WEBVTT\n\n00:00.000 --> 00:01.000\nok\n"
        #expect(try parse(once).0.count == 1)
        #expect(throws: SubtitleError.self) { try parse("\u{FEFF}" + once) }
        let (cues, warnings) = try parse("WEBVTT\n\n00:00.000 --> 00:00.000\nzero\n\n00:01.000 --> 00:02.000 align:start line:0\nkept\n\n00:03.000 --> 00:03.000\nzero\n")
        #expect(cues.map(\.2) == ["kept"])
        #expect(warnings.contains("t.vtt: 2 cues whose end is not after the start left out (lines 3, 9)"), "\(warnings)")
        // Settings are kept as written, and read as a place.
        let kept = try SubtitleFile.parse("WEBVTT\n\n00:01.000 --> 00:02.000 align:start   line:0\nkept\n", format: .webVTT, file: "t.vtt")[0]
        #expect(kept.settings == "align:start line:0" && kept.placement == CuePlacement(.top, .left))
        // NOTE blocks are skipped without a word; STYLE and REGION blocks before the first cue are kept.
        var quiet: [String] = []
        let document = try SubtitleFile.parseDocument("WEBVTT\n\nNOTE a note\n\nSTYLE\n::cue { color: red }\n\nREGION\nid:x\n\n00:00.000 --> 00:01.000\nok\n",
                                                      format: .webVTT, file: "t.vtt") { quiet.append($0) }
        #expect(quiet.isEmpty, "\(quiet)")
        #expect(document.styleSheets == ["::cue { color: red }"] && document.regions == ["id:x"])
    }
}
