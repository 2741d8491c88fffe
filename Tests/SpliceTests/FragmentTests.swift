import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// Fragmented MP4 and CMAF out (`--fragment`, `--cmaf`, `--sidx`, `--mfra`): the packets and
/// structure of the plain remux (ffprobe, streamhash, mediainfo), the boxes where the standard
/// puts them (read here with a box walker of the test's own), read back by Splice to the plain
/// remux, and encryption carried fragment by fragment (ffmpeg decrypts it).
@Suite("Fragmented output")
struct FragmentTests {
    /// A box: its type, where it starts and its size (header included).
    struct Box { var type: String; var start: Int; var size: Int }

    /// The boxes in `data[range]`, in order (a malformed size ends the list).
    static func boxes(_ data: [UInt8], in range: Range<Int>? = nil) -> [Box] {
        var out: [Box] = []
        var at = range?.lowerBound ?? 0
        let end = range?.upperBound ?? data.count
        while at + 8 <= end {
            var size = data[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: data[(at + 4)..<(at + 8)], as: UTF8.self)
            if size == 1, at + 16 <= end { size = data[(at + 8)..<(at + 16)].reduce(0) { $0 << 8 | Int($1) } }
            guard size >= 8, at + size <= end else { break }
            out.append(Box(type: type, start: at, size: size))
            at += size
        }
        return out
    }

    /// The children of `box` (after `skip` bytes of its own fields).
    static func children(_ data: [UInt8], _ box: Box, skip: Int = 0) -> [Box] {
        boxes(data, in: (box.start + 8 + skip)..<(box.start + box.size))
    }

    static func u32(_ data: [UInt8], _ at: Int) -> UInt32 { data[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) } }

    /// ffprobe's packets, stream by stream: times and key flags. (ffmpeg reads a fragmented
    /// file's edit list as a start offset: the packets an edit hides are not flagged discarded,
    /// and a track's first packet has no duration — in ffmpeg's own fragmented files too — so
    /// durations and the discard flag are left out.)
    static func packets(_ url: URL, streams: String = "v,a") throws -> [String] {
        let types = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "stream=index,codec_type", "-of", "csv=p=0", url.path]).stdout
        var kept: Set<String> = []
        for line in types.split(separator: "\n") {
            let fields = line.split(separator: ",").map(String.init)
            if fields.count == 2, let type = fields[1].first, streams.contains(type) { kept.insert(fields[0]) }
        }
        let lines = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "packet=stream_index,pts,dts,flags", "-of", "csv=p=0",
                                               url.path]).stdout
        var byStream: [String: [String]] = [:]
        for line in lines.split(separator: "\n") {
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 4, kept.contains(f[0]) else { continue }
            byStream[f[0], default: []].append("\(f[0]),\(f[1]),\(f[2]),\(f[3].contains("K") ? "K" : "_")")
        }
        return byStream.keys.sorted().flatMap { byStream[$0]! }
    }

    /// The video and sound packets' md5s (ffmpeg's streamhash).
    static func soundAndPictureHash(_ url: URL) throws -> String {
        try Tool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:v?", "-map", "0:a?", "-c", "copy",
                                  "-f", "streamhash", "-hash", "md5", "-"]).stdout
    }

    static func remux(_ source: URL, _ name: String, _ options: [String] = []) throws -> URL {
        let out = Fixtures.path(name)
        let r = try Tool.splice(["remux", source.path, out.path, "--force"] + options)
        #expect(r.status == 0, "\(r.stderr)")
        return out
    }

    @Test func aFragmentedRemuxIsThePlainRemux() throws {
        let source = try Fixtures.grouped.get()
        let plain = try Self.remux(source, "fragment-plain.mp4")
        let fragmented = try Self.remux(source, "fragment-1s.mp4", ["--fragment", "1", "--verify"])
        #expect(try Tool.run("ffprobe", ["-v", "error", fragmented.path]).stderr.isEmpty)
        // (Subtitles are compared after the read back: ffmpeg shows the cues the edits of a
        // fragmented track hide — track 6's three edits, track 5's last cue — as it does in its
        // own fragmented files, reading their edit lists as a start offset only.)
        #expect(try Self.soundAndPictureHash(fragmented) == Self.soundAndPictureHash(plain))
        #expect(try Self.packets(fragmented) == Self.packets(plain))
        #expect(try RemuxTests.mediainfoTracks(fragmented) == RemuxTests.mediainfoTracks(plain))

        // ftyp, moov (mvex: mehd, a trex per track), free, then moof/mdat pairs.
        let data = [UInt8](try Data(contentsOf: fragmented))
        let top = Self.boxes(data)
        #expect(top.prefix(3).map(\.type) == ["ftyp", "moov", "free"], "\(top.map(\.type))")
        let pairs = Array(top.dropFirst(3))
        #expect(pairs.count >= 6 && pairs.count % 2 == 0 && pairs.enumerated().allSatisfy { $0.element.type == ($0.offset % 2 == 0 ? "moof" : "mdat") })
        let mvex = try #require(Self.children(data, top[1]).first { $0.type == "mvex" })
        #expect(Self.children(data, mvex).map(\.type) == ["mehd"] + Array(repeating: "trex", count: 7))
        #expect(top.last!.start + top.last!.size == data.count)
        // Every fragment's video starts with a sync sample; each traf has a tfdt.
        for moof in pairs.filter({ $0.type == "moof" }) {
            let trafs = Self.children(data, moof).filter { $0.type == "traf" }
            #expect(trafs.allSatisfy { Self.children(data, $0).contains { $0.type == "tfdt" } })
            let video = try #require(trafs.first { Self.u32(data, $0.start + 20) == 1 })   // (tfhd first: its track ID)
            let trun = try #require(Self.children(data, video).first { $0.type == "trun" })
            // trun: version/flags, count, data offset, then duration, size, flags of the first sample
            #expect(Self.u32(data, trun.start + 8 + 12 + 8) & 0x1_0000 == 0, "a fragment starts with a non-sync sample")
        }

        // Read back, remuxed plain: the plain remux's structure and packets.
        let back = try Self.remux(fragmented, "fragment-back.mp4")
        var a = try RemuxTests.structure(back), b = try RemuxTests.structure(plain)
        a["format"] = nil; b["format"] = nil
        #expect(RemuxTests.equalJSON(a, b), "\(a)\n\(b)")
        #expect(try RemuxTests.streamHash(back) == RemuxTests.streamHash(plain))
        #expect(try Self.packets(back, streams: "v,a,s") == Self.packets(plain, streams: "v,a,s"))
    }

    /// The moofs of `data` and, for each, its trafs' track IDs (tfhd comes first in a traf).
    static func fragments(_ data: [UInt8]) -> [(moof: Box, tracks: [UInt32])] {
        boxes(data).filter { $0.type == "moof" }.map { moof in
            (moof, children(data, moof).filter { $0.type == "traf" }.map { u32(data, $0.start + 20) })
        }
    }

    /// Whether the first sample of track `id`'s run in `moof` is a sync sample.
    static func startsWithSync(_ data: [UInt8], _ moof: Box, track id: UInt32) -> Bool {
        guard let traf = children(data, moof).first(where: { $0.type == "traf" && u32(data, $0.start + 20) == id }),
              let trun = children(data, traf).first(where: { $0.type == "trun" }) else { return false }
        return u32(data, trun.start + 28) & 0x1_0000 == 0
    }

    /// CMAF: its brands, one track a fragment, video fragments at sync samples every 2 s; a track
    /// of several edits, and tx3g text, refused by name with nothing written.
    @Test func cmafHasOneTrackAFragment() throws {
        let source = try Fixtures.grouped.get()
        let plain = try Self.remux(source, "cmaf-plain.mp4", ["--tracks", "1,2,4"])
        let cmaf = try Self.remux(source, "cmaf.mp4", ["--tracks", "1,2,4", "--cmaf"])
        #expect(try Tool.run("ffprobe", ["-v", "error", cmaf.path]).stderr.isEmpty)
        #expect(try Self.soundAndPictureHash(cmaf) == Self.soundAndPictureHash(plain))
        #expect(try Self.packets(cmaf) == Self.packets(plain))
        let data = [UInt8](try Data(contentsOf: cmaf))
        let ftyp = Self.boxes(data)[0]
        let brands = stride(from: ftyp.start + 16, to: ftyp.start + ftyp.size, by: 4).map { String(decoding: data[$0..<($0 + 4)], as: UTF8.self) }
        #expect(String(decoding: data[8..<12], as: UTF8.self) == "cmf2" && brands.contains("cmfc") && brands.contains("iso6"), "\(brands)")
        let fragments = Self.fragments(data)
        #expect(fragments.allSatisfy { $0.tracks.count == 1 })
        let video = fragments.filter { $0.tracks == [1] }
        #expect(video.count == 2, "3 s in fragments of 2 s (sync samples every second)")
        #expect(video.allSatisfy { Self.startsWithSync(data, $0.moof, track: 1) })
        #expect(Set(fragments.flatMap(\.tracks)) == [1, 2, 3])

        // Several edits (a cut kept exact), and tx3g: refused, nothing written.
        let cut = Fixtures.path("cmaf-two-edits.mp4")
        let made = try Tool.splice(["concat", "--cut", "exact", "\(source.path)#t=0.5,1.5", "\(source.path)#t=1.7,2.5", "-o", cut.path, "--force"])
        #expect(made.status == 0, "\(made.stderr)")
        // Two video tracks whose sync samples are not aligned (GOPs of 25 and 35 frames), and
        // the same aligned (both 25): CMAF's segments start together.
        var twoVideo: [URL] = []
        for (name, gops) in [("cmaf-two-video.mp4", ["-g:v:0", "25", "-g:v:1", "35", "-keyint_min", "35"]), ("cmaf-two-aligned.mp4", ["-g", "25"])] {
            let url = Fixtures.path(name)
            try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=4",
                             "-map", "0", "-map", "1", "-c:v", "libx264", "-preset", "ultrafast", "-sc_threshold", "0"] + gops + [url.path])
            twoVideo.append(url)
        }
        let aligned = try Self.remux(twoVideo[1], "cmaf-two-aligned-out.mp4", ["--cmaf"])
        let alignedData = [UInt8](try Data(contentsOf: aligned))
        #expect(Self.fragments(alignedData).allSatisfy { f in f.tracks.allSatisfy { Self.startsWithSync(alignedData, f.moof, track: $0) } })
        for (input, tracks, words) in [(cut, "video", "edits"), (source, "1,5", "tx3g"), (twoVideo[0], "video", "track 1's fragment starts")] {
            let out = Fixtures.path("cmaf-refused.mp4")
            let r = try Tool.splice(["remux", input.path, out.path, "--tracks", tracks, "--cmaf", "--force"])
            #expect(r.status == 65 && r.stderr.contains(words) && r.stderr.contains("CMAF"), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }

    /// `--sidx` and `--mfra`: the index covers every fragment, byte for byte, and the random
    /// access box each track's fragments.
    @Test func segmentIndexAndRandomAccessCoverEveryFragment() throws {
        let source = try EncryptionTests.movies.get().clear
        let out = try Self.remux(source, "fragment-indexed.mp4", ["--fragment", "0.5", "--sidx", "--mfra"])
        #expect(try Tool.run("ffprobe", ["-v", "error", out.path]).stderr.isEmpty)
        let data = [UInt8](try Data(contentsOf: out))
        let top = Self.boxes(data)
        #expect(top.prefix(4).map(\.type) == ["ftyp", "moov", "sidx", "free"] && top.last?.type == "mfra", "\(top.map(\.type))")
        let moofs = top.filter { $0.type == "moof" }
        let sidx = top[2], mfra = top.last!
        #expect(moofs.count == 3, "2 s in fragments of 0.5 s or more, at sync samples every 0.48 s")
        // sidx v1: ID, timescale, earliest time (8), first offset (8), reserved, count, then 12 bytes a reference
        let firstOffset = Int(Self.u32(data, sidx.start + 32))   // (the low half of a 64-bit field)
        let count = Int(Self.u32(data, sidx.start + 36) & 0xFFFF)
        let sizes = (0..<count).map { Int(Self.u32(data, sidx.start + 40 + 12 * $0) & 0x7FFF_FFFF) }
        #expect(count == moofs.count && sidx.start + sidx.size + firstOffset == moofs[0].start)
        #expect(sizes.reduce(0, +) == mfra.start - moofs[0].start)
        #expect(Int(Self.u32(data, data.count - 4)) == mfra.size)
        let tfras = Self.children(data, mfra).filter { $0.type == "tfra" }
        #expect(tfras.count == 2 && tfras.allSatisfy { Int(Self.u32(data, $0.start + 20)) == moofs.count })
        #expect(try Self.soundAndPictureHash(out) == Self.soundAndPictureHash(try Self.remux(source, "fragment-indexed-plain.mp4")))
    }

    /// An encrypted movie fragmented: each fragment's `senc`/`saiz`/`saio` hold its samples'
    /// IVs and subsample maps (the script reads the same entries as in the source), `--verify`
    /// agrees, and ffmpeg decrypts the packets to the clear movie's.
    @Test func anEncryptedMovieKeepsItsAuxiliaryInformationFragmentByFragment() throws {
        let (clear, encrypted) = try EncryptionTests.movies.get()
        let out = Fixtures.path("cenc-fragmented-out.mp4")
        let r = try Tool.splice(["remux", encrypted.path, out.path, "--fragment", "0.5", "--force", "--verify"])
        #expect(r.status == 0 && r.stdout.contains("verified: 2 tracks, 138 samples"), "\(r.stderr)")
        #expect(try EncryptionTests.entries(out) == EncryptionTests.entries(encrypted))
        let data = [UInt8](try Data(contentsOf: out))
        let fragments = Self.fragments(data)
        #expect(fragments.count == 3 && fragments.allSatisfy { f in
            Self.children(data, f.moof).filter { $0.type == "traf" }.allSatisfy { traf in
                Set(Self.children(data, traf).map(\.type)).isSuperset(of: ["senc", "saiz", "saio"])
            }
        })
        let decrypted = try Tool.check("ffmpeg", ["-v", "error", "-decryption_key", EncryptionTests.key, "-i", out.path, "-map", "0",
                                                  "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]).stdout
        let original = try Tool.check("ffmpeg", ["-v", "error", "-i", clear.path, "-map", "0", "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]).stdout
        #expect(decrypted == original && !decrypted.isEmpty)
    }

    /// The pictures GStreamer presents from the first video track.
    static func gstreamerFrames(_ url: URL) throws -> Int {
        let r = try Tool.check("gst-launch-1.0", ["-v", "filesrc", "location=\(url.path)", "!", "qtdemux", "name=d", "d.video_0", "!", "h264parse",
                                                  "!", "avdec_h264", "!", "identity", "name=frames", "silent=false", "!", "fakesink"])
        return r.stdout.components(separatedBy: "chain   ******* (frames:sink)").count - 1
    }

    /// Played where people watch: every frame in GStreamer, from a CMAF remux and from a
    /// fragmented smart trim (its one edit, from the B-frames' delay to the end, is written
    /// open-ended, as CMAF does: with its duration GStreamer drops the last frame), and the
    /// trim's frames are the plain trim's (ffmpeg's framemd5).
    @Test func fragmentsPlayFrameForFrame() throws {
        let source = try Fixtures.grouped.get()
        let cmaf = try Self.remux(source, "play-cmaf.mp4", ["--tracks", "1,2", "--cmaf"])
        #expect(try Self.gstreamerFrames(cmaf) == 75)
        var trims: [URL] = []
        for (name, options) in [("play-trim.mp4", []), ("play-trim-fragmented.mp4", ["--fragment", "1"])] {
            let out = Fixtures.path(name)
            let r = try Tool.splice(["trim", source.path, "-o", out.path, "--range", "0.5,2.5", "--force"] + options)
            #expect(r.status == 0, "\(r.stderr)")
            trims.append(out)
        }
        #expect(try trims.map { try Self.gstreamerFrames($0) } == [50, 50])
        let frames = try trims.map { url in
            try Tool.check("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:v", "-f", "framemd5", "-"]).stdout
                .split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").last.map(String.init) ?? "" }
        }
        #expect(frames[0].count == 50 && frames[0] == frames[1])
    }

    /// The library's names (`ExportSession`'s, passed to its `AssetWriter`): the file the
    /// command line writes; a fragment interval into Matroska, or of no length, refused.
    @Test func theLibrarysNamesWriteWhatTheCommandLineWrites() throws {
        let source = try EncryptionTests.movies.get().clear
        let out = Fixtures.path("fragment-library.mp4")
        let session = ExportSession(asset: try Asset(url: source), preset: .passthrough)
        session.outputURL = out
        session.replacesExistingFile = true
        session.movieFragmentInterval = MediaTime(value: 1, timescale: 2)
        session.writesSegmentIndex = true
        try session.run()
        let cli = try Self.remux(source, "fragment-cli.mp4", ["--fragment", "0.5", "--sidx"])
        let (a, b) = ([UInt8](try Data(contentsOf: out)), [UInt8](try Data(contentsOf: cli)))
        #expect(Self.boxes(a).map(\.type) == Self.boxes(b).map(\.type))
        #expect(try Self.packets(out) == Self.packets(cli) && Self.soundAndPictureHash(out) == Self.soundAndPictureHash(cli))
        let back = try Asset(url: out)
        #expect(back.tracks.map(\.timeRange) == (try Asset(url: cli)).tracks.map(\.timeRange))

        for (name, interval) in [("fragment-refused.mkv", MediaTime(value: 1, timescale: 1)), ("fragment-refused.mp4", .zero)] {
            let writer = try AssetWriter(outputURL: Fixtures.path(name), fileType: FileType(pathExtension: String(name.suffix(3)))!)
            writer.movieFragmentInterval = interval
            #expect(!writer.startWriting())
            #expect(writer.error?.message.contains(interval == .zero ? "must be positive" : "not .mkv") == true, "\(String(describing: writer.error))")
            #expect(!FileManager.default.fileExists(atPath: Fixtures.path(name).path))
        }
    }

    /// `subtitles add --format wvtt --cmaf`: WebVTT in CMAF, the cues read back as from the plain file.
    @Test func webVTTSubtitlesGoIntoCMAF() throws {
        let movie = try EncryptionTests.movies.get().clear
        let srt = try Fixtures.write("cmaf-subs.es.srt", "1\n00:00:00,500 --> 00:00:01,200\nHola\n\n2\n00:00:01,400 --> 00:00:01,900\nAdiós\n")
        let out = Fixtures.path("cmaf-subs.mp4"), back = Fixtures.path("cmaf-subs-back.srt")
        let r = try Tool.splice(["subtitles", "add", movie.path, srt.path, "-o", out.path, "--format", "wvtt", "--cmaf", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let data = [UInt8](try Data(contentsOf: out))
        #expect(Self.fragments(data).allSatisfy { $0.tracks.count == 1 } && Set(Self.fragments(data).flatMap(\.tracks)) == [1, 2, 3])
        let plain = Fixtures.path("cmaf-subs-plain.mp4"), plainBack = Fixtures.path("cmaf-subs-plain.srt")
        #expect(try Tool.splice(["subtitles", "add", movie.path, srt.path, "-o", plain.path, "--format", "wvtt", "--force"]).status == 0)
        for (file, text) in [(out, back), (plain, plainBack)] {
            #expect(try Tool.splice(["subtitles", "extract", file.path, "-o", text.path, "--force"]).status == 0)
        }
        let cues = try String(contentsOf: back, encoding: .utf8)
        #expect(cues == (try String(contentsOf: plainBack, encoding: .utf8)) && cues.contains("00:00:01,400 --> 00:00:01,900\nAdiós"))
    }

    /// Negative composition offsets (ffmpeg's `negative_cts_offsets`): FFmpeg shows a fragmented
    /// track's as a later start (80 ms late against the sound here), so they are raised to none
    /// negative and the edit's media time with them — ffmpeg then reads the plain remux's packet
    /// times, and `--verify` agrees.
    @Test func negativeCompositionOffsetsAreRaised() throws {
        let source = try Fixtures.negativeCTS.get()
        let plain = try Self.remux(source, "fragment-negative-plain.mp4")
        let fragmented = try Self.remux(source, "fragment-negative.mp4", ["--fragment", "0.5", "--verify"])
        #expect(try Self.packets(fragmented) == Self.packets(plain))
        let starts = { (url: URL) in
            // (the video's: ffmpeg starts a fragmented AAC track at its priming packet, hidden or not)
            try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream=start_time", "-of", "csv=p=0", url.path]).stdout
        }
        #expect(try starts(fragmented) == starts(plain))
        let data = [UInt8](try Data(contentsOf: fragmented))
        let runs = Self.fragments(data).flatMap { f in
            Self.children(data, f.moof).filter { $0.type == "traf" }.flatMap { Self.children(data, $0).filter { $0.type == "trun" } }
        }
        #expect(!runs.isEmpty && runs.allSatisfy { data[$0.start + 8] == 0 }, "every trun version 0: no negative offset")
    }

    /// `initialSegmentStartTime`: the fragments' decode times (`tfdt`) start there, and the
    /// edits move with them, so the movie is shown as before — Splice and ffmpeg read the
    /// plain remux's times.
    @Test func aLaterSegmentStartTimeMovesTheDecodeTimesOnly() throws {
        let source = try Fixtures.grouped.get()
        let out = Fixtures.path("fragment-start-10.mp4")
        let session = ExportSession(asset: try Asset(url: source), preset: .passthrough)
        session.outputURL = out
        session.replacesExistingFile = true
        session.trackSelection = TrackSelection(including: try TrackSelection.items("1,2"))
        session.movieFragmentInterval = MediaTime(value: 1, timescale: 1)
        session.initialSegmentStartTime = MediaTime(value: 10, timescale: 1)
        try session.run()
        let plain = try Self.remux(source, "fragment-start-plain.mp4", ["--tracks", "1,2"])
        let data = [UInt8](try Data(contentsOf: out))
        let first = try #require(Self.fragments(data).first)
        let traf = try #require(Self.children(data, first.moof).first { $0.type == "traf" })
        let tfdt = try #require(Self.children(data, traf).first { $0.type == "tfdt" })
        let timescale: UInt32 = Self.u32(data, traf.start + 20) == 1 ? 12800 : 44100
        #expect(Self.u32(data, tfdt.start + 16) == 10 * timescale, "tfdt (version 1, low half) at 10 s")
        #expect(try Asset(url: out).tracks.map(\.timeRange) == Asset(url: plain).tracks.map(\.timeRange))
        #expect(try Self.packets(out) == Self.packets(plain))
    }
}
