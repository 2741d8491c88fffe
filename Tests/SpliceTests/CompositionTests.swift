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
