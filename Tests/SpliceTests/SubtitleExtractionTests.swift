import Foundation
import Splice
import Testing
import TestSupport

/// `splice subtitles extract` from every text subtitle track — tx3g, QuickTime text, Matroska
/// SRT, ASS and WebVTT — each cue where its edits show it; picture subtitles refused by name;
/// and cues past the movie's end clipped (or kept with `--keep-late-cues`).
@Suite("Subtitles: extraction and late cues")
struct SubtitleExtractionTests {
    static let srt = "1\n00:00:00,500 --> 00:00:01,500\nHello <i>there</i>\n\n2\n00:00:02,000 --> 00:00:02,800\nTwo\nlines\n"

    static func extract(_ input: URL, _ extra: [String] = [], to ext: String = "srt") throws -> (Int32, String, String) {
        let out = Fixtures.path(input.deletingPathExtension().lastPathComponent + "-extracted." + ext)
        try? FileManager.default.removeItem(at: out)
        let r = try Tool.splice(["subtitles", "extract", input.path, "-o", out.path] + extra)
        return (r.status, (try? String(contentsOf: out, encoding: .utf8)) ?? "", r.stderr)
    }

    /// The same two cues from a QuickTime `text` track and from Matroska SRT, ASS and WebVTT
    /// tracks (all made by ffmpeg).
    @Test(arguments: [("text.mov", ["-c:s", "mov_text", "-tag:s", "text"]), ("srt.mkv", ["-c:s", "srt"]),
                      ("ass.mkv", ["-c:s", "ass"]), ("webvtt.mkv", ["-c:s", "webvtt"])])
    func everyTextTrack(_ name: String, _ codec: [String]) throws {
        let srt = try Fixtures.write("extract-source.srt", Self.srt)
        let movie = Fixtures.path(name)
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=3", "-i", srt.path,
                         "-map", "0", "-map", "1", "-c:v", "libx264", "-preset", "ultrafast"] + codec + [movie.path])
        let (status, text, stderr) = try Self.extract(movie)
        #expect(status == 0, "\(stderr)")
        #expect(text == "1\n00:00:00,500 --> 00:00:01,500\nHello <i>there</i>\n\n2\n00:00:02,000 --> 00:00:02,800\nTwo\nlines\n\n", "\(name): \(text)")
    }

    /// The bundled sample's forced track (edits: 1 s empty, media 0–1 s, media 1.5–2 s) shows its
    /// cue from 2.0 to 2.5 s, and so it is written.
    @Test func aCueWhereItsEditShowsIt() throws {
        let (status, text, stderr) = try Self.extract(try Fixtures.grouped.get(), ["--track", "6"])
        #expect(status == 0, "\(stderr)")
        #expect(text.contains("00:00:02,000 --> 00:00:02,500"), "\(text)")
    }

    /// A PGS track (a hand-made `.sup` of two display sets, muxed by ffmpeg) is refused by name.
    @Test func pictureSubtitlesAreRefusedByName() throws {
        func segment(_ pts: UInt32, _ type: UInt8, _ payload: [UInt8]) -> [UInt8] {
            var b: [UInt8] = Array("PG".utf8)
            for v in [pts, 0] { b += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
            b.append(type)
            b += [UInt8(truncatingIfNeeded: payload.count >> 8), UInt8(truncatingIfNeeded: payload.count)]
            return b + payload
        }
        // A presentation composition (320x240, no objects) and its end, at 1 s and 2 s.
        let composition: (UInt8, UInt8) -> [UInt8] = { number, state in [1, 64, 0, 240, 0x10, 0, number, state, 0, 0, 0] }
        let sup = segment(90_000, 0x16, composition(0, 0x80)) + segment(90_000, 0x80, [])
            + segment(180_000, 0x16, composition(1, 0)) + segment(180_000, 0x80, [])
        let supURL = Fixtures.path("tiny.sup")
        try Data(sup).write(to: supURL)
        let mkv = Fixtures.path("pgs.mkv")
        try Tool.ffmpeg(["-f", "sup", "-i", supURL.path, "-map", "0", "-c", "copy", mkv.path])
        let (status, _, stderr) = try Self.extract(mkv)
        #expect(status == 65 && stderr.contains("track 1 is PGS subtitles (hdmv_pgs_subtitle): pictures, not text"), "\(stderr)")
        let (named, _, why) = try Self.extract(mkv, ["--track", "1"])
        #expect(named == 65 && why.contains("PGS subtitles"), "\(why)")
    }

    /// Cues past the movie's end are clipped to it with a warning naming them (the movie keeps
    /// its length); `--keep-late-cues` keeps them and the movie lasts until the last one ends.
    @Test func lateCuesAreClippedUnlessKept() throws {
        let movie = try Fixtures.grouped.get()   // 3.025 s
        let late = try Fixtures.write("late.srt", "1\n00:00:01,000 --> 00:00:02,000\nin time\n\n2\n00:00:02,500 --> 00:00:05,000\nlate\n\n3\n00:00:04,000 --> 00:00:06,000\nafter\n")
        func add(_ extra: [String]) throws -> (Int32, String, Double, String) {
            let out = Fixtures.path("late\(extra.count).mp4")
            try? FileManager.default.removeItem(at: out)
            let r = try Tool.splice(["subtitles", "add", movie.path, late.path, "-o", out.path] + extra)
            let d = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out.path]).stdout
            let n = try Tool.ffprobeStreams(out).filter { $0["codec_type"] as? String == "subtitle" }.count
            let cues = try Tool.check("ffmpeg", ["-v", "error", "-i", out.path, "-map", "0:s:\(n - 1)", "-f", "srt", "-"]).stdout
            return (r.status, r.stderr, Double(d.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, cues)
        }
        let (status, stderr, duration, cues) = try add([])
        #expect(status == 0 && stderr.contains("2 cues (lines 6, 10) run past the movie's end (3.025 s); clipped to it"), "\(stderr)")
        #expect(abs(duration - 3.025) < 0.01, "\(duration)")
        #expect(cues.contains("00:00:02,500 --> 00:00:03,025") && !cues.contains("after"), "\(cues)")
        let (kept, keptErr, longer, _) = try add(["--keep-late-cues"])
        #expect(kept == 0 && keptErr.contains("kept: the movie lasts until 6.000 s"), "\(keptErr)")
        #expect(abs(longer - 6) < 0.01, "\(longer)")
    }
}
