import CFFmpeg
import MediaCore

/// `CodecParameters` copied out of and into libav's `AVCodecParameters`: the one place where
/// Splice's codec description meets FFmpeg's.
extension CodecParameters {
    /// The parameters of a stream libavformat opened.
    init(_ par: AVCodecParameters) {
        self.init(mediaType: MediaType(par.codec_type), codecName: String(cString: avcodec_get_name(par.codec_id)))
        codecTag = par.codec_tag != 0 ? FourCC(rawValue: par.codec_tag.byteSwapped) : nil
        width = Int(widening: max(0, par.width))
        height = Int(widening: max(0, par.height))
        sampleRate = Int(widening: max(0, par.sample_rate))
        channelCount = Int(widening: max(0, par.ch_layout.nb_channels))
        if par.ch_layout.order == AV_CHANNEL_ORDER_NATIVE { channelLayoutMask = par.ch_layout.u.mask }
        bitRate = Int(widening: max(0, par.bit_rate))
        initialPadding = Int(widening: max(0, par.initial_padding))
        colorPrimaries = Int(widening: par.color_primaries.rawValue)
        transferCharacteristics = Int(widening: par.color_trc.rawValue)
        matrixCoefficients = Int(widening: par.color_space.rawValue)
        isFullRange = par.color_range == AVCOL_RANGE_JPEG ? true : par.color_range == AVCOL_RANGE_MPEG ? false : nil
        reorderDelay = Int(widening: max(0, par.video_delay))
        if par.sample_aspect_ratio.num > 0, par.sample_aspect_ratio.den > 0 {
            sampleAspectRatio = (Int(widening: par.sample_aspect_ratio.num), Int(widening: par.sample_aspect_ratio.den))
        }
        if let extra = par.extradata, par.extradata_size > 0 {
            extradata = Array(UnsafeBufferPointer(start: extra, count: Int(widening: par.extradata_size)))
        }
    }

    /// Fills `par` (freshly allocated by libavformat) for a stream to be written.
    /// - Throws: `.unsupported` when FFmpeg knows no codec by this name.
    func copy(into par: UnsafeMutablePointer<AVCodecParameters>) throws {
        guard let d = avcodec_descriptor_get_by_name(codecName) else {
            throw MediaError(.unsupported, "FFmpeg knows no codec named '\(codecName)'")
        }
        par.pointee.codec_type = mediaType.avMediaType
        par.pointee.codec_id = d.pointee.id
        par.pointee.codec_tag = 0
        if !extradata.isEmpty {
            guard let size = Int32(exactly: extradata.count) else {
                throw MediaError(.unsupported, "codec configuration of \(extradata.count) bytes is more than libavcodec takes")
            }
            guard let buffer = av_mallocz(extradata.count + Int(widening: AV_INPUT_BUFFER_PADDING_SIZE))?.assumingMemoryBound(to: UInt8.self) else {
                throw MediaError(.io, "out of memory")
            }
            buffer.update(from: extradata, count: extradata.count)
            par.pointee.extradata = buffer
            par.pointee.extradata_size = size
        }
        par.pointee.width = Int32(clamping: width)
        par.pointee.height = Int32(clamping: height)
        if mediaType == .video {
            par.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(clamping: colorPrimaries))
            par.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(clamping: transferCharacteristics))
            par.pointee.color_space = AVColorSpace(rawValue: UInt32(clamping: matrixCoefficients))
            if let full = isFullRange { par.pointee.color_range = full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG }
        }
        if hasNonSquarePixels {
            par.pointee.sample_aspect_ratio = AVRational(num: Int32(clamping: sampleAspectRatio.numerator),
                                                         den: Int32(clamping: sampleAspectRatio.denominator))
        }
        if mediaType == .audio {
            par.pointee.sample_rate = Int32(clamping: sampleRate)
            if channelLayoutMask != 0, channelLayoutMask.nonzeroBitCount == channelCount {
                av_channel_layout_from_mask(&par.pointee.ch_layout, channelLayoutMask)
            } else {
                av_channel_layout_default(&par.pointee.ch_layout, Int32(clamping: max(1, channelCount)))
            }
            par.pointee.initial_padding = Int32(clamping: initialPadding)
        }
    }
}

extension MediaType {
    init(_ type: AVMediaType) {
        switch type {
        case AVMEDIA_TYPE_VIDEO: self = .video
        case AVMEDIA_TYPE_AUDIO: self = .audio
        case AVMEDIA_TYPE_SUBTITLE: self = .subtitle
        default: self = .data
        }
    }

    var avMediaType: AVMediaType {
        switch self {
        case .video: AVMEDIA_TYPE_VIDEO
        case .audio: AVMEDIA_TYPE_AUDIO
        case .subtitle, .text, .closedCaption: AVMEDIA_TYPE_SUBTITLE
        default: AVMEDIA_TYPE_DATA
        }
    }
}
