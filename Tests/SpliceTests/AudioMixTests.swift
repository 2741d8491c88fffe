import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// `AudioMix`, `AssetReaderAudioMixOutput` and `splice mix`, measured with a Goertzel filter on
/// ffmpeg's decode: a video whose sound is a 440 Hz sine under music that is a 1 kHz sine.
@Suite("Audio mix")
struct AudioMixTests {
    static let video: Result<URL, Error> = Result {
        let url = Fixtures.path("mix-video.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=6", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=6",
                         "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", "-b:a", "192k", url.path])
        return url
    }
    static let music: Result<URL, Error> = Result {
        let url = Fixtures.path("mix-music.m4a")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=44100:duration=4", "-c:a", "aac", "-b:a", "192k", url.path])
        return url
    }

    /// The first audio stream decoded by ffmpeg: mono float at 48 kHz.
    static func pcm(_ url: URL) throws -> [Float] {
        let data = try Tool.check("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:a:0", "-f", "f32le", "-ac", "1", "-ar", "48000", "-"]).stdoutData
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// The amplitude of `hertz` in `x` (Goertzel).
    static func amplitude(_ x: ArraySlice<Float>, _ hertz: Double, rate: Double = 48_000) -> Double {
        let w = 2 * Double.pi * hertz / rate, c = 2 * cos(w)
        var s1 = 0.0, s2 = 0.0
        for v in x { let s0 = Double(v) + c * s1 - s2; s2 = s1; s1 = s0 }
        return sqrt(max(0, s1 * s1 + s2 * s2 - c * s1 * s2)) * 2 / Double(x.count)
    }

    static func window(_ x: [Float], at seconds: Double, length: Double = 0.01) -> ArraySlice<Float> {
        let i = Int(seconds * 48_000), n = Int(length * 48_000)
        return x[max(0, i - n / 2)..<min(x.count, i + n / 2)]
    }

    static func db(_ a: Double, _ b: Double) -> Double { 20 * log10(a / b) }

    @Test func levelsVideoAndDuration() throws {
        let video = try AudioMixTests.video.get(), music = try AudioMixTests.music.get()
        let out = Fixtures.path("mixed.mp4")
        let r = try Tool.splice(["mix", video.path, music.path, "-o", out.path, "--at", "1", "--music-volume", "0.3", "--original-volume", "0.8", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let mixed = try AudioMixTests.pcm(out), original = try AudioMixTests.pcm(video), song = try AudioMixTests.pcm(music)
        let a440 = AudioMixTests.amplitude(AudioMixTests.window(original, at: 3, length: 0.1), 440)
        let a1k = AudioMixTests.amplitude(AudioMixTests.window(song, at: 2, length: 0.1), 1000)
        for t in [0.5, 3.0, 5.5] {
            let level = AudioMixTests.db(AudioMixTests.amplitude(AudioMixTests.window(mixed, at: t, length: 0.1), 440), a440)
            #expect(abs(level - 20 * log10(0.8)) < 0.5, "440 Hz at \(t) s: \(level) dB")
        }
        let music3 = AudioMixTests.db(AudioMixTests.amplitude(AudioMixTests.window(mixed, at: 3, length: 0.1), 1000), a1k)
        #expect(abs(music3 - 20 * log10(0.3)) < 0.5, "1 kHz at 3 s: \(music3) dB")
        let before = AudioMixTests.amplitude(AudioMixTests.window(mixed, at: 0.5, length: 0.1), 1000)
        #expect(before < a1k * 0.01, "no music before 1 s")
        // The video copied; the duration the video's, within an audio frame (from the container).
        func videoHash(_ url: URL) throws -> String {
            try Tool.check("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:v", "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]).stdout
        }
        #expect(try videoHash(out) == videoHash(video))
        let asset = try Asset(url: out)
        #expect(abs(asset.duration.seconds - 6) <= 1024.0 / 48_000, "\(asset.duration.seconds) s")
        #expect(asset.tracks.map(\.mediaType) == [.video, .audio])
    }

    /// ffmpeg's RMS level (dBFS) of what lies above 5 kHz in the first audio stream from
    /// `start` for `duration` seconds: two sines leave next to nothing there, a frame dropped or
    /// doubled is a click that does.
    static func highFrequencyLevel(_ url: URL, start: Double, duration: Double) throws -> Double {
        // (Filtered first, then cut: a filter started mid-sine rings.)
        let filter = "highpass=f=5000,highpass=f=5000,highpass=f=5000,atrim=\(start):\(start + duration),"
            + "astats=measure_overall=RMS_level:measure_perchannel=none"
        let r = try Tool.check("ffmpeg", ["-v", "info", "-nostdin", "-i", url.path, "-map", "0:a:0", "-af", filter, "-f", "null", "-"])
        let line = r.stderr.split(separator: "\n").first { $0.contains("RMS level dB") }
        return line.flatMap { Double($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) } ?? 0
    }

    /// Music at another rate than the movie's sound (44.1 kHz under 48 kHz), and music whose
    /// container keeps times in milliseconds (Matroska: 21 or 22 ms for a 21.3 ms frame), is
    /// resampled and laid end to end: no frame dropped or doubled between buffers. (It was, once
    /// every few buffers: clicks 40 dB above the sines' own high-frequency residue, −105 dBFS.)
    @Test(arguments: ["m4a", "mka"])
    func resampledMusicIsContinuous(_ container: String) throws {
        let video = try AudioMixTests.video.get()
        var music = try AudioMixTests.music.get()
        if container == "mka" {
            let mka = Fixtures.path("mix-music.mka")
            try Tool.ffmpeg(["-i", music.path, "-c", "copy", mka.path])
            music = mka
        }
        let out = Fixtures.path("mixed-continuous-\(container).mp4")
        let r = try Tool.splice(["mix", video.path, music.path, "-o", out.path, "--at", "1", "--music-volume", "0.5", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let residue = try AudioMixTests.highFrequencyLevel(out, start: 1.5, duration: 3)
        #expect(residue < -90, "above 5 kHz while the music plays: \(residue) dBFS")
        let level = AudioMixTests.db(AudioMixTests.amplitude(AudioMixTests.window(try AudioMixTests.pcm(out), at: 3, length: 0.1), 1000),
                                     AudioMixTests.amplitude(AudioMixTests.window(try AudioMixTests.pcm(music), at: 2, length: 0.1), 1000))
        #expect(abs(level - 20 * log10(0.5)) < 0.5, "1 kHz at 3 s: \(level) dB")
    }

    @Test func fadesAndOnset() throws {
        let video = try AudioMixTests.video.get(), music = try AudioMixTests.music.get()
        let song = try AudioMixTests.pcm(music)
        let a1k = AudioMixTests.amplitude(AudioMixTests.window(song, at: 2, length: 0.1), 1000)
        let faded = Fixtures.path("faded.mp4")
        let r = try Tool.splice(["mix", video.path, music.path, "-o", faded.path, "--at", "1", "--original-volume", "0", "--fade-in", "1",
                                 "--fade-out", "1", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let x = try AudioMixTests.pcm(faded)
        // Music 1–5 s at 0.5: in from 1 to 2 s, out from 4 to 5 s.
        for p in 1...10 {
            let g = Double(p) / 10
            let fadeIn = AudioMixTests.db(AudioMixTests.amplitude(AudioMixTests.window(x, at: 1 + g), 1000), a1k * 0.5)
            #expect(abs(fadeIn - 20 * log10(g)) < 1, "fade-in at \(p * 10) %: \(fadeIn) dB")
            let fadeOut = AudioMixTests.db(AudioMixTests.amplitude(AudioMixTests.window(x, at: 5 - g), 1000), a1k * 0.5)
            #expect(abs(fadeOut - 20 * log10(g)) < 1, "fade-out at \(100 - p * 10) % left: \(fadeOut) dB")
        }
        // Onset: no fade, music alone from 1.5 s: the envelope (1 ms RMS) passes half its level then.
        let sharp = Fixtures.path("onset.mp4")
        #expect(try Tool.splice(["mix", video.path, music.path, "-o", sharp.path, "--at", "1.5", "--original-volume", "0", "--force"]).status == 0)
        let y = try AudioMixTests.pcm(sharp)
        let steady = sqrt(y[120_000..<124_800].reduce(0) { $0 + Double($1 * $1) } / 4800)
        let onset = stride(from: 0, to: y.count - 48, by: 48).first { i in
            sqrt(y[i..<(i + 48)].reduce(0) { $0 + Double($1 * $1) } / 48) > steady / 2
        }.map { Double($0) / 48_000 } ?? 0
        #expect(abs(onset - 1.5) < 0.01, "onset at \(onset) s")
    }

    /// `--loop` with lossless audio: half-second music repeats without a gap or an overlap.
    @Test func loopIsSeamless() throws {
        let video = try AudioMixTests.video.get()
        let loop = Fixtures.path("loop.flac")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000:duration=0.5", loop.path])
        let out = Fixtures.path("looped.mp4")
        let r = try Tool.splice(["mix", video.path, loop.path, "-o", out.path, "--loop", "--original-volume", "0", "--music-volume", "1",
                                 "--audio-codec", "flac", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let x = try AudioMixTests.pcm(out)
        #expect(abs(Double(x.count) / 48_000 - 6) < 0.03, "\(Double(x.count) / 48_000) s")
        // A 1 kHz sine at 48 kHz: every sample is the one 48 before it (whole periods).
        var worst: Float = 0
        for i in 48..<(x.count - 48) { worst = max(worst, abs(x[i] - x[i - 48])) }
        #expect(worst < 0.002, "largest difference from one period before: \(worst)")
    }

    @Test func rampsReadBackAndApplySampleBySample() throws {
        let music = try AudioMixTests.music.get()
        let asset = try Asset(url: music)
        let track = asset.tracks[0]
        var p = AudioMixInputParameters(track: track)
        func t(_ s: Double) -> MediaTime { MediaTime(seconds: s, preferredTimescale: 1000) }
        p.setVolumeRamp(fromStartVolume: 0, toEndVolume: 1, timeRange: TimeRange(start: t(0.5), end: t(1.5)))
        p.setVolume(0.25, at: t(2))
        p.setVolumeRamp(fromStartVolume: 0.25, toEndVolume: 0.75, timeRange: TimeRange(start: t(2.5), end: t(3.5)))
        #expect(p.volumeRamp(for: t(0.2)) == nil && p.volume(at: t(0.2)) == 1)
        #expect(p.volumeRamp(for: t(1))?.startVolume == 0 && p.volumeRamp(for: t(1))?.endVolume == 1)
        #expect(p.volume(at: t(1)) == 0.5 && p.volume(at: t(1.8)) == 1 && p.volume(at: t(2.2)) == 0.25 && p.volume(at: t(3)) == 0.5)
        #expect(p.volumeRamp(for: t(3.9))?.timeRange == TimeRange(start: t(2.5), end: t(3.5)))

        let reader = try AssetReader(asset: asset)
        let mixed = AssetReaderAudioMixOutput(audioTracks: [track], audioSettings: AudioOutputSettings(sampleRate: 44_100, channelCount: 1))
        mixed.audioMix = AudioMix(inputParameters: [p])
        try reader.add(mixed)
        let plain = AssetReaderTrackOutput(track: track, outputSettings: .audio(AudioOutputSettings(sampleRate: 44_100, channelCount: 1)))
        try reader.add(plain)
        #expect(reader.startReading())
        func floats(_ source: any SampleBufferSource) -> [Float] {
            var out: [Float] = []
            while let s = source.copyNextSampleBuffer(), let pcm = s.pcmBuffer {
                pcm.withPlane(0) { out += Array($0.bindMemory(to: Float.self).prefix(pcm.frameCount)) }
            }
            return out
        }
        let y = floats(mixed), x = floats(plain)
        #expect(abs(y.count - x.count) <= 1024, "\(y.count) against \(x.count)")
        // Per 10 ms block: the gain measured against the curve at the block's middle.
        var worst = 0.0
        for block in stride(from: 441, to: min(x.count, y.count) - 441, by: 441) {
            let rx = sqrt(x[block..<(block + 441)].reduce(0) { $0 + Double($1 * $1) })
            let ry = sqrt(y[block..<(block + 441)].reduce(0) { $0 + Double($1 * $1) })
            let expected = Double(p.volume(at: MediaTime(value: Int64(block + 220), timescale: 44_100)))
            guard rx > 0.01, expected > 0.05 else { continue }
            worst = max(worst, abs(ry / rx - expected))
        }
        #expect(worst < 0.01, "largest gain error per 10 ms block: \(worst)")
    }

    @Test func badInputAndClipping() throws {
        let video = try AudioMixTests.video.get(), music = try AudioMixTests.music.get()
        let out = Fixtures.path("bad-mix.mp4")
        let silent = Fixtures.path("picture-only.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1", "-c:v", "libx264", "-preset", "ultrafast", silent.path])
        let cases: [([String], Int32, String)] = [
            ([video.path, silent.path], 65, "has no audio track"),
            ([video.path, music.path, "--music-volume", "-1"], 64, "--music-volume"),
            ([video.path, music.path, "--original-volume", "loud"], 64, "--original-volume"),
            ([video.path, music.path, "--at", "7"], 65, "past the video's end"),
        ]
        for (args, status, message) in cases {
            let r = try Tool.splice(["mix"] + args + ["-o", out.path])
            #expect(r.status == status && r.stderr.contains(message), "\(args): \(r.status) \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
        // A video without sound gets the music alone; loud volumes clip, and say so.
        let r = try Tool.splice(["mix", silent.path, music.path, "-o", out.path, "--music-volume", "12", "--force"])
        #expect(r.status == 0 && r.stderr.contains("clipped"), "\(r.stderr)")
        #expect(try Tool.ffprobeStreams(out).map { $0["codec_name"] as? String } == ["h264", "aac"])
    }
}

extension AudioMixTests {
    /// Music under the grouped movie: the mix takes the enabled English AAC's place, and every
    /// other track keeps its group, flags, language, name and associations (mediainfo), and its
    /// packets.
    @Test func theMovieKeepsItsStructure() throws {
        let grouped = try Fixtures.grouped.get(), music = try AudioMixTests.music.get()
        let out = Fixtures.path("grouped-mixed.mp4")
        let r = try Tool.splice(["mix", grouped.path, music.path, "-o", out.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try RemuxTests.mediainfoTracks(out) == RemuxTests.mediainfoTracks(grouped))
        let names = try Asset(url: out).tracks.map { $0.name ?? "" }
        #expect(names == (try Asset(url: grouped).tracks.map { $0.name ?? "" }))
        let hashes = try ContainerTests.payloadHashes(out), theirs = try ContainerTests.payloadHashes(grouped)
        // Every stream but the mixed one (the first audio) has the source's packets.
        #expect(hashes.count == theirs.count && zip(hashes, theirs).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset) == [1],
                "\(hashes) against \(theirs)")
    }
}
