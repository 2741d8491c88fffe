import Foundation
import Splice
import Testing
import TestSupport

/// Smart cut of the profiles cameras and editors make beyond 4:2:0: x264's High 4:2:2 and High
/// 4:4:4 Predictive (8 and 10 bits) and x265's range extensions (Main 4:2:2 10, Main 4:4:4,
/// Main 12), each trimmed between sync samples at both ends.
@Suite("Smart cut of every profile the encoders make")
struct SmartCutProfileTests {
    struct Source: CustomTestStringConvertible, Sendable {
        var encoder: String
        var pixelFormat: String
        var profile: String
        var testDescription: String { "\(encoder) \(profile) \(pixelFormat)" }
    }

    static let sources = [
        Source(encoder: "libx264", pixelFormat: "yuv422p10le", profile: "High 4:2:2"),
        Source(encoder: "libx264", pixelFormat: "yuv444p", profile: "High 4:4:4 Predictive"),
        Source(encoder: "libx264", pixelFormat: "yuv444p10le", profile: "High 4:4:4 Predictive"),
        Source(encoder: "libx265", pixelFormat: "yuv422p10le", profile: "Rext"),
        Source(encoder: "libx265", pixelFormat: "yuv444p", profile: "Rext"),
        Source(encoder: "libx265", pixelFormat: "yuv420p12le", profile: "Rext"),
    ]

    /// The decoded frames' md5s, in presentation order (the stream's own pixel format).
    static func frames(_ url: URL) throws -> [String] {
        try Tool.check("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:v:0", "-f", "framemd5", "-"]).stdout
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",").last ?? "").trimmingCharacters(in: .whitespaces) }
    }

    /// 4 s at 25 fps, a sync sample every second, B-frames; trimmed to 1.32–2.6 s (frames 33–64).
    @Test(arguments: sources)
    func aTrimKeepsTheProfile(_ source: Source) throws {
        let name = "\(source.encoder)-\(source.pixelFormat)"
        let input = Fixtures.path("profile-\(name).mp4"), out = Fixtures.path("profile-\(name)-cut.mp4")
        let codec = source.encoder == "libx264"
            ? ["-c:v", "libx264", "-preset", "fast", "-g", "25", "-bf", "2"]
            : ["-c:v", "libx265", "-preset", "fast", "-x265-params", "keyint=25:min-keyint=25:scenecut=0:bframes=2:log-level=error", "-tag:v", "hvc1"]
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4"] + codec + ["-pix_fmt", source.pixelFormat, input.path])
        let session = try ExportSession.trimming(Clip(url: input, start: MediaTime(value: 1320, timescale: 1000), end: MediaTime(value: 2600, timescale: 1000)),
                                                 to: out, cutMode: .smart)
        session.replacesExistingFile = true
        try session.run()
        // The source's profile, chroma format and bit depth (ffprobe).
        let probe = { (url: URL) in try Tool.check("ffprobe", ["-v", "error", "-show_entries", "stream=profile,pix_fmt", "-of", "csv=p=0", url.path]).stdout }
        let written = try probe(out)
        #expect(written == "\(source.profile),\(source.pixelFormat)\n", "\(written)")
        // Re-encoded at both ends, the frames between copied: byte-equal pictures there, SSIM ≥ 0.98 at the ends.
        let summary = try #require(session.cutSummary.first)
        let numbers = summary.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }   // 1, total, start, end, copied
        #expect(numbers.count == 5 && numbers[2] > 0 && numbers[3] > 0, "\(summary)")
        guard numbers.count == 5 else { return }
        let (head, tail) = (numbers[2], numbers[3])
        let (cut, whole) = (try Self.frames(out), try Self.frames(input))
        #expect(cut.count == 32, "\(cut.count) frames")
        guard cut.count == 32 else { return }
        #expect(Array(cut[head..<(32 - tail)]) == Array(whole[(33 + head)..<(65 - tail)]), "the copied frames differ from the source's")
        #expect(try SmartCutTests.ssim(out, 0, Double(head) * 0.04, input, 1.32) >= 0.98)
        #expect(try SmartCutTests.ssim(out, Double(32 - tail) * 0.04, 1.28, input, 1.32 + Double(32 - tail) * 0.04) >= 0.98)
        // Decoded without a word by ffmpeg and GStreamer.
        let decoded = try Tool.run("ffmpeg", ["-v", "error", "-i", out.path, "-f", "null", "-"])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded.stderr)")
        try SmartCutTransportStreamTests.decodesSilently(out, in: "gstreamer")
    }

    /// Lossless H.264 (x264 `qp 0`: transform bypass) is refused by name, not re-encoded lossily.
    @Test func losslessH264IsRefusedByName() throws {
        let input = Fixtures.path("profile-lossless.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=3", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0",
                         "-g", "25", "-pix_fmt", "yuv444p", input.path])
        let r = try Tool.splice(["trim", input.path, "-o", Fixtures.path("profile-lossless-cut.mkv").path, "--range", "1.3,2.2", "--cut", "smart"])
        #expect(r.status == 65 && r.stderr.contains("H.264 High 4:4:4 Predictive is lossless"), "\(r.stderr)")
    }
}

/// H.264 in MPEG-TS carries its parameter sets in the stream, and its timeline starts late
/// (ffmpeg's 1.4 s): smart cut takes them from the sample entry made from the stream, and a
/// composition of its ranges reads each on the file's timeline.
@Suite("Smart cut of MPEG-TS sources")
struct SmartCutTransportStreamTests {
    static let source: Result<URL, Error> = Result {
        let url = Fixtures.path("ts-source.ts")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=24:duration=6", "-f", "lavfi", "-i", "sine=frequency=440:duration=6",
                         "-c:v", "libx264", "-preset", "fast", "-g", "48", "-bf", "2", "-pix_fmt", "yuv420p", "-c:a", "aac", url.path])
        return url
    }

    /// Each output frame's index among the source's frames (nil: re-encoded, not byte-equal).
    static func sourceIndices(_ out: URL) throws -> [Int?] {
        let whole = try SmartCutProfileTests.frames(try source.get())
        return try SmartCutProfileTests.frames(out).map { whole.firstIndex(of: $0) }
    }

    @Test(arguments: ["ts", "mp4"])
    func aTrimIsCutSmart(_ suffix: String) throws {
        let out = Fixtures.path("ts-trim.\(suffix)")
        let r = try Tool.splice(["trim", try Self.source.get().path, "-o", out.path, "--range", "1.25,4.75", "--cut", "smart", "--force"])
        #expect(r.status == 0 && r.stderr.contains("track 1 (smart cut)"), "\(r.stderr)")
        let indices = try Self.sourceIndices(out)
        // 1.25–4.75 s of the timeline (the video 23 ms after the sound): 84 whole frames, those
        // of the whole GOP 2–4 s copied.
        #expect(indices.count == 84 && (48..<96).allSatisfy { indices.contains($0) }, "\(indices)")
        let copied = indices.compactMap { $0 }
        #expect(copied == Array(copied.first!...copied.last!), "\(indices)")
        for player in ["ffmpeg", "gstreamer"] { try Self.decodesSilently(out, in: player) }
    }

    @Test(arguments: ["ts", "mp4"])
    func rangesJoinOnTheFilesTimeline(_ suffix: String) throws {
        let source = try Self.source.get().path
        let out = Fixtures.path("ts-concat.\(suffix)")
        let r = try Tool.splice(["concat", source + "#t=1,3", source + "#t=2,4", "-o", out.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let indices = try Self.sourceIndices(out)
        #expect(indices.count == 96, "\(indices)")
        guard indices.count == 96 else { return }
        // Each clip's copied frames are its own range's: 1–3 s then 2–4 s, 48 frames each.
        let first = indices[..<48].compactMap { $0 }, second = indices[48...].compactMap { $0 }
        #expect(first.allSatisfy { (23...72).contains($0) } && !first.isEmpty, "\(indices)")
        #expect(second.allSatisfy { (47...96).contains($0) } && second.count >= 40, "\(indices)")
        for player in ["ffmpeg", "gstreamer"] { try Self.decodesSilently(out, in: player) }
    }

    /// A range from the middle of a GOP, decoded: libavformat's MPEG-TS seek lands on any
    /// packet, and reading went on from there (3.81–3.99 s once wrote a file without video).
    @Test(arguments: ["3,3.5", "3.81,3.99"])
    func aRangeInsideAGOPIsDecoded(_ range: String) throws {
        let out = Fixtures.path("ts-range-\(range).mp4")
        let r = try Tool.splice(["export", try Self.source.get().path, "-o", out.path, "--range", range, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        guard r.status == 0 else { return }
        // The frames that start inside the range (24 fps, 23 ms after the sound): 12 and 5.
        let bounds = range.split(separator: ",").compactMap { Double($0) }
        let expected = (0..<144).map { 0.023 + Double($0) / 24 }.filter { $0 >= bounds[0] && $0 < bounds[1] }.count
        #expect(expected == (range == "3,3.5" ? 12 : 5))
        #expect(try SmartCutProfileTests.frames(out).count == expected)
        for player in ["ffmpeg", "gstreamer"] { try Self.decodesSilently(out, in: player) }
    }

    static func decodesSilently(_ url: URL, in player: String) throws {
        let r = player == "ffmpeg"
            ? try Tool.run("ffmpeg", ["-v", "error", "-i", url.path, "-f", "null", "-"])
            : try Tool.run("gst-launch-1.0", ["-q", "playbin", "uri=file://\(url.path)", "video-sink=fakesink sync=false", "audio-sink=fakesink sync=false"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(player): \(r.stderr)")
    }
}
