import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// What an AVFoundation developer expects of AVFoundation's names: the seed jobs as a port
/// writes them, from the README and the public API.
@Suite("AVFoundation semantics")
struct AVFoundationSemanticsTests {
    static func seconds(_ s: Double) -> MediaTime { MediaTime(seconds: s, preferredTimescale: 600) }

    /// A 2 s mono AAC tone (1 kHz), alone in an M4A; and a 2 s H.264 clip with a stereo 440 Hz tone.
    static let media: Result<(mono: URL, clip: URL), Error> = Result {
        let mono = Fixtures.path("mono-tone.m4a"), clip = Fixtures.path("stereo-clip.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000:duration=2", "-ac", "1", "-c:a", "aac", "-b:a", "96k", mono.path])
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-f", "lavfi",
                         "-i", "sine=frequency=440:sample_rate=48000:duration=2", "-ac", "2", "-c:v", "libx264", "-preset", "ultrafast",
                         "-c:a", "aac", "-b:a", "128k", clip.path])
        return (mono, clip)
    }

    /// Channel `channel` of the first audio track, decoded by ffmpeg at 48 kHz.
    static func channel(_ url: URL, _ channel: Int = 0) throws -> [Float] {
        let raw = Fixtures.path("channel-\(UUID().uuidString).f32")
        defer { try? FileManager.default.removeItem(at: raw) }
        try Tool.ffmpeg(["-i", url.path, "-map", "0:a:0", "-af", "pan=mono|c0=c\(channel)", "-ar", "48000", "-f", "f32le", raw.path])
        return try Data(contentsOf: raw).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// The level of `frequency` in dB over 0.5 s from 0.75 s (Goertzel, Hann window).
    static func decibels(_ x: [Float], _ frequency: Double) -> Double {
        20 * log10(max(1e-9, SmartCutTests.level(x, frequency, at: 36_000, count: 24_000)))
    }

    static func probe(_ url: URL, _ entry: String) throws -> [String] {
        try Tool.check("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=\(entry)", "-of", "csv=p=0", url.path])
            .stdout.split(separator: "\n").map(String.init)
    }

    static func export(_ session: ExportSession, to name: String) throws -> URL {
        let out = Fixtures.path(name)
        try? FileManager.default.removeItem(at: out)
        session.outputURL = out
        try session.run()
        return out
    }

    /// 1. A mono AAC track is described as mono (the AudioSpecificConfig decides, not the sample
    /// entry's 2), and a mix of it comes out mono at its level.
    @Test func monoAACIsMonoAndMixedAtItsLevel() throws {
        let mono = try Self.media.get().mono
        let track = try #require(try Asset(url: mono).tracks(withMediaType: .audio).first)
        #expect(track.formatDescriptions.first?.channelCount == 1)
        #expect(try Self.probe(mono, "channels") == ["1"])
        let session = ExportSession(asset: try Asset(url: mono), preset: .passthrough)
        session.audioMix = AudioMix()
        let out = try Self.export(session, to: "mono-mixed.m4a")
        #expect(try Self.probe(out, "channels") == ["1"])
        let before = Self.decibels(try Self.channel(mono), 1000), after = Self.decibels(try Self.channel(out), 1000)
        #expect(abs(before - after) < 0.5, "\(before) dB before, \(after) dB after")
    }

    /// 2 and 4. An inline source asset (`Asset(url:).tracks[0]`, the asset let go at once) in a
    /// composition keeps its file; the composition and its tracks go wherever an asset and its
    /// tracks go: `ExportSession(asset:)`, `AssetReader` with a composition track's output, the
    /// mix's parameters and a layer instruction.
    @Test(.enabled(if: EncodingTests.notUnderTSan)) func compositionsAreAssetsAndKeepTheirSources() throws {
        let (mono, clip) = try Self.media.get()
        let composition = MutableComposition()
        let video = try #require(composition.addMutableTrack(withMediaType: .video))
        let voice = try #require(composition.addMutableTrack(withMediaType: .audio))
        let music = try #require(composition.addMutableTrack(withMediaType: .audio))
        let range = TimeRange(start: .zero, duration: Self.seconds(2))
        try video.insertTimeRange(range, of: try Asset(url: clip).tracks(withMediaType: .video)[0], at: .zero)
        try voice.insertTimeRange(range, of: try Asset(url: clip).tracks(withMediaType: .audio)[0], at: .zero)
        try music.insertTimeRange(range, of: try Asset(url: mono).tracks(withMediaType: .audio)[0], at: .zero)
        #expect(music.segments.first?.sourceURL == mono)

        // The reader and an output of a composition track.
        let reader = try AssetReader(asset: composition)
        let output = try AssetReaderTrackOutput(track: music, outputSettings: .audio(AudioOutputSettings(sampleFormat: .f32, isInterleaved: true)))
        try reader.add(output)
        #expect(reader.startReading())
        var frames = 0
        while let s = output.copyNextSampleBuffer() { frames += s.pcmBuffer?.frameCount ?? 0 }
        #expect(reader.status == .completed)
        #expect(abs(frames - 96_000) <= 1024, "\(frames) frames")

        // 3. The mix: the voice at half, the music without parameters at 1; the layer
        // instruction of the composition's video track.
        var parameters = MutableAudioMixInputParameters(track: voice)
        parameters.setVolume(0.5, at: .zero)
        var mix = AudioMix()
        mix.inputParameters = [parameters]
        var layout = try VideoComposition(propertiesOf: composition)
        layout.instructions = [VideoCompositionInstruction(timeRange: range, layerInstructions: [VideoCompositionLayerInstruction(assetTrack: video)])]
        let session = try ExportSession(asset: composition, presetName: "passthrough")
        session.audioMix = mix
        session.videoComposition = layout
        let out = try Self.export(session, to: "composition-mixed.mp4")
        #expect(try Self.probe(out, "channels") == ["2"])   // as wide as the widest track
        let left = try Self.channel(out), source = try Self.channel(clip), tone = try Self.channel(mono)
        let voiceLevel = Self.decibels(left, 440) - Self.decibels(source, 440)
        let musicLevel = Self.decibels(left, 1000) - Self.decibels(tone, 1000)
        #expect(abs(voiceLevel + 6.02) < 0.5, "voice \(voiceLevel) dB")
        #expect(abs(musicLevel) < 0.5, "music \(musicLevel) dB")
        #expect(session.warnings.allSatisfy { !$0.contains("ignored") }, "\(session.warnings)")
    }

    /// 3. Parameters for a track that is not an audio track of the asset are named in a warning.
    @Test func mixParametersForOtherTracksAreNamed() throws {
        let clip = try Self.media.get().clip
        let session = ExportSession(asset: try Asset(url: clip), preset: .passthrough)
        session.audioMix = AudioMix(inputParameters: [AudioMixInputParameters(trackID: 1), AudioMixInputParameters(trackID: 9)])
        _ = try Self.export(session, to: "mix-warnings.mp4")
        #expect(session.warnings.contains("the audio mix's parameters for track 1 are ignored: it is a video track"), "\(session.warnings)")
        #expect(session.warnings.contains("the audio mix's parameters for track 9 are ignored: the asset has no track 9"))
    }

    /// 7. Mismatches throw: a file type against the name's extension, a negative insertion
    /// time, an overlay outside the picture; an append before `startWriting()` fails the writer.
    @Test func mismatchesAreRefused() throws {
        let clip = try Self.media.get().clip
        #expect(throws: MediaError.self) { try AssetWriter(outputURL: Fixtures.path("wrong.mp4"), fileType: .mkv) }
        #expect((try? AssetWriter(outputURL: Fixtures.path("fine.m4v"), fileType: .mp4)) != nil)
        let session = ExportSession(asset: try Asset(url: clip), preset: .passthrough)
        session.outputFileType = .mkv
        let error = #expect(throws: MediaError.self) { _ = try Self.export(session, to: "named-wrong.mp4") }
        #expect(error?.description.contains("the file type is .mkv, but the name's extension '.mp4' says .mp4") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: Fixtures.path("named-wrong.mp4").path))

        let composition = MutableComposition()
        let range = TimeRange(start: .zero, duration: Self.seconds(1))
        #expect(throws: MediaError.self) { try composition.insertTimeRange(range, of: try Asset(url: clip), at: Self.seconds(-1)) }
        let track = try #require(composition.addMutableTrack(withMediaType: .audio))
        #expect(throws: MediaError.self) { try track.insertTimeRange(range, of: try Asset(url: clip).tracks[1], at: Self.seconds(-0.5)) }

        var layout = try VideoComposition(propertiesOf: try Asset(url: clip))
        layout.overlays = [VideoCompositionOverlay(image: try StillImage(contentsOf: Self.logo()), frame: CGRect(x: 400, y: 20, width: 80, height: 40))]
        let watermarked = ExportSession(asset: try Asset(url: clip), preset: .passthrough)
        watermarked.videoComposition = layout
        let outside = #expect(throws: MediaError.self) { _ = try Self.export(watermarked, to: "outside.mp4") }
        #expect(outside?.description.contains("overlay 1's frame (x 400.0, y 20.0, 80.0x40.0) lies wholly outside the 320x240 picture") == true,
                "\(String(describing: outside))")

        let writer = try AssetWriter(outputURL: Fixtures.path("early.mp4"))
        let input = AssetWriterInput(mediaType: .audio, outputSettings: nil, sourceFormatHint: try Asset(url: clip).tracks[1].formatDescriptions.first)
        try writer.add(input)
        #expect(!input.append(SampleBuffer(data: Data([0]), decodeTimeStamp: .zero, presentationTimeStamp: .zero, duration: Self.seconds(0.02), isSync: true,
                                           formatDescription: try Asset(url: clip).tracks[1].formatDescriptions.first!)))
        #expect(writer.error?.description.contains("a sample was appended before startWriting()") == true)
    }

    /// A 80x40 PNG made by ffmpeg.
    static func logo() throws -> URL {
        let url = Fixtures.path("semantics-logo.png")
        if !FileManager.default.fileExists(atPath: url.path) {
            try Tool.ffmpeg(["-f", "lavfi", "-i", "color=red:size=80x40", "-frames:v", "1", url.path])
        }
        return url
    }

    /// 7. A Matroska file named `.mp4` is opened by its content.
    @Test func formatByContent() throws {
        let url = Fixtures.path("matroska-named.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1", "-c:v", "libx264", "-preset", "ultrafast", "-f", "matroska", url.path])
        let asset = try Asset(url: url)
        #expect(asset.format.contains("matroska"))
        #expect(asset.tracks.count == 1)
        let r = try Tool.splice(["inspect", url.path])
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// 7 and 8. An empty composition track is named in the export's warnings; a range without an
    /// end is said in seconds.
    @Test func emptyTracksAndUnclearRanges() throws {
        let clip = try Self.media.get().clip
        let composition = MutableComposition()
        try composition.insertTimeRange(TimeRange(start: .zero, duration: Self.seconds(1)), of: try Asset(url: clip), at: .zero)
        composition.addMutableTrack(withMediaType: .audio, preferredTrackID: 7)
        let session = try ExportSession(asset: composition, presetName: "passthrough")
        _ = try Self.export(session, to: "empty-track.mp4")
        #expect(session.warnings.contains("composition track 7 (audio) has no media and is left out"), "\(session.warnings)")

        let track = try #require(composition.addMutableTrack(withMediaType: .video))
        let error = #expect(throws: MediaError.self) {
            try track.insertTimeRange(TimeRange(start: .zero, duration: .positiveInfinity), of: try Asset(url: clip).tracks[0], at: .zero)
        }
        #expect(error?.description.contains("the range from 0.000 s has no end (give its duration in seconds)") == true, "\(String(describing: error))")
    }

    /// 9. Progress is told at most about ten times a second, and 1.0 once.
    @Test func progressIsPaced() throws {
        let clip = try Self.media.get().clip
        let session = ExportSession(asset: try Asset(url: clip), preset: .passthrough)
        let told = Locked<[Double]>([])
        session.progressHandler = { p in told.withLock { $0.append(p) } }
        let started = Date()
        _ = try Self.export(session, to: "paced.mp4")
        let values = told.withLock { $0 }
        #expect(values.filter { $0 == 1 }.count == 1)
        #expect(values.last == 1)
        #expect(values.count <= Int(Date().timeIntervalSince(started) * 10) + 2, "\(values.count) calls")
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 })
    }
}
