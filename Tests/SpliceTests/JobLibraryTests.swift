import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// Each job called as a library call (what the subcommands call), its output checked with ffprobe
/// and ffmpeg.
@Suite("Jobs as library calls")
struct JobLibraryTests {
    static func seconds(_ s: Double) -> MediaTime { CompositionTests.seconds(s) }

    /// The duration of each stream ffprobe sees, by type.
    static func durations(_ url: URL) throws -> [String: Double] {
        var out: [String: Double] = [:]
        for s in try Tool.ffprobeStreams(url) {
            guard let type = s["codec_type"] as? String, let d = (s["duration"] as? String).flatMap(Double.init) else { continue }
            out[type] = d
        }
        return out
    }

    static func run(_ session: ExportSession) throws -> URL {
        let url = try #require(session.outputURL)
        session.replacesExistingFile = true
        try session.run()
        return url
    }

    @Test func concatenating() throws {
        let clips = try CompositionTests.clips.get()
        let out = try Self.run(ExportSession.concatenating([Clip(url: clips[0], start: Self.seconds(1), end: Self.seconds(3)),
                                                            Clip(url: clips[1], start: Self.seconds(2))],
                                                           to: Fixtures.path("job-concat.mp4"), options: ConcatenationOptions(cut: .exact)))
        let asset = try Asset(url: out)
        #expect(abs(asset.duration.seconds - 6) < 0.001)
        let expected = try CompositionTests.frames(clips[0], from: 1, to: 3) + CompositionTests.frames(clips[1], from: 2, to: 6)
        #expect(try CompositionTests.frames(out) == expected)
        // Into Matroska, cut between sync samples: a smart cut; re-encoded when asked.
        let mkv = try ExportSession.concatenating([Clip(url: clips[0], start: Self.seconds(1), end: Self.seconds(3))], to: Fixtures.path("job-concat.mkv"),
                                                  options: ConcatenationOptions(preset: .lowQuality))
        #expect(mkv.preset == .passthrough && mkv.cutMode == .smart && mkv.notes.isEmpty, "\(mkv.notes)")
        let always = try ExportSession.concatenating([Clip(url: clips[0], start: Self.seconds(1), end: Self.seconds(3))], to: Fixtures.path("job-concat.mkv"),
                                                     options: ConcatenationOptions(reencode: .always, preset: .lowQuality))
        #expect(always.preset == .lowQuality)
        let never = try ExportSession.concatenating([Clip(url: clips[0], start: Self.seconds(1), end: Self.seconds(3))], to: Fixtures.path("job-concat-never.mkv"),
                                                    options: ConcatenationOptions(reencode: .never))
        #expect(never.preset == .passthrough && never.notes.contains { $0.contains("cut at sync samples, 0.000–4.000 s") }, "\(never.notes)")
        let format = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", try Self.run(never).path])
        #expect(abs((Double(format.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 4) < 0.05, "\(format.stdout)")
    }

    /// Ranges of one file that follow one another at a sync sample: their media is contiguous,
    /// so the edit list has one edit where it would have two — which GStreamer, which never plays
    /// a multi-edit track's last edit, then plays whole.
    @Test func contiguousRangesAreOneEdit() throws {
        let clip = try CompositionTests.clips.get()[0]
        let out = try Self.run(ExportSession.concatenating([Clip(url: clip, start: Self.seconds(0), end: Self.seconds(2)),
                                                            Clip(url: clip, start: Self.seconds(2), end: Self.seconds(4))],
                                                           to: Fixtures.path("job-contiguous.mp4")))
        let video = try #require(try Asset(url: out).tracks(withMediaType: .video).first)
        #expect(video.segments.count == 1, "\(video.segments)")
        #expect(try CompositionTests.frames(out) == CompositionTests.frames(clip, from: 0, to: 4))
        #expect(try Player.gstreamer.frames(out).count == 100 * 320 * 240 * 3 / 2)
    }

    @Test(.enabled(if: EncodingTests.notUnderTSan)) func crossfading() throws {
        let clips = try CompositionTests.clips.get()
        let options = ConcatenationOptions(preset: .lowQuality, crossfade: Self.seconds(1))
        let out = try Self.run(ExportSession.concatenating(clips.prefix(2).map { Clip(url: $0, end: Self.seconds(3)) },
                                                           to: Fixtures.path("job-crossfade.mp4"), options: options))
        let d = try Self.durations(out)
        #expect(abs((d["video"] ?? 0) - 5) < 0.05 && abs((d["audio"] ?? 0) - 5) < 0.05, "\(d)")
    }

    @Test func trimming() throws {
        let clip = try CompositionTests.clips.get()[0]
        let out = try Self.run(ExportSession.trimming(Clip(url: clip, start: Self.seconds(1.5), end: Self.seconds(4)), to: Fixtures.path("job-trim.mp4"),
                                                      cutMode: .exact))
        #expect(try CompositionTests.frames(out) == CompositionTests.frames(clip, from: 1.5, to: 4))
        #expect(try Asset(url: out).tracks.allSatisfy { $0.segments.count == 1 })
        // Smart (the default): the frames of 1.5–2 s re-encoded, the rest copied, one edit, nothing hidden.
        let smart = try Self.run(ExportSession.trimming(Clip(url: clip, start: Self.seconds(1.5), end: Self.seconds(4)), to: Fixtures.path("job-trim-smart.mp4")))
        #expect(try CompositionTests.frames(smart).count == 63)
        #expect(try CompositionTests.frames(smart).suffix(50) == CompositionTests.frames(clip, from: 2, to: 4))
        let video = try #require(try Asset(url: smart).tracks(withMediaType: .video).first)
        #expect(video.segments.count == 1, "\(video.segments)")
        #expect(throws: MediaError.self) { try ExportSession.trimming(Clip(url: clip, start: Self.seconds(7)), to: Fixtures.path("job-trim-late.mp4")) }
    }

    @Test func merging() throws {
        let clips = try CompositionTests.clips.get()
        let wav = Fixtures.path("job-merge.wav")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100:duration=9", wav.path])
        let session = try ExportSession.merging(Clip(url: clips[0]), with: Clip(url: wav), to: Fixtures.path("job-merge.mp4"),
                                                options: MergeOptions(keepsOriginalAudio: true))
        #expect(session.notes == ["job-merge.wav (pcm_s16le) is encoded as AAC: .mp4 files cannot hold pcm_s16le"], "\(session.notes)")
        let out = try Self.run(session)
        let streams = try Tool.ffprobeStreams(out)
        #expect(streams.map { $0["codec_name"] as? String } == ["h264", "aac", "aac"])
        let d = try Self.durations(out)
        #expect(abs((d["audio"] ?? 0) - 6) < 0.05, "\(d)")
        let asset = try Asset(url: out)
        #expect(asset.tracks(withMediaType: .audio).map(\.isEnabled) == [true, false])
        #expect(Set(asset.tracks(withMediaType: .audio).map(\.alternateGroup)).count == 1)
    }

    @Test func mixing() throws {
        let clips = try CompositionTests.clips.get()
        let music = Fixtures.path("job-music.m4a")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=220:sample_rate=48000:duration=2", "-c:a", "aac", music.path])
        let options = MixOptions(startTime: Self.seconds(1), musicVolume: 0.5, originalVolume: 0, loops: true)
        let out = try Self.run(ExportSession.mixing(Clip(url: music), under: Clip(url: clips[0]), to: Fixtures.path("job-mix.mp4"), options: options))
        let streams = try Tool.ffprobeStreams(out)
        #expect(streams.map { $0["codec_type"] as? String } == ["video", "audio"])
        // The original silenced: nothing in the first second, the music looped to the end.
        func level(from: Double, to: Double) throws -> Double {
            let r = try Tool.check("ffmpeg", ["-v", "info", "-i", out.path, "-map", "0:a", "-af", "atrim=\(from):\(to),volumedetect", "-f", "null", "-"])
            let line = try #require(r.stderr.split(separator: "\n").first { $0.contains("mean_volume") })
            return try #require(Double(line.split(separator: " ").dropLast().last ?? ""))
        }
        #expect(try level(from: 0.1, to: 0.9) < -60)
        #expect(try abs(level(from: 4.2, to: 5.8) - level(from: 1.2, to: 2.8)) < 1)
    }

    @Test(.enabled(if: EncodingTests.notUnderTSan)) func slideshow() throws {
        let image = Fixtures.path("job-slide.png")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240", "-frames:v", "1", image.path])
        let options = SlideshowOptions(frameRate: 10, imageDuration: Self.seconds(1), preset: .lowQuality)
        let out = try Self.run(ExportSession.slideshow(of: [image, image], to: Fixtures.path("job-slides.mp4"), options: options))
        let stream = try #require(try Tool.ffprobeStreams(out).first)
        #expect(stream["width"] as? Int == 320 && stream["nb_frames"] as? String == "20", "\(stream)")
    }

    @Test func thumbnails() throws {
        let clip = try CompositionTests.clips.get()[0]
        let generator = AssetImageGenerator(asset: try Asset(url: clip))
        let paths = ["job-thumb-1.png", "job-thumb-2.jpg"].map { Fixtures.path($0).path }
        let images = try generator.writeImages(at: [Self.seconds(0.5), Self.seconds(2)], to: paths, replacing: true)
        #expect(images.map(\.actualTime.seconds) == [0.48, 2])
        for path in paths {
            let s = try #require(try Tool.ffprobeStreams(URL(fileURLWithPath: path)).first)
            #expect(s["width"] as? Int == 320 && s["height"] as? Int == 240)
        }
        // All or nothing: an existing image without replacing, and nothing is written.
        let fresh = Fixtures.path("job-thumb-fresh.png").path
        try? FileManager.default.removeItem(atPath: fresh)
        #expect { try generator.writeImages(at: [.zero, .zero], to: [fresh, paths[0]]) } throws: { ($0 as? MediaError)?.code == .fileExists }
        #expect(!FileManager.default.fileExists(atPath: fresh))
    }
}
