import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// `ExportSession.encodedTracks` and `splice export --encoded-tracks`: tracks encoded elsewhere
/// (a distributed export's joined pieces) written in their tracks' places, with the structure a
/// local export keeps.
@Suite("Encoded tracks")
struct EncodedTracksTests {
    /// 320x240 for 3 s, a sync sample a second; English AAC above the preset's rate (encoded) and
    /// a disabled French one in its group; a Spanish subtitle track.
    static let source: Result<URL, Error> = Result {
        let srt = Fixtures.path("encoded-tracks.es.srt")
        try "1\n00:00:00,500 --> 00:00:02,000\nHola\n".write(to: srt, atomically: true, encoding: .utf8)
        let url = Fixtures.path("encoded-tracks-source.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=3", "-f", "lavfi", "-i", "sine=f=440:d=3",
                         "-f", "lavfi", "-i", "sine=f=660:d=3", "-i", srt.path, "-map", "0", "-map", "1", "-map", "2", "-map", "3",
                         "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-c:a", "aac", "-b:a", "256k", "-c:s", "mov_text",
                         "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", "-metadata:s:s:0", "language=spa",
                         "-disposition:a:1", "0", url.path])
        return url
    }

    /// Track `id` of the source exported alone with `preset` (what a worker encodes).
    static func encodeAlone(_ id: Int, _ preset: ExportPreset, to name: String, configure: (ExportSession) -> Void = { _ in }) throws -> URL {
        let session = try ExportTests.export(try source.get(), preset, to: name) {
            $0.trackSelection = TrackSelection(including: [.trackID(id)])
            configure($0)
        }
        #expect(session.status == .completed)
        return Fixtures.path(name)
    }

    @Test(.enabled(if: EncodingTests.notUnderTSan))
    func theEncodedTracksTakeTheirTracksPlaces() throws {
        let source = try EncodedTracksTests.source.get()
        let local = Fixtures.path("encoded-tracks-local.mp4")
        _ = try ExportTests.export(source, .lowQuality, to: local.lastPathComponent)
        let video = try EncodedTracksTests.encodeAlone(1, .lowQuality, to: "encoded-tracks-video.mp4") { $0.crf = 30 }
        let audio = try EncodedTracksTests.encodeAlone(2, .lowQuality, to: "encoded-tracks-audio.m4a")
        let videoAsset = try Asset(url: video), audioAsset = try Asset(url: audio)
        let out = Fixtures.path("encoded-tracks-out.mp4")
        _ = try ExportTests.export(source, .lowQuality, to: out.lastPathComponent) {
            $0.encodedTracks = [1: videoAsset.tracks(withMediaType: .video)[0], 2: audioAsset.tracks(withMediaType: .audio)[0]]
        }
        // The structure is the local export's; the pictures are the encoded file's (CRF 30, not
        // the preset's), and the sound the local export's, bit for bit.
        var expected = try RemuxTests.structure(local), got = try RemuxTests.structure(out)
        let localVideo = (expected["tracks"] as? [[String: Any]])?.first ?? [:], video0 = (got["tracks"] as? [[String: Any]])?.first ?? [:]
        for key in ["sampleCount", "codec", "codecName", "width", "height", "duration", "edits", "language", "enabled", "alternateGroup"] {
            #expect((video0[key] as? NSObject)?.isEqual(localVideo[key]) == true, "\(key)")
        }
        expected["tracks"] = (expected["tracks"] as? [[String: Any]])?.dropFirst().map { $0 }
        got["tracks"] = (got["tracks"] as? [[String: Any]])?.dropFirst().map { $0 }
        #expect(NSDictionary(dictionary: got).isEqual(to: expected))
        #expect(try RemuxTests.mediainfoTracks(out) == RemuxTests.mediainfoTracks(local))
        let hashes = try RemuxTests.streamHash(out).split(separator: "\n"), localHashes = try RemuxTests.streamHash(local).split(separator: "\n")
        #expect(hashes[0].hasSuffix(try RemuxTests.streamHash(video).split(separator: "=").last!.trimmingCharacters(in: .newlines)))
        #expect(hashes[0] != localHashes[0])
        #expect(Array(hashes[1...]) == Array(localHashes[1...]))
    }

    @Test func theCommandLineTakesThemAndRefusesWhatCannotStand() throws {
        let source = try EncodedTracksTests.source.get()
        let video = try EncodedTracksTests.encodeAlone(1, .lowQuality, to: "encoded-tracks-cli-video.mp4")
        let out = Fixtures.path("encoded-tracks-cli.mp4")
        try? FileManager.default.removeItem(at: out)
        let r = try Tool.splice(["export", source.path, "-o", out.path, "--preset", "lowQuality", "--encoded-tracks", "1=\(video.path)", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try RemuxTests.streamHash(out).split(separator: "\n").first?.split(separator: "=").last
                == RemuxTests.streamHash(video).split(separator: "\n").first?.split(separator: "=").last)
        for (value, extra, status, says) in [("9=\(video.path)", [String](), Int32(64), "each ID one of the input's tracks"),
                                             ("2=\(video.path)", [], 65, "has no audio track to stand for track 2"),
                                             ("1=\(video.path)", ["--range", "0,1"], 1, "encoded tracks stand for whole tracks")] {
            try? FileManager.default.removeItem(at: out)
            let r = try Tool.splice(["export", source.path, "-o", out.path, "--preset", "lowQuality", "--encoded-tracks", value] + extra)
            #expect(r.status == status && r.stderr.contains(says), "\(value): \(r.status) \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }

    @Test func anEncodedTrackThatCannotBeReadFailsTheExportAndLeavesNothing() throws {
        let source = try EncodedTracksTests.source.get()
        let video = try EncodedTracksTests.encodeAlone(1, .lowQuality, to: "encoded-tracks-shrinking.mp4") { $0.shouldOptimizeForNetworkUse = true }
        let encoded = try Asset(url: video)
        // The file loses the second half of its samples after it was opened (a checked file
        // refuses such a table when it opens): reading them fails, and so does the export.
        let size = try FileManager.default.attributesOfItem(atPath: video.path)[.size] as? Int ?? 0
        #expect(truncate(video.path, off_t(size / 2)) == 0)
        let out = Fixtures.path("encoded-tracks-failed.mp4")
        try? FileManager.default.removeItem(at: out)
        let session = ExportSession(asset: try Asset(url: source), preset: .lowQuality)
        session.outputURL = out
        session.encodedTracks = [1: encoded.tracks(withMediaType: .video)[0]]
        #expect(throws: MediaError.self) { try session.run() }
        #expect(session.status == .failed && session.error?.file == video.path, "\(String(describing: session.error))")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// A part of a movie cut exactly (every packet from the sync sample before it, the rest
    /// hidden by the edit list), re-encoded whole: the frames its edit shows, not the one that
    /// starts where the edit ends (what a distributed export's worker without the file gets).
    @Test(.enabled(if: EncodingTests.notUnderTSan))
    func aCutPartReencodedShowsWhatItsEditShows() throws {
        // (B-frames: the exact cut keeps packets past its end that the pictures before it need)
        let source = Fixtures.path("encoded-tracks-bframes.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=3", "-c:v", "libx264", "-preset", "veryfast",
                         "-bf", "3", "-g", "25", source.path])
        let part = try ExportTests.export(source, .passthrough, to: "encoded-tracks-part.mp4") {
            $0.timeRange = TimeRange(start: MediaTime(value: 48, timescale: 100), end: MediaTime(value: 18, timescale: 10))
            $0.cutMode = .exact
            $0.trackSelection = TrackSelection(including: [.mediaType(.video)])
        }
        #expect(part.status == .completed)
        _ = try ExportTests.export(Fixtures.path("encoded-tracks-part.mp4"), .lowQuality, to: "encoded-tracks-part-encoded.mp4")
        for name in ["encoded-tracks-part.mp4", "encoded-tracks-part-encoded.mp4"] {
            let count = try Tool.check("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v", "-show_entries",
                                                   "stream=nb_read_frames", "-of", "csv=p=0", Fixtures.path(name).path]).stdout
            #expect(count.trimmingCharacters(in: .whitespacesAndNewlines) == "33", "\(name)")
        }
    }
}
