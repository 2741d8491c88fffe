import Foundation
import Splice
import Subtitles
import Testing
import TestSupport

/// WebVTT in MP4, ASS/SSA scripts and cue places through `splice subtitles` and `remux`,
/// checked against ffmpeg and mkvinfo where they read the result (Matroska, WebM, tx3g), and
/// `wvtt` against GStreamer's MP4 reader (FFmpeg 5.1 reads none) and the source file.
@Suite("Subtitles: wvtt, ASS and places")
struct SubtitleFormatsTests {
    /// Ids, settings, a voice, classes, a STYLE block and a region, written as Splice writes
    /// WebVTT, so that a lossless round trip gives these bytes back.
    static let vtt = """
        WEBVTT

        REGION
        id:fred width:40% lines:3 regionanchor:0%,100% viewportanchor:10%,90% scroll:up

        STYLE
        ::cue(.loud) { color: #ff8000; }

        intro
        00:00:00.500 --> 00:00:01.500 line:0 align:start region:fred
        <v Roger>Hello <c.loud>there</c> &amp; you

        00:00:01.000 --> 00:00:02.000
        Second <i>cue</i>

        00:00:02.500 --> 00:00:03.000 position:80% size:50%
        <c.yellow>Third</c>

        """

    static let ass = """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: 384
        PlayResY: 288

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Default,Arial,20,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,2,0,2,10,10,10,1
        Style: Sign,DejaVu Serif,18,&H0000FFFF,&H000000FF,&H00000000,&H00000000,-1,0,0,0,100,100,0,0,1,2,0,8,10,10,10,1

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
        Dialogue: 0,0:00:00.50,0:00:01.50,Default,,0,0,0,,{\\an8}Top {\\i1}italic{\\i0} words
        Dialogue: 0,0:00:01.00,0:00:02.00,Sign,Bob,0,0,0,,A sign
        Dialogue: 0,0:00:02.00,0:00:03.00,Default,,0,0,0,,{\\c&H0000FF&}Red{\\c} and {\\pos(10,10)}{\\k20}kara{\\fnComic Sans}font

        """

    /// A 4-second picture-only movie (no AAC priming to move Matroska's timeline) in `ext`.
    static func movie(_ ext: String) throws -> URL {
        let url = Fixtures.path("formats-movie.\(ext)")
        if !FileManager.default.fileExists(atPath: url.path) {
            let codec = ext == "webm" ? ["-c:v", "libvpx-vp9", "-deadline", "realtime"] : ["-c:v", "libx264", "-preset", "ultrafast"]
            // Tests run at once: each makes its own and renames it into place.
            let own = Fixtures.path("formats-movie-\(UUID().uuidString).\(ext)")
            try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4"] + codec + [own.path])
            _ = rename(own.path, url.path)
        }
        return url
    }

    static func add(_ subtitle: URL, to movie: URL, _ output: String, _ extra: [String] = []) throws -> (URL, String) {
        let out = Fixtures.path(output)
        let r = try Tool.splice(["subtitles", "add", movie.path, subtitle.path, "-o", out.path, "--force"] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        return (out, r.stderr)
    }

    static func extract(_ movie: URL, _ ext: String) throws -> (String, String) {
        let out = Fixtures.path(movie.deletingPathExtension().lastPathComponent + "-back.\(ext)")
        let r = try Tool.splice(["subtitles", "extract", movie.path, "-o", out.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        return ((try? String(contentsOf: out, encoding: .utf8)) ?? "", r.stderr)
    }

    /// What ffmpeg reads of a Matroska/WebM subtitle stream, copied (ids and settings kept).
    static func ffmpegCopy(_ movie: URL, as format: String) throws -> String {
        try Tool.check("ffmpeg", ["-v", "error", "-i", movie.path, "-map", "0:s", "-c", "copy", "-f", format, "-"]).stdout
    }

    @Test func webVTTInMP4RoundTripsAndRemuxes() throws {
        let vtt = try Fixtures.write("formats.vtt", Self.vtt)
        let (mp4, _) = try Self.add(vtt, to: try Self.movie("mp4"), "formats-wvtt.mp4", ["--format", "wvtt"])
        // ffprobe knows the sample entry, not the codec (FFmpeg 5.1 reads no wvtt).
        let tag = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,codec_tag_string", "-of", "csv=p=0", mp4.path]).stdout
        #expect(tag.contains("data,wvtt"), "\(tag)")
        #expect(try Self.extract(mp4, "vtt").0 == Self.vtt)
        // GStreamer's MP4 reader, an independent one, gives each sample's cues back as WebVTT
        // (a cue that spans two samples is in both).
        let gst = Fixtures.path("formats-wvtt-gst.vtt")
        try Tool.check("gst-launch-1.0", ["-q", "filesrc", "location=\(mp4.path)", "!", "qtdemux", "name=d", "d.subtitle_0", "!", "filesink", "location=\(gst.path)"])
        let read = try String(contentsOf: gst, encoding: .utf8)
        for block in ["intro\n00:00:00.500 --> 00:00:01.000 line:0 align:start region:fred\n<v Roger>Hello <c.loud>there</c> &amp; you\n",
                      "intro\n00:00:01.000 --> 00:00:01.500 line:0 align:start region:fred\n<v Roger>Hello <c.loud>there</c> &amp; you\n",
                      "\n00:00:01.000 --> 00:00:01.500\nSecond <i>cue</i>\n", "\n00:00:01.500 --> 00:00:02.000\nSecond <i>cue</i>\n",
                      "\n00:00:02.500 --> 00:00:03.000 position:80% size:50%\n<c.yellow>Third</c>\n"] {
            #expect(read.contains(block), "\(block) in \(read)")
        }
        // MP4 (wvtt) → Matroska → MP4 keeps them; ffmpeg reads the ids and settings in Matroska.
        let mkv = Fixtures.path("formats-wvtt.mkv"), again = Fixtures.path("formats-wvtt-again.mp4")
        #expect(try Tool.splice(["remux", mp4.path, mkv.path, "--force"]).status == 0)
        let copied = try Self.ffmpegCopy(mkv, as: "webvtt")
        #expect(copied.contains("intro\n00:00.500 --> 00:01.500 line:0 align:start region:fred\n<v Roger>Hello <c.loud>there</c> &amp; you"), "\(copied)")
        #expect(try Self.extract(mkv, "vtt").0 == Self.vtt)
        #expect(try Tool.splice(["remux", mkv.path, again.path, "--force"]).status == 0)
        #expect(try Self.extract(again, "vtt").0 == Self.vtt)
        #expect(try SubtitleCLITests.hashes(mkv) == SubtitleCLITests.hashes(try { () throws -> URL in
            let back = Fixtures.path("formats-wvtt-again.mkv")
            _ = try Tool.splice(["remux", again.path, back.path, "--force"])
            return back
        }()), "the WebVTT packets are the same after MP4 and back")
        // WebM has no place for the header: the warning names it; ids and settings stay.
        let (webm, warning) = try Self.add(vtt, to: try Self.movie("webm"), "formats-wvtt.webm")
        #expect(warning.contains("WebM (WebVTT) cannot hold REGION blocks, STYLE blocks"), "\(warning)")
        #expect(try Self.ffmpegCopy(webm, as: "webvtt").contains("intro\n00:00.500 --> 00:01.500 line:0 align:start region:fred"))
        // Matroska keeps the header (CodecPrivate); remuxed to WebM it goes, told.
        let (vp9, _) = try Self.add(vtt, to: try Self.movie("webm"), "formats-vp9.mkv")
        #expect(try Self.extract(vp9, "vtt").0 == Self.vtt)
        let remuxed = Fixtures.path("formats-wvtt-remuxed.webm")
        let r = try Tool.splice(["remux", vp9.path, remuxed.path, "--force"])
        #expect(r.status == 0 && r.stderr.contains("WebM (WebVTT) cannot hold REGION blocks, STYLE blocks"), "\(r.stderr)")
        // tx3g keeps the place; the warning names the rest.
        let (tx3g, lost) = try Self.add(vtt, to: try Self.movie("mp4"), "formats-tx3g.mp4")
        #expect(lost.contains("tx3g cannot hold REGION blocks, STYLE blocks, classes, cue identifiers, cue settings other than the place, voices"), "\(lost)")
        let back = try Self.extract(tx3g, "vtt").0
        #expect(back.contains("00:00:00.500 --> 00:00:01.000 line:0 align:left\nHello <c.cff8000>there</c> &amp; you"), "\(back)")
        #expect(back.hasPrefix("WEBVTT\n\nSTYLE\n::cue(.cff8000) { color: #ff8000; }\n::cue(.yellow) { color: #ffff00; }\n\n"), "\(back)")
    }

    @Test func assScriptsIntoEveryContainer() throws {
        let ass = try Fixtures.write("formats.ass", Self.ass)
        let dialogue = { (text: String) in text.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("Dialogue:") } }
        // Matroska: an ASS track with the script header as CodecPrivate; the same events out.
        let (mkv, _) = try Self.add(ass, to: try Self.movie("mkv"), "formats-ass.mkv")
        #expect(try Tool.check("mkvinfo", [mkv.path]).stdout.contains("S_TEXT/ASS"))
        #expect(dialogue(try Self.ffmpegCopy(mkv, as: "ass")) == dialogue(Self.ass))
        let (script, _) = try Self.extract(mkv, "ass")
        #expect(script == Self.ass, "\(script)")
        // MP4: tx3g, justified to the top (three of four samples are), with italic and colour
        // style records; the warning lists what tx3g cannot hold.
        let (mp4, warning) = try Self.add(ass, to: try Self.movie("mp4"), "formats-ass.mp4")
        #expect(warning.contains("tx3g cannot hold fonts, karaoke, positions"), "\(warning)")
        let asTx3g = try Tool.check("ffmpeg", ["-v", "error", "-i", mp4.path, "-map", "0:s", "-f", "ass", "-"]).stdout
        #expect(asTx3g.contains("Style: Default,Sans-Serif,18,") && asTx3g.contains(",8,10,10,10,0"), "the description's top justification: \(asTx3g)")
        #expect(asTx3g.contains("Top {\\i1}italic{\\r} words") && asTx3g.contains("{\\1c&HFF&}Red") && asTx3g.contains("{\\b1}{\\1c&HFFFF&}A sign"), "\(asTx3g)")
        let (srt, _) = try Self.extract(mp4, "srt")
        #expect(srt.contains("00:00:00,500 --> 00:00:01,000\n{\\an8}Top <i>italic</i> words") && srt.contains("00:00:02,000 --> 00:00:03,000\n<font color=\"#ff0000\">Red</font> and karafont"), "\(srt)")
        // Remuxed from Matroska to MP4: the same tx3g places, and the same warning.
        let remuxed = Fixtures.path("formats-ass-remuxed.mp4")
        let r = try Tool.splice(["remux", mkv.path, remuxed.path, "--force"])
        #expect(r.status == 0 && r.stderr.contains("tx3g cannot hold fonts, karaoke, positions"), "\(r.stderr)")
        #expect(try Self.extract(remuxed, "srt").0.contains("00:00:00,500 --> 00:00:01,000\n{\\an8}Top <i>italic</i> words"))
        // WebM: WebVTT, with the warning.
        let (webm, lost) = try Self.add(ass, to: try Self.movie("webm"), "formats-ass.webm")
        #expect(lost.contains("WebM (WebVTT) cannot hold fonts, karaoke, positions"), "\(lost)")
        let vtt = try Self.ffmpegCopy(webm, as: "webvtt")
        #expect(vtt.contains("00:01.000 --> 00:02.000 line:0\n<b><c.yellow>A sign</c></b>"), "\(vtt)")
    }

    /// `{\an8}` SRT into MP4: one bottom-centred description and a `tbox` band at the top for
    /// the top cue (the bytes `WVTTBoxTests.tx3gTextBoxes` works out); extracted, the tag is back.
    /// A WebVTT `line:0` cue comes back top-positioned.
    @Test func placesThroughTx3g() throws {
        let srt = try Fixtures.write("formats-an8.srt", "1\n00:00:00,500 --> 00:00:01,500\n{\\an8}Top line\n\n2\n00:00:02,000 --> 00:00:03,000\nBottom\n\n")
        let (mp4, _) = try Self.add(srt, to: try Self.movie("mp4"), "formats-an8.mp4")
        let asset = try Asset(url: mp4)
        let track = try #require(asset.tracks(withMediaType: .subtitle).first)
        #expect(track.formatDescriptions.count == 1 && TX3G.placement(ofSampleEntry: track.formatDescriptions[0].sampleEntry) == .bottomCenter)
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: track)
        try reader.add(output)
        #expect(reader.startReading())
        var samples: [[UInt8]] = []
        while let s = output.copyNextSampleBuffer() { samples.append([UInt8](try s.loadData())) }
        #expect(samples.first { $0 != [0, 0] } == [0, 8] + Array("Top line".utf8) + [0, 0, 0, 16] + Array("tbox".utf8) + [0, 0, 0, 0, 0, 32, 1, 64], "\(samples)")
        #expect(samples.contains([0, 6] + Array("Bottom".utf8)))
        #expect(try Self.extract(mp4, "srt").0 == "1\n00:00:00,500 --> 00:00:01,500\n{\\an8}Top line\n\n2\n00:00:02,000 --> 00:00:03,000\nBottom\n\n")
        // ffmpeg still reads the track (one description: see TX3G's placement notes).
        #expect(try SubtitleCLITests.ffmpegCues(mp4, subtitle: 0).map(\.2) == ["Top line", "Bottom"])
        let vtt = try Fixtures.write("formats-line0.vtt", "WEBVTT\n\n00:00:00.500 --> 00:00:01.500 line:0\nTop\n\n00:00:02.000 --> 00:00:03.000\nBottom\n")
        let (fromVTT, _) = try Self.add(vtt, to: try Self.movie("mp4"), "formats-line0.mp4")
        #expect(try Self.extract(fromVTT, "vtt").0 == "WEBVTT\n\n00:00:00.500 --> 00:00:01.500 line:0\nTop\n\n00:00:02.000 --> 00:00:03.000\nBottom\n")
    }
}
