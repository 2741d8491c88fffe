import Foundation
import ISOBMFF
import Splice
import Testing
import TestSupport

/// What cameras and editors write into MOV: QuickTime PCM of every sample format (`in24`,
/// `in32`, `fl32`, `fl64`, `lpcm`, `sowt`, `twos`, `raw `) and ProRes (`apco` … `ap4h`),
/// decoded by libavcodec for export, merge, concat and thumbnails. Fixtures by ffmpeg.
@Suite("Camera codecs")
struct CameraCodecTests {
    /// The PCM formats ffmpeg writes into MOV, the sample-entry type it gives each, and the rate.
    static let sounds: [(codec: String, entry: String, rate: Int)] = [
        ("pcm_s24be", "in24", 48000), ("pcm_s24le", "in24", 48000), ("pcm_s32le", "in32", 48000), ("pcm_f32be", "fl32", 48000),
        ("pcm_f64le", "fl64", 44100), ("pcm_s24le", "lpcm", 96000), ("pcm_s16le", "sowt", 48000), ("pcm_s16be", "twos", 48000),
        ("pcm_u8", "raw ", 22050),
    ]
    /// prores_ks profiles: Proxy, LT, 422, HQ, 4444.
    static let proRes: [(profile: Int, entry: String)] = [(0, "apco"), (1, "apcs"), (2, "apcn"), (3, "apch"), (4, "ap4h")]

    /// A 1 s MOV of ProRes (`profile`) video and a 440 Hz tone in `codec` at `rate`, checked to
    /// carry the sample entries meant.
    static func clip(_ name: String, profile: Int, codec: String, rate: Int) throws -> URL {
        let url = Fixtures.path(name)
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1",
                         "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=\(rate):duration=1",
                         "-c:v", "prores_ks", "-profile:v", "\(profile)", "-c:a", codec, url.path])
        return url
    }

    static func tags(_ url: URL) throws -> [String] {
        try Tool.ffprobeStreams(url).compactMap { $0["codec_tag_string"] as? String }
    }

    /// Export re-encodes every PCM format and ProRes profile: the tone at the source's level
    /// (within 0.5 dB), the picture with SSIM ≥ 0.95 against the source.
    /// (Each PCM format goes with a ProRes profile in turn.)
    @Test(.enabled(if: EncodingTests.notUnderTSan), arguments: sounds.indices) func exportDecodes(index: Int) throws {
        let (codec, entry, rate) = Self.sounds[index]
        let (profile, video) = Self.proRes[index % Self.proRes.count]
        let source = try Self.clip("camera-\(entry.trimmingCharacters(in: .whitespaces))-\(codec)-\(video).mov", profile: profile, codec: codec, rate: rate)
        #expect(try Self.tags(source) == [video, entry], "the fixture's sample entries")
        let out = Fixtures.path("camera-export-\(codec)-\(entry.trimmingCharacters(in: .whitespaces)).mp4")
        let r = try Tool.splice(["export", source.path, "-o", out.path, "--preset", "mediumQuality", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Tool.ffprobeStreams(out).map { $0["codec_name"] as? String } == ["h264", "aac"])
        #expect(abs(try OggTests.rmsLevel(out) - OggTests.rmsLevel(source)) < 0.5, "\(codec) in '\(entry)'")
        #expect(try EncodingTests.ssim(out, source) >= 0.95, "\(video)")
    }

    /// A thumbnail of each ProRes profile is the frame ffmpeg decodes there: PSNR ≥ 30 dB
    /// against it (10-bit 4:2:2 to RGB, converted and dithered by two callers of libswscale), and
    /// at least 5 dB closer than either neighbouring frame.
    @Test(.enabled(if: EncodingTests.notUnderTSan), arguments: proRes.map(\.entry)) func thumbnailDecodesProRes(entry: String) throws {
        let profile = try #require(Self.proRes.first { $0.entry == entry }?.profile)
        let source = try Self.clip("camera-thumb-\(entry).mov", profile: profile, codec: "pcm_s24le", rate: 48000)
        let png = Fixtures.path("camera-thumb-\(entry).png")
        let r = try Tool.splice(["thumbnail", source.path, "--at", "0.5", "-o", png.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let ours = [UInt8](try Tool.check("ffmpeg", ["-v", "error", "-i", png.path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]).stdoutData)
        let frames = try [11, 12, 13].map { n in
            [UInt8](try Tool.check("ffmpeg", ["-v", "error", "-i", source.path, "-vf", "select=eq(n\\,\(n))", "-frames:v", "1",
                                              "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]).stdoutData)
        }
        #expect(ours.count == 320 * 240 * 3 && frames.allSatisfy { $0.count == ours.count })
        let psnr = frames.map { ThumbnailTests.psnr(ours, $0) }
        #expect(psnr[1] >= 30 && psnr[1] > max(psnr[0], psnr[2]) + 5, "PSNR against frames 11, 12, 13: \(psnr) dB")
    }

    /// `merge` encodes 24-bit and 96 kHz PCM recordings as AAC under a video; `concat
    /// --reencode always` decodes ProRes clips with 24-bit sound into one H.264 + AAC movie.
    @Test(.enabled(if: EncodingTests.notUnderTSan)) func mergeAndConcatDecode() throws {
        let video = Fixtures.path("camera-merge-video.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1", "-c:v", "libx264", "-preset", "ultrafast", video.path])
        for (codec, rate) in [("pcm_s24be", 48000), ("pcm_s24le", 96000)] {
            let sound = try Self.clip("camera-merge-\(codec)-\(rate).mov", profile: 0, codec: codec, rate: rate)
            let out = Fixtures.path("camera-merged-\(rate).mp4")
            let r = try Tool.splice(["merge", video.path, sound.path, "-o", out.path, "--force"])
            #expect(r.status == 0 && r.stderr.contains("is encoded as AAC"), "\(r.stderr)")
            #expect(try Tool.ffprobeStreams(out).map { $0["codec_name"] as? String } == ["h264", "aac"])
            #expect(abs(try OggTests.rmsLevel(out) - OggTests.rmsLevel(sound)) < 0.5)
        }
        let a = try Self.clip("camera-concat-a.mov", profile: 3, codec: "pcm_s24le", rate: 48000)
        let b = try Self.clip("camera-concat-b.mov", profile: 1, codec: "pcm_s24le", rate: 48000)
        let joined = Fixtures.path("camera-concat.mp4")
        let r = try Tool.splice(["concat", a.path, b.path, "-o", joined.path, "--reencode", "always", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Tool.ffprobeStreams(joined).map { $0["codec_name"] as? String } == ["h264", "aac"])
        let frames = try Tool.check("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames",
                                                "-of", "csv=p=0", joined.path]).stdout
        #expect(frames.trimmingCharacters(in: .whitespacesAndNewlines) == "50")
        #expect(abs(try OggTests.rmsLevel(joined) - OggTests.rmsLevel(a)) < 0.5)
    }

    /// A sample entry no codec entry reads cannot be re-encoded: export names it before writing
    /// anything; remux still copies it as it is.
    @Test func anEntryNoCodecReadsIsNamed() throws {
        let source = try Self.clip("camera-unknown.mov", profile: 0, codec: "pcm_s24be", rate: 48000)
        func rename(_ box: inout Box) {
            if box.type == "stsd", let i = box.payload.firstRange(of: Array("in24".utf8)) {
                box.payload.replaceSubrange(i, with: Array("xyz4".utf8))
            }
            guard var children = box.children else { return }
            for i in children.indices { rename(&children[i]) }
            box.children = children
        }
        try MoovPatch.apply(to: source) { rename(&$0) }
        let out = Fixtures.path("camera-unknown.mp4")
        let r = try Tool.splice(["export", source.path, "-o", out.path, "--force"])
        #expect(r.status == 65 && r.stderr.contains("track 2 cannot be re-encoded: Splice knows no codec for its 'xyz4' sample entry"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let copy = try Tool.splice(["remux", source.path, Fixtures.path("camera-unknown-copy.mov").path, "--force"])
        #expect(copy.status == 0, "\(copy.stderr)")
    }
}
