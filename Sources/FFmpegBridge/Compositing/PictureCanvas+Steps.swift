import CFFmpeg
import MediaCore

/// The canvas's steps below drawing: images prepared as YUVA layers, planes turned, layers
/// blended with clipping, planes filled.
extension PictureCanvas {

    private var alphaFormat: AVPixelFormat { pixelFormat == .yuv420p10le ? AV_PIX_FMT_YUVA420P10LE : AV_PIX_FMT_YUVA420P }
    private var maximum: Int { pixelFormat == .yuv420p10le ? 1023 : 255 }

    /// `image` as a YUVA layer of `width`×`height` in the canvas's matrix and range. Scaling is
    /// done on premultiplied RGBA (no dark fringes where transparent pixels are averaged in).
    /// An opaque image becomes a layer in the canvas's own format (no alpha plane to make). Over
    /// HDR (PQ, HLG) the image's sRGB is first taken to the canvas's transfer and BT.2020, its
    /// white at 203 cd/m² (ITU-R BT.2408's graphics white).
    func prepare(_ image: StillImage, width: Int, height: Int, letterboxed: Bool) throws -> Frame {
        let opaque = try !image.hasAlpha()
        let out = try Frame.allocate(format: opaque ? pixelFormat.avFormat : alphaFormat, width: width, height: height)
        var inner = Rect(x: 0, y: 0, width: width, height: height)
        if letterboxed {
            // As FFmpeg's scale=…:force_original_aspect_ratio=decrease, centred on an even pixel.
            let w = min(width, ((Double(height) * Double(image.width) / Double(image.height)).rounded(saturating: Int.self) ?? 0))
            let h = min(height, ((Double(width) * Double(image.height) / Double(image.width)).rounded(saturating: Int.self) ?? 0))
            inner = Rect(x: ((width - w) / 2) & ~1, y: ((height - h) / 2) & ~1, width: max(1, w), height: max(1, h))
            fill(out, levels: try levels(ofRed: 0, green: 0, blue: 0), alpha: opaque ? nil : maximum)
        }
        defer { image.releasePixels() }       // the prepared layer is kept while the image is shown
        let resized = inner.width != image.width || inner.height != image.height
        let native = try image.nativeFrame()
        // The decoder's picture scales straight into the layer when nothing needs RGBA first:
        // upright, RGB (or YUV in the canvas's own matrix), and no alpha to premultiply.
        var source = native
        let alpha = try image.hasAlpha()
        if !image.orientation.isUpright || !convertsDirectly(native) || (alpha && resized) || color.isHDR {
            source = try image.frame()
        }
        // Over HDR, the (sRGB) image is coded in the canvas's transfer, its white at 203 cd/m².
        if color.isHDR { source = try source.hdrCoded(transfer: color.transfer) }
        if alpha, resized {
            let rgba = source
            let premultiplied = try Frame.allocate(format: AV_PIX_FMT_RGBA, width: image.width, height: image.height)
            PictureCanvas.multiplyAlpha(from: rgba, into: premultiplied, divide: false)
            let scaled = try Frame.allocate(format: AV_PIX_FMT_RGBA, width: inner.width, height: inner.height)
            try scale(premultiplied, crop: Rect(x: 0, y: 0, width: image.width, height: image.height), to: scaled, at: (0, 0),
                      size: (inner.width, inner.height))
            PictureCanvas.multiplyAlpha(from: scaled, into: scaled, divide: true)
            source = scaled
        }
        try scale(source, crop: Rect(x: 0, y: 0, width: source.width, height: source.height), to: out, at: (inner.x, inner.y),
                  size: (inner.width, inner.height))
        return out
    }

    /// Whether libswscale can take `frame` straight to the canvas's YUV: RGB, or YUV whose
    /// matrix is the canvas's (YUV to YUV changes range, not matrix).
    private func convertsDirectly(_ frame: Frame) -> Bool {
        if PictureCanvas.isRGB(frame.pixelFormat) { return true }
        let f = frame.pointer.pointee
        let own = PictureCanvas.swsMatrix(PixelBuffer.Color(matrix: Int(widening: f.colorspace.rawValue)), height: 0)   // untagged images: BT.601
        return own == PictureCanvas.swsMatrix(color, height: height)
    }

    /// RGBA's colour multiplied by its alpha (`divide`: divided, back to straight alpha).
    private static func multiplyAlpha(from source: Frame, into target: Frame, divide: Bool) {
        let (src, srcStride) = source.mutablePlane(0)
        let (dst, dstStride) = target.mutablePlane(0)
        for y in 0..<source.height {
            let s = (src + y * srcStride).assumingMemoryBound(to: UInt8.self)
            let d = (dst + y * dstStride).assumingMemoryBound(to: UInt8.self)
            for x in 0..<source.width {
                let a = Int(widening: s[4 * x + 3])
                for k in 0..<3 {
                    let c = Int(widening: s[4 * x + k])
                    d[4 * x + k] = divide ? (a == 0 ? 0 : UInt8(truncatingIfNeeded: min(255, (c * 255 + a / 2) / a))) : UInt8(truncatingIfNeeded: (c * a + 127) / 255)
                }
                d[4 * x + 3] = UInt8(truncatingIfNeeded: a)
            }
        }
    }

    /// A copy of `layer` (the canvas's format) turned by `o`.
    func turn(_ layer: Frame, _ o: PictureOrientation) throws -> Frame {
        let size = o.size(width: layer.width, height: layer.height)
        let out = try Frame.allocate(format: layer.pixelFormat, width: size.width, height: size.height)
        for p in 0..<3 {
            let w = p == 0 ? layer.width : (layer.width + 1) / 2, h = p == 0 ? layer.height : (layer.height + 1) / 2
            let (src, srcStride) = layer.mutablePlane(p)
            let (dst, dstStride) = out.mutablePlane(p)
            if pixelFormat == .yuv420p10le {
                PlaneOps.orient(UInt16.self, src: src, srcStride: srcStride, width: w, height: h, dst: dst, dstStride: dstStride, orientation: o)
            } else {
                PlaneOps.orient(UInt8.self, src: src, srcStride: srcStride, width: w, height: h, dst: dst, dstStride: dstStride, orientation: o)
            }
        }
        return out
    }

    /// Blends `layer` (the canvas's format, or its YUVA form when `alpha`) over the current
    /// picture with its top-left corner at `origin` (rounded down to even), clipped to the canvas.
    func blend(_ layer: Frame, alpha: Bool, at origin: (Int, Int), opacity: Double, opaque: Bool = false) {
        guard let canvas = currentFrame else { return }
        let x = origin.0 & ~1, y = origin.1 & ~1
        let x0 = max(0, x), y0 = max(0, y), x1 = min(width, x + layer.width), y1 = min(height, y + layer.height)
        guard x1 > x0, y1 > y0 else { return }
        let bytes = pixelFormat == .yuv420p10le ? 2 : 1
        let op = ((min(1, max(0, opacity)) * 65536).rounded(saturating: Int.self) ?? 0)
        let withAlpha = alpha && PictureCanvas.hasAlphaChannel(layer.pixelFormat)
        let (alphaBase, alphaStride) = withAlpha ? layer.mutablePlane(3) : (UnsafeMutableRawPointer(bitPattern: 1)!, 0)
        for p in 0..<3 {
            let sub = p == 0 ? 0 : 1
            let cx0 = x0 >> sub, cy0 = y0 >> sub
            let cx1 = p == 0 ? x1 : min((width + 1) / 2, (x1 + 1) / 2), cy1 = p == 0 ? y1 : min((height + 1) / 2, (y1 + 1) / 2)
            let lx = cx0 - (x >> sub), ly = cy0 - (y >> sub)      // where in the layer's plane
            let (d, dStride) = canvas.mutablePlane(p)
            let (s, sStride) = layer.mutablePlane(p)
            let a = withAlpha ? UnsafeRawPointer(alphaBase + (ly << sub) * alphaStride + (lx << sub) * bytes) : nil
            let b = PlaneOps.Blend(dst: d + cy0 * dStride + cx0 * bytes, dstStride: dStride,
                                   src: UnsafeRawPointer(s + ly * sStride + lx * bytes), srcStride: sStride,
                                   alpha: a, alphaStride: alphaStride, alphaStep: 1 << sub,
                                   alphaWidth: layer.width - (lx << sub), alphaHeight: layer.height - (ly << sub),
                                   width: cx1 - cx0, rows: cy1 - cy0, opacity: op)
            if opaque && opacity >= 1 {
                PlaneOps.copy(b, bytesPerSample: bytes)          // nothing shows through: a copy
            } else if bytes == 2 {
                PlaneOps.blend16(b, maximum: maximum)
            } else {
                PlaneOps.blend8(b)
            }
        }
    }

    /// Fills a frame's Y, U and V planes with `levels` (and its alpha plane with `alpha`).
    func fill(_ frame: Frame, levels: [Int], alpha: Int?) {
        let planes = alpha == nil ? 3 : 4
        for p in 0..<planes {
            let value = p < 3 ? levels[p] : alpha!
            let w = p == 1 || p == 2 ? (frame.width + 1) / 2 : frame.width
            let h = p == 1 || p == 2 ? (frame.height + 1) / 2 : frame.height
            let (base, stride) = frame.mutablePlane(p)
            for row in 0..<h {
                if pixelFormat == .yuv420p10le {
                    (base + row * stride).assumingMemoryBound(to: UInt16.self).update(repeating: UInt16(truncatingIfNeeded: value), count: w)
                } else {
                    (base + row * stride).assumingMemoryBound(to: UInt8.self).update(repeating: UInt8(truncatingIfNeeded: value), count: w)
                }
            }
        }
    }

    /// The canvas's Y, U and V levels of an RGB colour (0…1), converted by libswscale.
    func levels(ofRed r: Double, green g: Double, blue b: Double) throws -> [Int] {
        let rgba = try Frame.allocate(format: AV_PIX_FMT_RGBA, width: 2, height: 2)
        let (base, stride) = rgba.mutablePlane(0)
        let pixel = [r, g, b, 1].map { ((min(1, max(0, $0)) * 255).rounded(saturating: UInt8.self) ?? 0) }
        for y in 0..<2 { for x in 0..<2 { for k in 0..<4 { base.storeBytes(of: pixel[k], toByteOffset: y * stride + 4 * x + k, as: UInt8.self) } } }
        let yuv = try Frame.allocate(format: pixelFormat.avFormat, width: 2, height: 2)
        try scale(rgba, crop: Rect(x: 0, y: 0, width: 2, height: 2), to: yuv, at: (0, 0), size: (2, 2))
        return (0..<3).map { p in
            let (plane, _) = yuv.mutablePlane(p)
            return pixelFormat == .yuv420p10le ? Int(widening: plane.load(as: UInt16.self)) : Int(widening: plane.load(as: UInt8.self))
        }
    }
}
