import Foundation
import Testing
import TestSupport
import Splice

/// The media of `ContainerTests`, made by independent muxers (ffmpeg, mkvmerge), and the
/// independent measures its checks rest on.
extension ContainerTests {
    static let srt = "1\n00:00:00,500 --> 00:00:01,200\n<i>Hello</i> there\n\n2\n00:00:01,500 --> 00:00:02,250\nSecond line\nand more\n"

    /// H.264 + AAC (eng, default) + AC-3 (deu, not default) + SRT (fra, forced), muxed by mkvmerge.
    static let mkvmerged: Result<URL, Error> = Result {
        let source = Fixtures.path("for-mkvmerge.mp4")
        try Tool.ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=3",
            "-f", "lavfi", "-i", "sine=frequency=440:duration=3:sample_rate=48000",
            "-f", "lavfi", "-i", "sine=frequency=660:duration=3:sample_rate=44100",
            "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g", "25",
            "-c:a:0", "aac", "-c:a:1", "ac3", source.path,
        ])
        let srt = try Fixtures.write("for-mkvmerge.srt", ContainerTests.srt)
        let url = Fixtures.path("mkvmerged.mkv")
        let chapters = try Fixtures.write("chapters.ogm", "CHAPTER01=00:00:00.000\nCHAPTER01NAME=Intro\nCHAPTER02=00:00:01.500\nCHAPTER02NAME=Main part\n")
        try Tool.check("mkvmerge", ["-q", "-o", url.path, "--chapters", chapters.path,
                                    "--language", "1:eng", "--default-track-flag", "1:yes",
                                    "--language", "2:deu", "--default-track-flag", "2:no", "--track-name", "2:Kommentar", source.path,
                                    "--language", "0:fra", "--forced-display-flag", "0:yes", "--hearing-impaired-flag", "0:yes", srt.path])
        return url
    }

    static let webm: Result<URL, Error> = Result {
        let url = Fixtures.path("vp9-opus.webm")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=2",
                         "-f", "lavfi", "-i", "sine=duration=2:sample_rate=48000",
                         "-c:v", "libvpx-vp9", "-b:v", "200k", "-c:a", "libopus", url.path])
        return url
    }

    static let transportStream: Result<URL, Error> = Result {
        let url = Fixtures.path("h264-aac.ts")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=2",
                         "-f", "lavfi", "-i", "sine=duration=2:sample_rate=48000",
                         "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-c:a", "aac", url.path])
        return url
    }

    static let avi: Result<URL, Error> = Result {
        let url = Fixtures.path("mpeg4-mp3.avi")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=2",
                         "-f", "lavfi", "-i", "sine=duration=2:sample_rate=44100",
                         "-c:v", "mpeg4", "-c:a", "libmp3lame", url.path])
        return url
    }

    // MARK: Independent measures

    /// Per-stream packet hashes (video and audio), in stream order.
    static func payloadHashes(_ url: URL) throws -> [String] {
        try Tool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:v?", "-map", "0:a?",
                                  "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"])
            .stdout.split(separator: "\n").map(String.init)
    }

    /// Per-stream hashes of the decoded frames (video and audio), timestamps left out: what a
    /// player shows and plays, whatever the container.
    static func decodedHashes(_ url: URL) throws -> [String: [String]] {
        let lines = try Tool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:v?", "-map", "0:a?",
                                              "-f", "framemd5", "-"]).stdout.split(separator: "\n")
        var hashes: [String: [String]] = [:]
        for line in lines where !line.hasPrefix("#") {
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count >= 6 else { continue }
            hashes[fields[0], default: []].append(fields[5])
        }
        return hashes
    }

    /// Presentation times (seconds) of each stream's packets, sorted, from the first one.
    static func packetTimes(_ url: URL) throws -> [[Double]] {
        let media = Set(try Tool.ffprobeStreams(url).filter { ["video", "audio"].contains($0["codec_type"] as? String) }
            .compactMap { $0["index"] as? Int })
        let out = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "packet=stream_index,pts_time", "-of", "csv=p=0", url.path]).stdout
        var times: [Int: [Double]] = [:]
        for line in out.split(separator: "\n") {
            let f = line.split(separator: ",")
            guard f.count >= 2, let s = Int(f[0]), media.contains(s), let t = Double(f[1]) else { continue }
            times[s, default: []].append(t)
        }
        return times.keys.sorted().map { k in times[k]!.sorted() }
    }

    /// mkvmerge's view of each track: codec, language, default and forced flags, name.
    static func mkvmergeTracks(_ url: URL) throws -> [String] {
        let r = try Tool.check("mkvmerge", ["-J", url.path])
        let json = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any]
        guard json?["errors"] as? [Any] == nil || (json?["errors"] as? [Any])!.isEmpty else {
            throw ToolError(message: "mkvmerge: \(json?["errors"] ?? "")")
        }
        return (json?["tracks"] as? [[String: Any]] ?? []).map { t in
            let p = t["properties"] as? [String: Any] ?? [:]
            return "\(t["codec"] ?? "") \(p["language"] ?? "") default=\(p["default_track"] ?? "") forced=\(p["forced_track"] ?? "") "
                + "hi=\(p["flag_hearing_impaired"] ?? "") \(p["track_name"] ?? "")"
        }
    }

    /// ffprobe's chapters: start and end (to the millisecond) and title.
    static func chapters(_ url: URL) throws -> [String] {
        let r = try Tool.check("ffprobe", ["-v", "error", "-show_chapters", "-of", "json", url.path])
        let json = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any]
        return (json?["chapters"] as? [[String: Any]] ?? []).map { c in
            let start = Double(c["start_time"] as? String ?? "") ?? -1, end = Double(c["end_time"] as? String ?? "") ?? -1
            let title = (c["tags"] as? [String: Any])?["title"] ?? ""
            return String(format: "%.3f-%.3f ", start, end) + "\(title)"
        }
    }

    static func srt(of url: URL, track: Int = 0) throws -> String {
        try Tool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:s:\(track)", "-f", "srt", "-"]).stdout
    }

    static func decodesCleanly(_ url: URL) throws -> Bool {
        try Tool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:v?", "-map", "0:a?", "-f", "null", "-"]).stderr.isEmpty
    }

    static func remux(_ input: URL, _ output: URL) throws {
        try? FileManager.default.removeItem(at: output)
        let r = try Tool.splice(["remux", input.path, output.path])
        guard r.status == 0 else { throw ToolError(message: "remux \(input.lastPathComponent) → \(output.lastPathComponent): \(r.stderr)") }
        #expect(try leftovers(of: output).isEmpty)
    }
}
