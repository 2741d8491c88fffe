import CFFmpeg
import FFmpegLoader
import Foundation
import MediaCore

/// What a container says of a stream beyond its codec: language, title and flags. Read from
/// inputs, and written to the streams of outputs.
public struct StreamMetadata: Sendable, Hashable {
    /// ISO 639-2 as the container stores it (Matroska: the bibliographic form).
    public var language: String?
    public var title: String?
    public var isDefault = false
    public var isForced = false
    public var isHearingImpaired = false
    public var isVisualImpaired = false
    /// Matroska/WebM ContentEncryption's key ID (libavformat's `enc_key_id`, base64), when the
    /// track's frames are encrypted.
    public var encryptionKeyID: String?
    /// A start timecode ("01:02:03:04"), which Matroska keeps as the track's TIMECODE tag.
    public var timecode: String?
    public init() {}
}

/// One stream of an input as libavformat describes it.
public struct StreamInfo: Sendable {
    public var index: Int
    public var codec: CodecParameters
    public var metadata: StreamMetadata
    /// Stream time base as numerator / denominator.
    public var timeBase: (num: Int32, den: Int32)
    /// In `timeBase` units, when known.
    public var duration: Int64?
    public var startTime: Int64?
    /// Packets, when the container says (`nb_frames`, or Matroska's statistics tags).
    public var frameCount: Int?
    /// Video frames per second as the demuxer gives them (`avg_frame_rate`: Matroska's
    /// `DefaultDuration`, an AVI's rate, or libavformat's estimate), when known.
    public var frameRate: (num: Int32, den: Int32)?

    public var mediaType: MediaType { codec.mediaType }
}

/// An opened input file (`AVFormatContext` from `avformat_open_input`), closed on `deinit`.
public final class InputFormatContext: @unchecked Sendable {   // confined: used by one thread at a time (its demuxer's lock)
    private var context: UnsafeMutablePointer<AVFormatContext>?
    public let path: String
    /// What libav said about this input: its demuxer, I/O, parsers and probing decoders.
    public let log = FFmpegLog.Sink()

    /// Opens `path` and reads its stream information.
    /// - Parameter format: the demuxer to read it with (a `formatName`, as `probe(path:)` gives
    ///   it); when nil, libavformat probes the file.
    /// - Throws: `FFmpegError` from `avformat_open_input` or `avformat_find_stream_info`.
    public init(path: String, format: String? = nil) throws(FFmpegError) {
        self.path = path
        try FFmpegLibraries.load()
        _ = FFmpegLog.installed
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        try FFmpegLog.routing(to: log) { () throws(FFmpegError) in
            // A format's name lists its aliases ("matroska,webm"); libavformat finds it by the first.
            let demuxer = format.flatMap { $0.split(separator: ",").first }.flatMap { av_find_input_format(String($0)) }
            try check(avformat_open_input(&ctx, path, demuxer, nil), "cannot open")
            FFmpegLog.register(ctx, to: log)
            FFmpegLog.register(ctx?.pointee.pb, to: log)
            self.context = ctx
            try check(avformat_find_stream_info(ctx, nil), "cannot read stream information")
        }
    }

    /// The demuxer libavformat would open `path` with (its `formatName`: `mov,mp4,m4a,3gp,3g2,mj2`,
    /// `matroska,webm`, …), found as `avformat_open_input` finds it — from the file's first bytes
    /// and its name — without reading the file's header.
    /// - Throws: `FFmpegError` when the file cannot be opened or no demuxer recognises it (as
    ///   `init(path:format:)` would say it: "cannot open: …").
    public static func probe(path: String) throws(FFmpegError) -> String {
        try FFmpegLibraries.load()
        _ = FFmpegLog.installed
        var io: UnsafeMutablePointer<AVIOContext>?
        try check(avio_open(&io, path, AVIO_FLAG_READ), "cannot open")
        defer { avio_closep(&io) }
        var format: UnsafePointer<AVInputFormat>?
        // (what probing says is dropped: the open that follows says it again, to its own sink)
        _ = try FFmpegLog.routing(to: FFmpegLog.Sink()) { () throws(FFmpegError) in
            try check(av_probe_input_buffer2(io, &format, path, nil, 0, 0), "cannot open")
        }
        guard let name = format?.pointee.name else { throw FFmpegError(code: splice_averror_invaliddata(), operation: "cannot open") }
        return String(cString: name)
    }

    deinit {
        guard context != nil else { return }
        FFmpegLog.unregister(context?.pointee.pb)
        FFmpegLog.unregister(context)
        avformat_close_input(&context)
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

    /// Moves reading to a key frame at or before `seconds` of the file's own timeline (its
    /// timestamps, not less its start time). Returns `false` when the demuxer cannot seek;
    /// reading then goes on from where it was.
    @discardableResult
    public func seek(toSeconds seconds: Double) -> Bool {
        let ts = (seconds * Double(AV_TIME_BASE)).rounded(saturating: Int64.self, .down) ?? 0
        return FFmpegLog.routing(to: log) { avformat_seek_file(context, -1, Int64.min, ts, ts, 0) } >= 0
    }

    /// Moves reading back to the input's first byte of media (its first packet).
    public func rewind() {
        _ = FFmpegLog.routing(to: log) { avformat_seek_file(context, -1, 0, 0, 0, AVSEEK_FLAG_BYTE) }
    }

    /// Reads the next packet of the streams not discarded into `packet`.
    /// - Returns: `false` at the end of the input.
    /// - Throws: `FFmpegError` when the input cannot be read further.
    public func read(into packet: Packet) throws(FFmpegError) -> Bool {
        packet.unref()
        let result = FFmpegLog.routing(to: log) { av_read_frame(context, packet.pointer) }
        if result == splice_averror_eof() { return false }
        try check(result, "cannot read a packet")
        return true
    }

    /// Makes the demuxer skip every stream but `keep` (their packets are never returned).
    public func discardStreams(except keep: Set<Int>) {
        guard let ctx = context else { return }
        for i in 0..<Int(widening: ctx.pointee.nb_streams) where !keep.contains(i) {
            ctx.pointee.streams[i]?.pointee.discard = AVDISCARD_ALL
        }
    }

    /// The file's chapters: title, start and end in 1/`timescale` units.
    /// The container's own tags (`title`, `creation_time`, `location`, …).
    public var formatTags: [String: String] {
        guard let ctx = context else { return [:] }
        return Dictionary(ctx.pointee.metadata)
    }

    public var chapters: [(title: String, start: Int64, end: Int64, timeBase: (num: Int32, den: Int32))] {
        guard let ctx = context, let list = ctx.pointee.chapters else { return [] }
        return (0..<Int(widening: ctx.pointee.nb_chapters)).compactMap { i in
            guard let c = list[i]?.pointee else { return nil }
            return (Dictionary(c.metadata)["title"] ?? "", c.start, c.end, (c.time_base.num, c.time_base.den))
        }
    }

    public var streams: [StreamInfo] {
        guard let ctx = context else { return [] }
        let n = Int(widening: ctx.pointee.nb_streams)
        return (0..<n).compactMap { i in
            guard let stream = ctx.pointee.streams[i], let par = stream.pointee.codecpar else { return nil }
            var info = StreamInfo(stream: stream.pointee, parameters: par.pointee, index: i)
            info.codec.readSideData(of: stream)
            return info
        }
    }
}

extension StreamInfo {
    init(stream: AVStream, parameters: AVCodecParameters, index: Int) {
        self.index = index
        codec = CodecParameters(parameters)
        // Matroska's S_TEXT/WEBVTT (mkvmerge's WebVTT) is a codec libavformat 5.1 does not know;
        // its CodecPrivate, the file's header, says what it is. (Cue settings and identifiers,
        // in BlockAdditions, are not carried, as with WebM's WebVTT.)
        if parameters.codec_id == AV_CODEC_ID_NONE, codec.mediaType == .subtitle,
           codec.extradata.starts(with: Array("WEBVTT".utf8)) || codec.extradata.starts(with: [0xEF, 0xBB, 0xBF] + Array("WEBVTT".utf8)) {
            codec.codecName = "webvtt"
        }
        let tags = Dictionary(stream.metadata)
        metadata = StreamMetadata()
        metadata.language = tags["language"]
        metadata.title = tags["title"] ?? tags["handler_name"] ?? tags["filename"]
        metadata.encryptionKeyID = tags["enc_key_id"]
        let d = stream.disposition
        metadata.isDefault = d & AV_DISPOSITION_DEFAULT != 0
        metadata.isForced = d & AV_DISPOSITION_FORCED != 0
        metadata.isHearingImpaired = d & AV_DISPOSITION_HEARING_IMPAIRED != 0
        metadata.isVisualImpaired = d & AV_DISPOSITION_VISUAL_IMPAIRED != 0
        timeBase = (stream.time_base.num, stream.time_base.den)
        duration = stream.duration != splice_av_nopts_value() ? stream.duration : nil
        startTime = stream.start_time != splice_av_nopts_value() ? stream.start_time : nil
        let rate = stream.avg_frame_rate
        if codec.mediaType == .video, rate.num > 0, rate.den > 0 { frameRate = (rate.num, rate.den) }
        if stream.nb_frames > 0 {
            frameCount = Int(widening: stream.nb_frames)
        } else if let tag = tags.first(where: { $0.key.hasPrefix("NUMBER_OF_FRAMES") })?.value {
            frameCount = Int(tag)   // lint: checked (parses text: nil when it is not a number)
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
