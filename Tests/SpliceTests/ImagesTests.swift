import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// `splice images` (a video of still images) and `splice concat --crossfade`, against ffmpeg's
/// `scale=…:force_original_aspect_ratio=decrease,pad` and `transpose` on the same images.
@Suite("Images and crossfades")
struct ImagesTests {
    typealias V = VideoCompositionTests

    /// Three images of three sizes and formats: PNG 320x240, JPEG 200x300 (portrait), WebP 400x200.
    static let images: Result<[URL], Error> = Result {
        let specs = [("images-a.png", "testsrc2=size=320x240"), ("images-b.jpg", "smptebars=size=200x300"), ("images-c.webp", "testsrc2=size=400x200")]
        return try specs.map { name, source in
            let url = Fixtures.path(name)
            try Tool.ffmpeg(["-f", "lavfi", "-i", source, "-frames:v", "1"] + (name.hasSuffix("jpg") ? ["-q:v", "2"] : []) + [url.path])
            return url
        }
    }

    /// `image` fitted into 320x240 by ffmpeg, as yuv420p.
    static func fitted(_ image: URL, before: String = "") throws -> [UInt8] {
        try V.frames(image, filter: before + "scale=320:240:force_original_aspect_ratio=decrease,pad=320:240:(ow-iw)/2:(oh-ih)/2:black")[0]
    }

    @Test func imagesBecomeFramesFittedInsideTheFrame() throws {
        let images = try Self.images.get()
        let out = Fixtures.path("images-out.mp4")
        let music = Fixtures.path("images-music.m4a")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=5", "-c:a", "aac", music.path])
        let r = try Tool.splice(["images"] + images.map(\.path) + ["-o", out.path, "--fps", "10", "--seconds-per-image", "1",
                                                                  "--preset", "highestQuality", "--audio", music.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let frames = try V.frames(out)
        #expect(frames.count == 30)
        for (k, image) in images.enumerated() {
            let want = try Self.fitted(image)
            for frame in [k * 10, k * 10 + 9] {
                #expect(V.psnr(frames[frame], want, width: 320, height: 240, (0, 0, 320, 240)) >= 35, "frame \(frame), \(image.lastPathComponent)")
            }
        }
        // The portrait JPEG is pillarboxed: black bars left and right.
        #expect(V.meanLuma(frames[15], width: 320, (0, 0, 70, 240)) <= 17)
        #expect(V.meanLuma(frames[15], width: 320, (250, 0, 70, 240)) <= 17)
        // The 5 s soundtrack is cut to the video's 3 s.
        let audio = try #require(Tool.ffprobeStreams(out).first { $0["codec_type"] as? String == "audio" })
        let duration = Double(audio["duration"] as? String ?? "") ?? 0
        #expect(abs(duration - 3) < 0.05, "audio lasts \(duration) s")
    }

    @Test func exifOrientationIsApplied() throws {
        let plain = Fixtures.path("images-landscape.jpg"), turned = Fixtures.path("images-exif6.jpg")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x160", "-frames:v", "1", "-q:v", "2", plain.path])
        // An APP1 Exif segment after SOI: IFD0 with Orientation (0x0112) = 6, "turn 90° clockwise to show".
        let tiff: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        var bytes = [UInt8](try Data(contentsOf: plain))
        bytes.insert(contentsOf: [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload, at: 2)
        try Data(bytes).write(to: turned)
        let shown = try V.frameSize(turned, filter: nil)
        #expect(shown.width == 160 && shown.height == 320, "ffmpeg applies the orientation too")
        let image = try StillImage(contentsOf: turned)
        #expect(image.width == 160 && image.height == 320)
        let out = Fixtures.path("images-exif.mp4")
        let r = try Tool.splice(["images", turned.path, "-o", out.path, "--fps", "5", "--size", "320x240", "--preset", "highestQuality", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let frames = try V.frames(out)
        #expect(frames.count == 1)
        let want = try Self.fitted(turned), turnedByHand = try Self.fitted(plain, before: "transpose=clock,")
        #expect(V.psnr(frames[0], want, width: 320, height: 240, (0, 0, 320, 240)) >= 35)
        #expect(V.psnr(frames[0], turnedByHand, width: 320, height: 240, (0, 0, 320, 240)) >= 35)
    }

    @Test func crossfadesMixLinearly() throws {
        let red = Fixtures.path("images-red.png"), blue = Fixtures.path("images-blue.png")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "color=c=red:size=320x240", "-frames:v", "1", red.path])
        try Tool.ffmpeg(["-f", "lavfi", "-i", "color=c=blue:size=320x240", "-frames:v", "1", blue.path])
        let out = Fixtures.path("images-fade.mp4")
        let r = try Tool.splice(["images", red.path, blue.path, "-o", out.path, "--fps", "10", "--seconds-per-image", "1", "--crossfade", "0.4",
                                 "--preset", "highestQuality", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let frames = try V.frames(out)
        #expect(frames.count == 20)
        // Frame 10 is on the boundary (an even mix); frame 9 a quarter of the way; 8 and 12 the ends.
        let at = { (f: [UInt8], plane: Int) -> Double in
            Double(f[[160 * 320 + 120, 320 * 240 + 60 * 160 + 80, 320 * 240 * 5 / 4 + 60 * 160 + 80][plane]])
        }
        for plane in 0..<3 {
            let (a, b) = (at(frames[5], plane), at(frames[15], plane))
            #expect(abs(at(frames[10], plane) - (a + b) / 2) <= 3, "plane \(plane): \(at(frames[10], plane)) between \(a) and \(b)")
            #expect(abs(at(frames[9], plane) - (0.75 * a + 0.25 * b)) <= 3)
            #expect(abs(at(frames[8], plane) - a) <= 2 && abs(at(frames[12], plane) - b) <= 2)
        }
        // --fps alone: one image per frame.
        let quick = Fixtures.path("images-quick.mp4")
        #expect(try Tool.splice(["images", red.path, blue.path, red.path, "-o", quick.path, "--fps", "5", "--force"]).status == 0)
        #expect(try V.frames(quick).count == 3)
    }

    @Test func badImagesInput() throws {
        let good = try Self.images.get()[0]
        let text = try Fixtures.write("images-not-an-image.jpg", "not a picture")
        let out = Fixtures.path("images-bad.mp4")
        try? FileManager.default.removeItem(at: out)
        // A PNG cut after its header: its size reads, its pixels do not (found while rendering).
        let truncated = Fixtures.path("images-truncated.png")
        try Data(try Data(contentsOf: good).prefix(200)).write(to: truncated)
        let cases: [([String], Int32, String)] = [
            ([], 64, "image"),
            ([good.path, text.path], 65, "images-not-an-image.jpg"),
            ([good.path, truncated.path], 65, "images-truncated.png: the png decoder could not decode it"),
            ([good.path, "--seconds-per-image", "1", "--crossfade", "2"], 64, "--crossfade"),
            ([good.path, "--size", "321x240"], 64, "--size"),
            ([good.path, Fixtures.path("images-missing.png").path], 66, "images-missing.png"),
        ]
        for (args, status, text) in cases {
            let r = try Tool.splice(["images"] + args + ["-o", out.path])
            #expect(r.status == status, "\(args): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").first?.contains(text) == true, "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }

    @Test(.enabled(if: EncodingTests.notUnderTSan)) func concatCrossfadeDissolvesPictureAndSound() throws {
        var clips: [URL] = []
        for (colour, hertz) in [("red", 440), ("blue", 880), ("lime", 660)] {
            let url = Fixtures.path("fade-\(colour).mp4")
            try Tool.ffmpeg(["-f", "lavfi", "-i", "color=c=\(colour):size=320x240:rate=25:duration=2", "-f", "lavfi", "-i",
                             "sine=frequency=\(hertz):sample_rate=48000:duration=2", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-c:a", "aac", url.path])
            clips.append(url)
        }
        let out = Fixtures.path("fade-out.mp4")
        // (re-encoded: the dissolve drawn on one 25 fps grid; SmartCrossfadeTests has the smart one)
        let r = try Tool.splice(["concat"] + clips.map(\.path) + ["-o", out.path, "--crossfade", "0.5", "--reencode", "always", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let frames = try V.frames(out)
        #expect(frames.count == 125, "3 × 2 s − 2 × 0.5 s at 25 fps")
        let (red, blue, mid) = (frames[10], frames[62], frames[44])        // 44 (1.76 s): 0.52 of the way through [1.5, 2)
        for i in [160 * 320 + 120, 320 * 240 + 60 * 160 + 80] {
            let want = 0.48 * Double(red[i]) + 0.52 * Double(blue[i])
            #expect(abs(Double(mid[i]) - want) <= 4, "\(mid[i]) against \(want)")
        }
        let pcm = try AudioMixTests.pcm(out)
        #expect(abs(Double(pcm.count) / 48_000 - 5) < 0.05)
        let early = AudioMixTests.window(pcm, at: 0.5, length: 0.1), late = AudioMixTests.window(pcm, at: 2.5, length: 0.1)
        let middle = AudioMixTests.window(pcm, at: 1.75, length: 0.02)
        // (ffmpeg's sine is at 1/8 of full scale.)
        #expect(AudioMixTests.amplitude(early, 440) > 0.1 && AudioMixTests.amplitude(early, 880) < 0.01)
        #expect(AudioMixTests.amplitude(late, 880) > 0.1 && AudioMixTests.amplitude(late, 440) < 0.01 && AudioMixTests.amplitude(late, 660) < 0.01)
        let last = AudioMixTests.window(pcm, at: 4.5, length: 0.1)
        #expect(AudioMixTests.amplitude(last, 660) > 0.1 && AudioMixTests.amplitude(last, 880) < 0.01 && AudioMixTests.amplitude(last, 440) < 0.01)
        let (a, b) = (AudioMixTests.amplitude(middle, 440), AudioMixTests.amplitude(early, 440))
        #expect(abs(a / b - 0.5) < 0.08, "440 Hz at the transition's middle: \(a) of \(b)")
    }
}
