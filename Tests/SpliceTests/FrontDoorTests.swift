import Foundation
import Splice
import Testing
import TestSupport

/// What a newcomer touches first: every job on the bundled sample, `make demo`, the CLI's one
/// contract (exit statuses, one summary line), track selection, and clips of any shape joined.
@Suite("The front door")
struct FrontDoorTests {
    static let sample = DemoSampleTests.sample
    static let repo = DocumentationTests.repo

    /// A job on the sample: its arguments (`OUT` is the output) and the streams ffprobe finds in
    /// what it writes, or the message it fails with (exit 65).
    struct Job: CustomTestStringConvertible, Sendable {
        var name: String
        var output: String
        var arguments: [String]
        var streams: String?
        var refusal: String? = nil
        var testDescription: String { name }
    }

    static let s = sample.path
    static let jobs: [Job] = [
        Job(name: "export passthrough", output: "e-passthrough.mp4", arguments: ["export", s, "-o", "OUT", "--preset", "passthrough"],
            streams: "video audio audio audio subtitle subtitle data"),
        Job(name: "export mediumQuality", output: "e-medium.mp4", arguments: ["export", s, "-o", "OUT", "--preset", "mediumQuality"],
            streams: "video audio audio audio subtitle subtitle data"),
        Job(name: "export 640x480", output: "e-640.mov", arguments: ["export", s, "-o", "OUT", "--preset", "640x480"],
            streams: "video audio audio audio subtitle subtitle data"),
        Job(name: "export hevc1920x1080", output: "e-hevc.mp4", arguments: ["export", s, "-o", "OUT", "--preset", "hevc1920x1080"],
            streams: "video audio audio audio subtitle subtitle data"),
        Job(name: "export appleM4A", output: "e.m4a", arguments: ["export", s, "-o", "OUT", "--preset", "appleM4A"],
            streams: "audio audio audio data"),
        Job(name: "export to .mka", output: "e.mka", arguments: ["export", s, "-o", "OUT", "--preset", "mediumQuality"], streams: "audio audio audio"),
        Job(name: "export to .opus", output: "e.opus", arguments: ["export", s, "-o", "OUT", "--preset", "lowQuality"], streams: "audio audio audio"),
        Job(name: "mix", output: "mix.mp4", arguments: ["mix", s, "MUSIC", "-o", "OUT"], streams: "video audio audio audio subtitle subtitle data"),
        Job(name: "merge", output: "merge.mp4", arguments: ["merge", s, "VOICE", "-o", "OUT"], streams: "video audio"),
        Job(name: "concat", output: "concat.mp4", arguments: ["concat", s + "#t=0,1.6", s + "#t=2,3", "-o", "OUT"], streams: "video audio"),
        Job(name: "trim", output: "trim.mkv", arguments: ["trim", s, "-o", "OUT", "--range", "0.6,2.2"],
            streams: "video audio audio audio subtitle subtitle"),
        Job(name: "images with sound", output: "images.mp4", arguments: ["images", "PHOTO", "PHOTO", "-o", "OUT", "--audio", "MUSIC"],
            streams: "video audio"),
        Job(name: "subtitles add", output: "sub.mp4", arguments: ["subtitles", "add", s, "FRENCH", "-o", "OUT"],
            streams: "video audio audio audio subtitle subtitle data subtitle"),
        Job(name: "subtitles extract", output: "sub.srt", arguments: ["subtitles", "extract", s, "-o", "OUT"], streams: "subtitle"),
        Job(name: "thumbnail", output: "t.png", arguments: ["thumbnail", s, "--at", "1", "-o", "OUT"], streams: "video"),
        Job(name: "remux to .mp4", output: "r.mp4", arguments: ["remux", s, "OUT"], streams: "video audio audio audio subtitle subtitle data"),
        Job(name: "remux to .mov", output: "r.mov", arguments: ["remux", s, "OUT"], streams: "video audio audio audio subtitle subtitle data"),
        Job(name: "remux to .m4v", output: "r.m4v", arguments: ["remux", s, "OUT"], streams: "video audio audio audio subtitle subtitle data"),
        Job(name: "remux to .mkv", output: "r.mkv", arguments: ["remux", s, "OUT"], streams: "video audio audio audio subtitle subtitle"),
        Job(name: "remux to .ts", output: "r.ts", arguments: ["remux", s, "OUT", "--exclude-tracks", "subtitle,text"], streams: "video audio audio audio"),
        Job(name: "remux to .avi", output: "r.avi", arguments: ["remux", s, "OUT", "--exclude-tracks", "subtitle,text"], streams: "video audio audio audio"),
        Job(name: "remux to .webm", output: "r.webm", arguments: ["remux", s, "OUT"], streams: nil,
            refusal: "track 1: webm files cannot hold h264; mp4, mkv, ts, avi, flv can (leave it out: --exclude-tracks 1)"),
    ]

    /// Music, a recording, a photo and the bundled French subtitles, made once.
    static let media: Result<[String: String], Error> = Result {
        let music = Fixtures.path("front-music.m4a"), voice = Fixtures.path("front-voice.wav"), photo = Fixtures.path("front-photo.jpg")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=1000:duration=5", "-ac", "2", "-c:a", "aac", music.path])
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=660:duration=3", "-ac", "1", voice.path])
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=640x480", "-frames:v", "1", photo.path])
        return ["MUSIC": music.path, "VOICE": voice.path, "PHOTO": photo.path,
                "FRENCH": repo.appendingPathComponent("Examples/Media/grouped.fr.srt").path]
    }

    /// Every job on the bundled sample, through the built CLI: one summary line naming the
    /// output, a file ffprobe reads with the streams expected and ffmpeg decodes without a word.
    @Test(arguments: jobs)
    func everyJobOnTheSample(_ job: Job) throws {
        let out = Fixtures.path("front-" + job.output)
        let media = try Self.media.get()
        let arguments = job.arguments.map { $0 == "OUT" ? out.path : media[$0] ?? $0 } + ["--force"]
        let r = try Tool.splice(arguments)
        if let refusal = job.refusal {
            #expect(r.status == 65 && r.stderr.contains(refusal), "\(r.status) \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
            return
        }
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix(out.path + ": "), "\(r.stdout)")
        let streams = try Tool.ffprobeStreams(out).compactMap { $0["codec_type"] as? String }.joined(separator: " ")
        #expect(streams == job.streams, "\(job.name): \(streams)")
        // (a subtitle file is read as cues: ffmpeg does not encode text to its null muxer)
        let decoded = try Tool.run("ffmpeg", ["-v", "error", "-i", out.path, "-f", out.pathExtension == "srt" ? "srt" : "null", "-"])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(job.name): \(decoded.stderr)")
    }

    /// The README's library example as a test: the sample's first sound and music, in tracks of
    /// different alternate groups, mixed at 0.7 and 0.3 under the copied video (the group the
    /// music's track leaves empty is not written).
    @Test func audioMixAcrossAlternateGroups() throws {
        let composition = MutableComposition()
        let video = try Asset(url: Self.sample)
        let whole = TimeRange(start: .zero, duration: video.duration)
        let picture = try #require(composition.addMutableTrack(withMediaType: .video))
        try picture.insertTimeRange(whole, of: video.tracks(withMediaType: .video)[0], at: .zero)
        let voice = try #require(composition.addMutableTrack(withMediaType: .audio))
        try voice.insertTimeRange(whole, of: video.tracks(withMediaType: .audio)[0], at: .zero)
        voice.alternateGroup = 2
        let music = try #require(composition.addMutableTrack(withMediaType: .audio))
        let song = try Asset(url: URL(fileURLWithPath: try Self.media.get()["MUSIC"]!))
        try music.insertTimeRange(TimeRange(start: .zero, duration: min(song.duration, video.duration)), of: song.tracks(withMediaType: .audio)[0], at: .zero)
        music.alternateGroup = 1
        var mix = MutableAudioMix()
        var musicVolume = MutableAudioMixInputParameters(track: music)
        musicVolume.setVolume(0.3, at: .zero)
        var voiceVolume = MutableAudioMixInputParameters(track: voice)
        voiceVolume.setVolume(0.7, at: .zero)
        mix.inputParameters = [musicVolume, voiceVolume]
        let session = try ExportSession(asset: composition, presetName: "passthrough")
        session.audioMix = mix
        session.outputURL = Fixtures.path("front-mixed.mov")
        session.replacesExistingFile = true
        try session.run()
        let out = try #require(session.outputURL)
        #expect(try Tool.ffprobeStreams(out).compactMap { $0["codec_type"] as? String } == ["video", "audio"])
        let (mixed, source, tune) = (try Self.firstChannel(out), try Self.firstChannel(Self.sample), try Self.firstChannel(song.url))
        let ratio = { (x: [Float], y: [Float], f: Double) in
            SmartCutTests.level(x, f, at: 48000, count: 24000) / SmartCutTests.level(y, f, at: 48000, count: 24000) }
        #expect(abs(ratio(mixed, source, 440) - 0.7) < 0.03 && abs(ratio(mixed, tune, 1000) - 0.3) < 0.03,
                "\(ratio(mixed, source, 440)) \(ratio(mixed, tune, 1000))")
    }

    /// The first channel of a file's first sound at 48 kHz (a mono voice mixed into stereo is in
    /// each channel at its level; a downmix to mono would sum them).
    static func firstChannel(_ url: URL) throws -> [Float] {
        let data = try Tool.check("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:a:0", "-af", "pan=mono|c0=c0", "-ar", "48000", "-f", "f32le", "-"]).stdoutData
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// `--quiet` leaves out the summary and the notes, not the output.
    @Test func quietSaysNothing() throws {
        let out = Fixtures.path("front-quiet.mp4")
        let r = try Tool.splice(["--quiet", "trim", Self.s, "-o", out.path, "--range", "0.6,2.2", "--force"])
        #expect(r.status == 0 && r.stdout.isEmpty && !r.stderr.contains("note:"), "\(r.stdout) \(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.path))
    }

    /// Exit statuses as the help says them, for every kind of fault.
    @Test func exitStatuses() throws {
        let out = Fixtures.path("front-status.mp4").path
        let damaged = try Fixtures.write("front-damaged.mp4", "not a movie at all")
        let badSRT = try Fixtures.write("front-bad.srt", "1\n00:00:01,000 --> nonsense\nHello\n")
        let cases: [([String], Int32, String)] = [
            (["remux", "/nonexistent/movie.mp4", out], 66, "no such file"),
            (["subtitles", "add", Self.s, "/nonexistent/missing.srt", "-o", out], 66, "missing.srt"),
            (["remux", Self.s, Fixtures.path("front-z.xyz").path], 64, "cannot write '.xyz' files"),
            (["trim", Self.s, "-o", Fixtures.path("front-z.xyz").path, "--range", "1,2"], 64, "cannot write '.xyz' files"),
            (["subtitles", "add", Self.s, badSRT.path, "-o", Fixtures.path("front-z.ts").path], 64, "cannot write subtitles to '.ts'"),
            (["remux", Self.s, out, "--tracks", "sound"], 64, "'sound' is neither a track ID nor a media type"),
            (["remux", Self.s, out, "--tracks", "9", "--force"], 64, "there is no track 9"),
            (["remux", damaged.path, out], 65, "front-damaged.mp4"),
            (["subtitles", "add", Self.s, badSRT.path, "-o", out, "--force"], 65, "front-bad.srt:2"),
        ]
        for (arguments, status, message) in cases {
            let r = try Tool.splice(arguments)
            #expect(r.status == status && r.stderr.contains(message), "\(arguments): \(r.status) \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(arguments): \(r.stdout)")
        }
    }

    /// `inspect` of a subtitle file shows how long it lasts; extraction writes the cues and
    /// nothing more (the last cue ends the file with its line, as ffmpeg writes WebVTT).
    @Test func subtitleFilesInAndOut() throws {
        let long = try Fixtures.write("front-long.srt", "1\n00:00:00,500 --> 00:00:02,700\nHello\n\n2\n00:00:03,000 --> 00:00:04,250\nWorld\n")
        let shown = try Tool.splice(["inspect", long.path])
        #expect(shown.stdout.contains("duration 0:04.250"), "\(shown.stdout)")
        let srt = try Fixtures.write("front-cues.srt", "1\n00:00:00,500 --> 00:00:02,700\nHello\n\n2\n00:00:02,800 --> 00:00:03,000\nWorld\n")
        let vtt = Fixtures.path("front-cues.vtt"), movie = Fixtures.path("front-cues.mp4")
        #expect(try Tool.splice(["subtitles", "add", Self.s, srt.path, "-o", movie.path, "--force"]).status == 0)
        let r = try Tool.splice(["subtitles", "extract", movie.path, "--track", "8", "-o", vtt.path, "--force"])
        #expect(r.status == 0 && r.stdout == "\(vtt.path): 2 cues of track 8 (und)\n", "\(r.stdout)")
        #expect(try String(contentsOf: vtt, encoding: .utf8) == "WEBVTT\n\n00:00:00.500 --> 00:00:02.700\nHello\n\n00:00:02.800 --> 00:00:03.000\nWorld\n")
        // (ffmpeg reads the same cues back)
        let back = try Tool.check("ffmpeg", ["-v", "error", "-i", vtt.path, "-f", "srt", "-"]).stdout
        #expect(back == "1\n00:00:00,500 --> 00:00:02,700\nHello\n\n2\n00:00:02,800 --> 00:00:03,000\nWorld\n\n", "\(back)")
    }

    // MARK: Track selection

    /// Into MPEG-TS with the subtitles and the text left out, and without track 2 (the default of
    /// its group): the references to the tracks left out dropped with notes, track 3 the group's
    /// new default.
    @Test func tracksLeftOutOfATransportStream() throws {
        let ts = Fixtures.path("front-selected.ts")
        let r = try Tool.splice(["remux", Self.s, ts.path, "--exclude-tracks", "subtitle,text,2", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("note: 'fall' references to track 2 (from track 4) are dropped: it is left out"), "\(r.stderr)")
        #expect(r.stderr.contains("note: 'folw' references to track 5") == false, "\(r.stderr)")   // (from track 2, itself left out)
        #expect(r.stderr.contains("note: group 2: track 3 is its default track, as track 2 is left out"), "\(r.stderr)")
        let streams = try Tool.ffprobeStreams(ts)
        #expect(streams.compactMap { $0["codec_name"] as? String } == ["h264", "aac", "ac3"])
        let languages = streams.compactMap { ($0["tags"] as? [String: Any])?["language"] as? String }
        #expect(languages == ["fra", "eng"], "\(languages)")
        // (TS frames its H.264 in start codes: the video is compared as decoded frames)
        let frames = { (url: URL) in try Tool.check("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:v", "-f", "framemd5", "-"]).stdout
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").last ?? "" } }
        #expect(try frames(ts) == frames(Self.sample))
        // The same selection into MP4: the group holds track 3 alone, enabled.
        let mp4 = Fixtures.path("front-selected.mp4")
        #expect(try Tool.splice(["remux", Self.s, mp4.path, "--exclude-tracks", "subtitle,text,2", "--force"]).status == 0)
        let audio = try Tool.check("mediainfo", ["--Inform=Audio;%Language%:%AlternateGroup%:%Default%|", mp4.path]).stdout
        #expect(audio.trimmingCharacters(in: .whitespacesAndNewlines) == "fr-CA:2:Yes|en:5:Yes|", "\(audio)")
    }

    /// The library's spelling: `ExportSession.trackSelection`, with the same notes.
    @Test func exportSessionSelectsTracks() throws {
        let session = ExportSession(asset: try Asset(url: Self.sample), preset: .passthrough)
        session.outputURL = Fixtures.path("front-selected-export.mkv")
        session.replacesExistingFile = true
        session.trackSelection = TrackSelection(including: [.mediaType(.video), .trackID(3)])
        try session.run()
        let written = try Asset(url: session.outputURL!)
        #expect(written.tracks.map(\.codecName) == ["h264", "aac"])
        #expect(written.tracks[1].languageCode == "fra" && written.tracks[1].isEnabled)
        #expect(session.notes.contains { $0.contains("group 2: track 3 is its default track") }, "\(session.notes)")
    }

    // MARK: Clips of any shape

    /// A 30 fps clip, then a sound-only clip: 2 s of black pictures under its sound, in every cut
    /// mode; with the same sound format (copied) and another (everything re-encoded).
    /// A 6 s clip at 30 fps (H.264, AAC 48 kHz stereo), 2 s of sound in the same format, and 2 s
    /// in another (44.1 kHz mono).
    static let shapes: Result<(clip: URL, same: URL, other: URL), Error> = Result {
        let clip = Fixtures.path("front-c1.mp4"), same = Fixtures.path("front-audio2s.m4a"), other = Fixtures.path("front-audio44.m4a")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=6", "-f", "lavfi", "-i", "sine=frequency=440:duration=6:sample_rate=48000",
                         "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "30", "-c:a", "aac", "-ac", "2", clip.path])
        try Tool.ffmpeg(["-f", "lavfi", "-i", "aevalsrc=0.4*sin(2*PI*600*t):s=48000:c=stereo:d=2", "-c:a", "aac", "-b:a", "96k", same.path])
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=600:duration=2:sample_rate=44100", "-ac", "1", "-c:a", "aac", other.path])
        return (clip, same, other)
    }

    @Test(arguments: ["smart", "keyframe", "exact", "other-format"])
    func aSoundOnlyClipShowsBlack(_ mode: String) throws {
        let (clip, same, other) = try Self.shapes.get()
        let out = Fixtures.path("front-black-\(mode).mp4")
        let r = try Tool.splice(["concat", clip.path, mode == "other-format" ? other.path : same.path, "-o", out.path, "--force"]
                                + (mode == "other-format" ? [] : ["--cut", mode]))
        #expect(r.status == 0, "\(r.stderr)")
        for player in Player.allCases {
            let frames = try player.frames(out)
            let size = 320 * 240 * 3 / 2
            #expect(frames.count / size == 240, "\(player): \(frames.count / size) frames")
            guard frames.count / size == 240 else { continue }
            // Frames 180…239 are black (luma 16), the clip's are not.
            let luma = { (k: Int) in frames[(k * size)..<(k * size + 320 * 240)].reduce(0) { $0 + Int($1) } / (320 * 240) }
            #expect((180..<240).allSatisfy { luma($0) == 16 } && luma(179) > 40, "\(player): \(luma(179)) \(luma(180)) \(luma(239))")
        }
        let sound = try SmartCutTests.sound(out)
        // (the Hann-windowed level of a tone of amplitude a is about a / 4)
        let level = { (f: Double, t: Double) in SmartCutTests.level(sound, f, at: Int(t * 48000), count: 24000) }
        #expect(level(600, 7) > 0.01 && level(440, 7) < 0.002 && level(440, 3) > 0.01, "\(level(600, 7)) \(level(440, 7)) \(level(440, 3))")
    }

    // MARK: make demo

    /// `make demo`'s script on a fresh output folder: the four steps, the subtitle track in the
    /// sample's group, a verified remux, and a smart trim whose frames are the source's — byte for
    /// byte where copied, SSIM ≥ 0.98 where re-encoded — in ffmpeg, GStreamer and mpv.
    @Test func demoDoesTheMainJob() throws {
        let folder = Fixtures.path("demo")
        var environment = ProcessInfo.processInfo.environment
        environment["SPLICE"] = Tool.spliceBinary
        environment["DEMO_OUTPUT"] = folder.path
        let r = try Tool.run(Self.repo.appendingPathComponent("scripts/demo").path, [], environment: environment, timeout: 300)
        #expect(r.status == 0, "\(r.stderr)")
        for step in ["1. The bundled sample", "2. Add a subtitle track", "3. Remux losslessly", "4. Trim 0.6–2.2 s"] {
            #expect(r.stdout.contains(step), "\(step)")
        }
        #expect(r.stdout.contains("remuxed.mov: copied") && r.stdout.contains("verified: 8 tracks"), "\(r.stdout)")
        let french = try Tool.check("mediainfo", ["--Inform=Text;%ID%:%Language%:%AlternateGroup%|", folder.appendingPathComponent("subtitled.mp4").path]).stdout
        #expect(french.contains("8:fr:7|"), "\(french)")
        // The trim: 0.6–2.2 s of 25 fps is the source's frames 15…54.
        let note = try #require(r.stderr.split(separator: "\n").first { $0.contains("track 1 (smart cut)") })
        let numbers = note.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }   // 1, total, start, end, copied
        #expect(numbers.count == 5 && numbers[2] > 0 && numbers[3] > 0, "\(note)")
        guard numbers.count == 5 else { return }
        let (head, tail) = (numbers[2], numbers[3])
        let size = 160 * 120 * 3 / 2
        let source = try Player.ffmpeg.frames(Self.sample)
        let expected = source[(15 * size)..<(55 * size)]
        let trimmed = folder.appendingPathComponent("trimmed.mp4")
        for player in Player.allCases {
            let frames = try player.frames(trimmed)
            #expect(frames.count == expected.count, "\(player): \(frames.count / size) frames")
            guard frames.count == expected.count else { continue }
            let differing = (head..<(40 - tail)).filter { k in
                frames[(k * size)..<((k + 1) * size)] != expected[(expected.startIndex + k * size)..<(expected.startIndex + (k + 1) * size)]
            }
            #expect(differing.isEmpty, "\(player): copied frames \(differing) differ from the source's")
            let worst = try Self.worstSSIM(Data(frames), Data(expected), frames: Array(0..<head) + Array((40 - tail)..<40))
            #expect(worst >= 0.98, "\(player): SSIM \(worst)")
        }
        let times = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time", "-of", "csv=p=0", trimmed.path]).stdout
            .split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }
        #expect(times.count == 40 && times.enumerated().allSatisfy { abs($1 - Double($0) * 0.04) < 0.001 }, "\(times)")
    }

    /// The lowest SSIM (ffmpeg's `ssim`) of these frames of two 160x120 yuv420p streams.
    static func worstSSIM(_ a: Data, _ b: Data, frames: [Int]) throws -> Double {
        try worstSSIM(a, b, pairs: frames.map { ($0, $0) })
    }

    /// The lowest SSIM (ffmpeg's `ssim`) of frame `pair.0` of `a` against frame `pair.1` of `b`,
    /// two yuv420p streams of `width`x`height` pictures; 0 when a frame is missing.
    static func worstSSIM(_ a: Data, _ b: Data, pairs: [(Int, Int)], width: Int = 160, height: Int = 120) throws -> Double {
        guard !pairs.isEmpty else { return 1 }
        let size = width * height * 3 / 2
        let frame = { (d: Data, k: Int) -> Data? in
            k >= 0 && (k + 1) * size <= d.count ? d[(d.startIndex + k * size)..<(d.startIndex + (k + 1) * size)] : nil
        }
        var (left, right) = (Data(), Data())
        for (i, j) in pairs {
            guard let x = frame(a, i), let y = frame(b, j) else { return 0 }
            left += x
            right += y
        }
        let (x, y) = (Fixtures.path("ssim-\(UUID().uuidString).yuv"), Fixtures.path("ssim-\(UUID().uuidString).yuv"))
        defer { try? FileManager.default.removeItem(at: x); try? FileManager.default.removeItem(at: y) }
        try left.write(to: x)
        try right.write(to: y)
        let raw = ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(width)x\(height)"]
        let r = try Tool.check("ffmpeg", ["-v", "error"] + raw + ["-i", x.path] + raw + ["-i", y.path, "-lavfi", "ssim=stats_file=-", "-f", "null", "-"])
        let values = r.stdout.split(separator: "\n").compactMap { line in
            line.range(of: "All:").flatMap { Double(line[$0.upperBound...].prefix { "0123456789.".contains($0) }) }
        }
        return values.count == pairs.count ? values.min() ?? 0 : 0
    }
}

/// An explicit cut mode is honoured or refused; the default falls back, saying where it cut.
@Suite("Explicit cut modes")
struct ExplicitCutModeTests {
    /// MPEG-4 Part 2 video: smart cut cannot re-encode it.
    static let source: Result<URL, Error> = Result {
        let url = Fixtures.path("explicit-mpeg4.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=4", "-c:v", "mpeg4", "-g", "25", "-bf", "2", url.path])
        return url
    }

    @Test(arguments: [("smart", "o.mkv", "track 1 cannot be cut smart: smart cut re-encodes H.264, HEVC, VP9 and AV1 (this is mpeg4); cut keyframe"),
                      ("smart", "o.mp4", "track 1 cannot be cut smart: smart cut re-encodes H.264, HEVC, VP9 and AV1 (this is mpeg4); cut exact or keyframe"),
                      ("exact", "o.mkv", "which .mkv files do not have: cut smart or keyframe")])
    func anExplicitModeThatCannotBeHonouredIsRefused(_ mode: String, _ name: String, _ message: String) throws {
        let out = Fixtures.path("explicit-\(mode)-\(name)")
        let r = try Tool.splice(["trim", try Self.source.get().path, "-o", out.path, "--range", "1.3,2.5", "--cut", mode])
        #expect(r.status == 65 && r.stderr.contains(message), "\(r.status) \(r.stderr)")
        #expect(r.stdout.isEmpty && !FileManager.default.fileExists(atPath: out.path))
    }

    /// Without --cut the same trim into Matroska moves to the sync samples and prints where.
    @Test func theDefaultFallsBackAndSaysWhere() throws {
        let out = Fixtures.path("explicit-default.mkv")
        let r = try Tool.splice(["trim", try Self.source.get().path, "-o", out.path, "--range", "1.3,2.5", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        // "explicit-mpeg4.mp4: cut at sync samples, A–B s (…)": the output lasts B − A.
        let kept = try #require(r.stderr.firstMatch(of: /cut at sync samples, ([0-9.]+)–([0-9.]+) s/))
        let (a, b) = (Double(kept.1) ?? 0, Double(kept.2) ?? 0)
        #expect(a <= 1.3 && b >= 2.5, "\(r.stderr)")
        let duration = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out.path]).stdout
        #expect(abs((Double(duration.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - (b - a)) < 0.05, "\(duration) \(r.stderr)")
    }

    /// The library: a `cutMode` set to `.exact` for Matroska throws; left alone, it cuts smart.
    @Test func exportSessionHonoursOrRefusesItsCutMode() throws {
        let sample = DemoSampleTests.sample
        let session = ExportSession(asset: try Asset(url: sample), preset: .passthrough)
        session.outputURL = Fixtures.path("explicit-session.mkv")
        session.replacesExistingFile = true
        session.timeRange = TimeRange(start: MediaTime(value: 600, timescale: 1000), end: MediaTime(value: 2200, timescale: 1000))
        session.cutMode = .exact
        #expect(throws: MediaError.self) { try session.run() }
        #expect((session.error?.code) == .unsupported && !FileManager.default.fileExists(atPath: session.outputURL!.path))
        let fallback = ExportSession(asset: try Asset(url: sample), preset: .passthrough)
        fallback.outputURL = session.outputURL
        fallback.timeRange = session.timeRange
        try fallback.run()
        #expect(fallback.cutSummary.first?.hasPrefix("track 1 (smart cut)") == true, "\(fallback.cutSummary)")
    }
}
