import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// `TrackCut`, the one place a cut is decided: what is read and what is shown, checked against
/// the key frames ffprobe lists.
@Suite("Track cuts")
struct TrackCutTests {
    /// The presentation times of `url`'s video key frames, from ffprobe.
    static func keyFrames(_ url: URL) throws -> [Double] {
        try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0", url.path])
            .stdout.split(separator: "\n").compactMap { line -> Double? in
                let fields = line.split(separator: ",")
                guard fields.count >= 2, fields[1].hasPrefix("K") else { return nil }
                return Double(fields[0])
            }.sorted()
    }

    @Test func aCutReadsFromTheKeyFrameBeforeAndShowsTheRange() throws {
        let url = try CompositionTests.clips.get()[0]
        let asset = try Asset(url: url)
        let video = asset.tracks(withMediaType: .video)[0], audio = asset.tracks(withMediaType: .audio)[0]
        let keys = try Self.keyFrames(url)
        for (a, b) in [(2.5, 4.0), (0.0, 1.0), (4.0, 5.5), (1.96, 6.0)] {
            let range = CompositionTests.range(a, b)
            let cut = try TrackCut(track: video, range: range)
            let key = try #require(keys.last { $0 <= a + 0.0005 })
            #expect(abs(cut.read.start.seconds - key) < 0.0005 && cut.shown == range.intersection(video.timeRange), "\(a)–\(b): \(cut)")
            #expect(cut.startsBetweenSyncSamples == (a - key > 0.0005))
            // Without edit lists the cut moves to key frames: back at the start, on at the end.
            let snapped = try cut.atSyncSamples(of: video)
            let next = keys.first { $0 >= b - 0.0005 } ?? video.timeRange.end.seconds
            #expect(abs(snapped.shown.start.seconds - key) < 0.0005, "\(snapped)")
            #expect(abs(snapped.shown.end.seconds - (b >= video.timeRange.end.seconds - 0.0005 ? b : next)) < 0.0005, "\(snapped)")
        }
        // AAC reads the packet before the range too (its decoder's pre-roll).
        let sound = try TrackCut(track: audio, range: CompositionTests.range(2.5, 4))
        let lead = (sound.shown.start - sound.read.start).seconds
        #expect(lead > 0 && lead <= 2048.0 / 48000, "\(lead)")
        // The whole track is read and shown as it is.
        #expect(try TrackCut(track: video, range: .everything) == TrackCut(track: video, range: .everything))
        #expect(try TrackCut(track: video, range: .everything).read == video.timeRange)
    }
}
