import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// A composition read decoded like any other source: exact times over many segments, and what
/// its decoders skipped in the reader's warnings.
@Suite("Composition reads")
struct CompositionReadTests {
    /// 8 s of 23.976 fps H.264 (timescale 24000; B-frames, a key frame every 15 frames), 160x120.
    static let film: Result<URL, Error> = Result {
        let url = Fixtures.path("film-160.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=24000/1001:duration=8", "-c:v", "libx264", "-preset", "ultrafast",
                         "-g", "15", "-bf", "2", "-pix_fmt", "yuv420p", url.path])
        return url
    }

    /// The decoded samples of `asset`'s first video track.
    static func decoded(_ asset: Asset) throws -> (samples: [SampleBuffer], warnings: [String]) {
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: asset.tracks(withMediaType: .video)[0], outputSettings: .video(VideoOutputSettings()))
        try reader.add(output)
        #expect(reader.startReading())
        var samples: [SampleBuffer] = []
        while let s = output.copyNextSampleBuffer() { samples.append(s) }
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        return (samples, reader.warnings)
    }

    @Test func twoHundredOneFrameSegmentsAreExactToTheTick() throws {
        let clip = try Asset(url: try Self.film.get())
        // 200 segments of 1001/30000 s, each showing one frame of the 1001/24000 s frames of the
        // clip, from another place (most between sync samples): the moves are no whole number of
        // the clip's ticks.
        let frame = MediaTime(value: 1001, timescale: 30000), filmFrame = MediaTime(value: 1001, timescale: 24000)
        let composition = MutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video))
        let video = clip.tracks(withMediaType: .video)[0]
        for k in 0..<200 {
            try track.insertTimeRange(TimeRange(start: filmFrame * Int64((k * 37) % 190), duration: frame), of: video, at: frame * Int64(k))
        }
        #expect(composition.duration == frame * 200)
        let samples = try Self.decoded(try composition.makeAsset()).samples
        #expect(samples.count == 200)
        for (k, s) in samples.enumerated() {
            #expect(s.presentationTimeStamp == frame * Int64(k), "frame \(k): \(s.presentationTimeStamp)")
        }
        // Each frame is the source frame it was cut from (testsrc's pictures differ frame to frame).
        let sources = try Self.decoded(clip).samples.map { Data($0.imageBuffer!.packedBytes) }
        for (k, s) in samples.enumerated() where Data(s.imageBuffer!.packedBytes) != sources[(k * 37) % 190] {
            Issue.record("frame \(k) is not source frame \((k * 37) % 190)")
            break
        }
    }

    @Test func compositionReadsPassOnDamagedPackets() throws {
        // The clip with bytes scribbled over in its media data (the moov, at the end, kept).
        let source = try Self.film.get()
        var bytes = [UInt8](try Data(contentsOf: source))
        var state: UInt32 = 0x2545_F491
        for k in (bytes.count / 4)..<(bytes.count / 4 + 3000) {
            state = state &* 1_664_525 &+ 1_013_904_223
            bytes[k] = UInt8(truncatingIfNeeded: state >> 24)
        }
        let damaged = Fixtures.path("film-damaged.mp4")
        try Data(bytes).write(to: damaged)
        let clip = try Asset(url: damaged)
        let direct = try Self.decoded(clip).warnings
        #expect(!direct.isEmpty)
        let composition = MutableComposition()
        try composition.insertTimeRange(TimeRange(start: .zero, duration: clip.duration), of: clip, at: .zero)
        let composed = try Self.decoded(try composition.makeAsset()).warnings
        #expect(!composed.isEmpty && composed.allSatisfy { $0.hasPrefix("track 1: ") }, "\(composed)")
        // The same warnings (a frame-threaded decoder's lines come in any order).
        func lines(_ w: [String]) -> [String] { w.map { $0.replacingOccurrences(of: "track 1: ", with: "") }.sorted() }
        #expect(lines(composed) == lines(direct), "\(composed) against \(direct)")
    }
}
