import CFFmpeg
import MediaCore

/// The pixel arithmetic of compositing that no FFmpeg library offers as a call: blending one
/// picture over another with an alpha plane and an opacity, and turning planes by quarter turns
/// and mirrors. Scaling and colour conversion are libswscale's.
enum PlaneOps {
    /// One plane of a blend: `rows` rows of `width` samples of `src` over `dst` (sample type
    /// `T`: UInt8 for 8-bit, UInt16 for 10-bit), each weighted by its alpha — from `alpha`
    /// (same geometry as `src`; for a subsampled chroma plane, `alphaStep` 2 averages the 2×2
    /// luma alphas it covers), or full when nil — times `opacity` (0…65536).
    struct Blend {
        var dst: UnsafeMutableRawPointer
        var dstStride: Int
        var src: UnsafeRawPointer
        var srcStride: Int
        var alpha: UnsafeRawPointer?
        var alphaStride: Int
        /// 1: one alpha per sample; 2: the plane is subsampled by two (alpha rows and columns doubled).
        var alphaStep: Int
        /// The alpha plane's size in samples (to clamp the doubled indices at its edges).
        var alphaWidth: Int
        var alphaHeight: Int
        var width: Int
        var rows: Int
        var opacity: Int
    }

    static func blend8(_ b: Blend) {
        for row in 0..<b.rows {
            let d = (b.dst + row * b.dstStride).assumingMemoryBound(to: UInt8.self)
            let s = (b.src + row * b.srcStride).assumingMemoryBound(to: UInt8.self)
            guard let alpha = AlphaRow<UInt8>(b, row: row) else {
                let a = (255 * b.opacity + 32768) >> 16
                for x in 0..<b.width { d[x] = div255(Int(widening: d[x]) * (255 - a) + Int(widening: s[x]) * a) }
                continue
            }
            for x in 0..<b.width {
                let a = (alpha[x] * b.opacity + 32768) >> 16
                d[x] = div255(Int(widening: d[x]) * (255 - a) + Int(widening: s[x]) * a)
            }
        }
    }

    static func blend16(_ b: Blend, maximum: Int) {
        for row in 0..<b.rows {
            let d = (b.dst + row * b.dstStride).assumingMemoryBound(to: UInt16.self)
            let s = (b.src + row * b.srcStride).assumingMemoryBound(to: UInt16.self)
            let alpha = AlphaRow<UInt16>(b, row: row)
            for x in 0..<b.width {
                let a = ((alpha?[x] ?? maximum) * b.opacity + 32768) >> 16
                d[x] = UInt16(truncatingIfNeeded: (Int(widening: d[x]) * (maximum - a) + Int(widening: s[x]) * a + maximum / 2) / maximum)
            }
        }
    }

    /// The alpha of each sample of one row of a blend: the alpha plane's own, or for a chroma
    /// plane subsampled by two, the average of the 2×2 luma alphas it covers (clamped at the
    /// plane's edges). Nil when the blend has no alpha plane.
    struct AlphaRow<T: FixedWidthInteger & UnsignedInteger> {
        let upper: UnsafePointer<T>
        let lower: UnsafePointer<T>
        let step: Int
        let width: Int

        init?(_ b: Blend, row: Int) {
            guard let alpha = b.alpha else { return nil }
            upper = (alpha + min(row * b.alphaStep, b.alphaHeight - 1) * b.alphaStride).assumingMemoryBound(to: T.self)
            lower = (alpha + min(row * b.alphaStep + b.alphaStep - 1, b.alphaHeight - 1) * b.alphaStride).assumingMemoryBound(to: T.self)
            (step, width) = (b.alphaStep, b.alphaWidth)
        }

        @inline(__always)
        subscript(x: Int) -> Int {
            guard step != 1 else { return Int(upper[x]) }   // lint: checked (widening a plane sample: UInt8 or UInt16)
            let x0 = min(2 * x, width - 1), x1 = min(2 * x + 1, width - 1)
            return (Int(upper[x0]) + Int(upper[x1]) + Int(lower[x0]) + Int(lower[x1]) + 2) >> 2   // lint: checked (widening plane samples: UInt8 or UInt16)
        }
    }

    /// `b`'s rows of `src` copied over `dst` (an opaque layer at full opacity).
    static func copy(_ b: Blend, bytesPerSample: Int) {
        for row in 0..<b.rows {
            (b.dst + row * b.dstStride).copyMemory(from: b.src + row * b.srcStride, byteCount: b.width * bytesPerSample)
        }
    }

    /// x / 255, rounded, for 0 ≤ x ≤ 255 × 255 (FFmpeg's overlay filter's FAST_DIV255).
    @inline(__always)
    static func div255(_ x: Int) -> UInt8 { UInt8(truncatingIfNeeded: ((x + 128) * 257) >> 16) }

    /// Copies a `width`×`height` plane of `T` samples turned by `orientation` into `dst` (whose
    /// size is the turned size).
    static func orient<T>(_ type: T.Type, src: UnsafeRawPointer, srcStride: Int, width: Int, height: Int,
                          dst: UnsafeMutableRawPointer, dstStride: Int, orientation o: PictureOrientation) {
        let (outW, outH) = o.size(width: width, height: height)
        for v in 0..<outH {
            let d = (dst + v * dstStride).assumingMemoryBound(to: T.self)
            if !o.swapsAxes {
                let y = o.flipsY ? height - 1 - v : v
                let s = (src + y * srcStride).assumingMemoryBound(to: T.self)
                if o.flipsX {
                    for u in 0..<outW { d[u] = s[width - 1 - u] }
                } else {
                    d.update(from: s, count: outW)
                }
            } else {
                // Output row v is source column x; output column u is source row y.
                let x = o.flipsY ? width - 1 - v : v
                for u in 0..<outW {
                    let y = o.flipsX ? height - 1 - u : u
                    d[u] = (src + y * srcStride).assumingMemoryBound(to: T.self)[x]
                }
            }
        }
    }
}

extension Frame {
    /// A new frame with its own buffers, of `format` and size (contents undefined).
    static func allocate(format: AVPixelFormat, width: Int, height: Int) throws -> Frame {
        let f = try Frame()
        f.pointer.pointee.format = format.rawValue
        f.pointer.pointee.width = Int32(clamping: width)
        f.pointer.pointee.height = Int32(clamping: height)
        guard av_frame_get_buffer(f.pointer, 0) >= 0 else { throw MediaError(.io, "out of memory (a \(width)x\(height) picture)") }
        return f
    }

    var width: Int { Int(widening: pointer.pointee.width) }
    var height: Int { Int(widening: pointer.pointee.height) }
    var pixelFormat: AVPixelFormat { AVPixelFormat(rawValue: pointer.pointee.format) }

    /// Plane `i`'s first byte, writable, and its stride.
    func mutablePlane(_ i: Int) -> (UnsafeMutableRawPointer, Int) {
        let base = withUnsafeBytes(of: pointer.pointee.data) { $0.load(fromByteOffset: i * 8, as: UnsafeMutablePointer<UInt8>?.self) }
        let stride = withUnsafeBytes(of: pointer.pointee.linesize) { $0.load(fromByteOffset: i * 4, as: Int32.self) }
        return (UnsafeMutableRawPointer(base!), Int(widening: stride))
    }

    /// Bytes across and rows down to pixel (`x`, `y`) in plane `p` of `format` (its chroma
    /// subsampling and bytes per sample, from libavutil's descriptor).
    static func byteOffset(_ format: AVPixelFormat, plane p: Int, x: Int, y: Int) -> (Int, Int) {
        guard let d = av_pix_fmt_desc_get(format) else { return (x, y) }
        let comps = withUnsafeBytes(of: d.pointee.comp) { Array($0.bindMemory(to: AVComponentDescriptor.self)) }
        guard let k = (0..<Int(widening: d.pointee.nb_components)).first(where: { comps[$0].plane == p }) else { return (x, y) }
        let chroma = d.pointee.flags & UInt64(truncatingIfNeeded: AV_PIX_FMT_FLAG_RGB) == 0 && (k == 1 || k == 2)
        let sx = chroma ? Int(widening: d.pointee.log2_chroma_w) : 0, sy = chroma ? Int(widening: d.pointee.log2_chroma_h) : 0
        return ((x >> sx) * Int(widening: comps[k].step), y >> sy)
    }

    /// A frame sharing this one's buffers (a new reference).
    func reference() throws -> Frame {
        let f = try Frame()
        guard av_frame_ref(f.pointer, pointer) >= 0 else { throw MediaError(.io, "out of memory (av_frame_ref)") }
        return f
    }
}
