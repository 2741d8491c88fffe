import Foundation
import Splice

/// `splice export --watermark`: a still image drawn over the video through a video composition
/// (the asset's default one, upright, with the image as an overlay).
enum WatermarkOptions {
    static let options = ["--watermark", "--position", "--margin", "--opacity", "--watermark-width"]

    static let help = """
          --watermark <image>     Draw a PNG (with alpha), JPEG or WebP image over the video (re-encodes
                                  the video; under passthrough with highestQuality's settings).
          --position <where>      top-left, top-right, bottom-left, bottom-right (default), center, or
                                  <x>,<y>: the image's top-left corner in pixels of the upright picture.
          --margin <px>           Distance from the edges for a named position (default 16).
          --opacity <0-1>         The watermark's opacity (default 1).
          --watermark-width <w>   The image's width: <px> or <percent>% of the video's (default: its own).
        """

    /// Sets `session.videoComposition` when the arguments ask for a watermark.
    static func apply(_ args: ParsedArguments, to session: ExportSession) throws {
        guard let path = args.options["--watermark"] else {
            if let stray = options.dropFirst().first(where: { args.options[$0] != nil }) {
                throw UsageError(message: "\(stray) needs --watermark <image>")
            }
            return
        }
        let opacity = try args.options["--opacity"].map { text -> Float in
            guard let v = Float(text), v >= 0, v <= 1 else { throw UsageError(message: "--opacity takes a number from 0 to 1, not '\(text)'") }
            return v
        } ?? 1
        let margin = try args.options["--margin"].map { text -> Int in
            guard let v = Int(text), v >= 0 else { throw UsageError(message: "--margin takes a number of pixels, not '\(text)'") }   // lint: checked (parses text: nil when it is not a number)
            return v
        } ?? 16
        let url = URL(fileURLWithPath: path)
        guard FileManager.default.fileExists(atPath: path) else { throw MediaError(.fileNotFound, "no such file", file: path) }
        let image = try StillImage(contentsOf: url)
        var composition = try VideoComposition(propertiesOf: session.asset)
        let render = composition.renderSize
        var size = (width: Double(image.width), height: Double(image.height))
        if let w = args.options["--watermark-width"] {
            let width = try parseWidth(w, of: render.width)
            size = (width, (width * Double(image.height) / Double(image.width)).rounded())
        }
        let origin = try position(args.options["--position"] ?? "bottom-right", size: size, margin: Double(margin), in: render)
        composition.overlays.append(VideoCompositionOverlay(image: image, frame: CGRect(x: origin.x, y: origin.y, width: size.width, height: size.height),
                                                            opacity: opacity))
        session.videoComposition = composition
    }

    private static func parseWidth(_ text: String, of videoWidth: Int) throws -> Double {
        if text.hasSuffix("%"), let p = Double(text.dropLast()), p > 0, p <= 100 {
            return max(2, (Double(videoWidth) * p / 100).rounded())
        }
        guard let px = Int(text), px >= 2, px <= 16384 else {   // lint: checked (parses text: nil when it is not a number)
            throw UsageError(message: "--watermark-width takes pixels (2 to 16384) or a percentage (1% to 100%), not '\(text)'")
        }
        return Double(px)
    }

    /// The watermark's top-left corner for a named position or `<x>,<y>`.
    private static func position(_ text: String, size: (width: Double, height: Double), margin m: Double,
                                 in render: Dimensions) throws -> (x: Double, y: Double) {
        let (w, h) = (Double(render.width), Double(render.height))
        switch text {
        case "top-left": return (m, m)
        case "top-right": return (w - size.width - m, m)
        case "bottom-left": return (m, h - size.height - m)
        case "bottom-right": return (w - size.width - m, h - size.height - m)
        case "center": return (((w - size.width) / 2).rounded(.down), ((h - size.height) / 2).rounded(.down))
        default:
            let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2, let x = parts[0], let y = parts[1] else {
                throw UsageError(message: "--position takes top-left, top-right, bottom-left, bottom-right, center or <x>,<y>, not '\(text)'")
            }
            guard x >= 0, y >= 0, x < w, y < h else {
                throw UsageError(message: "--position \(text) is outside the \(render.width)x\(render.height) picture")
            }
            return (x, y)
        }
    }
}
