import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif
import FFmpegLoader
import MediaCore

/// Converts decoded pictures to one pixel format and size with libswscale, with the source's
/// colour matrix and range. Pictures already in that format and size pass through untouched.
public final class PictureConverter: @unchecked Sendable {   // confined: used by one thread at a time (its owner's)
    public let pixelFormat: PixelBuffer.PixelFormat
    /// The output size; nil: the input's.
    public let size: (width: Int, height: Int)?
    /// The output range (`true` full, as JPEG wants); nil: the input's.
    public let fullRange: Bool?
    /// With a size: the picture keeps its aspect ratio inside it, centred on black.
    public let letterbox: Bool
    private var sws: OpaquePointer?
    private var input: (format: Int32, width: Int32, height: Int32)?
    /// Where the scaled picture goes inside the output (the whole output unless letterboxed).
    private var inner = (x: Int32(0), y: Int32(0), width: Int32(0), height: Int32(0))

    public init(pixelFormat: PixelBuffer.PixelFormat, size: (width: Int, height: Int)? = nil, fullRange: Bool? = nil,
                letterbox: Bool = false) throws {
        self.letterbox = letterbox
        if let message = splice_ffmpeg_load_converters() {
            throw MediaError(.unsupported, String(cString: message) + " (install Debian's libswscale6)")
        }
        self.pixelFormat = pixelFormat
        self.size = size
        self.fullRange = fullRange
    }

    deinit { sws_freeContext(sws) }

    /// Paints a picture black (video-range or full-range levels).
    private func fillBlack(_ frame: Frame, fullRange: Bool) {
        let f = frame.pointer.pointee
        for p in 0..<pixelFormat.planeCount {
            let (base, stride) = frame.plane(p)
            let rows = pixelFormat.planeSize(p, width: Int(widening: f.width), height: Int(widening: f.height)).rows
            let bytes = UnsafeMutableRawPointer(mutating: base)
            let count = stride * rows
            switch (pixelFormat, p) {
            case (.rgba, _), (.bgra, _):
                let pixel: UInt32 = pixelFormat == .rgba ? 0xFF00_0000 : 0xFF00_0000   // A in the last byte, little-endian
                for i in 0..<(count / 4) { bytes.storeBytes(of: pixel, toByteOffset: i * 4, as: UInt32.self) }
            case (_, _) where pixelFormat.bitDepth > 8:
                let shift = pixelFormat.bitDepth - 8
                let v: UInt16 = p == 0 ? (fullRange ? 0 : UInt16(16 << shift)) : UInt16(128 << shift)
                for i in 0..<(count / 2) { bytes.storeBytes(of: v, toByteOffset: i * 2, as: UInt16.self) }
            default:
                memset(bytes, Int32(truncatingIfNeeded: p == 0 ? (fullRange ? 0 : 16) : 128), count)
            }
        }
    }

    /// `frame` in the converter's format and size, as a frame of its own: a new reference to the same
    /// pixels when there is nothing to convert, so that what the caller sets on the result (its
    /// time) never changes the caller's frame.
    public func convert(_ frame: Frame) throws -> Frame {
        let f = frame.pointer.pointee
        let width = Int32(clamping: size?.width ?? Int(clamping: f.width)), height = Int32(clamping: size?.height ?? Int(clamping: f.height))
        let sourceFull = f.color_range == AVCOL_RANGE_JPEG
        if PixelBuffer.PixelFormat(AVPixelFormat(rawValue: f.format)) == pixelFormat, width == f.width, height == f.height,
           fullRange == nil || fullRange == sourceFull {
            return try frame.reference()   // the caller's pixels, never the caller's frame: its times are the caller's
        }
        try prepare(frame, width: width, height: height)
        let out = try Frame.allocate(format: pixelFormat.avFormat, width: Int(widening: width), height: Int(widening: height))
        let boxed = inner.width != width || inner.height != height
        if boxed { fillBlack(out, fullRange: (fullRange ?? (f.color_range == AVCOL_RANGE_JPEG))) }
        // The destination planes, moved to the inner rectangle's corner.
        var dst: [UnsafeMutablePointer<UInt8>?] = (0..<4).map { i in
            withUnsafeBytes(of: out.pointer.pointee.data) { $0.load(fromByteOffset: i * 8, as: UnsafeMutablePointer<UInt8>?.self) }
        }
        let dstStride: [Int32] = (0..<4).map { i in withUnsafeBytes(of: out.pointer.pointee.linesize) { $0.load(fromByteOffset: i * 4, as: Int32.self) } }
        if boxed {
            for p in 0..<pixelFormat.planeCount {
                let (dx, dy) = Frame.byteOffset(pixelFormat.avFormat, plane: p, x: Int(widening: inner.x), y: Int(widening: inner.y))
                dst[p] = dst[p].map { $0 + dy * Int(widening: dstStride[p]) + dx }
            }
        }
        let r = withUnsafePointer(to: frame.pointer.pointee.data) { src in
            withUnsafePointer(to: frame.pointer.pointee.linesize) { srcStride in
                sws_scale(sws,
                          UnsafeRawPointer(src).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                          UnsafeRawPointer(srcStride).assumingMemoryBound(to: Int32.self), 0, f.height,
                          dst, dstStride)
            }
        }
        guard r > 0 else { throw MediaError(.invalidData, "cannot convert a \(f.width)x\(f.height) picture to \(pixelFormat)") }
        // Times, colour tags, aspect and side data (HDR10 metadata) go with the picture.
        guard av_frame_copy_props(out.pointer, frame.pointer) >= 0 else { throw MediaError(.io, "out of memory (picture)") }
        out.pointer.pointee.pts = f.best_effort_timestamp
        out.pointer.pointee.color_range = fullRange.map { $0 ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG } ?? f.color_range
        return out
    }

    private func prepare(_ frame: Frame, width: Int32, height: Int32) throws {
        let f = frame.pointer.pointee
        let key = (f.format, f.width, f.height)
        if let input, input == key { return }
        sws_freeContext(sws)
        input = key
        inner = (0, 0, width, height)
        if letterbox, f.width > 0, f.height > 0 {
            let scale = min(Double(width) / Double(f.width), Double(height) / Double(f.height))
            let w = min(width, max(2, ((Double(f.width) * scale / 2).rounded(saturating: Int32.self) ?? 1) * 2))
            let h = min(height, max(2, ((Double(f.height) * scale / 2).rounded(saturating: Int32.self) ?? 1) * 2))
            inner = ((width - w) / 4 * 2, (height - h) / 4 * 2, w, h)
        }
        sws = sws_getContext(f.width, f.height, AVPixelFormat(rawValue: f.format), inner.width, inner.height, pixelFormat.avFormat,
                             Int32(truncatingIfNeeded: SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT), nil, nil, nil)
        guard sws != nil else {
            throw MediaError(.unsupported, "cannot convert \(f.width)x\(f.height) pictures to \(width)x\(height) \(pixelFormat)")
        }
        // The source's matrix (BT.709 for HD when untagged, BT.601 below) and ranges.
        let matrix: Int32
        switch f.colorspace {
        case AVCOL_SPC_BT709: matrix = SWS_CS_ITU709
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: matrix = SWS_CS_BT2020
        case AVCOL_SPC_UNSPECIFIED: matrix = f.height >= 720 ? SWS_CS_ITU709 : SWS_CS_ITU601
        default: matrix = SWS_CS_ITU601
        }
        let full: Int32 = f.color_range == AVCOL_RANGE_JPEG ? 1 : 0
        let outFull: Int32 = fullRange.map { $0 ? 1 : 0 } ?? full
        let coefficients = sws_getCoefficients(matrix)
        _ = sws_setColorspaceDetails(sws, coefficients, full, coefficients, outFull, 0, 1 << 16, 1 << 16)
    }
}
