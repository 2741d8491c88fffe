import Foundation
import Subtitles
import Testing

/// SRT files as they come from subtitle sites, rippers and old editors: Windows-1252 text
/// without a BOM, UTF-8 and UTF-16 with BOMs, CRLF, HTML character references, missing and
/// wrong indexes, `{\an8}` tags and coordinates, blank lines inside cues. Each is read from
/// disk as `splice subtitles add` reads it, and written back out as WebVTT and SRT.
@Suite("Real-world SRT files")
struct RealWorldSRTTests {
    static func read(_ name: String, _ bytes: [UInt8]) throws -> ([SubtitleCue], [String]) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("srt-set-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        var warnings: [String] = []
        let cues = try SubtitleFile.read(url, encoding: nil) { warnings.append($0) }
        return (cues, warnings)
    }

    /// Windows-1252 (an old editor's default): é, ’, …, €, — and “ ” are single bytes.
    @Test func windows1252WithoutABOM() throws {
        let text: [UInt8] = Array("1\r\n00:00:01,000 --> 00:00:02,500\r\nCaf".utf8) + [0xE9] + Array(" ".utf8) + [0x97]
            + Array(" l".utf8) + [0x92] + Array("ami".utf8) + [0x85] + Array("\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\n".utf8)
            + [0x93] + Array("5 ".utf8) + [0x80] + [0x94] + Array("\r\n".utf8)
        let (cues, warnings) = try Self.read("cafe.srt", text)
        #expect(cues.map(\.text) == ["Café — l’ami…", "“5 €”"])
        #expect(warnings.count == 1 && warnings[0].contains("Windows-1252"), "\(warnings)")
        #expect(SubtitleFile.render(cues, format: .srt) == "1\n00:00:01,000 --> 00:00:02,500\nCafé — l’ami…\n\n2\n00:00:03,000 --> 00:00:04,000\n“5 €”\n\n")
    }

    /// UTF-8 with a BOM, CRLF, references as HTML writes them; WebVTT out escapes what it must.
    @Test func characterReferences() throws {
        let srt = "\u{FEFF}1\r\n00:00:01,000 --> 00:00:02,000\r\nTom &amp; Jerry &lt;3\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\n"
            + "It&#39;s &quot;fine&quot;&nbsp;&#x2014; &bogus; & done\r\n"
        let (cues, warnings) = try Self.read("refs.srt", Array(srt.utf8))
        #expect(warnings.isEmpty && cues.map(\.text) == ["Tom & Jerry <3", "It's \"fine\"\u{A0}— &bogus; & done"])
        let vtt = SubtitleFile.render(cues, format: .webVTT)
        #expect(vtt.contains("Tom &amp; Jerry &lt;3") && vtt.contains("&amp;bogus; &amp; done"), "\(vtt)")
        #expect(try SubtitleFile.parse(vtt, format: .webVTT, file: "back.vtt").map(\.text) == cues.map(\.text))
    }

    /// UTF-16 little-endian with a BOM and CRLF (what Windows' Notepad saves as "Unicode").
    @Test func utf16WithCRLF() throws {
        let srt = "1\r\n00:00:01,000 --> 00:00:02,000\r\n日本語の字幕\r\n"
        let (cues, _) = try Self.read("utf16.srt", [0xFF, 0xFE] + srt.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        #expect(cues.map(\.text) == ["日本語の字幕"] && cues.map(\.start) == [1000])
    }

    /// Rippers' output: no indexes, indexes out of order, coordinates after the end time, a
    /// dot for the comma, `{\an8}` for signs, a blank line inside a cue, no final newline.
    @Test func rippersAndEditors() throws {
        let srt = "00:00:01,000 --> 00:00:02,000\nno index\n\n5\n00:00:02,500 --> 00:00:03,000 X1:100 X2:300 Y1:10 Y2:50\ncoordinates\n\n"
            + "3\n00:00:03.500 --> 00:00:04.000\n{\\an8}<font color=\"#ffff00\">SIGN</font>\n\n4\n00:00:05,000 --> 00:00:06,000\nfirst part\n\nsecond part\n\n"
            + "6\n00:00:07,000 --> 00:00:08,000\nno final newline"
        let (cues, warnings) = try Self.read("ripped.srt", Array(srt.utf8))
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(cues.map(\.text) == ["no index", "coordinates", "SIGN", "first part\n\nsecond part", "no final newline"])
        #expect(cues.map(\.start) == [1000, 2500, 3500, 5000, 7000])
        #expect(cues[2].placement == .topCenter && cues[2].styles == [TextStyle(start: 0, end: 4, color: 0xFFFF_00FF)])
        // Written back: the sign keeps its tag and colour; WebVTT puts it at the top with a class.
        let out = SubtitleFile.render(cues, format: .srt)
        #expect(out.contains("3\n00:00:03,500 --> 00:00:04,000\n{\\an8}<font color=\"#ffff00\">SIGN</font>\n"), "\(out)")
        let vtt = SubtitleFile.render(cues, format: .webVTT)
        #expect(vtt.contains("00:00:03.500 --> 00:00:04.000 line:0\n<c.yellow>SIGN</c>"), "\(vtt)")
    }

    /// What is not SRT is refused with the line; a cue that ends first is left out, told.
    @Test func refusalsAndLosses() throws {
        #expect(throws: SubtitleError.self) { try Self.read("junk.srt", Array("hello\nworld\n".utf8)) }
        let (cues, warnings) = try Self.read("backwards.srt", Array("1\n00:00:02,000 --> 00:00:01,000\nback\n\n2\n00:00:03,000 --> 00:00:04,000\nok\n".utf8))
        #expect(cues.map(\.text) == ["ok"] && warnings == [FileManager.default.temporaryDirectory.appendingPathComponent("srt-set-\(getpid())/backwards.srt").path
                                                            + ": 1 cue whose end is not after the start left out (line 2)"])
    }
}
