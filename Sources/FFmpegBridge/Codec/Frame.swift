import CFFmpeg
import MediaCore

/// An `AVFrame` Splice owns: decoded audio or a picture in libav's reference-counted buffers,
/// viewed by `PCMBuffer` and `PixelBuffer` without a copy (it is their `DecodedStorage`).
public final class Frame: DecodedStorage, @unchecked Sendable {   // confined: changed only by the thread that makes it, read-only once handed on
    let pointer: UnsafeMutablePointer<AVFrame>

    init() throws {
        guard let f = av_frame_alloc() else { throw MediaError(.io, "out of memory (av_frame_alloc)") }
        pointer = f
    }

    deinit {
        var f: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&f)
    }

    public func plane(_ index: Int) -> (base: UnsafeRawPointer, stride: Int) {
        let base = UnsafeRawPointer(pointer.pointee.extended_data[index]!)
        // Audio: every plane is linesize[0] long (and planes may be more than linesize's eight).
        let isAudio = pointer.pointee.nb_samples > 0 && pointer.pointee.width == 0
        let stride = withUnsafeBytes(of: pointer.pointee.linesize) { $0.load(fromByteOffset: isAudio ? 0 : 4 * index, as: Int32.self) }
        return (base, Int(widening: stride))
    }

    /// The frame's presentation time in its packets' time base: its packet's, else libavcodec's
    /// best guess.
    var timestamp: Int64? {
        let none = splice_av_nopts_value()
        if pointer.pointee.pts != none { return pointer.pointee.pts }
        let t = pointer.pointee.best_effort_timestamp
        return t == none ? nil : t
    }

    /// The frame as decoded audio (nil for a sample format Splice does not hand out).
    public var pcm: PCMBuffer? {
        guard let (format, planar) = PCMBuffer.SampleFormat.from(AVSampleFormat(rawValue: pointer.pointee.format)) else { return nil }
        let layout = pointer.pointee.ch_layout
        let f = PCMBuffer.Format(sampleFormat: format, isPlanar: planar, sampleRate: Int(widening: pointer.pointee.sample_rate),
                                 channelCount: Int(widening: layout.nb_channels),
                                 channelLayoutMask: layout.order == AV_CHANNEL_ORDER_NATIVE ? layout.u.mask : 0)
        return PCMBuffer(format: f, frameCount: Int(widening: pointer.pointee.nb_samples), storage: self)
    }

    /// The picture's colour tags.
    public var colorTags: PixelBuffer.Color {
        let p = pointer.pointee
        return PixelBuffer.Color(primaries: Int(widening: p.color_primaries.rawValue), transfer: Int(widening: p.color_trc.rawValue),
                                 matrix: Int(widening: p.colorspace.rawValue),
                                 isFullRange: p.color_range == AVCOL_RANGE_JPEG ? true : p.color_range == AVCOL_RANGE_MPEG ? false : nil)
    }

    /// The frame as a picture (nil for a pixel format Splice does not hand out).
    public var picture: PixelBuffer? {
        guard let format = PixelBuffer.PixelFormat(AVPixelFormat(rawValue: pointer.pointee.format)) else { return nil }
        let p = pointer.pointee
        let color = colorTags
        let sar = p.sample_aspect_ratio.num > 0 && p.sample_aspect_ratio.den > 0
            ? (Int(widening: p.sample_aspect_ratio.num), Int(widening: p.sample_aspect_ratio.den)) : (1, 1)
        var picture = PixelBuffer(pixelFormat: format, width: Int(widening: p.width), height: Int(widening: p.height), color: color,
                                  sampleAspectRatio: sar, storage: self)
        if p.side_data != nil {
            (picture.masteringDisplay, picture.contentLightLevel) = hdrMetadata
            picture.hasHDR10Plus = av_frame_get_side_data(pointer, AV_FRAME_DATA_DYNAMIC_HDR_PLUS) != nil
        }
        return picture
    }
}

extension PCMBuffer.SampleFormat {
    static func from(_ f: AVSampleFormat) -> (PCMBuffer.SampleFormat, planar: Bool)? {
        switch f {
        case AV_SAMPLE_FMT_S16: (.s16, false)
        case AV_SAMPLE_FMT_S16P: (.s16, true)
        case AV_SAMPLE_FMT_S32: (.s32, false)
        case AV_SAMPLE_FMT_S32P: (.s32, true)
        case AV_SAMPLE_FMT_FLT: (.f32, false)
        case AV_SAMPLE_FMT_FLTP: (.f32, true)
        default: nil
        }
    }

    func avFormat(planar: Bool) -> AVSampleFormat {
        switch self {
        case .s16: planar ? AV_SAMPLE_FMT_S16P : AV_SAMPLE_FMT_S16
        case .s32: planar ? AV_SAMPLE_FMT_S32P : AV_SAMPLE_FMT_S32
        case .f32: planar ? AV_SAMPLE_FMT_FLTP : AV_SAMPLE_FMT_FLT
        }
    }
}

extension PixelBuffer.PixelFormat {
    init?(_ f: AVPixelFormat) {
        switch f {
        case AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P: self = .yuv420p
        case AV_PIX_FMT_NV12: self = .nv12
        case AV_PIX_FMT_YUV420P10LE: self = .yuv420p10le
        case AV_PIX_FMT_YUV422P10LE: self = .yuv422p10le
        case AV_PIX_FMT_YUV444P10LE: self = .yuv444p10le
        case AV_PIX_FMT_YUV420P12LE: self = .yuv420p12le
        case AV_PIX_FMT_YUV422P12LE: self = .yuv422p12le
        case AV_PIX_FMT_YUV444P12LE: self = .yuv444p12le
        case AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUVJ422P: self = .yuv422p
        case AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P: self = .yuv444p
        case AV_PIX_FMT_RGBA: self = .rgba
        case AV_PIX_FMT_BGRA: self = .bgra
        case AV_PIX_FMT_GRAY8: self = .gray
        default: return nil
        }
    }

    var avFormat: AVPixelFormat {
        switch self {
        case .yuv420p: AV_PIX_FMT_YUV420P
        case .nv12: AV_PIX_FMT_NV12
        case .yuv420p10le: AV_PIX_FMT_YUV420P10LE
        case .yuv422p10le: AV_PIX_FMT_YUV422P10LE
        case .yuv444p10le: AV_PIX_FMT_YUV444P10LE
        case .yuv420p12le: AV_PIX_FMT_YUV420P12LE
        case .yuv422p12le: AV_PIX_FMT_YUV422P12LE
        case .yuv444p12le: AV_PIX_FMT_YUV444P12LE
        case .yuv422p: AV_PIX_FMT_YUV422P
        case .yuv444p: AV_PIX_FMT_YUV444P
        case .rgba: AV_PIX_FMT_RGBA
        case .bgra: AV_PIX_FMT_BGRA
        case .gray: AV_PIX_FMT_GRAY8
        }
    }
}

extension Frame {
    /// The frame's presentation time in ticks of 1/`timescale` s (its packets' time base).
    public func presentationTime(timescale: Int32) -> MediaTime? {
        timestamp.map { MediaTime(value: $0, timescale: timescale) }
    }

    /// The duration libavcodec gives the frame (its packet's), if any.
    public func duration(timescale: Int32) -> MediaTime? {
        let d = pointer.pointee.pkt_duration
        return d > 0 ? MediaTime(value: d, timescale: timescale) : nil
    }
}
