import CFFmpeg
import FFmpegLoader
import MediaCore

/// Converts decoded pictures to one pixel format and size with libswscale, with the source's
/// colour matrix and range. Pictures already in that format and size pass through untouched.
public final class PictureConverter: @unchecked Sendable {
    public let pixelFormat: PixelBuffer.PixelFormat
    /// The output size; nil: the input's.
    public let size: (width: Int, height: Int)?
    /// The output range (`true` full, as JPEG wants); nil: the input's.
    public let fullRange: Bool?
    private var sws: OpaquePointer?
    private var input: (format: Int32, width: Int32, height: Int32)?

    public init(pixelFormat: PixelBuffer.PixelFormat, size: (width: Int, height: Int)? = nil, fullRange: Bool? = nil) throws {
        if let message = splice_ffmpeg_load_converters() {
            throw MediaError(.unsupported, String(cString: message) + " (install Debian's libswscale6)")
        }
        self.pixelFormat = pixelFormat
        self.size = size
        self.fullRange = fullRange
    }

    deinit { sws_freeContext(sws) }

    public func convert(_ frame: Frame) throws -> Frame {
        let f = frame.pointer.pointee
        let width = Int32(size?.width ?? Int(f.width)), height = Int32(size?.height ?? Int(f.height))
        let sourceFull = f.color_range == AVCOL_RANGE_JPEG
        if PixelBuffer.PixelFormat(AVPixelFormat(rawValue: f.format)) == pixelFormat, width == f.width, height == f.height,
           fullRange == nil || fullRange == sourceFull {
            return frame
        }
        try prepare(frame, width: width, height: height)
        let out = try Frame()
        out.pointer.pointee.format = pixelFormat.avFormat.rawValue
        out.pointer.pointee.width = width
        out.pointer.pointee.height = height
        guard av_frame_get_buffer(out.pointer, 0) >= 0 else { throw MediaError(.io, "out of memory (picture)") }
        let r = withUnsafePointer(to: frame.pointer.pointee.data) { src in
            withUnsafePointer(to: frame.pointer.pointee.linesize) { srcStride in
                withUnsafePointer(to: out.pointer.pointee.data) { dst in
                    withUnsafePointer(to: out.pointer.pointee.linesize) { dstStride in
                        sws_scale(sws,
                                  UnsafeRawPointer(src).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                                  UnsafeRawPointer(srcStride).assumingMemoryBound(to: Int32.self), 0, f.height,
                                  UnsafeRawPointer(dst).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                                  UnsafeRawPointer(dstStride).assumingMemoryBound(to: Int32.self))
                    }
                }
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
        sws = sws_getContext(f.width, f.height, AVPixelFormat(rawValue: f.format), width, height, pixelFormat.avFormat,
                             Int32(SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT), nil, nil, nil)
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
