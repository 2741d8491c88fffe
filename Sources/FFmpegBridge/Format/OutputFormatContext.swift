import CFFmpeg
import FFmpegLoader
import Foundation
import MediaCore

/// A file being written by one of libavformat's muxers (`AVFormatContext` for output).
///
/// Bytes go through a custom AVIO context into an `OutputFile`, so that the output is a
/// temporary file renamed into place on success, like everything Splice writes.
public final class OutputFormatContext: @unchecked Sendable {   // confined: used under the writer's lock
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var io: UnsafeMutablePointer<AVIOContext>?
    private let sink: Sink
    private let packet = Packet()
    /// Bitstream filters between Splice's packets and the muxer, per stream and per codec
    /// configuration: a track whose description changes gets a filter for each, so that each
    /// part carries its own parameter sets.
    private var filters: [Int: [[UInt8]: UnsafeMutablePointer<AVBSFContext>]] = [:]
    /// A filtered stream's filter and codec as declared (the configuration of its first description).
    private var filterInputs: [Int: (name: String, codec: CodecParameters, timeBase: AVRational)] = [:]
    /// WebVTT streams, whose packets come as WebM blocks hold cues (identifier, settings, payload lines).
    private var webVTTStreams: Set<Int> = []
    public let formatName: String

    /// The position-keeping writer behind the AVIO callbacks.
    private final class Sink {
        let file: OutputFile
        var position: UInt64 = 0
        var error: MediaError?
        init(file: OutputFile) { self.file = file }
    }

    /// The muxer libavformat would pick for a file named `fileName` (by its extension), if any.
    public static func formatName(forFileName fileName: String) -> String? {
        guard (try? FFmpegLibraries.load()) != nil, let f = av_guess_format(nil, fileName, nil), let name = f.pointee.name else { return nil }
        return String(cString: name)
    }

    /// Whether this machine's libavformat has a muxer named `formatName`.
    public static func hasMuxer(named formatName: String) -> Bool {
        guard (try? FFmpegLibraries.load()) != nil, let f = av_guess_format(formatName, nil, nil), let name = f.pointee.name else { return false }
        return String(cString: name) == formatName
    }

    /// Whether the muxer `formatName` can hold `codecName`: libavformat's own answer (1: it
    /// can; 0: it cannot; negative: the muxer does not say, so it is tried).
    public static func canHold(_ codecName: String, formatName: String) -> Bool {
        guard (try? FFmpegLibraries.load()) != nil, let f = av_guess_format(formatName, nil, nil),
              let d = avcodec_descriptor_get_by_name(codecName) else { return false }
        return avformat_query_codec(f, d.pointee.id, FF_COMPLIANCE_NORMAL) != 0
    }

    /// Starts a `formatName` muxer (`matroska`, `webm`, `mpegts`, `avi`, …) writing into `file`.
    public init(formatName: String, file: OutputFile) throws(FFmpegError) {
        try FFmpegLibraries.load()
        _ = FFmpegLog.installed
        self.formatName = formatName
        sink = Sink(file: file)
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&ctx, nil, formatName, nil), "no muxer named '\(formatName)'")
        context = ctx
        let size: Int32 = 1 << 16
        guard let buffer = av_malloc(Int(widening: size))?.assumingMemoryBound(to: UInt8.self) else {
            throw FFmpegError(code: splice_averror(ENOMEM), operation: "cannot allocate an I/O buffer")
        }
        let opaque = Unmanaged.passUnretained(sink).toOpaque()
        io = avio_alloc_context(buffer, size, 1, opaque, nil, { opaque, buf, count in
            let sink = Unmanaged<Sink>.fromOpaque(opaque!).takeUnretainedValue()
            guard let buf, count > 0 else { return 0 }
            do {
                let bytes = UnsafeRawBufferPointer(start: buf, count: Int(widening: count))
                if sink.position == sink.file.size {
                    try sink.file.write(bytes)
                } else {
                    try sink.file.write(bytes, at: sink.position)
                }
                sink.position += UInt64(clamping: count)
                return count
            } catch {
                sink.error = error as? MediaError ?? MediaError(.io, "\(error)")
                return splice_averror(EIO)
            }
        }, { opaque, offset, whence in
            let sink = Unmanaged<Sink>.fromOpaque(opaque!).takeUnretainedValue()
            switch whence & ~AVSEEK_FORCE {
            case AVSEEK_SIZE: return Int64(clamping: sink.file.size)
            case SEEK_SET: guard offset >= 0 else { return Int64(clamping: splice_averror(EINVAL)) }; sink.position = UInt64(clamping: offset)
            case SEEK_CUR: sink.position = UInt64(clamping: max(0, Int64(clamping: sink.position) + offset))
            case SEEK_END: sink.position = UInt64(clamping: max(0, Int64(clamping: sink.file.size) + offset))
            default: return Int64(widening: splice_averror(EINVAL))
            }
            return Int64(clamping: sink.position)
        })
        guard io != nil else {
            av_free(buffer)
            throw FFmpegError(code: splice_averror(ENOMEM), operation: "cannot allocate an I/O context")
        }
        ctx!.pointee.pb = io
        // Bit-exact: no random segment and track UIDs (Matroska), no version strings — the same
        // inputs give the same bytes.
        ctx!.pointee.flags |= AVFMT_FLAG_CUSTOM_IO | AVFMT_FLAG_BITEXACT
        FFmpegLog.register(ctx, to: log)
        FFmpegLog.register(io, to: log)
    }

    deinit {
        FFmpegLog.unregister(context)
        FFmpegLog.unregister(io)
        for f in filters.values.flatMap(\.values) {
            var p: UnsafeMutablePointer<AVBSFContext>? = f
            av_bsf_free(&p)
        }
        if let io {
            av_free(io.pointee.buffer)
            var p: UnsafeMutablePointer<AVIOContext>? = io
            avio_context_free(&p)
        }
        if let context {
            context.pointee.pb = nil
            avformat_free_context(context)
        }
    }

    /// A write error from the file, in place of FFmpeg's generic EIO.
    private func failure(_ e: FFmpegError) -> Error {
        sink.error ?? e.mediaError
    }

    /// Adds a stream of `codec` with `metadata`; returns its index.
    /// - Parameter timeBase: the time base Splice would like (the muxer may pick another; see
    ///   `timeBase(ofStream:)`).
    /// - Parameter frameRate: frames per second of a constant-rate video stream (Matroska's
    ///   `DefaultDuration`, from which readers know each block's duration).
    /// - Parameter toStartCodes: the packets have NAL lengths and `extradata` is an H.264/HEVC
    ///   configuration record (the caller read it), but the muxer takes start codes only (AVI,
    ///   MPEG-TS): each packet goes through libavcodec's `*_mp4toannexb` filter, which also
    ///   puts the parameter sets in band.
    /// - Throws: `.unsupported` when FFmpeg does not know the codec.
    public func addStream(_ codec: CodecParameters, metadata: StreamMetadata, timeBase: (num: Int32, den: Int32),
                          frameRate: (num: Int32, den: Int32)? = nil, toStartCodes: Bool = false) throws -> Int {
        guard let st = avformat_new_stream(context, nil), let par = st.pointee.codecpar else {
            throw MediaError(.io, "cannot add a stream")
        }
        try codec.copy(into: par)
        try codec.writeSideData(to: st)
        if par.pointee.codec_id == AV_CODEC_ID_WEBVTT { webVTTStreams.insert(Int(widening: st.pointee.index)) }
        st.pointee.time_base = AVRational(num: timeBase.num, den: timeBase.den)
        if let frameRate, frameRate.num > 0, frameRate.den > 0 {
            st.pointee.avg_frame_rate = AVRational(num: frameRate.num, den: frameRate.den)
        }
        if let l = metadata.language { av_dict_set(&st.pointee.metadata, "language", l, 0) }
        if let t = metadata.title, !t.isEmpty { av_dict_set(&st.pointee.metadata, "title", t, 0) }
        if let t = metadata.timecode { av_dict_set(&st.pointee.metadata, "timecode", t, 0) }
        var disposition: Int32 = 0
        if metadata.isDefault { disposition |= AV_DISPOSITION_DEFAULT }
        if metadata.isForced { disposition |= AV_DISPOSITION_FORCED }
        if metadata.isHearingImpaired { disposition |= AV_DISPOSITION_HEARING_IMPAIRED }
        if metadata.isVisualImpaired { disposition |= AV_DISPOSITION_VISUAL_IMPAIRED }
        st.pointee.disposition = disposition
        // (The MPEG-TS muxer would add one filter by itself, with the first configuration only.)
        if toStartCodes {
            let index = Int(widening: st.pointee.index)
            filterInputs[index] = ("\(codec.codecName)_mp4toannexb", codec, st.pointee.time_base)
            let ctx = try filter(stream: index, configuration: codec.extradata)
            let r = avcodec_parameters_copy(st.pointee.codecpar, ctx.pointee.par_out)
            if r < 0 { throw FFmpegError(code: r, operation: "cannot start the \(codec.codecName)_mp4toannexb filter").mediaError }
        }
        return Int(widening: st.pointee.index)
    }

    /// The filter of a filtered stream's packets described by `configuration` (its codec's
    /// extradata), started on first use.
    private func filter(stream: Int, configuration: [UInt8]) throws -> UnsafeMutablePointer<AVBSFContext> {
        if let f = filters[stream]?[configuration] { return f }
        guard let (name, codec, timeBase) = filterInputs[stream] else {
            throw MediaError(.invalidOperation, "stream \(stream) has no filter")
        }
        guard let filter = av_bsf_get_by_name(name) else { throw MediaError(.unsupported, "FFmpeg has no '\(name)' filter") }
        var ctx: UnsafeMutablePointer<AVBSFContext>?
        var r = av_bsf_alloc(filter, &ctx)
        guard r >= 0, let ctx else { throw FFmpegError(code: r, operation: "cannot start the \(name) filter").mediaError }
        filters[stream, default: [:]][configuration] = ctx
        var described = codec
        described.extradata = configuration
        try described.copy(into: ctx.pointee.par_in)
        ctx.pointee.time_base_in = timeBase
        r = av_bsf_init(ctx)
        if r < 0 { throw FFmpegError(code: r, operation: "cannot start the \(name) filter").mediaError }
        return ctx
    }

    /// Sends `p` (or the end, when nil) through a stream's filter and writes what comes out.
    private func filterAndWrite(_ filter: UnsafeMutablePointer<AVBSFContext>, _ p: UnsafeMutablePointer<AVPacket>?) -> Int32 {
        var r = av_bsf_send_packet(filter, p)
        if r < 0 { return r }
        let out = Packet()
        while true {
            r = av_bsf_receive_packet(filter, out.pointer)
            if r == splice_averror_eagain() || r == splice_averror_eof() { return 0 }
            if r < 0 { return r }
            r = av_interleaved_write_frame(context, out.pointer)
            if r < 0 { return r }
        }
    }

    /// Sets the file's chapters (before the header): start and end in units of 1/`timescale`.
    public func setChapters(_ chapters: [(title: String, start: Int64, end: Int64)], timescale: Int32) throws {
        guard let ctx = context, !chapters.isEmpty, ctx.pointee.nb_chapters == 0 else { return }
        let size = MemoryLayout<UnsafeMutablePointer<AVChapter>?>.stride * chapters.count
        guard let list = av_mallocz(size)?.assumingMemoryBound(to: UnsafeMutablePointer<AVChapter>?.self) else {
            throw MediaError(.io, "out of memory")
        }
        // avformat_free_context frees the list, each chapter and its metadata.
        ctx.pointee.chapters = list
        for (i, c) in chapters.enumerated() {
            guard let chapter = av_mallocz(MemoryLayout<AVChapter>.stride)?.assumingMemoryBound(to: AVChapter.self) else {
                throw MediaError(.io, "out of memory")
            }
            chapter.pointee.id = Int64(widening: i + 1)
            chapter.pointee.time_base = AVRational(num: 1, den: timescale)
            chapter.pointee.start = c.start
            chapter.pointee.end = c.end
            av_dict_set(&chapter.pointee.metadata, "title", c.title, 0)
            list[i] = chapter
            ctx.pointee.nb_chapters = UInt32(clamping: i + 1)
        }
    }

    /// Sets the container's tags (before the header is written).
    public func setFormatTags(_ tags: [(String, String)]) {
        guard let ctx = context else { return }
        for (key, value) in tags { av_dict_set(&ctx.pointee.metadata, key, value, 0) }
    }

    /// Writes the container header; after it, streams have their final time bases.
    public func writeHeader() throws {
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        // Matroska and WebM without CRC-32 elements, as mkvmerge writes them: they are optional,
        // no player checks them, and computing them byte by byte took half of a remux's time.
        if formatName == "matroska" || formatName == "webm" { av_dict_set(&options, "write_crc32", "0", 0) }
        // Keep timestamps as given (no shifting of negative ones is needed by what Splice sends
        // except where the container cannot store them, which the muxer then handles itself).
        let r = FFmpegLog.routing(to: log) { avformat_write_header(context, &options) }
        if r < 0 {
            let why = lastMessage.map { " (\($0))" } ?? ""
            throw failure(FFmpegError(code: r, operation: "cannot write the \(formatName) header\(why)"))
        }
    }

    /// The time base the muxer chose for stream `index`.
    public func timeBase(ofStream index: Int) -> (num: Int32, den: Int32) {
        guard let st = context?.pointee.streams[index] else { return (1, 1000) }
        return (st.pointee.time_base.num, st.pointee.time_base.den)
    }

    /// What the muxer last said in FFmpeg's log (why it refused a packet or the header).
    public var lastMessage: String? {
        log.lastMessage(from: formatName)
    }

    /// What libav said about this output: its muxer, I/O and bitstream filters.
    public let log = FFmpegLog.Sink()

    /// Writes one packet (times in the stream's time base), interleaved by libavformat.
    /// - Parameter skippedSamplesAtEnd: audio samples a player drops from the end of this packet.
    /// - Parameter configuration: the codec configuration (extradata) the packet was coded
    ///   with, when it is not the stream's: a filtered stream converts it with its own.
    /// - Parameter owner: the buffer `data` lies in, when it is one: the muxer then keeps a
    ///   reference to it instead of a copy of the bytes.
    public func write(_ data: Data, stream: Int, presentationTime: Int64, decodeTime: Int64, duration: Int64,
                      isKeyFrame: Bool, skippedSamplesAtEnd: Int = 0, configuration: [UInt8]? = nil, owner: PacketBuffer? = nil) throws {
        let filter = try filterInputs[stream].map { try self.filter(stream: stream, configuration: configuration ?? $0.codec.extradata) }
        guard let size = Int32(exactly: data.count) else {
            throw MediaError(.unsupported, "a sample of \(data.count) bytes is more than libavformat takes")
        }
        let r: Int32 = FFmpegLog.routing(to: log) { data.withUnsafeBytes { buf in
            let p = packet.pointer
            av_packet_unref(p)
            p.pointee.data = UnsafeMutablePointer(mutating: buf.bindMemory(to: UInt8.self).baseAddress)
            p.pointee.size = size
            p.pointee.stream_index = Int32(clamping: stream)
            p.pointee.pts = presentationTime
            p.pointee.dts = decodeTime
            p.pointee.duration = duration
            p.pointee.flags = isKeyFrame ? AV_PKT_FLAG_KEY : 0
            if webVTTStreams.contains(stream) { splitWebVTTCue(buf.bindMemory(to: UInt8.self), into: p) }
            if skippedSamplesAtEnd > 0, let side = av_packet_new_side_data(p, AV_PKT_DATA_SKIP_SAMPLES, 10) {
                let n = UInt32(clamping: skippedSamplesAtEnd)
                for i in 0..<10 { side[i] = 0 }
                for i in 0..<4 { side[4 + i] = UInt8(truncatingIfNeeded: (n >> (8 * UInt32(truncatingIfNeeded: i))) & 0xFF) }
            }
            if let filter {
                // Filters take reference-counted packets: copy the bytes into one.
                p.pointee.data = nil
                p.pointee.size = 0
                let flags = p.pointee.flags
                guard av_new_packet(p, size) >= 0 else { return splice_averror(ENOMEM) }
                if buf.count > 0 { p.pointee.data.update(from: buf.bindMemory(to: UInt8.self).baseAddress!, count: buf.count) }
                p.pointee.stream_index = Int32(clamping: stream)
                p.pointee.pts = presentationTime
                p.pointee.dts = decodeTime
                p.pointee.duration = duration
                p.pointee.flags = flags
                return filterAndWrite(filter, p)
            }
            if let owner, !webVTTStreams.contains(stream), owner.bytes.count == buf.count {
                // A reference-counted packet: libavformat queues the reference, not a copy. (Its
                // bytes are the owner's own: a `Data` may hold a small sample inline, elsewhere.)
                guard let reference = av_buffer_ref(owner.reference) else { return splice_averror(ENOMEM) }
                p.pointee.buf = reference
                p.pointee.data = owner.bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            }
            let r = av_interleaved_write_frame(context, p)
            av_packet_unref(p)
            return r
        } }
        if r < 0 { throw failure(FFmpegError(code: r, operation: "cannot write a packet of stream \(stream)")) }
    }

    /// A cue as WebM blocks hold it: the identifier and settings lines go to side data, the
    /// payload is the packet's data.
    private func splitWebVTTCue(_ bytes: UnsafeBufferPointer<UInt8>, into p: UnsafeMutablePointer<AVPacket>) {
        let first = bytes.firstIndex(of: 0x0A) ?? bytes.count
        let second = bytes[min(first + 1, bytes.count)...].firstIndex(of: 0x0A) ?? bytes.count
        let payload = min(second + 1, bytes.count)
        for (type, range) in [(AV_PKT_DATA_WEBVTT_IDENTIFIER, 0..<first), (AV_PKT_DATA_WEBVTT_SETTINGS, min(first + 1, second)..<second)]
            where !range.isEmpty {
            guard let side = av_packet_new_side_data(p, type, range.count) else { continue }
            side.update(from: bytes.baseAddress! + range.lowerBound, count: range.count)
        }
        p.pointee.data = UnsafeMutablePointer(mutating: bytes.baseAddress.map { $0 + payload })
        p.pointee.size = Int32(clamping: bytes.count - payload)
    }

    /// Flushes the interleaving queue and writes the container's index and trailer.
    public func writeTrailer() throws {
        for (stream, byConfiguration) in filters.sorted(by: { $0.key < $1.key }) {
            for (_, filter) in byConfiguration.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                let r = FFmpegLog.routing(to: log) { filterAndWrite(filter, nil) }
                if r < 0 { throw failure(FFmpegError(code: r, operation: "cannot finish the filter of stream \(stream)")) }
            }
        }
        let r = FFmpegLog.routing(to: log) { av_write_trailer(context) }
        if r < 0 { throw failure(FFmpegError(code: r, operation: "cannot finish the \(formatName) file")) }
        avio_flush(io)
        if let e = sink.error { throw e }
    }
}
