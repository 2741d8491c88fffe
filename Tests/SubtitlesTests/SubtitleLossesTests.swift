import Foundation
import Testing
@testable import Subtitles

/// What SRT and WebVTT files bring that used to be lost or refused: character references in
/// SRT, cues whose end is not after their start (left out alike in both formats, one warning
/// naming their lines), and a second byte-order mark.
@Suite("Subtitle files: small losses")
struct SubtitleLossesTests {
    func parse(_ text: String, _ format: SubtitleFormat) throws -> ([SubtitleCue], [String]) {
        var warnings: [String] = []
        let name = format == .srt ? "t.srt" : "t.vtt"
        let cues = try SubtitleFile.parse(try TextDecoding.decode(Data(text.utf8), file: name), format: format, file: name) { warnings.append($0) }
        return (cues, warnings)
    }

    /// `&amp;`, `&lt;`, `&#39;`, `&#x27;` in an SRT cue are the characters they name, and a
    /// WebVTT export escapes them once (it showed `&amp;amp;`).
    @Test func srtCharacterReferencesAreDecoded() throws {
        let (cues, _) = try parse("1\n00:00:01,000 --> 00:00:02,000\nFish &amp; chips &#39;n&#x27; &lt;3 &nbsp;<i>&quot;ok&quot;</i> &bogus;\n", .srt)
        #expect(cues.map(\.text) == ["Fish & chips 'n' <3 \u{A0}\"ok\" &bogus;"])
        #expect(cues[0].styles == [TextStyle(start: 21, end: 25, italic: true)])
        let vtt = SubtitleFile.render(cues, format: .webVTT)
        #expect(vtt.contains("Fish &amp; chips 'n' &lt;3 \u{A0}<i>\"ok\"</i> &amp;bogus;"), "\(vtt)")
        #expect(!vtt.contains("&amp;amp;"))
    }

    /// A cue whose end is not after its start is left out in both formats, with one warning
    /// naming the lines of all of them; the file is still read.
    @Test(arguments: [SubtitleFormat.srt, .webVTT])
    func cuesThatEndBeforeTheyStartAreLeftOutAlike(_ format: SubtitleFormat) throws {
        let srt = "1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\n00:00:03,000 --> 00:00:02,000\nbackwards\n\n3\n00:00:04,000 --> 00:00:04,000\nzero\n"
        let vtt = "WEBVTT\n\n00:01.000 --> 00:02.000\nok\n\n00:03.000 --> 00:02.000\nbackwards\n\n00:04.000 --> 00:04.000\nzero\n"
        let (cues, warnings) = try parse(format == .srt ? srt : vtt, format)
        #expect(cues.map(\.text) == ["ok"])
        let lines = format == .srt ? "6, 10" : "6, 9"
        let name = format == .srt ? "t.srt" : "t.vtt"
        #expect(warnings == ["\(name): 2 cues whose end is not after the start left out (lines \(lines))"], "\(warnings)")
    }

    /// A file whose every cue ends before it starts is not refused: it has no cues left, and
    /// the warning says why.
    @Test(arguments: [SubtitleFormat.srt, .webVTT])
    func aFileOfBackwardCuesIsReadEmpty(_ format: SubtitleFormat) throws {
        let text = format == .srt ? "1\n00:00:03,000 --> 00:00:02,000\nbackwards\n" : "WEBVTT\n\n00:03.000 --> 00:02.000\nbackwards\n"
        let (cues, warnings) = try parse(text, format)
        #expect(cues.isEmpty)
        #expect(warnings.count == 1 && warnings[0].contains("1 cue whose end is not after the start left out (line "), "\(warnings)")
    }

    /// One byte-order mark is taken; a second one (text encoded twice) refuses the file at line 1.
    @Test(arguments: [SubtitleFormat.srt, .webVTT])
    func aSecondByteOrderMarkIsRefused(_ format: SubtitleFormat) throws {
        let body = format == .srt ? "1\n00:00:01,000 --> 00:00:02,000\nok\n" : "WEBVTT\n\n00:01.000 --> 00:02.000\nok\n"
        #expect(try parse("\u{FEFF}" + body, format).0.count == 1)
        #expect {
            _ = try parse("\u{FEFF}\u{FEFF}" + body, format)
        } throws: { error in
            let e = error as? SubtitleError
            return e?.line == 1 && e?.message.contains("second byte-order mark") == true
        }
    }
}
