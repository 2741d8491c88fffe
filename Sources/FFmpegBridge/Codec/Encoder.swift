import CFFmpeg
import Foundation
import MediaCore

/// One stream's libavcodec encoder: frames in, packets out (times in ticks of 1/`timescale` s).
public final class Encoder: @unchecked Sendable {   // confined: used under its encoding stage's lock
    /// What to open: FFmpeg's encoder name and the stream it makes.
    public struct Configuration: Sendable {
        /// FFmpeg's encoder name (`libx264`, `aac`, `libopus`, …).
        public var encoderName: String
        public var mediaType: MediaType
        public var timescale: Int32
        public var width = 0
        public var height = 0
        public var pixelFormat: PixelBuffer.PixelFormat = .yuv420p
        public var frameRate: (num: Int32, den: Int32)?
        public var sampleRate = 0
        public var channelCount = 0
        public var channelLayoutMask: UInt64 = 0
        public var sampleFormat: PCMBuffer.SampleFormat = .f32
        public var isPlanar = true
        public var bitRate = 0
        public var keyFrameInterval = 0
        public var color: PixelBuffer.Color = .unspecified
        /// Width : height of a pixel.
        public var sampleAspectRatio = (numerator: 1, denominator: 1)
        /// HDR10 static metadata: written into the bitstream (x265, SVT-AV1, x264 SEI) and, through
        /// `parameters`, into the container (`mdcv`/`clli`, Matroska's MasteringMetadata).
        public var masteringDisplay: MasteringDisplay?
        public var contentLightLevel: ContentLightLevel?
        /// Encoder options (`crf`, `preset`, `tune`, `x264-params`, `profile`, …).
        public var options: [(String, String)] = []

        public init(encoderName: String, mediaType: MediaType, timescale: Int32) {
            self.encoderName = encoderName
            self.mediaType = mediaType
            self.timescale = timescale
        }
    }

    /// One encoded packet.
    public struct EncodedPacket: Sendable {
        public var data: Data
        public var presentationTime: Int64
        public var decodeTime: Int64
        public var duration: Int64
        public var isKeyFrame: Bool
    }

    private var context: UnsafeMutablePointer<AVCodecContext>?
    private let packet = Packet()
    public let configuration: Configuration
    /// The options the encoder did not take (misspelt, or not its own).
    public private(set) var unusedOptions: [String] = []

    /// - Throws: `.unsupported` naming the encoder (and the Debian package that has it) when
    ///   this machine's libavcodec lacks it, or when it refuses the settings.
    public init(_ c: Configuration) throws {
        do { try FFmpegLibraries.load(for: "encoding") } catch { throw error.mediaError }
        configuration = c
        guard let codec = avcodec_find_encoder_by_name(c.encoderName) else {
            throw MediaError(.unsupported, "this machine's libavcodec has no \(c.encoderName) encoder (Debian's libavcodec59 has it; "
                             + "a build without it lacks the library \(Encoder.library(of: c.encoderName)))")
        }
        guard let context = avcodec_alloc_context3(codec) else { throw MediaError(.io, "out of memory (avcodec_alloc_context3)") }
        // Its frame threads log through copies of the context: they share its `opaque`, the sink.
        context.pointee.opaque = Unmanaged.passUnretained(log).toOpaque()
        FFmpegLog.register(context.pointee.opaque, to: log)
        self.context = context
        context.pointee.time_base = AVRational(num: 1, den: c.timescale)
        context.pointee.pkt_timebase = context.pointee.time_base
        context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        context.pointee.thread_count = 0
        if c.bitRate > 0 { context.pointee.bit_rate = Int64(widening: c.bitRate) }
        if c.mediaType == .video {
            context.pointee.width = Int32(clamping: c.width)
            context.pointee.height = Int32(clamping: c.height)
            context.pointee.pix_fmt = c.pixelFormat.avFormat
            context.pointee.sample_aspect_ratio = AVRational(num: Int32(clamping: c.sampleAspectRatio.numerator),
                                                             den: Int32(clamping: c.sampleAspectRatio.denominator))
            if let r = c.frameRate { context.pointee.framerate = AVRational(num: r.num, den: r.den) }
            if c.keyFrameInterval > 0 { context.pointee.gop_size = Int32(clamping: c.keyFrameInterval) }
            context.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(clamping: c.color.primaries))
            context.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(clamping: c.color.transfer))
            context.pointee.colorspace = AVColorSpace(rawValue: UInt32(clamping: c.color.matrix))
            if let full = c.color.isFullRange { context.pointee.color_range = full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG }
        } else {
            context.pointee.sample_rate = Int32(clamping: c.sampleRate)
            context.pointee.sample_fmt = c.sampleFormat.avFormat(planar: c.isPlanar)
            if c.channelLayoutMask != 0, c.channelLayoutMask.nonzeroBitCount == c.channelCount {
                av_channel_layout_from_mask(&context.pointee.ch_layout, c.channelLayoutMask)
            } else {
                av_channel_layout_default(&context.pointee.ch_layout, Int32(clamping: max(1, c.channelCount)))
            }
        }
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        for (key, value) in Encoder.quieted(Encoder.withHDROptions(c), encoderName: c.encoderName) { av_dict_set(&options, key, value, 0) }
        let r = FFmpegLog.routing(to: log) { avcodec_open2(context, codec, &options) }
        guard r >= 0 else {
            throw MediaError(.unsupported, "\(c.encoderName) refused the settings (\(Encoder.describe(c))): \(FFmpegError(code: r, operation: "").message)")
        }
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let e = av_dict_get(options, "", entry, AV_DICT_IGNORE_SUFFIX) {
            unusedOptions.append(String(cString: e.pointee.key))
            entry = e
        }
        if c.encoderName == "libvpx-vp9" { superframes = try Encoder.superframeFilter(for: context) }
    }

    /// libvpx hands out VP9's hidden frames (alternate references) as packets of their own;
    /// a container sample is a superframe holding them with the frame shown after them (what
    /// libavformat's muxers insert this filter for; Splice's own MP4 writer takes samples whole).
    private var superframes: UnsafeMutablePointer<AVBSFContext>?

    private static func superframeFilter(for context: UnsafeMutablePointer<AVCodecContext>?) throws -> UnsafeMutablePointer<AVBSFContext>? {
        guard let context, let filter = av_bsf_get_by_name("vp9_superframe") else { return nil }
        var bsf: UnsafeMutablePointer<AVBSFContext>?
        var r = av_bsf_alloc(filter, &bsf)
        guard r >= 0, let bsf else { throw FFmpegError(code: r, operation: "starting the vp9_superframe filter").mediaError }
        r = avcodec_parameters_from_context(bsf.pointee.par_in, context)
        bsf.pointee.time_base_in = context.pointee.time_base
        if r >= 0 { r = av_bsf_init(bsf) }
        guard r >= 0 else {
            var p: UnsafeMutablePointer<AVBSFContext>? = bsf
            av_bsf_free(&p)
            throw FFmpegError(code: r, operation: "starting the vp9_superframe filter").mediaError
        }
        return bsf
    }

    deinit {
        // SVT-AV1 complains on stderr when closed without its end of stream (a cancelled encode).
        if configuration.encoderName == "libsvtav1", !drained, let context {
            if avcodec_send_frame(context, nil) >= 0 {
                while avcodec_receive_packet(context, packet.pointer) >= 0 { av_packet_unref(packet.pointer) }
            }
        }
        FFmpegLog.unregister(context?.pointee.opaque)
        avcodec_free_context(&context)
        av_bsf_free(&superframes)
    }

    /// What libavcodec and the encoder library said about this encode.
    public let log = FFmpegLog.Sink()

    /// Whether the encoder was drained (`encode(nil)`).
    private var drained = false

    /// x265 and SVT-AV1 print their banners and statistics on stderr themselves (not through
    /// FFmpeg's log): errors only, unless the caller's parameters say otherwise.
    static func quieted(_ options: [(String, String)], encoderName: String) -> [(String, String)] {
        var options = options
        switch encoderName {
        case "libx265" where !options.contains(where: { $0.0 == "x265-params" && $0.1.contains("log-level") }):
            options = adding("log-level=error", to: "x265-params", in: options, first: true)
        case "libsvtav1":
            setenv("SVT_LOG", "1", 0)
        default:
            break
        }
        return options
    }

    /// `c.options` with the HDR10 metadata added to the encoder's own parameter string
    /// (`x265-params`, `svtav1-params`, `x264-params`), after what the caller put there.
    static func withHDROptions(_ c: Configuration) -> [(String, String)] {
        let key: String, mastering: String, light: String
        switch c.encoderName {
        case "libx265": (key, mastering, light) = ("x265-params", "master-display", "max-cll")
        case "libx264": (key, mastering, light) = ("x264-params", "mastering-display", "cll")
        case "libsvtav1": (key, mastering, light) = ("svtav1-params", "mastering-display", "content-light")
        default: return c.options
        }
        var params: [String] = []
        if let m = c.masteringDisplay { params.append("\(mastering)=\(c.encoderName == "libsvtav1" ? m.svtAV1Option : m.x265Option)") }
        if let l = c.contentLightLevel { params.append("\(light)=\(l.maxContentLightLevel),\(l.maxFrameAverageLightLevel)") }
        guard !params.isEmpty else { return c.options }
        return adding(params.joined(separator: ":"), to: key, in: c.options, first: false)
    }

    /// `options` with `params` joined to the encoder parameter string `key` (`x265-params`, …),
    /// before or after what is there, or as a new option.
    static func adding(_ params: String, to key: String, in options: [(String, String)], first: Bool) -> [(String, String)] {
        var options = options
        if let i = options.firstIndex(where: { $0.0 == key }) {
            options[i].1 = first ? params + ":" + options[i].1 : options[i].1 + ":" + params
        } else {
            options.append((key, params))
        }
        return options
    }

    /// Whether this machine's libavcodec has the encoder `encoderName` (`libx264`, `libopus`, …).
    public static func exists(named encoderName: String) -> Bool {
        guard (try? FFmpegLibraries.load(for: "encoding")) != nil else { return false }
        return avcodec_find_encoder_by_name(encoderName) != nil
    }

    /// The sample rates an audio encoder takes, or nil when it takes any (or is missing).
    public static func supportedSampleRates(encoderName: String) -> [Int]? {
        guard (try? FFmpegLibraries.load(for: "encoding")) != nil, let codec = avcodec_find_encoder_by_name(encoderName),
              let rates = codec.pointee.supported_samplerates else { return nil }
        var out: [Int] = []
        var i = 0
        while rates[i] != 0, i < 64 { out.append(Int(widening: rates[i])); i += 1 }
        return out.isEmpty ? nil : out
    }

    /// The codec parameters of what the encoder makes (its extradata included), once open.
    public var parameters: CodecParameters {
        var block = avcodec_parameters_alloc()
        defer { avcodec_parameters_free(&block) }
        guard let context, let par = block else { return CodecParameters(mediaType: configuration.mediaType, codecName: "") }
        _ = avcodec_parameters_from_context(par, context)
        var p = CodecParameters(par.pointee)
        p.initialPadding = Int(widening: context.pointee.initial_padding)
        p.masteringDisplay = configuration.masteringDisplay
        p.contentLightLevel = configuration.contentLightLevel
        return p
    }

    /// Samples per frame the encoder takes (AAC: 1024), or 0 when any count goes.
    public var frameSize: Int {
        guard let context else { return 0 }
        return context.pointee.codec.pointee.capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE != 0 ? 0 : Int(widening: context.pointee.frame_size)
    }

    /// Encodes one frame (nil: drains) and returns the packets that are ready.
    public func encode(_ frame: Frame?) throws -> [EncodedPacket] {
        guard let context else { return [] }
        if frame == nil { drained = true }
        // A decoder's picture type would force the encoder's (libx264 and libx265 take it as an
        // order): the encoder decides, as ffmpeg's CLI lets it.
        frame?.pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
        let r = avcodec_send_frame(context, frame?.pointer)
        if r < 0 && r != splice_averror_eof() {
            throw FFmpegError(code: r, operation: "encoding with \(configuration.encoderName)").mediaError
        }
        var out: [EncodedPacket] = []
        while true {
            let g = avcodec_receive_packet(context, packet.pointer)
            if g == splice_averror_eagain() || g == splice_averror_eof() { break }
            if g < 0 { throw FFmpegError(code: g, operation: "encoding with \(configuration.encoderName)").mediaError }
            guard let superframes else {
                out.append(takePacket())
                continue
            }
            let f = av_bsf_send_packet(superframes, packet.pointer)
            if f < 0 { throw FFmpegError(code: f, operation: "joining VP9 superframes").mediaError }
            while av_bsf_receive_packet(superframes, packet.pointer) >= 0 { out.append(takePacket()) }
        }
        if frame == nil, let superframes, av_bsf_send_packet(superframes, nil) >= 0 {
            while av_bsf_receive_packet(superframes, packet.pointer) >= 0 { out.append(takePacket()) }
        }
        return out
    }

    /// The packet received, as an `EncodedPacket`; the packet is emptied.
    private func takePacket() -> EncodedPacket {
        let p = packet.pointer.pointee
        let none = splice_av_nopts_value()
        defer { av_packet_unref(packet.pointer) }
        return EncodedPacket(data: packet.data, presentationTime: p.pts == none ? p.dts : p.pts,
                             decodeTime: p.dts == none ? p.pts : p.dts, duration: p.duration,
                             isKeyFrame: p.flags & AV_PKT_FLAG_KEY != 0)
    }

    /// A frame the encoder can take, for audio: `frameCount` samples in the encoder's format.
    public func makeAudioFrame(frameCount: Int) throws -> Frame {
        let f = try Frame()
        f.pointer.pointee.format = configuration.sampleFormat.avFormat(planar: configuration.isPlanar).rawValue
        f.pointer.pointee.sample_rate = Int32(clamping: configuration.sampleRate)
        f.pointer.pointee.nb_samples = Int32(clamping: frameCount)
        if let context { av_channel_layout_copy(&f.pointer.pointee.ch_layout, &context.pointee.ch_layout) }
        guard av_frame_get_buffer(f.pointer, 0) >= 0 else { throw MediaError(.io, "out of memory (audio frame)") }
        return f
    }

    private static func describe(_ c: Configuration) -> String {
        c.mediaType == .video ? "\(c.width)x\(c.height) \(c.pixelFormat)" : "\(c.sampleRate) Hz, \(c.channelCount) channels"
    }

    /// The library an encoder comes from, for the error when it is missing.
    static func library(of name: String) -> String {
        switch name {
        case "libx264": "libx264"
        case "libx265": "libx265"
        case "libsvtav1": "libsvtav1enc"
        case "libvpx-vp9", "libvpx": "libvpx"
        case "libopus": "libopus"
        case "libmp3lame": "libmp3lame"
        default: "FFmpeg's own encoders"
        }
    }
}

extension Frame {
    /// A new frame holding a copy of `picture`.
    public static func copying(_ picture: PixelBuffer) throws -> Frame {
        let f = try Frame.allocate(format: picture.pixelFormat.avFormat, width: picture.width, height: picture.height)
        for i in 0..<picture.pixelFormat.planeCount {
            let size = picture.pixelFormat.planeSize(i, width: picture.width, height: picture.height)
            let (dst, dstStride) = f.plane(i)
            picture.withPlane(i) { src, srcStride in
                for row in 0..<size.rows {
                    UnsafeMutableRawPointer(mutating: dst + row * dstStride)
                        .copyMemory(from: src.baseAddress! + row * srcStride, byteCount: size.rowBytes)
                }
            }
        }
        return f
    }

    /// Writes `count` frames of `pcm` from frame `from` into this (audio) frame at frame `at`.
    public func fill(from pcm: PCMBuffer, from start: Int, count: Int, at offset: Int) {
        let perFrame = pcm.format.isPlanar ? pcm.format.sampleFormat.bytesPerSample : pcm.format.bytesPerFrame
        for p in 0..<pcm.format.planeCount {
            let (dst, _) = plane(p)
            pcm.withPlane(p) { src in
                UnsafeMutableRawPointer(mutating: dst + offset * perFrame).copyMemory(from: src.baseAddress! + start * perFrame,
                                                                                       byteCount: count * perFrame)
            }
        }
    }

    /// Sets the frame's sample count and presentation time (an audio frame being filled).
    public func setAudio(frameCount: Int, presentationTime: Int64) {
        pointer.pointee.nb_samples = Int32(clamping: frameCount)
        pointer.pointee.pts = presentationTime
    }
}

extension Frame {
    /// The frame's presentation time (an encoder reads it), in its time base.
    public var presentationTimestamp: Int64 {
        get { pointer.pointee.pts }
        set { pointer.pointee.pts = newValue }
    }

    /// A new frame holding a copy of `pcm`.
    public static func copying(_ pcm: PCMBuffer) throws -> Frame {
        let f = try Frame()
        f.pointer.pointee.format = pcm.format.sampleFormat.avFormat(planar: pcm.format.isPlanar).rawValue
        f.pointer.pointee.sample_rate = Int32(clamping: pcm.format.sampleRate)
        f.pointer.pointee.nb_samples = Int32(clamping: pcm.frameCount)
        if pcm.format.channelLayoutMask != 0, pcm.format.channelLayoutMask.nonzeroBitCount == pcm.format.channelCount {
            av_channel_layout_from_mask(&f.pointer.pointee.ch_layout, pcm.format.channelLayoutMask)
        } else {
            av_channel_layout_default(&f.pointer.pointee.ch_layout, Int32(clamping: pcm.format.channelCount))
        }
        guard av_frame_get_buffer(f.pointer, 0) >= 0 else { throw MediaError(.io, "out of memory (audio frame)") }
        f.fill(from: pcm, from: 0, count: pcm.frameCount, at: 0)
        return f
    }
}
