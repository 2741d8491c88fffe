import Foundation
import Testing
import TestSupport
import Splice

/// Remux between MP4 and the containers libavformat serves (Matroska, WebM, MPEG-TS, AVI),
/// checked with ffmpeg (stream hashes, decoded-frame hashes, packet times), mkvmerge and mediainfo.
@Suite("Containers through libavformat", .serialized)
struct ContainerTests {
    // MARK: Tests

    @Test func matroskaToMP4AndBack() throws {
        let mkv = try ContainerTests.mkvmerged.get()
        let mp4 = Fixtures.path("from-mkv.mp4"), back = Fixtures.path("from-mkv-back.mkv")
        try ContainerTests.remux(mkv, mp4)
        try ContainerTests.remux(mp4, back)

        // H.264 (avcC both sides), AAC and AC-3 payloads unchanged both ways.
        let hashes = try ContainerTests.payloadHashes(mkv)
        #expect(hashes.count == 3)
        #expect(try ContainerTests.payloadHashes(mp4) == hashes)
        #expect(try ContainerTests.payloadHashes(back) == hashes)
        #expect(try ContainerTests.decodedHashes(mp4) == ContainerTests.decodedHashes(mkv))
        #expect(try ContainerTests.decodedHashes(back) == ContainerTests.decodedHashes(mkv))

        // Times within one tick (Matroska's millisecond) of the source, both ways.
        let source = try ContainerTests.packetTimes(mkv)
        for (name, url) in [("mp4", mp4), ("back", back)] {
            let times = try ContainerTests.packetTimes(url)
            #expect(times.count == source.count, "\(name)")
            for (a, b) in zip(source, times) {
                #expect(a.count == b.count, "\(name)")
                #expect(zip(a, b).allSatisfy { abs($0 - $1) <= 0.0011 }, "\(name): \(Array(a.prefix(3))) vs \(Array(b.prefix(3)))")
            }
        }

        // MP4: audio one group (eng enabled), subtitles another (the forced track enabled, as the
        // Matroska default); languages in ISO 639-2/T; subtitles as tx3g with the same cues.
        let asset = try Asset(url: mp4)
        #expect(asset.tracks.map(\.codec) == ["avc1", "mp4a", "ac-3", "tx3g", "text"])
        #expect(asset.tracks.map(\.languageCode) == [nil, "eng", "deu", "fra", nil])
        #expect(asset.tracks.map(\.isEnabled) == [true, true, false, true, false])
        #expect(asset.tracks[0].associations[.chapterList] == [5])
        #expect(asset.trackGroups.map { $0.trackIDs } == [[2, 3], [4]])
        #expect(asset.tracks[2].name == "Kommentar")
        // mkvmerge reads the MP4 (it does not read tx3g tracks: three of four).
        #expect(try ContainerTests.mkvmergeTracks(mp4).count == 3)
        let mediainfo = try Tool.check("mediainfo", ["--Inform=Audio;%AlternateGroup%,", mp4.path]).stdout
        #expect(mediainfo.trimmingCharacters(in: .whitespacesAndNewlines) == "1,1,")
        let extracted = Fixtures.path("from-mkv.srt")
        try? FileManager.default.removeItem(at: extracted)
        #expect(try Tool.splice(["subtitles", "extract", mp4.path, "-o", extracted.path]).status == 0)
        #expect(try String(contentsOf: extracted, encoding: .utf8) == ContainerTests.srt + "\n")

        // mediainfo reads the Matroska output: as many video, audio and text tracks as the source.
        let info = { (url: URL) throws -> String in
            try Tool.check("mediainfo", ["--Output=General;%VideoCount% %AudioCount% %TextCount%", url.path]).stdout
        }
        #expect(try info(back) == info(mkv))
        #expect(try info(back).trimmingCharacters(in: .whitespacesAndNewlines) == "1 2 1")
        // Back in Matroska: the same tracks, languages, flags and names as mkvmerge wrote, and the SRT.
        #expect(try ContainerTests.mkvmergeTracks(back) == ContainerTests.mkvmergeTracks(mkv))
        #expect(try ContainerTests.srt(of: back) == ContainerTests.srt(of: mkv))
        // Written as mkvmerge writes Matroska: without the optional CRC-32 elements.
        #expect(try !Tool.check("mkvinfo", [mkv.path]).stdout.contains("CRC-32"))
        #expect(try !Tool.check("mkvinfo", [back.path]).stdout.contains("CRC-32"))
        // Matroska chapters → a QuickTime chapter track (`chap` from audio and video) → chapters.
        let chapters = try ContainerTests.chapters(mkv)
        #expect(chapters.count == 2 && chapters[1].hasSuffix("Main part"), "\(chapters)")
        #expect(try ContainerTests.chapters(mp4) == chapters)
        #expect(try ContainerTests.chapters(back) == chapters)
        #expect(try Asset(url: mp4).chapters.map(\.title) == ["Intro", "Main part"])
        #expect(try ContainerTests.decodesCleanly(mp4))
        #expect(try ContainerTests.decodesCleanly(back))
    }

    @Test func webmToMP4AndBack() throws {
        let webm = try ContainerTests.webm.get()
        let mp4 = Fixtures.path("from-webm.mp4"), back = Fixtures.path("from-webm-back.webm")
        try ContainerTests.remux(webm, mp4)
        try ContainerTests.remux(mp4, back)
        let hashes = try ContainerTests.payloadHashes(webm)
        #expect(try ContainerTests.payloadHashes(mp4) == hashes)
        #expect(try ContainerTests.payloadHashes(back) == hashes)
        let decoded = try ContainerTests.decodedHashes(webm)
        #expect(try ContainerTests.decodedHashes(mp4)["0"] == decoded["0"])
        #expect(try ContainerTests.decodedHashes(back)["0"] == decoded["0"])
        // Opus: all but the last frame identical; the last is trimmed by Matroska's DiscardPadding
        // (at a millisecond's precision) and by the MP4 edit list, which ffmpeg does not apply.
        #expect(try ContainerTests.decodedHashes(back)["1"]?.dropLast() == decoded["1"]?.dropLast())
        let asset = try Asset(url: mp4)
        #expect(asset.tracks.map(\.codec) == ["vp09", "Opus"])
        // The Opus pre-skip (312 samples at 48 kHz) is the edit list's media time.
        #expect(asset.tracks[1].segments.first?.source?.start == MediaTime(value: 312, timescale: 48000))
        try ContainerTests.expectAccepted([mp4, back], tracks: 2)
        #expect(try ContainerTests.decodesCleanly(mp4))
        #expect(try ContainerTests.decodesCleanly(back))
    }

    @Test func transportStreamToMP4AndBack() throws {
        let ts = try ContainerTests.transportStream.get()
        let mp4 = Fixtures.path("from-ts.mp4"), back = Fixtures.path("from-ts-back.ts")
        try ContainerTests.remux(ts, mp4)
        try ContainerTests.remux(mp4, back)
        // Annex B → NAL lengths and ADTS → raw AAC change the bytes, not the frames.
        let decoded = try ContainerTests.decodedHashes(ts)
        #expect(decoded.count == 2)
        #expect(try ContainerTests.decodedHashes(mp4) == decoded)
        #expect(try ContainerTests.decodedHashes(back) == decoded)
        // ADTS is added back in the TS: AAC payloads are equal again.
        #expect(try ContainerTests.payloadHashes(back)[1] == ContainerTests.payloadHashes(ts)[1])
        let asset = try Asset(url: mp4)
        #expect(asset.tracks.map(\.codec) == ["avc1", "mp4a"])
        // Frames as far apart as in the TS (within a tick), on a timeline that starts at 0 in MP4:
        // the TS starts at 1.4 s; the audio starts there, and the video's edit begins as far
        // after its first decode time as the audio starts after it.
        let source = try ContainerTests.packetTimes(ts), times = try ContainerTests.packetTimes(mp4)
        #expect(times[1].first == 0)
        // (to the movie timescale's millisecond, which the empty edit is counted in)
        #expect(abs(times[0][0] - (source[0][0] - source[1][0])) <= 0.0011, "\(times[0][0])")
        for (a, b) in zip(source, times) {
            #expect(a.count == b.count)
            #expect(zip(a, b).allSatisfy { abs(($0 - a[0]) - ($1 - b[0])) <= 1.0 / 48000 + 1e-6 })
        }
        #expect(try ContainerTests.decodesCleanly(mp4))
        #expect(try ContainerTests.decodesCleanly(back))
        try ContainerTests.expectAccepted([mp4, back], tracks: 2)
    }

    /// mkvmerge and mediainfo read each file and see `tracks` tracks.
    static func expectAccepted(_ urls: [URL], tracks: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for url in urls {
            #expect(try ContainerTests.mkvmergeTracks(url).count == tracks, "\(url.lastPathComponent)", sourceLocation: sourceLocation)
            let counts = try Tool.check("mediainfo", ["--Output=General;%VideoCount% %AudioCount%", url.path]).stdout
                .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) }
            #expect(counts.reduce(0, +) == tracks, "\(url.lastPathComponent): \(counts)", sourceLocation: sourceLocation)
        }
    }

    @Test func aviToMP4AndBack() throws {
        let avi = try ContainerTests.avi.get()
        let mp4 = Fixtures.path("from-avi.mp4"), back = Fixtures.path("from-avi-back.avi")
        try ContainerTests.remux(avi, mp4)
        try ContainerTests.remux(mp4, back)
        let hashes = try ContainerTests.payloadHashes(avi)
        #expect(try ContainerTests.payloadHashes(mp4) == hashes)
        #expect(try ContainerTests.payloadHashes(back) == hashes)
        #expect(try ContainerTests.decodedHashes(mp4) == ContainerTests.decodedHashes(avi))
        #expect(try Asset(url: mp4).tracks.map(\.codec) == ["mp4v", "mp4a"])
        // H.264 from MP4 into AVI goes through libavcodec's h264_mp4toannexb: the same frames.
        _ = try ContainerTests.mkvmerged.get()
        let h264 = Fixtures.path("for-mkvmerge.mp4"), h264AVI = Fixtures.path("from-mp4-h264.avi")
        try ContainerTests.remux(h264, h264AVI)
        #expect(try ContainerTests.decodedHashes(h264AVI)["0"] == ContainerTests.decodedHashes(h264)["0"])
        #expect(try ContainerTests.decodesCleanly(mp4))
        #expect(try ContainerTests.decodesCleanly(back))
        try ContainerTests.expectAccepted([mp4, back], tracks: 2)
    }

    /// MP4 tx3g subtitles become SRT in Matroska, with the same cues, flags and language; the
    /// QuickTime chapter track becomes Matroska chapters.
    @Test func mp4SubtitlesAndChaptersToMatroska() throws {
        let metadata = try Fixtures.write("matroska-chapters.txt", ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\ntitle=One\n"
                                          + "[CHAPTER]\nTIMEBASE=1/1000\nSTART=1000\nEND=3000\ntitle=Two\n")
        let chaptered = Fixtures.path("chaptered.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=3", "-i", metadata.path, "-map_metadata", "1",
                         "-c:v", "libx264", "-preset", "ultrafast", chaptered.path])
        let withSubs = Fixtures.path("with-subs.mp4")
        try? FileManager.default.removeItem(at: withSubs)
        let srt = try Fixtures.write("cues.srt", ContainerTests.srt)
        let add = try Tool.splice(["subtitles", "add", chaptered.path, srt.path, "--language", "fr", "--forced", "-o", withSubs.path])
        #expect(add.status == 0, "\(add.stderr)")
        let mkv = Fixtures.path("with-subs.mkv")
        try ContainerTests.remux(withSubs, mkv)
        // ffmpeg's SRT writer ends lines within a cue with CRLF.
        #expect(try ContainerTests.srt(of: mkv).replacingOccurrences(of: "\r", with: "") == ContainerTests.srt + "\n")
        let tracks = try ContainerTests.mkvmergeTracks(mkv)
        #expect(tracks.count == 2 && tracks[1].hasPrefix("SubRip/SRT fre default=0 forced=1"), "\(tracks)")
        #expect(try ContainerTests.payloadHashes(mkv) == ContainerTests.payloadHashes(withSubs))
        let chapters = try ContainerTests.chapters(chaptered)
        #expect(chapters == ["0.000-1.000 One", "1.000-3.000 Two"])
        #expect(try ContainerTests.chapters(mkv) == chapters)

        // MPEG-TS has neither chapters nor text subtitles: chapters are left out with a warning,
        // subtitles refused.
        let ts = Fixtures.path("chapters.ts")
        try? FileManager.default.removeItem(at: ts)
        let toTS = try Tool.splice(["remux", chaptered.path, ts.path])
        #expect(toTS.status == 0 && toTS.stderr.contains("(chapters) is left out: ts files have no chapters"), "\(toTS.stderr)")
        let subsToTS = try Tool.splice(["remux", withSubs.path, Fixtures.path("subs.ts").path])
        #expect(subsToTS.status == 65 && subsToTS.stderr.contains("mpegts files cannot hold text subtitles"), "\(subsToTS.stderr)")

        // WebM takes VP9/AV1/Opus/Vorbis only: H.264 is refused, naming the codec and who takes it.
        let webm = Fixtures.path("with-subs.webm")
        let r = try Tool.splice(["remux", withSubs.path, webm.path])
        #expect(r.status == 65)
        #expect(r.stderr.contains("webm files cannot hold h264; mp4, mkv"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: webm.path))
        #expect(try leftovers(of: webm).isEmpty)
    }

    /// Each codec MP4 can carry, from the containers that bring it: the sample entry built from
    /// libavformat's parameters decodes to the same frames, and goes back to Matroska.
    @Test(arguments: [
        ("hevc.ts", ["-c:v", "libx265", "-x265-params", "log-level=none"]),
        ("hevc.mkv", ["-c:v", "libx265", "-x265-params", "log-level=none"]),
        ("av1.ivf", ["-c:v", "libaom-av1", "-cpu-used", "8"]),
        ("av1.mkv", ["-c:v", "libaom-av1", "-cpu-used", "8"]),
        ("mpeg2.mpg", ["-c:v", "mpeg2video"]),
        ("h264.flv", ["-c:v", "libx264"]),
        ("flac.flac", ["-c:a", "flac"]),
        ("eac3.mkv", ["-c:a", "eac3"]),
        ("ac3.ac3", ["-c:a", "ac3"]),
        ("adts.aac", ["-c:a", "aac"]),
        ("alac.mkv", ["-c:a", "alac"]),
        ("mp3.mp3", ["-c:a", "libmp3lame"]),
    ])
    func codecToMP4AndBack(_ name: String, _ codec: [String]) throws {
        let source = Fixtures.path("codec-" + name)
        let input = codec[0] == "-c:v" ? "testsrc=size=160x120:rate=25:duration=1" : "sine=duration=1:sample_rate=48000"
        try Tool.ffmpeg(["-f", "lavfi", "-i", input] + codec + [source.path])
        let mp4 = Fixtures.path("codec-\(name).mp4"), back = Fixtures.path("codec-\(name).mkv")
        try ContainerTests.remux(source, mp4)
        try ContainerTests.remux(mp4, back)
        var decoded = try ContainerTests.decodedHashes(source)
        #expect(decoded.values.first?.isEmpty == false)
        if name.hasPrefix("mp3") {
            // The MP4 edit list trims the last frame's padding; ffmpeg does not apply such trims.
            decoded = decoded.mapValues { Array($0.dropLast()) }
            #expect(try ContainerTests.decodedHashes(mp4).mapValues { Array($0.dropLast()) } == decoded)
        } else {
            #expect(try ContainerTests.decodedHashes(mp4) == decoded)
            #expect(try ContainerTests.decodedHashes(back) == decoded)
        }
        #expect(try ContainerTests.decodesCleanly(mp4))
    }

    /// Raw H.264 (no container, no timestamps): without B-frames it remuxes, frames equal; with
    /// B-frames the display order cannot be known without decoding, which is said.
    @Test func rawElementaryStreams() throws {
        for bFrames in ["0", "2"] {
            let raw = Fixtures.path("raw-bf\(bFrames).h264"), mp4 = Fixtures.path("raw-bf\(bFrames).mp4")
            try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=1", "-c:v", "libx264", "-bf", bFrames, raw.path])
            try? FileManager.default.removeItem(at: mp4)
            let r = try Tool.splice(["remux", raw.path, mp4.path])
            if bFrames == "0" {
                #expect(r.status == 0, "\(r.stderr)")
                #expect(try ContainerTests.decodedHashes(mp4) == ContainerTests.decodedHashes(raw))
            } else {
                #expect(r.status == 65)
                #expect(r.stderr.contains("has B-frames but no timestamps"), "\(r.stderr)")
                #expect(!FileManager.default.fileExists(atPath: mp4.path))
                #expect(try leftovers(of: mp4).isEmpty)
            }
        }
    }

    @Test func codecsAContainerCannotHoldAreNamed() throws {
        let vorbis = Fixtures.path("vorbis.mkv")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=duration=1", "-c:a", "libvorbis", vorbis.path])
        let out = Fixtures.path("vorbis.mp4")
        let r = try Tool.splice(["remux", vorbis.path, out.path])
        #expect(r.status == 65)
        #expect(r.stderr.contains("track 1 (vorbis) cannot be written to mp4: vorbis cannot be stored in MP4/MOV"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))

        let ts = Fixtures.path("subs.ts")
        let withSubs = try ContainerTests.mkvmerged.get()
        let t = try Tool.splice(["remux", withSubs.path, ts.path])
        #expect(t.status == 65)
        #expect(t.stderr.contains("mpegts files cannot hold text subtitles"), "\(t.stderr)")
        #expect(!FileManager.default.fileExists(atPath: ts.path))
        #expect(try leftovers(of: ts).isEmpty)
    }

    /// Damaged sources are read as far as libavformat can, and the warnings say what it found.
    @Test func damagedInputsAreReadWithWarnings() throws {
        let mkv = [UInt8](try Data(contentsOf: try ContainerTests.mkvmerged.get()))
        let truncated = Fixtures.path("truncated.mkv")
        try Data(mkv.prefix(mkv.count * 2 / 3)).write(to: truncated)
        let out = Fixtures.path("truncated.mp4")
        try? FileManager.default.removeItem(at: out)
        let r = try Tool.splice(["remux", truncated.path, out.path])
        #expect(r.status == 0)
        #expect(r.stderr == "warning: \(truncated.path): ffmpeg: [matroska,webm] File ended prematurely\n", "\(r.stderr)")
        #expect(try ContainerTests.decodesCleanly(out))

        var ts = [UInt8](try Data(contentsOf: try ContainerTests.transportStream.get()))
        var seed: UInt64 = 7
        for _ in 0..<60 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            ts[2000 + Int(seed >> 33) % (ts.count - 2000)] ^= 0xFF
        }
        let flipped = Fixtures.path("flipped.ts")
        try Data(ts).write(to: flipped)
        let out2 = Fixtures.path("flipped.mp4")
        try? FileManager.default.removeItem(at: out2)
        let r2 = try Tool.splice(["remux", flipped.path, out2.path])
        #expect(r2.status == 0)
        #expect(r2.stderr.contains("warning: \(flipped.path): ffmpeg: [mpegts]"), "\(r2.stderr)")
        #expect(try Tool.run("ffprobe", ["-v", "error", out2.path]).status == 0)
        let verbose = try Tool.splice(["remux", flipped.path, Fixtures.path("verbose.mkv").path, "--verbose"])
        #expect(verbose.status == 0 && verbose.stderr.contains("ffmpeg: [mpegts]"), "\(verbose.stderr)")
    }

    /// Matroska attachments are not copied, and the warning says which.
    @Test func attachmentsAreLeftOutWithAWarning() throws {
        let font = try Fixtures.write("font.ttf", "not really a font")
        let mkv = Fixtures.path("attached.mkv")
        try? FileManager.default.removeItem(at: mkv)
        try Tool.check("mkvmerge", ["-q", "-o", mkv.path, try ContainerTests.webm.get().path, "--attachment-mime-type", "font/ttf",
                                    "--attach-file", font.path])
        let out = Fixtures.path("attached-copy.mkv")
        try? FileManager.default.removeItem(at: out)
        let r = try Tool.splice(["remux", mkv.path, out.path])
        #expect(r.status == 0)
        #expect(r.stderr == "warning: track 3 (none, font.ttf) is left out: attachments and data streams are not copied\n", "\(r.stderr)")
        #expect(try ContainerTests.payloadHashes(out) == ContainerTests.payloadHashes(mkv))
    }

    /// The library reads libavformat sources sample by sample: counts agree with ffprobe, decode
    /// times increase, key frames are flagged.
    @Test func readerHandsOutMatroskaSamples() throws {
        let asset = try Asset(url: try ContainerTests.mkvmerged.get())
        #expect(!asset.isISOBMFF)
        #expect(asset.tracks.map(\.isDefault) == [true, true, false, true])
        #expect(asset.tracks.map(\.isForced) == [false, false, false, true])
        #expect(asset.tracks(withMediaCharacteristic: .describesMusicAndSoundForAccessibility).map(\.trackID) == [4])
        let report = try Tool.splice(["inspect", asset.url.path, "--json"])
        let json = try JSONSerialization.jsonObject(with: report.stdoutData) as? [String: Any]
        let flags = (json?["tracks"] as? [[String: Any]] ?? []).map { $0["flags"] as? [String] ?? ["?"] }
        #expect(flags == [["default"], ["default"], [], ["default", "forced", "hearing-impaired"]])
        let reader = try AssetReader(asset: asset)
        let outputs = asset.tracks.map { AssetReaderTrackOutput(track: $0) }
        for o in outputs { try reader.add(o) }
        #expect(reader.startReading())
        let probe = try Tool.check("ffprobe", ["-v", "error", "-count_packets", "-show_entries", "stream=nb_read_packets",
                                               "-of", "csv=p=0", asset.url.path]).stdout
            .split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        var counts: [Int] = []
        for o in outputs {
            var n = 0, keys = 0
            var last: MediaTime?
            while let s = o.copyNextSampleBuffer() {
                if let last { #expect(s.decodeTimeStamp >= last) }
                last = s.decodeTimeStamp
                n += 1
                if s.isSync { keys += 1 }
                #expect(s.presentationTimeStamp >= s.decodeTimeStamp || o.track.mediaType != .video)
            }
            counts.append(n)
            if o.track.mediaType == .video { #expect(keys == 3) }
        }
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        #expect(counts == probe)
    }
}
