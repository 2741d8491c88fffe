import Foundation
import ISOBMFF
import MediaCore
import Splice
import Testing
import TestSupport

/// Real-world container defects: Matroska chapters into Matroska, QuickTime sound descriptions
/// (version 1/2, `wave`-wrapped `esds`) into Matroska and TS, QuickTime handler names into MP4.
@Suite("Real-world containers")
struct RealWorldContainerTests {
    /// H.264 + AAC, 2 s, as MP4.
    static let movie: Result<URL, Error> = Result {
        let url = Fixtures.path("realworld.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-f", "lavfi", "-i", "sine=duration=2",
                         "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", url.path])
        return url
    }

    static func streamHash(_ url: URL, _ map: String) throws -> String {
        try Tool.check("ffmpeg", ["-v", "error", "-i", url.path, "-map", map, "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]).stdout
    }

    @Test func matroskaChaptersSurviveMatroskaToMatroska() throws {
        let chapters = try Fixtures.write("realworld-chapters.txt", """
            ;FFMETADATA1
            [CHAPTER]
            TIMEBASE=1/1000
            START=0
            END=1200
            title=Opening
            [CHAPTER]
            TIMEBASE=1/1000
            START=1200
            END=2000
            title=Ending

            """)
        let mkv = Fixtures.path("realworld-chapters.mkv"), out = Fixtures.path("realworld-chapters-out.mkv")
        try Tool.ffmpeg(["-i", try Self.movie.get().path, "-i", chapters.path, "-map", "0", "-map_chapters", "1", "-c", "copy", mkv.path])
        let r = try Tool.splice(["remux", mkv.path, out.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let list = { (u: URL) in try Tool.check("ffprobe", ["-v", "error", "-show_chapters", "-of", "csv=p=0", u.path]).stdout }
        let source = try list(mkv)
        #expect(source.contains("Opening") && source.contains("Ending"))
        #expect(try list(out) == source)
        // A container without chapters says so.
        let ts = try Tool.splice(["remux", mkv.path, Fixtures.path("realworld-chapters.ts").path, "--force"])
        #expect(ts.status == 0 && ts.stderr.contains("2 chapters are left out: ts files have no chapters"), "\(ts.stderr)")
    }

    @Test func quickTimeSoundDescriptionsGoToMatroskaAndTS() throws {
        let mov = Fixtures.path("realworld-sound.mov")
        try Tool.ffmpeg(["-i", try Self.movie.get().path, "-c", "copy", mov.path])
        // ffmpeg writes QuickTime's version 1 sound description, its esds inside `wave`.
        let bytes = [UInt8](try Data(contentsOf: mov))
        let entry = try #require(Self.find(Array("mp4a".utf8), in: bytes, after: Self.find(Array("stsd".utf8), in: bytes) ?? 0))
        #expect(Int(bytes[entry + 12]) << 8 | Int(bytes[entry + 13]) == 1, "sound description version")
        #expect(Self.find(Array("wave".utf8), in: bytes, after: entry) != nil)
        for ext in ["mkv", "ts"] {
            let out = Fixtures.path("realworld-sound-out.\(ext)")
            let r = try Tool.splice(["remux", mov.path, out.path, "--force"])
            #expect(r.status == 0, "\(ext): \(r.stderr)")
            #expect(try Tool.check("ffmpeg", ["-v", "error", "-i", out.path, "-map", "0:a", "-f", "null", "-"]).stderr.isEmpty)
            if ext == "mkv" { #expect(try Self.streamHash(out, "0:a") == Self.streamHash(mov, "0:a")) }
            let codec = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=codec_name", "-of", "csv=p=0", out.path])
            #expect(codec.stdout.split(separator: "\n").allSatisfy { $0 == "aac" }, "\(codec.stdout)")   // (TS lists a program's streams too)
        }
    }

    @Test func quickTimeHandlerNamesTakeTheTargetsForm() throws {
        let mov = Fixtures.path("realworld-names.mov"), mp4 = Fixtures.path("realworld-names.mp4"), back = Fixtures.path("realworld-names-back.mov")
        try Tool.ffmpeg(["-i", try Self.movie.get().path, "-c", "copy", mov.path])
        #expect(try Tool.splice(["remux", mov.path, mp4.path, "--force"]).status == 0)
        #expect(try Tool.splice(["remux", mp4.path, back.path, "--force"]).status == 0)
        let names = { (u: URL) in
            try Tool.check("ffprobe", ["-v", "error", "-show_entries", "stream_tags=handler_name", "-of", "csv=p=0", u.path]).stdout
                .split(separator: "\n").map(String.init)
        }
        let written = try names(mp4)
        #expect(written == ["VideoHandler", "SoundHandler"], "\(written)")
        // Back in QuickTime, a Pascal string (length byte first), as QuickTime writes it.
        let bytes = [UInt8](try Data(contentsOf: back))
        let hdlr = try #require(Self.find(Array("hdlr".utf8), in: bytes))
        #expect(bytes[hdlr + 28] == 12 && Array(bytes[(hdlr + 29)..<(hdlr + 41)]) == Array("VideoHandler".utf8))
    }

    /// One rule for tracks a target cannot hold: a timecode track goes into Matroska as the
    /// video's TIMECODE tag (as ffmpeg writes it; drop frame too), is left out of TS with a
    /// warning (it failed the whole job before), and is kept in MP4.
    @Test(arguments: [("01:00:00:00", "25"), ("01:02:03;04", "30000/1001")])
    func aTimecodeTrackGoesWhereItCan(timecode: String, rate: String) throws {
        let mov = Fixtures.path("realworld-timecode-\(rate.count).mov"), reference = Fixtures.path("realworld-timecode-\(rate.count)-ffmpeg.mkv")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=\(rate):duration=1", "-f", "lavfi", "-i", "sine=duration=1",
                         "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-timecode", timecode, mov.path])
        try Tool.ffmpeg(["-i", mov.path, "-c", "copy", reference.path])
        #expect(try Asset(url: mov).tracks.contains { $0.codec == "tmcd" })
        let tags = { (u: URL) in try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream_tags=timecode", "-of", "csv=p=0", u.path]).stdout }
        #expect(try tags(reference) == "\(timecode)\n")
        for ext in ["mkv", "ts"] {
            let out = Fixtures.path("realworld-timecode-\(rate.count)-out.\(ext)")
            let r = try Tool.splice(["remux", mov.path, out.path, "--force"])
            let said = ext == "mkv" ? "track 3 (timecode \(timecode)) is kept as the TIMECODE tag of the video: mkv files have no timecode tracks"
                : "track 3 (timecode, 'tmcd') is left out: ts files cannot hold it"
            #expect(r.status == 0 && r.stderr.contains(said), "\(r.stderr)")
            let types = try Tool.ffprobeStreams(out).compactMap { $0["codec_type"] as? String }
            #expect(Set(types) == ["video", "audio"], "\(types)")
            if ext == "mkv" {
                #expect(try Self.streamHash(out, "0:v") == Self.streamHash(mov, "0:v"))   // (TS: Annex B)
                #expect(try tags(out) == tags(reference))
            }
        }
        let mp4 = Fixtures.path("realworld-timecode-\(rate.count)-out.mp4")
        #expect(try Tool.splice(["remux", mov.path, mp4.path, "--force"]).status == 0)
        #expect(try Asset(url: mp4).tracks.contains { $0.codec == "tmcd" })
    }

    /// Matroska chapters that end a millisecond before the next one starts become MP4 chapters
    /// without an untitled chapter over the gap.
    @Test func chapterGapsOfAMillisecondAreClosed() throws {
        let chapters = try Fixtures.write("realworld-gap.txt", ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=999\ntitle=One\n"
                                          + "[CHAPTER]\nTIMEBASE=1/1000\nSTART=1000\nEND=2000\ntitle=Two\n")
        let mkv = Fixtures.path("realworld-gap.mkv"), mp4 = Fixtures.path("realworld-gap.mp4")
        try Tool.ffmpeg(["-i", try Self.movie.get().path, "-i", chapters.path, "-map", "0", "-map_chapters", "1", "-c", "copy", mkv.path])
        #expect(try Tool.splice(["remux", mkv.path, mp4.path, "--force"]).status == 0)
        let list = try Tool.check("ffprobe", ["-v", "error", "-show_chapters", "-of", "csv=p=0", mp4.path]).stdout.split(separator: "\n")
        #expect(list.count == 2 && list[0].hasSuffix(",1.000000,One") && list[1].hasSuffix(",Two"), "\(list)")
    }

    /// A subtitle block without a duration at the end of a Matroska track keeps none through
    /// `subtitles add` and `remux`: it is not given the duration of the cue before it.
    @Test func aLastSubtitleWithoutDurationIsNotStretched() throws {
        let srt = try Fixtures.write("realworld-zero.srt", "1\n00:00:00,500 --> 00:00:01,000\nHello\n\n2\n00:00:01,200 --> 00:00:01,200\nZero\n")
        let added = try Fixtures.write("realworld-zero-fr.srt", "1\n00:00:00,100 --> 00:00:00,900\nBonjour\n")
        let mkv = Fixtures.path("realworld-zero.mkv")
        try Tool.ffmpeg(["-i", try Self.movie.get().path, "-i", srt.path, "-map", "0", "-map", "1", "-c", "copy", "-c:s", "srt", mkv.path])
        let packets = { (u: URL) in
            try Tool.check("ffprobe", ["-v", "error", "-select_streams", "s:0", "-show_entries", "packet=pts,duration", "-of", "csv=p=0", u.path]).stdout
        }
        let source = try packets(mkv)
        #expect(source.split(separator: "\n").count == 2 && source.hasSuffix(",N/A\n"), "\(source)")
        let add = Fixtures.path("realworld-zero-add.mkv"), remux = Fixtures.path("realworld-zero-remux.mkv")
        let r = try Tool.splice(["subtitles", "add", mkv.path, added.path, "-o", add.path, "--language", "fra", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Tool.splice(["remux", mkv.path, remux.path, "--force"]).status == 0)
        #expect(try packets(add) == source)
        #expect(try packets(remux) == source)
    }

    static func find(_ needle: [UInt8], in bytes: [UInt8], after start: Int = 0) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (start...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}

extension RealWorldContainerTests {
    /// VobSub in MP4 as FFmpeg and Nero write it: a `subp` handler and an `mp4s` entry whose
    /// `esds` says object type 0xE0. It is a subtitle track (not data), copied into MP4 as it is.
    @Test func vobSubInMP4IsASubtitleTrack() async throws {
        var esds = BoxWriter()
        esds.box("esds") { w in
            w.u32(0)
            w.u8(0x03); w.u8(23 + 64); w.u16(2); w.u8(0)                               // ES_Descriptor
            w.u8(0x04); w.u8(15 + 64); w.u8(0xE0); w.u8(0x38 << 2 | 1); w.zeros(11)  // DecoderConfigDescriptor
            w.u8(0x05); w.u8(64); w.zeros(64)                                          // 16 palette entries
            w.u8(0x06); w.u8(1); w.u8(2)                                               // SLConfigDescriptor
        }
        var entry = BoxWriter()
        entry.box("mp4s") { w in w.zeros(6); w.u16(1); w.append(esds.bytes) }
        let format = FormatDescription(mediaType: .subtitle, codec: "mp4s", sampleEntry: Data(entry.bytes))
        let url = Fixtures.path("realworld-vobsub.mp4")
        try? FileManager.default.removeItem(at: url)
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let input = AssetWriterInput(mediaType: .subtitle, sourceFormatHint: format)
        try writer.add(input)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        for k in 0..<3 {
            let t = MediaTime(value: Int64(k), timescale: 1)
            #expect(input.append(SampleBuffer(data: Data(repeating: UInt8(k), count: 24), decodeTimeStamp: t, presentationTimeStamp: t,
                                              duration: MediaTime(value: 1, timescale: 1), isSync: true, formatDescription: format)))
        }
        input.markAsFinished()
        try await writer.finishWriting()
        // The handler VobSub files have.
        try MoovPatch.apply(to: url) { moov in
            moov.modifyTrack(1) { $0.modifyChild("mdia") { $0.modifyChild("hdlr") { $0.payload.replaceSubrange(8..<12, with: Array("subp".utf8)) } } }
        }
        let probe = try Tool.ffprobeStreams(url).first
        #expect(probe?["codec_type"] as? String == "subtitle" && probe?["codec_name"] as? String == "dvd_subtitle")
        let json = try Tool.splice(["inspect", "--json", url.path])
        #expect(json.stdout.contains("\"mediaType\" : \"subtitle\"") && json.stdout.contains("\"codecName\" : \"dvd_subtitle\""), "\(json.stdout)")
        let copy = Fixtures.path("realworld-vobsub-copy.mp4")
        #expect(try Tool.splice(["remux", url.path, copy.path, "--force"]).status == 0)
        #expect(try Self.streamHash(copy, "0") == Self.streamHash(url, "0"))
        let mkv = try Tool.splice(["remux", url.path, Fixtures.path("realworld-vobsub.mkv").path, "--force"])
        #expect(mkv.status == 65 && mkv.stderr.contains("track 1: VobSub from MP4 ('mp4s') cannot be written to matroska"), "\(mkv.stderr)")
    }
}

extension RealWorldContainerTests {
    /// Sample counts of containers read through libavformat are what the reader hands out:
    /// counted where the container does not say (Matroska, TS), and an AVI's dropped frames
    /// (zero-size index entries) are not samples.
    @Test func sampleCountsAreThePacketsRead() throws {
        let avi = Fixtures.path("realworld-gaps.avi"), ts = Fixtures.path("realworld-count.ts")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-vf", "select='not(between(n,10,11))'",
                         "-fps_mode", "passthrough", "-c:v", "mpeg4", avi.path])
        try Tool.ffmpeg(["-i", try Self.movie.get().path, "-c", "copy", ts.path])
        let indexed = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "stream=nb_frames", "-of", "csv=p=0", avi.path]).stdout
        #expect(indexed.trimmingCharacters(in: .whitespacesAndNewlines) == "50", "the index has the two dropped frames")
        for url in [avi, ts] {
            let asset = try Asset(url: url)
            let read = try Tool.check("ffprobe", ["-v", "error", "-count_packets", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", url.path])
                .stdout.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                .prefix(asset.tracks.count)   // (TS: ffprobe lists the program's streams again)
            let counts = try asset.countSamples()
            #expect(asset.tracks.map { counts[$0.trackID] } == read.map { Optional($0) }, "\(url.lastPathComponent)")
            let json = try Tool.splice(["inspect", "--json", url.path]).stdout
            for n in read { #expect(json.contains("\"sampleCount\" : \(n)"), "\(json)") }
            let reader = try AssetReader(asset: asset)
            let output = AssetReaderTrackOutput(track: asset.tracks[0], outputSettings: nil)
            try reader.add(output)
            #expect(reader.startReading())
            var n = 0
            while output.copyNextSampleBuffer() != nil { n += 1 }
            #expect(n == read.first, "the reader hands out what inspect counts")
        }
    }

    /// mkvmerge's WebVTT (`S_TEXT/WEBVTT`), which libavformat 5.1 does not identify, is read as
    /// WebVTT: shown as such, and copied as text into Matroska and as `wvtt` into MP4.
    @Test func matroskaWebVTTIsReadAsWebVTT() throws {
        let vtt = try Fixtures.write("realworld.vtt", "WEBVTT\n\n00:00.500 --> 00:01.000\nHello\n\n00:01.200 --> 00:01.800 align:start\nWorld\n")
        let mkv = Fixtures.path("realworld-webvtt.mkv")
        try? FileManager.default.removeItem(at: mkv)
        _ = try Tool.check("mkvmerge", ["-q", "-o", mkv.path, try Self.movie.get().path, vtt.path])
        #expect(try Tool.check("mkvmerge", ["-J", mkv.path]).stdout.contains("S_TEXT/WEBVTT"))
        let json = try Tool.splice(["inspect", "--json", mkv.path]).stdout
        #expect(json.contains("\"codecName\" : \"webvtt\"") && !json.contains("\"none\""), "\(json)")
        for ext in ["mp4", "mkv"] {
            let out = Fixtures.path("realworld-webvtt-out.\(ext)")
            let r = try Tool.splice(["remux", mkv.path, out.path, "--force"])
            #expect(r.status == 0, "\(r.stderr)")
            // (No tool here reads wvtt: the MP4 is read back by Splice, the Matroska by ffmpeg too.)
            let back = Fixtures.path("realworld-webvtt-back-\(ext).srt")
            #expect(try Tool.splice(["subtitles", "extract", out.path, "-o", back.path, "--force"]).status == 0)
            var texts = [try String(contentsOf: back, encoding: .utf8)]
            if ext == "mkv" { texts.append(try Tool.check("ffmpeg", ["-v", "error", "-i", out.path, "-map", "0:s", "-f", "srt", "-"]).stdout) }
            for srt in texts {
                #expect(srt.contains("00:00:00,500 --> 00:00:01,000") && srt.contains("Hello") && srt.contains("00:00:01,200 --> 00:00:01,800")
                        && srt.contains("World"), "\(ext): \(srt)")
            }
        }
    }
}

extension RealWorldContainerTests {
    /// AAC from another container into MOV is written as QuickTime (and ffmpeg) write it: a
    /// version 1 sound description with the `esds` inside `wave`; MP4 → MOV keeps the entry.
    @Test func aacIntoMOVIsWrittenTheQuickTimeWay() throws {
        let mkv = Fixtures.path("realworld-aac.mkv"), mov = Fixtures.path("realworld-aac.mov"), reference = Fixtures.path("realworld-aac-ffmpeg.mov")
        try Tool.ffmpeg(["-i", try Self.movie.get().path, "-c", "copy", mkv.path])
        try Tool.ffmpeg(["-i", mkv.path, "-c", "copy", reference.path])
        let r = try Tool.splice(["remux", mkv.path, mov.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let entry = { (url: URL) throws -> [UInt8] in
            let bytes = [UInt8](try Data(contentsOf: url))
            let at = try #require(Self.find(Array("mp4a".utf8), in: bytes, after: Self.find(Array("stsd".utf8), in: bytes) ?? 0)) - 4
            let size = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            return Array(bytes[at..<(at + size)])
        }
        let ours = try entry(mov), ffmpegs = try entry(reference)
        #expect(ours[16..<18] == [0, 1], "sound description version 1")
        #expect(Self.find(Array("wave".utf8), in: ours) != nil && Self.find(Array("frma".utf8), in: ours) != nil)
        // The fixed fields (version 1's included) and the layout of wave are ffmpeg's.
        #expect(ours.prefix(56) == ffmpegs.prefix(56), "\(ours.prefix(56)) vs \(ffmpegs.prefix(56))")
        #expect(try Self.streamHash(mov, "0:a") == Self.streamHash(mkv, "0:a"))
        #expect(try Tool.check("ffmpeg", ["-v", "error", "-i", mov.path, "-map", "0:a", "-f", "null", "-"]).stderr.isEmpty)
        // And back, and MOV → MOV verified.
        let back = Fixtures.path("realworld-aac-back.mkv")
        #expect(try Tool.splice(["remux", mov.path, back.path, "--force"]).status == 0)
        #expect(try Self.streamHash(back, "0:a") == Self.streamHash(mkv, "0:a"))
        #expect(try Tool.splice(["remux", "--verify", mov.path, Fixtures.path("realworld-aac-again.mov").path, "--force"]).status == 0)
        // An MP4's version 0 entry is copied as it is.
        let fromMP4 = Fixtures.path("realworld-aac-from-mp4.mov")
        #expect(try Tool.splice(["remux", try Self.movie.get().path, fromMP4.path, "--force"]).status == 0)
        #expect(try entry(fromMP4)[16..<18] == [0, 0])
    }
}
