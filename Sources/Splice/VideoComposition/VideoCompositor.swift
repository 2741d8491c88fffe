import Foundation
import MediaCore
import FFmpegBridge

/// Renders a `VideoComposition` one time at a time on a `PictureCanvas`: the instruction in
/// force, its layers bottom to top (each track's picture cropped, turned and placed by its
/// transform, at its opacity), then the overlays; then the output settings' format and size.
final class VideoCompositor {
    let composition: VideoComposition
    let pixelFormat: PixelBuffer.PixelFormat
    let settings: VideoOutputSettings?
    private var canvas: PictureCanvas?
    private var converter: PictureConverter?

    init(composition: VideoComposition, pixelFormat: PixelBuffer.PixelFormat, settings: VideoOutputSettings?) {
        self.composition = composition
        self.pixelFormat = pixelFormat
        self.settings = settings
    }

    /// The picture at `time`, from each track's picture shown then (by track ID).
    func render(at time: MediaTime, pictures: [Int: PixelBuffer], order: [Int]) throws -> PixelBuffer {
        let canvas = try self.canvas ?? makeCanvas(color: order.lazy.compactMap { pictures[$0]?.color }.first)
        self.canvas = canvas
        let instruction = composition.instruction(at: time)
        let layers = (instruction?.layerInstructions ?? []).reversed().compactMap { layer -> (VideoCompositionLayerInstruction, PixelBuffer)? in
            guard let picture = pictures[layer.trackID], layer.opacity(at: time) > 0 else { return nil }
            return (layer, picture)
        }
        var drawn = layers[...]
        if let (layer, picture) = layers.first, try fillsCanvas(layer, picture, at: time) {
            try canvas.begin(filling: picture)
            drawn = layers.dropFirst()
        } else {
            let c = instruction?.backgroundColor ?? composition.backgroundColor
            try canvas.begin(color: (c.red, c.green, c.blue), covered: layers.isEmpty && coveredByAnOverlay(at: time, instruction))
        }
        for (layer, picture) in drawn {
            let (crop, orientation, rect) = try placement(of: layer, picture, at: time)
            try canvas.draw(picture, crop: crop, orientation: orientation, in: rect, opacity: Double(layer.opacity(at: time)))
        }
        if instruction?.enablePostProcessing ?? true {
            for overlay in composition.overlays where overlay.timeRange?.contains(time) ?? true {
                let f = overlay.frame
                let rect = PictureCanvas.Rect(x: f.minX.rounded(saturating: Int.self) ?? 0, y: f.minY.rounded(saturating: Int.self) ?? 0,
                                              width: f.width.rounded(saturating: Int.self) ?? 0, height: f.height.rounded(saturating: Int.self) ?? 0)
                try canvas.draw(overlay.image, in: rect, opacity: Double(overlay.opacity(at: time)), letterboxed: overlay.isLetterboxed)
            }
        }
        let picture = try canvas.finish()
        guard let converter, let frame = picture.storage as? Frame, let converted = try converter.convert(frame).picture else { return picture }
        return converted
    }

    /// Whether an opaque, letterboxed overlay at full opacity fills the whole render area now
    /// (a slideshow's picture: the background would not show).
    private func coveredByAnOverlay(at time: MediaTime, _ instruction: VideoCompositionInstruction?) -> Bool {
        guard instruction?.enablePostProcessing ?? true, let canvas else { return false }
        return composition.overlays.contains { o in
            o.isLetterboxed && (o.timeRange?.contains(time) ?? true) && o.opacity(at: time) >= 1 && (try? o.image.hasAlpha()) == false
                && o.frame.minX <= 0 && o.frame.minY <= 0 && o.frame.maxX >= CGFloat(canvas.width) && o.frame.maxY >= CGFloat(canvas.height)
        }
    }

    private func makeCanvas(color: PixelBuffer.Color?) throws -> PictureCanvas {
        let size = composition.renderSize
        guard size.width >= 2, size.height >= 2 else {
            throw MediaError(.invalidOperation, "the video composition's renderSize \(size) is empty")
        }
        var tags = color ?? .unspecified
        if color == nil { tags.isFullRange = false }
        let c = composition.backgroundColor
        let canvas = try PictureCanvas(width: size.width + size.width % 2, height: size.height + size.height % 2,
                                       pixelFormat: pixelFormat, color: tags, background: (c.red, c.green, c.blue))
        if let s = settings {
            let out = s.size.map { ($0.width, $0.height) } ?? s.size(forSource: canvas.width, canvas.height)
            if s.pixelFormat != pixelFormat || out.0 != canvas.width || out.1 != canvas.height {
                converter = try PictureConverter(pixelFormat: s.pixelFormat, size: out, letterbox: s.scalingMode == .resizeAspect)
            }
        }
        return canvas
    }

    /// Whether `layer` covers the whole canvas with `picture` as it is (the canvas can start as
    /// the picture itself, without a copy until something is drawn over it).
    private func fillsCanvas(_ layer: VideoCompositionLayerInstruction, _ picture: PixelBuffer, at time: MediaTime) throws -> Bool {
        guard layer.opacity(at: time) >= 1, layer.cropRectangle(at: time) == nil, let canvas else { return false }
        let t = layer.transform(at: time)
        return t == .identity && picture.width == canvas.width && picture.height == canvas.height && picture.pixelFormat == canvas.pixelFormat
    }

    /// Where a layer's picture goes: the part drawn, its turn, and the rectangle it fills.
    private func placement(of layer: VideoCompositionLayerInstruction, _ picture: PixelBuffer,
                           at time: MediaTime) throws -> (PictureCanvas.Rect, PictureOrientation, PictureCanvas.Rect) {
        let t = layer.transform(at: time)
        guard let orientation = PictureOrientation(transform: t) else {
            throw MediaError(.unsupported, "track \(layer.trackID): the layer's transform \(t) is not axis-aligned "
                             + "(video compositions render quarter turns, mirrors, scales and translations)")
        }
        let whole = CGRect(x: 0, y: 0, width: picture.width, height: picture.height)
        let crop = (layer.cropRectangle(at: time) ?? whole).intersection(whole)
        guard !crop.isNull, crop.width >= 1, crop.height >= 1 else {
            return (PictureCanvas.Rect(x: 0, y: 0, width: 0, height: 0), orientation, PictureCanvas.Rect(x: 0, y: 0, width: 0, height: 0))
        }
        let box = VideoComposition.boundingBox(of: crop, through: t)
        let x0 = box.minX.rounded(saturating: Int.self) ?? 0, y0 = box.minY.rounded(saturating: Int.self) ?? 0
        let rect = PictureCanvas.Rect(x: x0, y: y0, width: (box.maxX.rounded(saturating: Int.self) ?? 0) &- x0, height: (box.maxY.rounded(saturating: Int.self) ?? 0) &- y0)
        let source = PictureCanvas.Rect(x: crop.minX.rounded(saturating: Int.self) ?? 0, y: crop.minY.rounded(saturating: Int.self) ?? 0,
                                        width: crop.width.rounded(saturating: Int.self) ?? 0, height: crop.height.rounded(saturating: Int.self) ?? 0)
        return (source, orientation, rect)
    }
}
