import Foundation
import Testing
import Splice
import TestSupport

/// Ogg and Ogg Opus outputs: sound only, Opus by default.
@Suite("Ogg and Opus outputs")
struct OggTests {
    /// 3 s of 440 Hz Opus in MP4, and a movie (H.264 + AAC), made by ffmpeg.
    static let sources: Result<(opus: URL, movie: URL), Error> = Result {
        let opus = Fixtures.path("ogg-source.mp4"), movie = Fixtures.path("ogg-movie.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=3", "-c:a", "libopus", "-b:a", "64k", opus.path])
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-f", "lavfi", "-i", "sine=frequency=1000:duration=2",
                         "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", movie.path])
        return (opus, movie)
    }

    static func audioHash(_ url: URL) throws -> String {
        try Tool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:a", "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]).stdout
    }

    /// The overall RMS level (dBFS) of a file's sound, by ffmpeg's astats.
    static func rmsLevel(_ url: URL) throws -> Double {
        let stats = try Tool.check("ffmpeg", ["-nostdin", "-i", url.path, "-af", "astats=measure_overall=RMS_level:measure_perchannel=none",
                                              "-f", "null", "-"]).stderr
        guard let line = stats.components(separatedBy: "RMS level dB: ").last,
              let level = Double(line.prefix { $0 != "\n" }.trimmingCharacters(in: .whitespaces)) else {
            throw ToolError(message: "no RMS level for \(url.lastPathComponent): \(stats.suffix(300))")
        }
        return level
    }

    /// Opus copied from MP4 into .ogg and .opus, packet for packet; FileType knows both.
    @Test(arguments: ["ogg", "opus"]) func remuxCopiesOpus(ext: String) throws {
        let source = try Self.sources.get().opus
        let out = Fixtures.path("remux-opus.\(ext)")
        let r = try Tool.splice(["remux", source.path, out.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.audioHash(out) == Self.audioHash(source))
        let streams = try Tool.ffprobeStreams(out)
        #expect(streams.map { $0["codec_name"] as? String } == ["opus"], "\(streams)")
        let format = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format=format_name,duration", "-of", "csv=p=0", out.path]).stdout
        #expect(format.hasPrefix("ogg,"), "\(format)")
        let duration = Double(format.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "") ?? 0
        #expect(abs(duration - 3) < 0.03, "\(format)")
        #expect(FileType(pathExtension: ext)?.holdsSoundOnly == true)
    }

    /// What Ogg cannot hold is refused with the containers that can; nothing is written.
    @Test func refusals() throws {
        let movie = try Self.sources.get().movie
        let out = Fixtures.path("refused.ogg")
        let video = try Tool.splice(["remux", movie.path, out.path, "--force"])
        #expect(video.status == 65 && video.stderr.contains("track 1 is video, and .ogg files hold sound only"), "\(video.stderr)")
        let aac = Fixtures.path("ogg-aac.m4a")
        try Tool.ffmpeg(["-i", movie.path, "-map", "0:a", "-c", "copy", aac.path])
        let sound = try Tool.splice(["remux", aac.path, out.path, "--force"])
        #expect(sound.status == 65 && sound.stderr.contains("ogg files cannot hold aac; mp4, mkv, ts"), "\(sound.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        // The rows answer what the README says they do.
        #expect(FileType.containers(holding: "vorbis") == ["mkv", "webm", "avi", "ogg"])
        #expect(!FileType.webm.canHold("h264") && !FileType.mkv.hasEditLists && FileType.opus.holdsSoundOnly && FileType.webm.defaultVideoCodec == .vp9)
    }

    /// Exporting a movie to .ogg/.opus encodes its sound as Opus and leaves the video out, with a note.
    @Test(.enabled(if: EncodingTests.notUnderTSan), arguments: ["ogg", "opus"]) func exportEncodesOpus(ext: String) throws {
        let movie = try Self.sources.get().movie
        let out = Fixtures.path("export-sound.\(ext)")
        let r = try Tool.splice(["export", movie.path, "-o", out.path, "--force"])
        #expect(r.status == 0 && r.stderr.contains("track 1 (video) is left out: .\(ext) files hold sound only"), "\(r.stderr)")
        let streams = try Tool.ffprobeStreams(out)
        #expect(streams.map { $0["codec_name"] as? String } == ["opus"], "\(streams)")
        // The tone survives at the source's level (within 0.5 dB), as ffmpeg decodes both.
        #expect(abs(try Self.rmsLevel(out) - Self.rmsLevel(movie)) < 0.5)
        let session = ExportSession(asset: try Asset(url: movie), preset: .mediumQuality)
        #expect(session.supportedFileTypes.contains(.ogg) && session.supportedFileTypes.contains(.opus))
    }

    /// `concat` of AAC clips into .ogg: `auto` re-encodes them as Opus (the file cannot hold
    /// AAC), saying why; `never` refuses, naming the track; Opus clips are copied.
    @Test(.enabled(if: EncodingTests.notUnderTSan)) func concatIntoOgg() throws {
        let aac = Fixtures.path("ogg-concat.m4a")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "aac", aac.path])
        let out = Fixtures.path("ogg-concat.ogg")
        let auto = try Tool.splice(["concat", aac.path, aac.path, "-o", out.path, "--force"])
        #expect(auto.status == 0 && auto.stderr.contains("note: re-encoding every clip: track 1: .ogg files cannot hold aac"), "\(auto.stderr)")
        #expect(try Tool.ffprobeStreams(out).map { $0["codec_name"] as? String } == ["opus"])
        let never = try Tool.splice(["concat", aac.path, aac.path, "-o", Fixtures.path("ogg-never.ogg").path, "--reencode", "never"])
        #expect(never.status == 65 && never.stderr.contains(".ogg files cannot hold aac"), "\(never.stderr)")
        let opus = try Self.sources.get().opus
        let copied = Fixtures.path("ogg-concat.opus")
        let r = try Tool.splice(["concat", opus.path, opus.path, "-o", copied.path, "--force"])
        #expect(r.status == 0 && r.stdout.contains("copied"), "\(r.stdout) \(r.stderr)")
        let duration = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", copied.path]).stdout
        #expect(abs((Double(duration.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 6) < 0.05, "\(duration)")
    }
}
