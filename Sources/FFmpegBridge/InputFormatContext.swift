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
        _ = FFmpegLog.quietByDefault
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
        title = metadata["title"] ?? metadata["handler_name"]
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
