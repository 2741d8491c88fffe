import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// The reader honours every edit of every track type on the asset's timeline (empty edits,
/// several media edits), and copies keep a track's zero-length last sample.
@Suite("Timeline edits")
struct TimelineEditsTests {
    /// A 4 s clip at 25 fps (H.264 with B-frames, a key frame every 25 frames) whose video has
    /// three edits: media 0.2–1.2 s at 0, 0.5 s empty, media 2.6–3.4 s at 1.5 s.
    static let edited: Result<URL, Error> = Result {
        let url = Fixtures.path("three-edits.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-c:v", "libx264", "-preset", "veryfast",
                         "-pix_fmt", "yuv420p", "-g", "25", "-bf", "2", url.path])
        try MoovPatch.apply(to: url) { moov in
            moov.modifyTrack(1) { trak in
                let scale = Int64(trak.mediaTimescale)
                // (ffmpeg's first sample presents at the composition offset of its B-frame delay)
                trak.setEditList([(1000, scale / 5 + scale * 2 / 25, 1), (500, -1, 1), (800, scale * 13 / 5 + scale * 2 / 25, 1)])
            }
        }
        return url
    }

    /// The forced subtitle of the grouped movie (edits: 1 s empty, media 0–1 s, media 1.5–2 s):
    /// its cue at 2.0–2.5 s, not at 1.5 s over the cue before.
    @Test func subtitleEditsInTheMiddle() throws {
        let asset = try Asset(url: try Fixtures.grouped.get())
        let track = try #require(asset.track(withTrackID: 6))
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: track)
        try reader.add(output)
        #expect(reader.startReading())
        var cues: [(Double, Double, Int)] = []
        while let s = output.copyNextSampleBuffer() {
            cues.append((s.presentationTimeStamp.seconds, (s.presentationTimeStamp + s.duration).seconds, try s.data.count))
        }
        #expect(reader.status == .completed)
        #expect(cues.map(\.0) == [1.0, 2.0])
        #expect(cues.map(\.1) == [2.0, 2.5])
        #expect(cues.map(\.2) == [2, 8])
    }

    /// Decoded frames of a video with three edits, against ffmpeg's decode of the media
    /// (`-ignore_editlist 1`) with the edits applied here.
    @Test func videoWithThreeEditsDecodedFrameExactly() throws {
        let url = try Self.edited.get()
        let media = try Tool.check("ffmpeg", ["-v", "error", "-ignore_editlist", "1", "-i", url.path, "-map", "0:v", "-f", "framemd5", "-"])
            .stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",").last!).trimmingCharacters(in: .whitespaces) }
        #expect(media.count == 100)
        // 0.2–1.2 s is frames 5..<30; 2.6–3.4 s is frames 65..<85.
        let expected = Array(media[5..<30]) + Array(media[65..<85])

        let asset = try Asset(url: url)
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: asset.tracks[0], outputSettings: .video(VideoOutputSettings(pixelFormat: .yuv420p)))
        try reader.add(output)
        #expect(reader.startReading())
        var raw: [UInt8] = []
        var times: [Double] = []
        while let s = output.copyNextSampleBuffer() {
            let picture = try #require(s.imageBuffer)
            raw += picture.packedBytes
            times.append(s.presentationTimeStamp.seconds)
        }
        #expect(reader.status == .completed, "\(reader.error.map { "\($0)" } ?? "")")
        let rawURL = Fixtures.path("three-edits.yuv")
        try Data(raw).write(to: rawURL)
        let ours = try Tool.check("ffmpeg", ["-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "320x240", "-i", rawURL.path, "-f", "framemd5", "-"])
            .stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",").last!).trimmingCharacters(in: .whitespaces) }
        #expect(ours == expected)
        // On the timeline: 0–1 s, then 1.5–2.3 s.
        let want = (0..<25).map { Double($0) / 25 } + (0..<20).map { 1.5 + Double($0) / 25 }
        #expect(times.count == want.count && zip(times, want).allSatisfy { abs($0 - $1) < 0.001 }, "\(times)")
    }
}
