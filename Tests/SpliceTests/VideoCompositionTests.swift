import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// `VideoComposition`, `AssetReaderVideoCompositionOutput` and the commands built on them
/// (`export --watermark`, `images`, `concat --crossfade`), measured against ffmpeg's own
/// `overlay`, `scale`/`pad` and `transpose` filters on lossless encodes (x264 at CRF 0 on both sides).
@Suite("Video composition")
struct VideoCompositionTests {
    /// 2 s of testsrc2, 320x240 at 25 fps, lossless H.264, with AAC sound.
    static let source: Result<URL, Error> = Result {
        let url = Fixtures.path("compose-source.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
                         "-pix_fmt", "yuv420p", "-c:v", "libx264", "-qp", "0", "-c:a", "aac", "-b:a", "128k", url.path])
        return url
    }
    /// An 80x40 RGBA watermark: a colour gradient whose alpha is 0 in its first ten columns and 200 elsewhere.
    static let logo: Result<URL, Error> = Result {
        let url = Fixtures.path("compose-logo.png")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "color=c=black:size=80x40,format=rgba,geq=r='255*X/80':g='255*Y/40':b=128:a='if(lt(X,10),0,200)'",
                         "-frames:v", "1", url.path])
        return url
    }
    /// A 64x32 opaque white PNG.
    static let white: Result<URL, Error> = Result {
        let url = Fixtures.path("compose-white.png")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "color=c=white:size=64x32,format=rgba", "-frames:v", "1", url.path])
        return url
    }

    /// Every frame of `url` as yuv420p (after `filter`, if any).
    static func frames(_ url: URL, filter: String? = nil) throws -> [[UInt8]] {
        var args = ["-v", "error", "-i", url.path, "-map", "0:v:0"]
        if let filter { args += ["-vf", filter] }
        // Straight from ffmpeg's output: tests running in parallel decode the same source, and a
        // shared scratch file would be rewritten under a reader.
        let data = try Tool.check("ffmpeg", args + ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]).stdoutData
        let size = try frameSize(url, filter: filter)
        let bytes = size.width * size.height * 3 / 2
        let all = data.withUnsafeBytes { Array($0.bindMemory(to: UInt8.self)) }
        return stride(from: 0, to: all.count - bytes + 1, by: bytes).map { Array(all[$0..<($0 + bytes)]) }
    }

    static func frameSize(_ url: URL, filter: String?) throws -> (width: Int, height: Int) {
        var args = ["-v", "error", "-i", url.path, "-map", "0:v:0", "-frames:v", "1"]
        if let filter { args += ["-vf", filter] }
        let probe = try Tool.check("ffmpeg", args + ["-f", "image2pipe", "-c:v", "ppm", "-"]).stdoutData
        let header = String(decoding: probe.prefix(20), as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == " " })
        return (Int(header[1])!, Int(header[2])!)
    }

    /// PSNR of two yuv420p frames over a rectangle (all three planes; inf when equal).
    static func psnr(_ a: [UInt8], _ b: [UInt8], width w: Int, height h: Int, _ r: (x: Int, y: Int, w: Int, h: Int)) -> Double {
        var sum = 0.0, n = 0.0
        let planes = [(0, w, 0), (w * h, w / 2, 1), (w * h + w * h / 4, w / 2, 1)]
        for (offset, stride, sub) in planes {
            for y in (r.y >> sub)..<((r.y + r.h) >> sub) {
                for x in (r.x >> sub)..<((r.x + r.w) >> sub) {
                    let d = Double(a[offset + y * stride + x]) - Double(b[offset + y * stride + x])
                    sum += d * d
                    n += 1
                }
            }
        }
        return sum == 0 ? .infinity : 10 * log10(255 * 255 / (sum / n))
    }

    /// The mean luma of a rectangle of a yuv420p frame.
    static func meanLuma(_ f: [UInt8], width w: Int, _ r: (x: Int, y: Int, w: Int, h: Int)) -> Double {
        var sum = 0
        for y in r.y..<(r.y + r.h) { for x in r.x..<(r.x + r.w) { sum += Int(f[y * w + x]) } }
        return Double(sum) / Double(r.w * r.h)
    }

    @Test func watermarkMatchesFFmpegOverlay() throws {
        let (source, logo) = (try Self.source.get(), try Self.logo.get())
        let out = Fixtures.path("compose-watermark.mp4"), reference = Fixtures.path("compose-watermark-ref.mp4")
        let r = try Tool.splice(["export", source.path, "-o", out.path, "--preset", "highestQuality", "--crf", "0", "--watermark", logo.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        try Tool.ffmpeg(["-i", source.path, "-i", logo.path, "-filter_complex", "[0][1]overlay=W-w-16:H-h-16", "-c:v", "libx264", "-qp", "0", reference.path])
        let (got, want, plain) = (try Self.frames(out), try Self.frames(reference), try Self.frames(source))
        #expect(got.count == 50 && want.count == 50)
        let inside = (x: 224, y: 184, w: 80, h: 40)
        for k in [0, 25, 49] {
            #expect(Self.psnr(got[k], want[k], width: 320, height: 240, inside) >= 40)
            #expect(Self.psnr(got[k], plain[k], width: 320, height: 240, (0, 0, 320, 184)) >= 45)
            #expect(Self.psnr(got[k], plain[k], width: 320, height: 240, (0, 184, 224, 56)) >= 45)
        }
        // The audio (AAC at 128 kb/s, under highestQuality's 192) is copied.
        let hashes = { (u: URL) in try Tool.check("ffmpeg", ["-v", "error", "-i", u.path, "-map", "0:a", "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]).stdout }
        #expect(try hashes(out) == hashes(source))
    }

    @Test func opacityHalvesTheWatermark() throws {
        let (source, white) = (try Self.source.get(), try Self.white.get())
        let rect = (x: 100, y: 80, w: 64, h: 32)
        var lift: [Double] = []
        for opacity in ["1", "0.5"] {
            let out = Fixtures.path("compose-opacity-\(opacity).mp4")
            let r = try Tool.splice(["export", source.path, "-o", out.path, "--preset", "highestQuality", "--crf", "0", "--watermark", white.path,
                                     "--position", "100,80", "--opacity", opacity, "--force"])
            #expect(r.status == 0, "\(r.stderr)")
            let (got, plain) = (try Self.frames(out)[10], try Self.frames(source)[10])
            lift.append(Self.meanLuma(got, width: 320, rect) - Self.meanLuma(plain, width: 320, rect))
        }
        #expect(lift[0] > 20)
        #expect(abs(lift[1] / lift[0] - 0.5) < 0.03, "opacity 0.5 lifts luma by \(lift[1]), opacity 1 by \(lift[0])")
    }

    @Test func rotatedVideoComesOutUprightWithTheWatermarkInItsCorner() throws {
        let white = try Self.white.get()
        let phone = Fixtures.path("compose-phone.mp4"), out = Fixtures.path("compose-phone-out.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-qp", "0",
                         phone.path])
        try MoovPatch.apply(to: phone) { moov in
            moov.modifyTrack(1) { $0.setMatrix([0, 0x10000, 0, -0x10000, 0, 0, 240 << 16, 0, 0x4000_0000]) }
        }
        let asset = try Asset(url: phone)
        #expect(asset.tracks(withMediaType: .video).first?.preferredTransform.rotationDegrees == 90)
        let r = try Tool.splice(["export", phone.path, "-o", out.path, "--preset", "highestQuality", "--crf", "0", "--watermark", white.path,
                                 "--position", "top-left", "--margin", "0", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let stream = try #require(Tool.ffprobeStreams(out).first)
        #expect(stream["width"] as? Int == 240 && stream["height"] as? Int == 320)
        #expect(((stream["side_data_list"] as? [[String: Any]]) ?? []).allSatisfy { ($0["rotation"] as? Int ?? 0) == 0 })
        // ffmpeg turns the source upright when it decodes it (its display matrix).
        let (got, upright) = (try Self.frames(out)[5], try Self.frames(phone)[5])
        #expect(upright.count == got.count)
        #expect(Self.meanLuma(got, width: 240, (0, 0, 64, 32)) > 230)
        #expect(Self.psnr(got, upright, width: 240, height: 320, (0, 32, 240, 288)) >= 45)
        #expect(Self.psnr(got, upright, width: 240, height: 320, (64, 0, 176, 32)) >= 45)
    }

    @Test func compositionOutputPicturesBeforeEncoding() throws {
        let (source, logo) = (try Self.source.get(), try Self.logo.get())
        let asset = try Asset(url: source)
        var composition = try VideoComposition(propertiesOf: asset)
        #expect(composition.renderSize == Dimensions(width: 320, height: 240))
        #expect(composition.frameDuration == MediaTime(value: 1, timescale: 25))
        composition.overlays.append(VideoCompositionOverlay(image: try StillImage(contentsOf: logo), frame: CGRect(x: 40, y: 20, width: 80, height: 40)))
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderVideoCompositionOutput(videoTracks: asset.tracks(withMediaType: .video), videoSettings: nil)
        output.videoComposition = composition
        try reader.add(output)
        #expect(reader.startReading())
        var pictures: [[UInt8]] = []
        while let sample = output.copyNextSampleBuffer() {
            #expect(sample.presentationTimeStamp == MediaTime(value: Int64(pictures.count), timescale: 25))
            pictures.append(try #require(sample.imageBuffer).packedBytes)
        }
        #expect(reader.status == .completed)
        #expect(pictures.count == 50)
        let reference = Fixtures.path("compose-overlay-ref.yuv")
        try Tool.ffmpeg(["-i", source.path, "-i", logo.path, "-filter_complex", "[0][1]overlay=40:20,format=yuv420p", "-f", "rawvideo", reference.path])
        let want = try Data(contentsOf: reference)
        let size = 320 * 240 * 3 / 2
        for k in [0, 31] {
            let w = Array(want[(k * size)..<((k + 1) * size)])
            #expect(Self.psnr(pictures[k], w, width: 320, height: 240, (40, 20, 80, 40)) >= 40)
            #expect(Self.psnr(pictures[k], w, width: 320, height: 240, (0, 60, 320, 180)) == .infinity)
        }
    }

    /// Two layers of one track: the whole picture, and over it its top-left quarter (a crop)
    /// scaled down into the bottom-right corner at half opacity — against ffmpeg's crop, scale
    /// and overlay on the raw decode.
    @Test func layerCropScaleAndOpacity() throws {
        let source = try Self.source.get()
        let asset = try Asset(url: source)
        let track = try #require(asset.tracks(withMediaType: .video).first)
        var composition = VideoComposition.init(renderSize: Dimensions(width: 320, height: 240), frameDuration: MediaTime(value: 1, timescale: 25))
        var inset = VideoCompositionLayerInstruction(assetTrack: track)
        inset.setCropRectangle(CGRect(x: 0, y: 0, width: 160, height: 120), at: .zero)
        inset.setTransform(AffineTransform2D(scaleX: 0.5, y: 0.5).concatenating(AffineTransform2D(translationX: 240, y: 180)), at: .zero)
        inset.setOpacity(0.5, at: .zero)
        composition.instructions = [VideoCompositionInstruction(timeRange: TimeRange(start: .zero, duration: asset.duration),
                                                                layerInstructions: [inset, VideoCompositionLayerInstruction(assetTrack: track)])]
        let reader = try AssetReader(asset: asset)
        reader.timeRange = TimeRange(start: .zero, duration: MediaTime(value: 5, timescale: 25))
        let output = AssetReaderVideoCompositionOutput(videoTracks: [track], videoSettings: nil)
        output.videoComposition = composition
        try reader.add(output)
        #expect(reader.startReading())
        var pictures: [[UInt8]] = []
        while let sample = output.copyNextSampleBuffer() { pictures.append(try #require(sample.imageBuffer).packedBytes) }
        #expect(pictures.count == 5)
        let reference = Fixtures.path("compose-inset-ref.yuv")
        try Tool.ffmpeg(["-i", source.path, "-filter_complex",
                         "[0:v]split[a][b];[b]crop=160:120:0:0,scale=80:60:flags=bicubic,format=yuva420p,colorchannelmixer=aa=0.5[s];[a][s]overlay=240:180,format=yuv420p",
                         "-frames:v", "5", "-f", "rawvideo", reference.path])
        let want = [UInt8](try Data(contentsOf: reference))
        let size = 320 * 240 * 3 / 2
        for k in [0, 4] {
            let w = Array(want[(k * size)..<((k + 1) * size)])
            #expect(Self.psnr(pictures[k], w, width: 320, height: 240, (240, 180, 80, 60)) >= 35)
            #expect(Self.psnr(pictures[k], w, width: 320, height: 240, (0, 0, 320, 180)) == .infinity)
        }
    }

    @Test func badWatermarkInput() throws {
        let (source, white) = (try Self.source.get(), try Self.white.get())
        let out = Fixtures.path("compose-bad.mp4")
        try? FileManager.default.removeItem(at: out)
        let notImage = try Fixtures.write("compose-not-image.png", "hello")
        let cases: [([String], Int32, String)] = [
            (["--watermark", notImage.path], 65, "compose-not-image.png"),
            (["--watermark", white.path, "--position", "999,10"], 64, "outside"),
            (["--watermark", white.path, "--opacity", "1.5"], 64, "--opacity"),
            (["--watermark", white.path, "--position", "middle"], 64, "--position"),
            (["--opacity", "0.5"], 64, "--watermark"),
        ]
        for (extra, status, text) in cases {
            let r = try Tool.splice(["export", source.path, "-o", out.path] + extra)
            #expect(r.status == status, "\(extra): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").first?.contains(text) == true, "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }

    @Test(.enabled(if: EncodingTests.notUnderTSan)) func tenBitWatermark() throws {
        let white = try Self.white.get()
        let source = Fixtures.path("compose-10bit.mp4"), out = Fixtures.path("compose-10bit-out.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1", "-pix_fmt", "yuv420p10le", "-c:v", "libx265",
                         "-x265-params", "log-level=error", "-crf", "18", source.path])
        let r = try Tool.splice(["export", source.path, "-o", out.path, "--preset", "hevcHighestQuality", "--watermark", white.path,
                                 "--position", "center", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let stream = try #require(Tool.ffprobeStreams(out).first)
        #expect(stream["pix_fmt"] as? String == "yuv420p10le")
        let (got, plain) = (try Self.frames(out)[5], try Self.frames(source)[5])
        #expect(Self.meanLuma(got, width: 320, (128, 104, 64, 32)) > 230)
        #expect(Self.psnr(got, plain, width: 320, height: 240, (0, 0, 320, 100)) >= 38)
    }
}
