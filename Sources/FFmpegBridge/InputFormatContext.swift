import CFFmpeg
import FFmpegLoader
import Foundation
import MediaCore

/// One stream of an input as libavformat describes it.
public struct StreamInfo: Sendable {
    public var index: Int
    public var mediaType: MediaType
    /// FFmpeg's codec name: `h264`, `aac`, `subrip`, …
    public var codecName: String
    /// The container's codec tag, when it has one.
    public var codecTag: FourCC?
    public var width: Int?
    public var height: Int?
    public var sampleRate: Int?
    public var channelCount: Int?
    public var language: String?
    public var title: String?
    public var isDefault: Bool
    public var isForced: Bool
    public var isHearingImpaired: Bool
    public var isVisualImpaired: Bool
    /// Stream time base as numerator / denominator.
    public var timeBase: (num: Int32, den: Int32)
    /// In `timeBase` units, when known.
    public var duration: Int64?
    public var startTime: Int64?
    /// Packets, when the container says (`nb_frames`, or Matroska's statistics tags).
    public var frameCount: Int?
    public var extradata: Data?
    /// Codec profile and level, when known (FFmpeg's numbering; nil for unknown).
    public var profile: Int?
    public var level: Int?
    public var bitRate: Int?
    /// Samples per audio frame, when fixed.
    public var frameSize: Int?
    /// Audio samples to drop at the start (encoder delay).
    public var initialPadding: Int?
    public var bitsPerCodedSample: Int?
    /// ISO/IEC 23091-2 colour code points (0/2 when unspecified), and full range (nil when unknown).
    public var colorPrimaries: Int = 2
    public var transferCharacteristics: Int = 2
    public var matrixCoefficients: Int = 2
    public var isFullRange: Bool?
    /// The AVChromaLocation / subsampling is not kept; `pixelFormat` is FFmpeg's name when known.
    public var pixelFormat: Int?
    /// Frames of reordering (B-frames) a decoder must allow for; 0 when none or unknown.
    public var videoDelay = 0
}

/// An opened input file (`AVFormatContext` from `avformat_open_input`), closed on `deinit`.
public final class InputFormatContext: @unchecked Sendable {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    public let path: String

    /// Opens `path` and reads its stream information.
    /// - Throws: `FFmpegError` from `avformat_open_input` or `avformat_find_stream_info`.
    public init(path: String) throws(FFmpegError) {
        self.path = path
        try FFmpegLibraries.load()
        _ = FFmpegLog.installed
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_open_input(&ctx, path, nil, nil), "cannot open")
        self.context = ctx
        try check(avformat_find_stream_info(ctx, nil), "cannot read stream information")
    }

    deinit {
        if context != nil { avformat_close_input(&context) }
    }

    /// The demuxer's name: `matroska,webm`, `mpegts`, `avi`, …
    public var formatName: String {
        guard let iformat = context?.pointee.iformat, let name = iformat.pointee.name else { return "unknown" }
        return String(cString: name)
    }

    /// Duration of the whole input in seconds, when known.
    public var durationSeconds: Double? {
        guard let d = context?.pointee.duration, d != splice_av_nopts_value(), d >= 0 else { return nil }
        return Double(d) / Double(AV_TIME_BASE)
    }

    /// Reads the next packet of the streams not discarded into `packet`.
    /// - Returns: `false` at the end of the input.
    /// - Throws: `FFmpegError` when the input cannot be read further.
    public func read(into packet: Packet) throws(FFmpegError) -> Bool {
        packet.unref()
        let result = av_read_frame(context, packet.pointer)
        if result == splice_averror_eof() { return false }
        try check(result, "cannot read a packet")
        return true
    }

    /// Makes the demuxer skip every stream but `keep` (their packets are never returned).
    public func discardStreams(except keep: Set<Int>) {
        guard let ctx = context else { return }
        for i in 0..<Int(ctx.pointee.nb_streams) where !keep.contains(i) {
            ctx.pointee.streams[i]?.pointee.discard = AVDISCARD_ALL
        }
    }

    /// The file's chapters: title, start and end in 1/`timescale` units.
    public var chapters: [(title: String, start: Int64, end: Int64, timeBase: (num: Int32, den: Int32))] {
        guard let ctx = context, let list = ctx.pointee.chapters else { return [] }
        return (0..<Int(ctx.pointee.nb_chapters)).compactMap { i in
            guard let c = list[i]?.pointee else { return nil }
            return (Dictionary(c.metadata)["title"] ?? "", c.start, c.end, (c.time_base.num, c.time_base.den))
        }
    }

    public var streams: [StreamInfo] {
        guard let ctx = context else { return [] }
        let n = Int(ctx.pointee.nb_streams)
        return (0..<n).compactMap { i in
            guard let stream = ctx.pointee.streams[i], let par = stream.pointee.codecpar else { return nil }
            return StreamInfo(stream: stream.pointee, parameters: par.pointee, index: i)
        }
    }
}

extension StreamInfo {
    init(stream: AVStream, parameters par: AVCodecParameters, index: Int) {
        self.index = index
        switch par.codec_type {
        case AVMEDIA_TYPE_VIDEO: mediaType = .video
        case AVMEDIA_TYPE_AUDIO: mediaType = .audio
        case AVMEDIA_TYPE_SUBTITLE: mediaType = .subtitle
        default: mediaType = .data
        }
        codecName = String(cString: avcodec_get_name(par.codec_id))
        codecTag = par.codec_tag != 0 ? FourCC(rawValue: par.codec_tag.byteSwapped) : nil
        width = par.width > 0 ? Int(par.width) : nil
        height = par.height > 0 ? Int(par.height) : nil
        sampleRate = par.sample_rate > 0 ? Int(par.sample_rate) : nil
        channelCount = par.ch_layout.nb_channels > 0 ? Int(par.ch_layout.nb_channels) : nil
        let metadata = Dictionary(stream.metadata)
        language = metadata["language"]
        title = metadata["title"] ?? metadata["handler_name"] ?? metadata["filename"]
        let d = stream.disposition
        isDefault = d & AV_DISPOSITION_DEFAULT != 0
        isForced = d & AV_DISPOSITION_FORCED != 0
        isHearingImpaired = d & AV_DISPOSITION_HEARING_IMPAIRED != 0
        isVisualImpaired = d & AV_DISPOSITION_VISUAL_IMPAIRED != 0
        timeBase = (stream.time_base.num, stream.time_base.den)
        duration = stream.duration != splice_av_nopts_value() ? stream.duration : nil
        startTime = stream.start_time != splice_av_nopts_value() ? stream.start_time : nil
        if stream.nb_frames > 0 {
            frameCount = Int(stream.nb_frames)
        } else if let tag = metadata.first(where: { $0.key.hasPrefix("NUMBER_OF_FRAMES") })?.value {
            frameCount = Int(tag)
        } else {
            frameCount = nil
        }
        profile = par.profile >= 0 ? Int(par.profile) : nil
        level = par.level >= 0 ? Int(par.level) : nil
        bitRate = par.bit_rate > 0 ? Int(par.bit_rate) : nil
        frameSize = par.frame_size > 0 ? Int(par.frame_size) : nil
        initialPadding = par.initial_padding > 0 ? Int(par.initial_padding) : nil
        bitsPerCodedSample = par.bits_per_coded_sample > 0 ? Int(par.bits_per_coded_sample) : nil
        colorPrimaries = Int(par.color_primaries.rawValue)
        transferCharacteristics = Int(par.color_trc.rawValue)
        matrixCoefficients = Int(par.color_space.rawValue)
        isFullRange = par.color_range == AVCOL_RANGE_JPEG ? true : par.color_range == AVCOL_RANGE_MPEG ? false : nil
        pixelFormat = par.format >= 0 ? Int(par.format) : nil
        videoDelay = Int(max(0, par.video_delay))
        if let extra = par.extradata, par.extradata_size > 0 {
            extradata = Data(bytes: extra, count: Int(par.extradata_size))
        } else {
            extradata = nil
        }
    }
}

extension Dictionary where Key == String, Value == String {
    /// The entries of an `AVDictionary`.
    init(_ dictionary: OpaquePointer?) {
        self.init()
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let e = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
            if let k = e.pointee.key, let v = e.pointee.value {
                self[String(cString: k)] = String(cString: v)
            }
            entry = e
        }
    }
}
