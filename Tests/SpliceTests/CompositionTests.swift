import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// `MutableComposition`, `splice concat` and `splice merge`, checked with ffmpeg's decode
/// (framemd5), per-packet md5s and the boxes' durations.
@Suite("Compositions")
struct CompositionTests {
    /// Three 6 s clips made by ffmpeg: H.264 with B-frames and a key frame every 2 s (50 frames),
    /// AAC tones of 440, 660 and 880 Hz, different test pictures.
    static let clips: Result<[URL], Error> = Result {
        try [("a", "testsrc2", 440), ("b", "testsrc", 660), ("c", "rgbtestsrc", 880)].map { name, picture, tone in
            let url = Fixtures.path("clip-\(name).mp4")
            try Tool.ffmpeg(["-f", "lavfi", "-i", "\(picture)=size=320x240:rate=25:duration=6", "-f", "lavfi",
                             "-i", "sine=frequency=\(tone):sample_rate=48000:duration=6", "-c:v", "libx264", "-preset", "veryfast",
                             "-pix_fmt", "yuv420p", "-g", "50", "-bf", "2", "-c:a", "aac", "-b:a", "128k", url.path])
            return url
        }
    }

    static func seconds(_ s: Double) -> MediaTime { MediaTime(seconds: s, preferredTimescale: 90_000) }
    static func range(_ a: Double, _ b: Double) -> TimeRange { TimeRange(start: seconds(a), end: seconds(b)) }

    /// The md5s of the decoded video frames of `url` between `from` and `to` seconds (ffmpeg's trim).
    static func frames(_ url: URL, from: Double? = nil, to: Double? = nil) throws -> [String] {
        var args = ["-v", "error", "-i", url.path, "-map", "0:v:0"]
        if let from, let to { args += ["-vf", "trim=start=\(from):end=\(to),setpts=PTS-STARTPTS"] }
        return try Tool.check("ffmpeg", args + ["-f", "framemd5", "-"]).stdout.split(separator: "\n")
            .filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// Every packet's md5 (video and audio), ffmpeg's demuxer.
    static func packetHashes(_ url: URL) throws -> [String] {
        try Tool.check("ffprobe", ["-v", "error", "-show_packets", "-show_data_hash", "md5", "-show_entries", "packet=data_hash",
                                   "-of", "csv=p=0", url.path]).stdout
            .split(separator: "\n").compactMap { line in line.split(separator: ",").first { $0.hasPrefix("MD5:") }.map(String.init) }
    }

    @Test func passthroughConcatIsFrameExactAndByteExact() throws {
        let clips = try CompositionTests.clips.get()
        let ranges = [(1.3, 3.1), (0.5, 2.7), (2.2, 4.0)]
        let composition = MutableComposition()
        for (clip, (a, b)) in zip(clips, ranges) {
            try composition.insertTimeRange(CompositionTests.range(a, b), of: try Asset(url: clip), at: composition.duration)
        }
        #expect(abs(composition.duration.seconds - 5.8) < 0.001)
        let out = Fixtures.path("concat-passthrough.mp4")
        let session = ExportSession(asset: try composition.makeAsset(), preset: .passthrough)
        session.outputURL = out
        session.replacesExistingFile = true
        try session.run()
        // Every packet is a source packet.
        let sources = Set(try clips.flatMap(CompositionTests.packetHashes))
        let ours = try CompositionTests.packetHashes(out)
        #expect(!ours.isEmpty && ours.allSatisfy(sources.contains))
        // The decoded frames are exactly the sources' frames in the ranges, in order.
        let expected = try zip(clips, ranges).flatMap { try CompositionTests.frames($0, from: $1.0, to: $1.1) }
        let decoded = try CompositionTests.frames(out)
        #expect(decoded.count == expected.count && decoded == expected, "\(decoded.count) frames against \(expected.count)")
        // Durations from the boxes: the edit lists sum to the ranges.
        let asset = try Asset(url: out)
        #expect(abs(asset.duration.seconds - 5.8) < 0.001, "\(asset.duration.seconds)")
        for track in asset.tracks {
            let shown = track.segments.reduce(0.0) { $0 + $1.target.duration.seconds }
            #expect(abs(shown - 5.8) <= 1024.0 / 48000, "track \(track.trackID): \(shown) s")
            #expect(track.segments.count == 3)
        }
    }
}

extension CompositionTests {
    /// The same clip cut at 2.5 s and joined again: the tone runs on without a click at the join
    /// (the AAC pre-roll packet is carried and skipped by the edit list).
    @Test func noClickAtAnAACJoin() throws {
        let a = try CompositionTests.clips.get()[0]
        let out = Fixtures.path("concat-join.mp4")
        let r = try Tool.splice(["concat", a.path + "#t=0,2.5", a.path + "#t=2.5,5", "-o", out.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("copied"))
        // Decoded by ffmpeg to 16-bit samples: the largest step between neighbours near the join
        // against the tone's own largest step away from it.
        let pcm = try Tool.check("ffmpeg", ["-v", "error", "-i", out.path, "-map", "0:a:0", "-f", "s16le", "-ac", "1", "-"]).stdoutData
        let samples = pcm.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        func largestStep(_ range: Range<Int>) -> Int {
            range.dropFirst().reduce(0) { max($0, abs(Int(samples[$1]) - Int(samples[$1 - 1]))) }
        }
        let join = 120_000   // 2.5 s at 48 kHz
        let own = largestStep(48_000..<96_000)
        let atJoin = largestStep((join - 2048)..<(join + 2048))
        #expect(own > 0 && Double(atJoin) <= Double(own) * 1.2, "step \(atJoin) at the join against \(own) elsewhere")
        #expect(abs(Double(samples.count) / 48_000 - 5) < 0.05, "\(samples.count) samples")
    }

    /// Clips that cannot share a track: `auto` re-encodes (to the first clip's size, the other
    /// letterboxed) and says which clip differs; `never` fails with that reason.
    @Test func unlikeClipsAreReencodedOrRefused() throws {
        let a = try CompositionTests.clips.get()[0]
        let wide = Fixtures.path("clip-wide.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x200:rate=25:duration=2", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=2",
                         "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", wide.path])
        let out = Fixtures.path("concat-unlike.mp4")
        let never = try Tool.splice(["concat", a.path + "#t=0,2", wide.path, "-o", out.path, "--reencode", "never", "--force"])
        #expect(never.status == 65, "\(never.stderr)")
        #expect(never.stderr.contains("clip-wide.mp4") && never.stderr.contains("picture size differs"), "\(never.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let auto = try Tool.splice(["concat", a.path + "#t=0,2", wide.path, "-o", out.path, "--preset", "lowQuality", "--force"])
        #expect(auto.status == 0, "\(auto.stderr)")
        #expect(auto.stderr.contains("re-encoding every clip") && auto.stderr.contains("clip-wide.mp4"), "\(auto.stderr)")
        let streams = try Tool.ffprobeStreams(out)
        #expect(streams[0]["width"] as? Int == 320 && streams[0]["height"] as? Int == 240)
        #expect(streams[1]["sample_rate"] as? String == "48000")
        let frames = try CompositionTests.frames(out)
        #expect(frames.count == 100, "\(frames.count) frames")
        // The wide clip letterboxed: black bars above and below its picture in the last frame.
        let png = Fixtures.path("unlike-last.png")
        try Tool.ffmpeg(["-sseof", "-0.1", "-i", out.path, "-frames:v", "1", "-vf", "crop=320:20:0:0,signalstats,metadata=print:key=lavfi.signalstats.YAVG",
                         "-f", "null", "-"])
        let stats = try Tool.check("ffmpeg", ["-v", "info", "-sseof", "-0.1", "-i", out.path, "-frames:v", "1",
                                              "-vf", "crop=320:20:0:0,signalstats,metadata=print:key=lavfi.signalstats.YAVG", "-f", "null", "-"]).stderr
        let yavg = stats.split(separator: "\n").compactMap { $0.split(separator: "=").last.flatMap { Double($0) } }.last ?? 255
        #expect(yavg < 20, "top bar luma \(yavg)")
        _ = png
        let decode = try Tool.run("ffmpeg", ["-v", "error", "-i", out.path, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
    }

    /// A screen recording and a longer WAV: the video's packets unchanged, the WAV encoded as
    /// AAC and trimmed to the video; with --keep-original-audio, one group of two.
    @Test func mergeAVideoWithARecording() throws {
        let a = try CompositionTests.clips.get()[0]
        let wav = Fixtures.path("voice.wav")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=300:sample_rate=44100:duration=10", "-c:a", "pcm_s16le", wav.path])
        let out = Fixtures.path("merged.mp4")
        let r = try Tool.splice(["merge", a.path, wav.path, "-o", out.path, "--keep-original-audio", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("encoded as AAC"), "\(r.stderr)")
        func videoHash(_ url: URL) throws -> String {
            try Tool.check("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:v", "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]).stdout
        }
        #expect(try videoHash(out) == videoHash(a))
        let streams = try Tool.ffprobeStreams(out)
        #expect(streams.map { $0["codec_name"] as? String } == ["h264", "aac", "aac"])
        let asset = try Asset(url: out)
        let added = try #require(asset.tracks.first { $0.mediaType == .audio && $0.isEnabled })
        #expect(abs(added.timeRange.duration.seconds - 6) < 0.03, "\(added.timeRange.duration.seconds)")
        let groups = try RemuxTests.mediainfoTracks(out)
        #expect(groups.filter { $0.contains("group=1") }.count == 2, "\(groups)")
        #expect(groups.contains { $0.contains("group=1 default=Yes") } && groups.contains { $0.contains("group=1 default=No") }, "\(groups)")
        let level = try EncodingTests.meanVolume(out)
        #expect(level < -3 && level > -30, "\(level)")
    }

    /// Edits read back through the reader: samples retimed onto the composition's timeline.
    @Test func compositionEditsReadBack() throws {
        let a = try CompositionTests.clips.get()[0]
        let asset = try Asset(url: a)
        let composition = MutableComposition()
        let video = try #require(composition.addMutableTrack(withMediaType: .video))
        let source = asset.tracks(withMediaType: .video)[0]
        try video.insertTimeRange(CompositionTests.range(0, 2), of: source, at: .zero)             // 0–2: a 0–2
        try video.insertTimeRange(CompositionTests.range(4, 6), of: source, at: .zero)             // 0–2: a 4–6, then a 0–2
        video.insertEmptyTimeRange(CompositionTests.range(2, 3))                                    // a gap of 1 s at 2
        #expect(video.segments.map(\.isEmpty) == [false, true, false])
        #expect(abs(video.timeRange.duration.seconds - 5) < 0.001)
        video.removeTimeRange(CompositionTests.range(1, 3.5))                                       // across three segments
        #expect(video.segments.count == 2)
        #expect(abs(video.timeRange.duration.seconds - 2.5) < 0.001)
        #expect(abs(video.segments[1].sourceRange!.start.seconds - 0.5) < 0.001)
        composition.scaleTimeRange(CompositionTests.range(0, 1), toDuration: CompositionTests.seconds(2))   // slow motion
        #expect(abs(composition.duration.seconds - 3.5) < 0.001)
        #expect(throws: MediaError.self) { try video.insertTimeRange(CompositionTests.range(5, 7), of: source, at: .zero) }
        #expect(throws: MediaError.self) { try video.insertTimeRange(CompositionTests.range(2, 2), of: source, at: .zero) }

        // Decoded: 50 pictures over 0–2 s (25 frames slowed twice), then 38 from a 0.5–2 s.
        let reader = try AssetReader(asset: composition)
        let output = AssetReaderTrackOutput(track: reader.asset.tracks[0], outputSettings: .video(VideoOutputSettings()))
        try reader.add(output)
        #expect(reader.startReading())
        var times: [Double] = []
        while let s = output.copyNextSampleBuffer() { times.append(s.presentationTimeStamp.seconds) }
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        #expect(times.count == 25 + 37 || times.count == 25 + 38, "\(times.count) pictures")
        #expect(abs(times[1] - 0.08) < 0.001 && abs(times[25] - 2.0) < 0.021, "\(times.prefix(27))")
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        // A scaled segment cannot be copied: passthrough names it.
        let session = ExportSession(asset: try composition.makeAsset(), preset: .passthrough)
        session.outputURL = Fixtures.path("scaled.mp4")
        #expect(throws: MediaError.self) { try session.run() }
        #expect(session.error?.message.contains("another speed") == true, "\(String(describing: session.error))")
    }

    @Test func badClipsAreNamed() throws {
        let a = try CompositionTests.clips.get()[0]
        let out = Fixtures.path("bad-concat.mp4")
        let cases: [([String], Int32, String)] = [
            (["/no/such/clip.mp4"], 66, "clip.mp4"),
            ([a.path + "#t=5,9"], 65, "past the end"),
            ([a.path + "#t=3,2"], 64, "ends before it starts"),
            ([a.path + "#t=x"], 64, "is not a time"),
        ]
        for (clips, status, message) in cases {
            let r = try Tool.splice(["concat"] + clips + ["-o", out.path])
            #expect(r.status == status && r.stderr.contains(message), "\(clips): \(r.status) \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
        let wav = Fixtures.path("only-sound.wav")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=duration=1", wav.path])
        let r = try Tool.splice(["concat", wav.path, wav.path, "-o", out.path])
        #expect(r.status == 65 && r.stderr.contains("no clip has video"), "\(r.stderr)")
        let sound = Fixtures.path("joined.m4a")
        let joined = try Tool.splice(["concat", wav.path, wav.path + "#t=0.5", "-o", sound.path, "--force"])
        #expect(joined.status == 0, "\(joined.stderr)")
        let d = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", sound.path]).stdout
        #expect(abs((Double(d.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 1.5) < 0.03, "\(d)")
    }

    /// Into Matroska (no edit lists): `never` cuts at sync samples and copies; the frames are the
    /// sources' whole GOPs. The default cuts smart.
    @Test func matroskaCutsAtSyncSamples() throws {
        let clips = try CompositionTests.clips.get()
        let out = Fixtures.path("concat.mkv")
        let r = try Tool.splice(["concat", clips[0].path + "#t=2.5,3.9", clips[1].path + "#t=0,2", "-o", out.path, "--reencode", "never", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("cut at sync samples, 2.000–4.000 s"), "\(r.stderr)")
        let expected = try CompositionTests.frames(clips[0], from: 2, to: 4) + CompositionTests.frames(clips[1], from: 0, to: 2)
        #expect(try CompositionTests.frames(out) == expected)
        let decode = try Tool.run("ffmpeg", ["-v", "error", "-i", out.path, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
        // The default cuts smart: the first clip's frames re-encoded (whole frames: the one on
        // screen at 2.5 s, 2.48–2.52 s, from 0 s), the second's copied.
        let auto = try Tool.splice(["concat", clips[0].path + "#t=2.5,3.9", clips[1].path + "#t=0,2", "-o", out.path, "--force"])
        #expect(auto.status == 0 && auto.stdout.contains("copied") && auto.stderr.contains("track 1 (smart cut): 35 frames re-encoded (35 at the start, 0 at the end), 50 copied"),
                "\(auto.stdout) \(auto.stderr)")
        #expect(try CompositionTests.frames(out).count == 35 + 50)
    }
}

extension CompositionTests {
    /// A range played at half speed and re-encoded: the picture's times stretch, the sound
    /// lasts twice as long at the same pitch (libavfilter's atempo): a 440 Hz tone stays 440 Hz.
    @Test func aScaledRangeKeepsItsPitch() throws {
        let a = try CompositionTests.clips.get()[0]
        let composition = MutableComposition()
        try composition.insertTimeRange(CompositionTests.range(0, 2), of: try Asset(url: a), at: .zero)
        composition.scaleTimeRange(CompositionTests.range(0, 2), toDuration: CompositionTests.seconds(4))
        let out = Fixtures.path("slow.mp4")
        let session = ExportSession(asset: try composition.makeAsset(), preset: .lowQuality)
        session.outputURL = out
        session.replacesExistingFile = true
        try session.run()
        let pcm = try Tool.check("ffmpeg", ["-v", "error", "-i", out.path, "-map", "0:a:0", "-f", "s16le", "-ac", "1", "-ar", "48000", "-"]).stdoutData
        let samples = pcm.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(abs(Double(samples.count) / 48_000 - 4) < 0.05, "\(Double(samples.count) / 48_000) s of sound")
        let middle = samples[24_000..<168_000]
        let crossings = zip(middle, middle.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        let hertz = Double(crossings) / 2 / 3
        #expect(abs(hertz - 440) < 8, "\(hertz) Hz")
        // The 50 pictures of 0–2 s, each shown twice as long.
        let frames = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=avg_frame_rate,nb_frames",
                                                "-of", "csv=p=0", out.path]).stdout
        #expect(frames.hasPrefix("25/2,50"), "\(frames)")
    }
}

extension CompositionTests {
    /// `--all-tracks`: every track the clips share, with its group, enabled flag and language;
    /// the subtitle track's own empty edit stays empty; every packet is a source packet.
    @Test func allTracksKeepTheirGroups() throws {
        let grouped = try Fixtures.grouped.get()
        let out = Fixtures.path("concat-all.mp4")
        let r = try Tool.splice(["concat", grouped.path, grouped.path + "#t=1,2", "--all-tracks", "--cut", "exact", "-o", out.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let ours = try RemuxTests.mediainfoTracks(out).map { $0.split(separator: " ").prefix(5).joined(separator: " ") }
        let theirs = try RemuxTests.mediainfoTracks(grouped).map { $0.split(separator: " ").prefix(5).joined(separator: " ") }
            .filter { !$0.hasPrefix("Menu") }   // chapters are not joined
        #expect(ours == theirs, "\(ours) against \(theirs)")
        let sources = Set(try CompositionTests.packetHashes(grouped))
        #expect(try CompositionTests.packetHashes(out).allSatisfy(sources.contains))
        let forced = try #require(try Asset(url: out).tracks.first { $0.mediaType == .subtitle && !$0.isEnabled })
        #expect(forced.segments.first?.isEmpty == true && abs(forced.segments.first!.target.duration.seconds - 1) < 0.001)
        let decode = try Tool.run("ffmpeg", ["-v", "error", "-i", out.path, "-map", "0:v", "-map", "0:a", "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
    }
}

extension CompositionTests {
    /// A join takes the first clip's metadata (its date and title).
    @Test func concatKeepsTheFirstClipsMetadata() throws {
        let clips = try CompositionTests.clips.get()
        let tagged = Fixtures.path("clip-tagged.mp4")
        try Tool.ffmpeg(["-i", clips[0].path, "-c", "copy", "-metadata", "creation_time=2021-01-01T00:00:00Z", "-metadata", "title=Clip", tagged.path])
        let out = Fixtures.path("concat-tagged.mp4")
        #expect(try Tool.splice(["concat", tagged.path + "#t=0,2", clips[1].path + "#t=0,2", "-o", out.path, "--force"]).status == 0)
        let tags = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "default=nw=1", out.path]).stdout
        #expect(tags.contains("TAG:creation_time=2021-01-01T00:00:00") && tags.contains("TAG:title=Clip"), "\(tags)")
    }
}

extension CompositionTests {
    /// Re-encoded clips take the first clip's frame rate, constant: a 30 fps clip after a 25 fps
    /// one comes out at 25 fps, each picture the one shown at its time (ffmpeg's fps filter,
    /// rounding down, as the reference).
    @Test func reencodedClipsTakeTheFirstClipsFrameRate() throws {
        let a = try CompositionTests.clips.get()[0]
        let thirty = Fixtures.path("clip-30fps.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=30:duration=2", "-f", "lavfi", "-i", "sine=duration=2:sample_rate=48000",
                         "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", thirty.path])
        let out = Fixtures.path("concat-cfr.mp4")
        let r = try Tool.splice(["concat", a.path + "#t=0,2", thirty.path, "-o", out.path, "--reencode", "always", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let v = try #require(try Tool.ffprobeStreams(out).first)
        #expect(v["r_frame_rate"] as? String == "25/1" && v["avg_frame_rate"] as? String == "25/1" && v["nb_frames"] as? String == "100", "\(v)")
        let reference = Fixtures.path("clip-30fps-at-25.mp4")
        try Tool.ffmpeg(["-i", thirty.path, "-vf", "fps=25:round=down", "-c:v", "libx264", "-qp", "0", "-preset", "ultrafast", reference.path])
        let ssim = try Tool.check("ffmpeg", ["-v", "info", "-nostats", "-i", out.path, "-i", reference.path,
                                             "-lavfi", "[0:v]trim=start=2,setpts=PTS-STARTPTS[a];[a][1:v]ssim", "-f", "null", "-"]).stderr
        let all = ssim.split(separator: "\n").last { $0.contains("SSIM") }.flatMap { $0.split(separator: " ").first { $0.hasPrefix("All:") } }
            .flatMap { Double($0.dropFirst(4)) } ?? 0
        #expect(all >= 0.95, "SSIM \(all)")
    }
}
