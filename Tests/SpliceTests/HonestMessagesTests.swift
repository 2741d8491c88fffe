import Foundation
import Testing
import TestSupport

/// What jobs say and do with awkward inputs: messages name the file the user gave and times in
/// seconds, nothing is shortened or dropped without a word, and high-rate PCM works everywhere.
@Suite("Honest messages")
struct HonestMessagesTests {
    static func splice(_ args: [String]) throws -> Tool.Result { try Tool.splice(args) }

    static let clip: Result<URL, Error> = Result {
        let url = Fixtures.path("honest-clip.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=24:duration=6", "-f", "lavfi", "-i", "sine=d=6",
                         "-c:v", "libx264", "-preset", "ultrafast", "-g", "48", "-c:a", "aac", url.path])
        return url
    }

    /// RMS level (dB) of the first audio stream from 0.5 s to 2.5 s, by ffmpeg's astats.
    static func level(_ url: URL) throws -> Double {
        let r = try Tool.check("ffmpeg", ["-v", "info", "-nostats", "-ss", "0.5", "-t", "2", "-i", url.path, "-map", "0:a:0",
                                          "-af", "astats=measure_overall=RMS_level:measure_perchannel=0", "-f", "null", "-"])
        let line = r.stderr.split(separator: "\n").last { $0.contains("RMS level dB") } ?? ""
        return Double(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? .nan
    }

    static func sampleRate(_ url: URL) throws -> Int {
        let r = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=sample_rate", "-of", "csv=p=0", url.path])
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// 16-bit PCM at 96 and 192 kHz (a 1 kHz tone, stereo WAV) in merge, mix, images --audio and
    /// export --preset appleM4A: AAC at 48 kHz or less, the tone's level within 0.5 dB.
    @Test(arguments: [96000, 192000])
    func highRatePCMWorksInEveryJob(rate: Int) throws {
        let wav = Fixtures.path("honest-\(rate).wav")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=f=1000:r=\(rate):d=3", "-ac", "2", "-c:a", "pcm_s16le", wav.path])
        let still = Fixtures.path("honest-still-\(rate).png")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48", "-frames:v", "1", still.path])
        let video = try Self.clip.get()
        let source = try Self.level(wav)
        let jobs: [(String, [String])] = [
            ("merge", ["merge", video.path, wav.path]),
            ("mix", ["mix", video.path, wav.path, "--original-volume", "0", "--music-volume", "1"]),
            ("images", ["images", still.path, "--audio", wav.path]),
            ("export", ["export", wav.path, "--preset", "appleM4A"]),
        ]
        for (name, args) in jobs {
            let out = Fixtures.path("honest-\(name)-\(rate).\(name == "export" ? "m4a" : "mp4")")
            let r = try Self.splice(args + ["-o", out.path, "--force"])
            #expect(r.status == 0, "\(name): \(r.stderr)")
            guard r.status == 0 else { continue }
            #expect(!r.stderr.contains("composition"), "\(r.stderr)")
            let outRate = try Self.sampleRate(out)
            #expect(outRate > 0 && outRate <= 48000, "\(name): \(outRate) Hz")
            if name == "export" { #expect(outRate == 48000) }
            let level = try Self.level(out)
            #expect(abs(level - source) < 0.5, "\(name): \(level) dB, the source \(source) dB")
        }
        // Copied into Matroska: the same PCM at the same rate.
        let mka = Fixtures.path("honest-\(rate).mka")
        let r = try Self.splice(["remux", wav.path, mka.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.sampleRate(mka) == rate)
        let pcm = { (u: URL) in try Tool.check("ffmpeg", ["-v", "error", "-i", u.path, "-f", "md5", "-"]).stdout }
        #expect(try pcm(mka) == pcm(wav))
    }

    /// A range past the end is refused by export as by concat, in seconds, naming the file.
    @Test func aRangePastTheEndIsRefused() throws {
        let clip = try Self.clip.get()
        let out = Fixtures.path("honest-range.mp4")
        let e = try Self.splice(["export", clip.path, "-o", out.path, "--preset", "passthrough", "--range", "5,10"])
        #expect(e.status == 65)
        #expect(e.stderr == "error: \(clip.path): the range ends at 10.000 s, past the end (6.000 s)\n", "\(e.stderr)")
        let c = try Self.splice(["concat", "\(clip.path)#t=5,10", "-o", out.path])
        #expect(c.status == 65)
        #expect(c.stderr.contains("the range ends at 10") && c.stderr.contains("past the end (6.000 s)"), "\(c.stderr)")
        let late = try Self.splice(["export", clip.path, "-o", out.path, "--preset", "passthrough", "--range", "7,8"])
        #expect(late.stderr == "error: \(clip.path): the range starts at 7.000 s, past the end (6.000 s)\n", "\(late.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// `concat --audio-only` refuses a clip without sound, naming it.
    @Test func audioOnlyNamesAClipWithoutSound() throws {
        let silent = Fixtures.path("honest-silent.mp4"), sound = Fixtures.path("honest-sound.m4a")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48:duration=1", "-c:v", "libx264", "-preset", "ultrafast", silent.path])
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=d=1", "-c:a", "aac", sound.path])
        for args in [[sound.path, silent.path, "-o", Fixtures.path("honest-joined.m4a").path],
                     [silent.path, sound.path, "--audio-only", "-o", Fixtures.path("honest-joined.mp4").path]] {
            let r = try Self.splice(["concat"] + args)
            #expect(r.status == 65)
            #expect(r.stderr.hasPrefix("error: \(silent.path): has no sound"), "\(r.stderr)")
        }
    }

    /// A clip refused inside a composition is named, never `<cwd>/composition`; no message
    /// prints times as ticks.
    @Test func compositionMessagesNameTheClip() throws {
        let clip = try Self.clip.get()
        let encrypted = Fixtures.path("honest-encrypted.mp4")
        try Tool.ffmpeg(["-i", clip.path, "-map", "0:v", "-c", "copy", "-encryption_scheme", "cenc-aes-ctr",
                         "-encryption_key", "00112233445566778899aabbccddeeff", "-encryption_kid", "00112233445566778899aabbccddeeff", encrypted.path])
        let r = try Self.splice(["concat", encrypted.path, clip.path, "-o", Fixtures.path("honest-enc.mp4").path, "--reencode", "always"])
        #expect(r.status == 65)
        #expect(r.stderr.hasPrefix("error: \(encrypted.path): honest-encrypted.mp4 track 1 is encrypted"), "\(r.stderr)")
        #expect(!r.stderr.contains("composition"))
        #expect(r.stderr.range(of: #"\d+/\d+"#, options: .regularExpression) == nil, "\(r.stderr)")
    }
}
