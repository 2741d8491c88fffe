import Foundation
import Subtitles
import Testing
import TestSupport

/// `splice subtitles add/extract` on real movies, checked with ffmpeg and mediainfo.
@Suite("Subtitles: add and extract")
struct SubtitleCLITests {
    static let srt = """
        1
        00:00:00,250 --> 00:00:01,000
        <i>Hola</i>, mundo

        2
        00:00:01,500 --> 00:00:02,125
        Dos <b>líneas</b>
        y <font color="#ff8000">color</font>

        3
        00:00:02,400 --> 00:00:02,900
        Fin


        """

    static func json(_ url: URL) throws -> [String: Any] { try RemuxTests.structure(url) }

    static func tracks(_ url: URL) throws -> [[String: Any]] { try json(url)["tracks"] as! [[String: Any]] }

    /// Per-stream packet hashes, one line per stream.
    static func hashes(_ url: URL) throws -> [String] {
        try RemuxTests.streamHash(url).split(separator: "\n").map(String.init)
    }

    /// Cues as ffmpeg's own mov_text decoder and SRT encoder see them: (start ms, end ms, text without tags).
    static func ffmpegCues(_ url: URL, subtitle index: Int) throws -> [(Int64, Int64, String)] {
        let r = try Tool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:s:\(index)", "-f", "srt", "-"])
        let cues = try SubtitleFile.parse(data: r.stdoutData, format: .srt, file: "ffmpeg")
        return cues.map { ($0.start, $0.end, $0.text) }
    }

    @Test func addToAMovieWithASubtitleGroup() throws {
        let input = try Fixtures.grouped.get()
        let sub = try Fixtures.write("movie.es.srt", SubtitleCLITests.srt)
        let output = Fixtures.path("with-es.mp4")
        try? FileManager.default.removeItem(at: output)
        let before = try Data(contentsOf: input)
        let r = try Tool.splice(["subtitles", "add", input.path, sub.path, "-o", output.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Data(contentsOf: input) == before)

        let a = try SubtitleCLITests.tracks(input), b = try SubtitleCLITests.tracks(output)
        #expect(b.count == a.count + 1)
        for (x, y) in zip(a, b) { #expect(RemuxTests.equalJSON(x, y), "track \(x["id"] ?? "?") changed") }
        let new = b[7]
        #expect(new["codec"] as? String == "tx3g")
        #expect(new["mediaType"] as? String == "subtitle")
        #expect(new["language"] as? String == "spa")
        #expect(new["enabled"] as? Bool == false)
        #expect(new["alternateGroup"] as? Int == 7)
        let groups = try SubtitleCLITests.json(output)["groups"] as! [[String: Any]]
        #expect(groups.map { $0["tracks"] as? [Int] } == [[2, 3], [4], [5, 6, 8]])
        #expect(groups.map { $0["defaultTrack"] as? Int } == [2, 4, 5])

        // Original packets unchanged; the new stream comes last.
        let ha = try SubtitleCLITests.hashes(input), hb = try SubtitleCLITests.hashes(output)
        #expect(Array(hb.prefix(ha.count)) == ha)
        #expect(hb.count == ha.count + 1)

        // ffmpeg reads the same cues back, to the millisecond.
        let cues = try SubtitleCLITests.ffmpegCues(output, subtitle: 2)
        let source = try SubtitleFile.parse(SubtitleCLITests.srt, format: .srt, file: "x")
        #expect(cues.map(\.0) == source.map(\.start))
        #expect(cues.map(\.1) == source.map(\.end))
        #expect(cues.map(\.2) == source.map(\.text))

        let mi = try RemuxTests.mediainfoTracks(output).first { $0.contains(" id=8 ") }
        #expect(mi?.contains("group=7") == true, "\(mi ?? "no track 8")")
        #expect(mi?.contains("lang=es") == true)
        let decode = try Tool.run("ffmpeg", ["-nostdin", "-v", "error", "-i", output.path, "-f", "null", "-"])
        #expect(decode.stderr.isEmpty, "\(decode.stderr)")
    }

    @Test func defaultForcedAndWebVTT() throws {
        let input = try Fixtures.grouped.get()
        let vtt = try Fixtures.write("forced.vtt", "WEBVTT\n\n00:00.500 --> 00:01.500\n<i>Forced</i> words\n\n00:02.000 --> 00:02.500\nmore\n")
        let output = Fixtures.path("with-forced.mp4")
        try? FileManager.default.removeItem(at: output)
        let r = try Tool.splice(["subtitles", "add", input.path, vtt.path, "-o", output.path, "--language", "en-GB",
                                 "--forced", "--default", "--name", "English (forced)"])
        #expect(r.status == 0, "\(r.stderr)")
        let b = try SubtitleCLITests.tracks(output)
        let new = b[7]
        #expect(new["language"] as? String == "eng")
        #expect(new["extendedLanguage"] as? String == "en-GB")
        #expect(new["name"] as? String == "English (forced)")
        #expect(new["enabled"] as? Bool == true)
        #expect(b[4]["enabled"] as? Bool == false && b[5]["enabled"] as? Bool == false)
        // The full English track (5) now refers to both forced tracks.
        #expect((b[4]["associations"] as? [String: [Int]])?["forc"] == [6, 8])
        let groups = try SubtitleCLITests.json(output)["groups"] as! [[String: Any]]
        #expect(groups.last?["defaultTrack"] as? Int == 8)
        let cues = try SubtitleCLITests.ffmpegCues(output, subtitle: 2)
        #expect(cues.map(\.0) == [500, 2000] && cues.map(\.1) == [1500, 2500])
        #expect(cues.map(\.2) == ["Forced words", "more"])
    }

    @Test func addToAMovieWithoutSubtitles() throws {
        let input = try Fixtures.quickTime.get()
        let sub = try Fixtures.write("plain.srt", SubtitleCLITests.srt)
        let output = Fixtures.path("mov-with-subs.mov")
        try? FileManager.default.removeItem(at: output)
        // (The movie is shorter than the cues: the last one is kept, as asked.)
        let r = try Tool.splice(["subtitles", "add", input.path, sub.path, "-o", output.path, "--keep-late-cues"])
        #expect(r.status == 0 && r.stderr.contains("run past the movie's end"), "\(r.stderr)")
        let json = try SubtitleCLITests.json(output)
        let tracks = json["tracks"] as! [[String: Any]]
        #expect(tracks.count == 3)
        #expect(tracks[2]["language"] as? String == "und")
        #expect(tracks[2]["enabled"] as? Bool == false)
        let groups = json["groups"] as! [[String: Any]]
        // Its own group, with a number no other track uses.
        #expect(groups.map { $0["tracks"] as? [Int] } == [[2], [3]])
        #expect(Set(groups.compactMap { $0["alternateGroup"] as? Int }).count == 2)
        #expect(groups.last?["defaultTrack"] is NSNull)
        #expect(try SubtitleCLITests.hashes(input) == Array(try SubtitleCLITests.hashes(output).prefix(2)))
        #expect(try SubtitleCLITests.ffmpegCues(output, subtitle: 0).map(\.2) == ["Hola, mundo", "Dos líneas\ny color", "Fin"])
    }

    @Test func addThenExtractRoundTripsExactly() throws {
        let sub = try Fixtures.write("roundtrip.srt", SubtitleCLITests.srt)
        let movie = Fixtures.path("roundtrip-subs.mp4")
        try? FileManager.default.removeItem(at: movie)
        #expect(try Tool.splice(["subtitles", "add", try Fixtures.grouped.get().path, sub.path, "-o", movie.path]).status == 0)
        let back = Fixtures.path("roundtrip-back.srt")
        try? FileManager.default.removeItem(at: back)
        let r = try Tool.splice(["subtitles", "extract", movie.path, "--track", "8", "-o", back.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try String(contentsOf: back, encoding: .utf8) == SubtitleCLITests.srt)
        // WebVTT out: same times and text; the tx3g colour becomes a class with a STYLE block.
        let vtt = Fixtures.path("roundtrip-back.vtt")
        try? FileManager.default.removeItem(at: vtt)
        #expect(try Tool.splice(["subtitles", "extract", movie.path, "--track", "8", "-o", vtt.path]).status == 0)
        let text = try String(contentsOf: vtt, encoding: .utf8)
        #expect(text.hasPrefix("WEBVTT\n\nSTYLE\n::cue(.cff8000) { color: #ff8000; }\n\n00:00:00.250 --> 00:00:01.000\n<i>Hola</i>, mundo\n"), "\(text)")
        #expect(text.contains("y <c.cff8000>color</c>"), "\(text)")
        // Read back, the class is the colour again.
        let again = try SubtitleFile.parse(text, format: .webVTT, file: "back.vtt")
        #expect(again[1].styles.contains { $0.color == 0xFF80_00FF }, "\(again[1].styles)")
        // A track that is not a text subtitle track is refused with the list of those.
        let wrong = try Tool.splice(["subtitles", "extract", movie.path, "--track", "1", "-o", Fixtures.path("no.srt").path])
        #expect(wrong.status == 65 && wrong.stderr.contains("text subtitle tracks: 5 (eng"), "\(wrong.stderr)")
    }

    @Test func badSubtitlesAndUnsupportedMovies() throws {
        let input = try Fixtures.grouped.get()
        let before = try Data(contentsOf: input)
        let bad = try Fixtures.write("bad.srt", "1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\n00:00:03,000 --> 00:00:0x,000\nbroken\n")
        let output = Fixtures.path("never.mp4")
        try? FileManager.default.removeItem(at: output)
        let r = try Tool.splice(["subtitles", "add", input.path, bad.path, "-o", output.path])
        #expect(r.status == 65)
        #expect(r.stderr == "error: \(bad.path):6: malformed end time '00:00:0x,000'\n")
        #expect(!FileManager.default.fileExists(atPath: output.path))
        #expect(try leftovers(of: output).isEmpty)
        #expect(try Data(contentsOf: input) == before)

        let latin1 = Fixtures.path("latin1.srt")
        try (Data("1\n00:00:01,000 --> 00:00:02,000\ncaf".utf8) + Data([0xE9, 0x0A])).write(to: latin1)
        // Not UTF-8: read as Windows-1252, with a warning; --encoding names the encoding (and is
        // checked: the same bytes are not valid UTF-8).
        let enc = try Tool.splice(["subtitles", "add", input.path, latin1.path, "-o", output.path])
        #expect(enc.status == 0 && enc.stderr.contains("latin1.srt: not UTF-8 (line 3); read as Windows-1252"), "\(enc.stderr)")
        // The added track is the last subtitle stream; ffmpeg writes it out as SRT.
        let lastSubtitle = { (u: URL) throws -> String in
            let n = try Tool.ffprobeStreams(u).filter { $0["codec_type"] as? String == "subtitle" }.count
            return try Tool.check("ffmpeg", ["-v", "error", "-i", u.path, "-map", "0:s:\(n - 1)", "-f", "srt", "-"]).stdout
        }
        #expect(try lastSubtitle(output).contains("café"))
        try? FileManager.default.removeItem(at: output)
        let strict = try Tool.splice(["subtitles", "add", input.path, latin1.path, "-o", output.path, "--encoding", "utf-8"])
        #expect(strict.status == 65 && strict.stderr.contains("latin1.srt: is not valid utf-8 text"), "\(strict.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let cyrillic = Fixtures.path("cp1251.srt")
        try (Data("1\n00:00:01,000 --> 00:00:02,000\n".utf8) + Data([0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2, 0x0A])).write(to: cyrillic)
        #expect(try Tool.splice(["subtitles", "add", input.path, cyrillic.path, "-o", output.path, "--encoding", "cp1251"]).status == 0)
        #expect(try lastSubtitle(output).contains("Привет"))
        try? FileManager.default.removeItem(at: output)
        let chinese = Fixtures.path("gb18030.srt")
        try (Data("1\n00:00:01,000 --> 00:00:02,000\n".utf8) + Data([0xC4, 0xE3, 0xBA, 0xC3, 0x0A])).write(to: chinese)
        #expect(try Tool.splice(["subtitles", "add", input.path, chinese.path, "-o", output.path, "--encoding", "GB18030"]).status == 0)
        #expect(try lastSubtitle(output).contains("你好"))
        try? FileManager.default.removeItem(at: output)

        let mkv = try Tool.splice(["subtitles", "add", try Fixtures.matroska.get().path, try Fixtures.write("ok.srt", SubtitleCLITests.srt).path, "-o", output.path])
        #expect(mkv.status == 0, "\(mkv.stderr)")
        #expect(try Tool.ffprobeStreams(output).contains { $0["codec_name"] as? String == "mov_text" })
        try? FileManager.default.removeItem(at: output)
        let toTS = try Tool.splice(["subtitles", "add", input.path, bad.path, "-o", Fixtures.path("out.ts").path])
        #expect(toTS.status == 64 && toTS.stderr.contains(".mkv or .webm"), "\(toTS.stderr)")   // (an output type: a usage error)
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    /// Our parser and libavformat's SRT and WebVTT demuxers agree on cue count and times.
    @Test(arguments: [
        ("crlf.srt", "1\r\n00:00:01,000 --> 00:00:02,000\r\nA\r\n\r\n2\r\n00:00:02,500 --> 00:00:03,000\r\nB\r\n"),
        ("noindex.srt", "00:00:01,000 --> 00:00:02,000\nA\n\n\n\n00:00:02,500 --> 00:00:03,250\n<i>B</i>\n"),
        ("overlap.srt", "1\n00:00:01,000 --> 00:00:04,000\nA\n\n2\n00:00:02,000 --> 00:00:03,000\nB\n"),
        ("bom.srt", "\u{FEFF}1\n00:00:01,000 --> 00:00:02,000\n<font color=\"red\">A</font>\n\n2\n01:02:03,456 --> 01:02:04,000\nB\n"),
        ("cues.vtt", "WEBVTT\n\nNOTE x\n\n1\n00:01.000 --> 00:02.000 line:0\n<v Bob>A</v>\n\n00:00:02.500 --> 00:00:03.000\nB\n"),
    ])
    func agreesWithLibavformat(_ name: String, _ text: String) throws {
        let url = try Fixtures.write(name, text)
        let ours = try SubtitleFile.read(url)
        #expect(!ours.isEmpty)
        let probe = try Tool.run("ffprobe", ["-v", "error", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", url.path])
        // libavformat refuses some files we accept (an SRT without indices); compare where it reads them.
        guard probe.status == 0 else { return }
        let theirs = probe.stdout.split(separator: "\n").map { line -> (Int64, Int64) in
            let f = line.split(separator: ",").map { Double($0) ?? 0 }
            return (Int64((f[0] * 1000).rounded()), Int64(((f[0] + f[1]) * 1000).rounded()))
        }
        #expect(ours.count == theirs.count)
        #expect(ours.map(\.start) == theirs.map(\.0))
        #expect(ours.map(\.end) == theirs.map(\.1))
    }
}
