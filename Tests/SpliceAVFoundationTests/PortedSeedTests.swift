import Foundation
import SpliceAVFoundation
import Testing
import TestSupport

/// Code as written for AVFoundation in Swift, with `import AVFoundation` changed to
/// `import SpliceAVFoundation` : the background-music job
/// (seed 001), checked with ffprobe and the tones' levels.
@Suite("Ported AVFoundation code")
struct PortedSeedTests {
    /// A 3 s video with a 440 Hz tone, and 5 s of 880 Hz music (both stereo AAC).
    static let media: Result<(video: URL, music: URL), Error> = Result {
        let video = Fixtures.path("ported-video.mp4"), music = Fixtures.path("ported-music.m4a")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=3", "-f", "lavfi",
                         "-i", "sine=frequency=440:sample_rate=48000:duration=3", "-ac", "2", "-c:v", "libx264", "-preset", "ultrafast",
                         "-c:a", "aac", "-b:a", "128k", video.path])
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=880:sample_rate=48000:duration=5", "-ac", "2", "-c:a", "aac", "-b:a", "128k", music.path])
        return (video, music)
    }

    /// The seed's `addMusic`: the video's track, its sound at 1 − v, the music at v from
    /// `startTime`, exported as QuickTime with the medium preset.
    static func addMusic(video videoURL: URL, music fileURL: URL, volume: Float, startTime: Double, to outputFileURL: URL) throws -> AVAssetExportSession {
        let composition = AVMutableComposition()
        let videoAsset = AVURLAsset(url: videoURL)
        let videoTimeRange = CMTimeRangeMake(start: kCMTimeZero, duration: videoAsset.duration)
        let videoTrack = composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid)!
        let videoAssetTrack = videoAsset.tracks(withMediaType: .video).first!
        try videoTrack.insertTimeRange(videoTimeRange, of: videoAssetTrack, at: kCMTimeZero)

        let originalAudioTrack = composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid)!
        let originalAudioAssetTrack = videoAsset.tracks(withMediaType: .audio).first!
        try originalAudioTrack.insertTimeRange(videoTimeRange, of: originalAudioAssetTrack, at: kCMTimeZero)

        let audioAsset = AVURLAsset(url: fileURL)
        let audioTimeRange = CMTimeRangeMake(start: kCMTimeZero, duration: CMTimeSubtract(videoAsset.duration, CMTimeMakeWithSeconds(startTime, preferredTimescale: 600)))
        let audioTrack = composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid)!
        let audioAssetTrack = audioAsset.tracks(withMediaType: .audio).first!
        try audioTrack.insertTimeRange(audioTimeRange, of: audioAssetTrack, at: CMTimeMakeWithSeconds(startTime, preferredTimescale: 600))

        let videoAudioMixTools = AVMutableAudioMix.audioMix()
        let musicAudioParam = AVMutableAudioMixInputParameters(track: audioTrack)
        musicAudioParam.setVolumeRamp(fromStartVolume: volume, toEndVolume: volume, timeRange: CMTimeRangeMake(start: kCMTimeZero, duration: audioAsset.duration))
        musicAudioParam.trackID = audioTrack.trackID
        let originalAudioParam = AVMutableAudioMixInputParameters(track: originalAudioTrack)
        originalAudioParam.setVolumeRamp(fromStartVolume: 1 - volume, toEndVolume: 1 - volume, timeRange: CMTimeRangeMake(start: kCMTimeZero, duration: videoAsset.duration))
        originalAudioParam.trackID = originalAudioTrack.trackID
        videoAudioMixTools.inputParameters = [musicAudioParam, originalAudioParam]

        let assetExport = AVAssetExportSession(asset: composition, presetName: AVAssetExportPresetMediumQuality)!
        assetExport.outputFileType = .mov
        assetExport.outputURL = outputFileURL
        assetExport.shouldOptimizeForNetworkUse = true
        assetExport.audioMix = videoAudioMixTools
        return assetExport
    }

    /// Channel 0 of the first audio track, decoded by ffmpeg at 48 kHz.
    static func sound(_ url: URL) throws -> [Float] {
        let raw = Fixtures.path("ported-\(UUID().uuidString).f32")
        defer { try? FileManager.default.removeItem(at: raw) }
        try Tool.ffmpeg(["-i", url.path, "-map", "0:a:0", "-af", "pan=mono|c0=c0", "-ar", "48000", "-f", "f32le", raw.path])
        return try Data(contentsOf: raw).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// `frequency`'s amplitude over `count` samples from `start` (Goertzel, Hann window).
    static func level(_ x: [Float], _ frequency: Double, from start: Int, count: Int = 9600) -> Double {
        let w = 2 * Double.pi * frequency / 48000, c = 2 * cos(w)
        var (s1, s2) = (0.0, 0.0)
        for n in start..<min(x.count, start + count) {
            let hann = 0.5 - 0.5 * cos(2 * Double.pi * Double(n - start) / Double(count))
            (s1, s2) = (hann * Double(x[n]) + c * s1 - s2, s1)
        }
        return sqrt(max(0, s1 * s1 + s2 * s2 - c * s1 * s2)) / Double(count)
    }

    // (an encode: out of the ThreadSanitizer run, as the other encode tests)
    @Test(.enabled(if: ProcessInfo.processInfo.environment["SPLICE_SANITIZER"] != "thread"))
    func backgroundMusicAtVAndOneMinusV() async throws {
        let (video, music) = try Self.media.get()
        let out = Fixtures.path("ported-music.mov")
        try? FileManager.default.removeItem(at: out)
        let export = try Self.addMusic(video: video, music: music, volume: 0.25, startTime: 1, to: out)
        #expect(export.status == .unknown)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            export.exportAsynchronously { done.resume() }
        }
        #expect(export.status == .completed, "\(String(describing: export.error))")
        #expect(export.progress == 1)

        // One video and one audio track, 3 s; the tone at 0.75 throughout, the music at 0.25 from 1 s.
        let streams = try Tool.ffprobeStreams(out)
        #expect(streams.map { $0["codec_type"] as? String } == ["video", "audio"])
        let duration = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out.path]).stdout
        #expect(abs((Double(duration.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 3) < 0.05, "\(duration)")
        let mixed = try Self.sound(out), tone = try Self.sound(video), song = try Self.sound(music)
        func db(_ a: Double, _ b: Double) -> Double { 20 * log10(max(1e-9, a) / max(1e-9, b)) }
        let before = db(Self.level(mixed, 440, from: 24_000), Self.level(tone, 440, from: 24_000))
        let voice = db(Self.level(mixed, 440, from: 96_000), Self.level(tone, 440, from: 96_000))
        let musicLevel = db(Self.level(mixed, 880, from: 96_000), Self.level(song, 880, from: 48_000))
        #expect(abs(before - 20 * log10(0.75)) < 0.5, "original at 0.5 s: \(before) dB")
        #expect(abs(voice - 20 * log10(0.75)) < 0.5, "original at 2 s: \(voice) dB")
        #expect(abs(musicLevel - 20 * log10(0.25)) < 0.5, "music at 2 s: \(musicLevel) dB")
        #expect(Self.level(mixed, 880, from: 12_000) < Self.level(mixed, 880, from: 96_000) / 30, "music before 1 s")
    }

    /// CoreMedia's functions and constants are Splice's arithmetic.
    @Test func coreMediaSpellings() {
        let a = CMTimeMake(value: 3, timescale: 2), b = CMTimeMakeWithSeconds(0.5, preferredTimescale: 600)
        #expect(CMTimeGetSeconds(CMTimeAdd(a, b)) == 2)
        #expect(CMTimeCompare(a, b) == 1 && CMTimeCompare(b, a) == -1 && CMTimeCompare(a, CMTime(value: 6, timescale: 4)) == 0)
        #expect(CMTimeRangeGetEnd(CMTimeRangeMake(start: b, duration: a)) == CMTime(seconds: 2, preferredTimescale: 600))
        #expect(kCMPersistentTrackID_Invalid == 0 && kCMTimeZero == .zero && !kCMTimeInvalid.isValid)
        #expect(AVAssetExportSession(asset: AVMutableComposition(), presetName: "AVAssetExportPresetNoSuchThing") == nil)
        #expect(kCMTimePositiveInfinity.isPositiveInfinity && !a.isIndefinite)
    }

    /// Core Graphics' transform and sizes as Apple-platform code writes them.
    @Test func coreGraphicsSpellings() {
        let portrait = CGAffineTransform(rotationAngle: .pi / 2).translatedBy(x: 0, y: -1080)
        #expect(portrait == AffineTransform2D(a: 0, b: 1, c: -1, d: 0, tx: 1080, ty: 0))
        #expect(portrait.rotationDegrees == 90 && CGAffineTransform.identity.isIdentity)
        #expect(Dimensions(CGSize(width: 1279.6, height: 720.2)) == Dimensions(width: 1280, height: 720))
        #expect(Dimensions(CGSize(width: -3, height: Double.infinity)) == Dimensions(width: 0, height: 0))
        #expect(CGSize(Dimensions(width: 640, height: 360)) == CGSize(width: 640, height: 360))
    }
}
