import Foundation
import Splice
import Testing
import TestSupport

/// Ranges of awkward sources joined by a smart cut, each output frame judged in ffmpeg and
/// GStreamer against the source frame shown at its time: byte-equal where copied, SSIM ≥ 0.98
/// where re-encoded, none repeated or missing.
@Suite("Smart-cut joins of MPEG-TS, millisecond-timed and intra-refresh sources")
struct SmartCutJoinTests {
    /// 29.97 fps x264 with B-frames, remuxed by mkvmerge: times in milliseconds (frames 33 and
    /// 34 ms apart), the video 23 ms after the sound (the AAC priming mkvmerge drops).
    static let mkvmerged: Result<URL, Error> = Result {
        let mp4 = Fixtures.path("join-ms-source.mp4"), mkv = Fixtures.path("join-ms-source.mkv")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30000/1001:duration=6", "-f", "lavfi", "-i", "sine=frequency=440:duration=6",
                         "-c:v", "libx264", "-preset", "fast", "-g", "48", "-bf", "2", "-pix_fmt", "yuv420p", "-c:a", "aac", mp4.path])
        try Tool.check("mkvmerge", ["-q", "-o", mkv.path, mp4.path])
        return mkv
    }

    /// 25 fps x264 with periodic intra refresh: one IDR, then a recovery point (marked a key
    /// frame) about every second, each recovering 24 frames later.
    static let intraRefresh: Result<URL, Error> = Result {
        let url = Fixtures.path("join-intra-refresh.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=6", "-f", "lavfi", "-i", "sine=frequency=440:duration=6",
                         "-c:v", "libx264", "-preset", "fast", "-intra-refresh", "1", "-g", "25", "-pix_fmt", "yuv420p", "-c:a", "aac", url.path])
        return url
    }

    /// The source's frames a smart cut shows over each range (seconds), in order: those at least
    /// half of whose stretch on screen (to the next frame) lies inside it.
    static func shown(_ source: URL, _ ranges: [(Double, Double)]) throws -> [Int] {
        let times = try Self.times(source).frames
        return ranges.flatMap { s, e in
            times.indices.filter { i in
                let end = i + 1 < times.count ? times[i + 1] : times[i] + (times[i] - times[max(0, i - 1)])
                return min(end, e) - max(times[i], s) >= (end - times[i]) / 2
            }
        }
    }

    /// Every frame of `url` as decoded, one after the other (yuv420p): ffmpeg with timestamps
    /// passed through (its default for raw output keeps a constant rate, repeating the first
    /// frame of a source whose video starts 23 ms in).
    static func decodedFrames(_ url: URL) throws -> Data {
        let out = Fixtures.path("frames-\(UUID().uuidString).yuv")
        defer { try? FileManager.default.removeItem(at: out) }
        try Tool.ffmpeg(["-i", url.path, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", out.path])
        return try Data(contentsOf: out)
    }

    /// Judges `out` in ffmpeg and GStreamer against `source`'s frames `expected`; returns how
    /// many frames were byte-equal (copied) in ffmpeg.
    @discardableResult
    static func judge(_ out: URL, against source: URL, expected: [Int]) throws -> Int {
        let size = 320 * 240 * 3 / 2
        let whole = try decodedFrames(source)
        var copiedInFFmpeg = 0
        for player in [Player.ffmpeg, .gstreamer] {
            let frames = try player.frames(out)
            #expect(frames.count == expected.count * size, "\(player): \(frames.count / size) frames, not \(expected.count)")
            guard frames.count == expected.count * size else { continue }
            let frame = { (d: Data, k: Int) in d[(d.startIndex + k * size)..<(d.startIndex + (k + 1) * size)] }
            let reencoded = expected.indices.filter { frame(frames, $0) != frame(whole, expected[$0]) }
            if player == .ffmpeg { copiedInFFmpeg = expected.count - reencoded.count }
            let worst = try FrontDoorTests.worstSSIM(frames, whole, pairs: reencoded.map { ($0, expected[$0]) }, width: 320, height: 240)
            #expect(worst >= 0.98, "\(player): SSIM \(worst) over frames \(reencoded)")
            try SmartCutTransportStreamTests.decodesSilently(out, in: player == .ffmpeg ? "ffmpeg" : "gstreamer")
        }
        return copiedInFFmpeg
    }

    /// The frames' presentation times (ffprobe) and the file's duration.
    static func times(_ url: URL) throws -> (frames: [Double], duration: Double) {
        let frames = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time", "-of", "csv=p=0", url.path]).stdout
            .split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }
        let duration = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", url.path]).stdout
        return (frames, Double(duration.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0)
    }

    /// Two ranges of the mkvmerge-made file: every frame shown once at a time of its own (two
    /// frames of 33 and 34 ms once made a re-encoded frame decode after it was shown; a frame's
    /// rounded duration once put two at one time), the file as long as the ranges.
    @Test(arguments: ["mkv", "mp4"])
    func millisecondTimedRangesJoinFrameForFrame(_ suffix: String) throws {
        let source = try Self.mkvmerged.get()
        let out = Fixtures.path("joined-ms.\(suffix)")
        let r = try Tool.splice(["concat", source.path + "#t=1,3", source.path + "#t=2,4.5", "-o", out.path, "--force"])
        #expect(r.status == 0 && r.stderr.contains("track 1 (smart cut)"), "\(r.stderr)")
        guard r.status == 0 else { return }
        let (frames, duration) = try Self.times(out)
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0 < $1 }, "\(frames)")
        #expect(abs(duration - 4.5) < 0.002, "\(duration)")
        let copied = try Self.judge(out, against: source, expected: try Self.shown(source, [(1, 3), (2, 4.5)]))
        #expect(copied >= 60, "\(copied) frames copied")
    }

    /// Two ranges of an MPEG-TS file (its timeline starts at the file's 1.46 s): each output
    /// frame the source's frame shown at its time, in ffmpeg and GStreamer.
    @Test(arguments: ["ts", "mp4"])
    func transportStreamRangesJoinFrameForFrame(_ suffix: String) throws {
        let source = try SmartCutTransportStreamTests.source.get()
        let out = Fixtures.path("joined-ts.\(suffix)")
        let r = try Tool.splice(["concat", source.path + "#t=1,3", source.path + "#t=2,4", "-o", out.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        guard r.status == 0 else { return }
        let start = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format=start_time", "-of", "csv=p=0", source.path]).stdout
        let origin = try #require(Double(start.trimmingCharacters(in: .whitespacesAndNewlines)))
        let copied = try Self.judge(out, against: source, expected: try Self.shown(source, [(origin + 1, origin + 3), (origin + 2, origin + 4)]))
        #expect(copied >= 40, "\(copied) frames copied")
    }

    /// Two ranges of the intra-refresh file, each starting after a recovery point that recovers
    /// too late for it: decoded from the recovery point before, every frame is there.
    @Test(arguments: ["mp4", "mkv"])
    func intraRefreshRangesKeepEveryFrame(_ suffix: String) throws {
        let source = try Self.intraRefresh.get()
        let out = Fixtures.path("joined-intra-refresh.\(suffix)")
        let r = try Tool.splice(["concat", source.path + "#t=1,3", source.path + "#t=2,4", "-o", out.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        guard r.status == 0 else { return }
        let expected = try Self.shown(source, [(1, 3), (2, 4)])
        #expect(expected == Array(25..<75) + Array(50..<100))
        try Self.judge(out, against: source, expected: expected)
    }

    /// A trim of the intra-refresh file re-encoded whole (`--cut exact`) starts with the frame
    /// at its start, not the recovery after it.
    @Test func intraRefreshTrimStartsAtItsStart() throws {
        let source = try Self.intraRefresh.get()
        let out = Fixtures.path("trim-intra-refresh.mp4")
        let r = try Tool.splice(["export", source.path, "-o", out.path, "--preset", "mediumQuality", "--range", "2.2,3", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        guard r.status == 0 else { return }
        try Self.judge(out, against: source, expected: Array(55..<75))
    }
}
