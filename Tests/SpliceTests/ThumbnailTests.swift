import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// Thumbnails: the frame shown at a time, against ffmpeg's decode of the same frame.
@Suite("Thumbnails")
struct ThumbnailTests {
    /// PSNR in dB of two byte arrays of the same length.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        let mse = zip(a, b).reduce(0.0) { let d = Double($1.0) - Double($1.1); return $0 + d * d } / Double(max(1, a.count))
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    @Test func theFrameShownAtATime() throws {
        let url = try Fixtures.grouped.get()
        let generator = AssetImageGenerator(asset: try Asset(url: url))
        let (image, actual) = try generator.image(at: MediaTime(seconds: 1.23, preferredTimescale: 1000))
        #expect(abs(actual.seconds - 1.2) < 1e-9)
        #expect(image.pixelFormat == .rgba && image.width == 320 && image.height == 240)
        // ffmpeg's frame 30 (shown from 1.2 s) in RGBA.
        let raw = Fixtures.path("thumb-frames.rgba")
        try Tool.ffmpeg(["-i", url.path, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgba", raw.path])
        let frames = try Data(contentsOf: raw)
        let size = 320 * 240 * 4
        let theirs = [UInt8](frames.subdata(in: (30 * size)..<(31 * size)))
        let neighbour = [UInt8](frames.subdata(in: (31 * size)..<(32 * size)))
        let ours = image.packedBytes
        #expect(ThumbnailTests.psnr(ours, theirs) >= 40, "PSNR \(ThumbnailTests.psnr(ours, theirs)) dB")
        #expect(ThumbnailTests.psnr(ours, theirs) > ThumbnailTests.psnr(ours, neighbour))
        // Through PNG and back (ffmpeg decodes it): still the same frame.
        let png = Fixtures.path("thumb.png")
        try AssetImageGenerator.pngData(image).write(to: png)
        let back = try Tool.check("ffmpeg", ["-v", "error", "-i", png.path, "-f", "rawvideo", "-pix_fmt", "rgba", "-"]).stdoutData
        #expect([UInt8](back) == ours)
    }

    @Test func spliceThumbnailWritesPNGAndJPEG() throws {
        let url = try Fixtures.grouped.get()
        let pattern = Fixtures.path("cli-thumb-%d.png").path
        let r = try Tool.splice(["thumbnail", url.path, "--at", "0.5,00:02.04", "-o", pattern, "--size", "160x160", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        for i in 1...2 {
            let probe = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0",
                                                   pattern.replacingOccurrences(of: "%d", with: String(i))])
            #expect(probe.stdout.hasPrefix("png,160,120"), "\(probe.stdout)")
        }
        let jpeg = Fixtures.path("cli-thumb.jpg")
        #expect(try Tool.splice(["thumbnail", url.path, "--at", "1", "-o", jpeg.path, "--force"]).status == 0)
        #expect(try Tool.check("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width", "-of", "csv=p=0", jpeg.path])
            .stdout.hasPrefix("mjpeg,320"))
        let late = try Tool.splice(["thumbnail", url.path, "--at", "99", "-o", Fixtures.path("late.png").path])
        #expect(late.status == 65 && late.stderr.contains("no picture at 99.000 s"), "\(late.stderr)")
        let usage = try Tool.splice(["thumbnail", url.path, "--at", "1,2", "-o", Fixtures.path("one.png").path])
        #expect(usage.status == 64)
    }
}
