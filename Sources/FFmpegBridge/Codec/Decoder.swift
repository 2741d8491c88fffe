import CFFmpeg
import Foundation
import MediaCore

/// One stream's libavcodec decoder: packets in (times in ticks of 1/`timescale` s), frames out,
/// with libavcodec's threads. A packet the decoder rejects as damaged is counted and skipped.
public final class Decoder: @unchecked Sendable {   // confined: used by one thread at a time (its cursor's)
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private let packet = Packet()
    /// Packets the decoder rejected as damaged (decoding went on).
    public private(set) var damagedPackets = 0
    /// FFmpeg's name of the codec.
    public let codecName: String
    /// What libavcodec said about this stream, its frame threads' lines included (they log through
    /// copies of the context that share its `opaque`).
    public let log = FFmpegLog.Sink()

    /// Whether this machine's libavcodec has a decoder for FFmpeg's codec `codecName`.
    public static func exists(for codecName: String) -> Bool {
        guard (try? FFmpegLibraries.load(for: "decoding")) != nil, let descriptor = avcodec_descriptor_get_by_name(codecName) else { return false }
        return avcodec_find_decoder(descriptor.pointee.id) != nil
    }

    /// - Throws: `.unsupported` when this machine's libavcodec has no decoder for the codec.
    /// - Parameter threads: the decoder's threads; 0 lets libavcodec choose.
    public init(parameters: CodecParameters, timescale: Int32, threads: Int = 0) throws {
        do { try FFmpegLibraries.load(for: "decoding") } catch { throw error.mediaError }
        codecName = parameters.codecName
        guard let descriptor = avcodec_descriptor_get_by_name(parameters.codecName),
              let codec = avcodec_find_decoder(descriptor.pointee.id) else {
            throw MediaError(.unsupported, "this machine's libavcodec has no \(parameters.codecName) decoder")
        }
        guard let context = avcodec_alloc_context3(codec) else { throw MediaError(.io, "out of memory (avcodec_alloc_context3)") }
        self.context = context
        // Its frame threads log through copies of the context: they share its `opaque`, the sink.
        context.pointee.opaque = Unmanaged.passUnretained(log).toOpaque()
        FFmpegLog.register(context.pointee.opaque, to: log)
        var parameterBlock = avcodec_parameters_alloc()
        defer { avcodec_parameters_free(&parameterBlock) }
        guard let par = parameterBlock else { throw MediaError(.io, "out of memory (avcodec_parameters_alloc)") }
        try parameters.copy(into: par)
        // The sample entry's type tells some decoders the variant (ProRes: 'apch', 'ap4h', …).
        if let tag = parameters.codecTag { par.pointee.codec_tag = tag.rawValue.byteSwapped }
        do { try check(avcodec_parameters_to_context(context, par), "cannot set up the \(codecName) decoder") } catch { throw error.mediaError }
        context.pointee.pkt_timebase = AVRational(num: 1, den: timescale)
        context.pointee.thread_count = Int32(clamping: max(0, threads))
        context.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        do { try check(FFmpegLog.routing(to: log) { avcodec_open2(context, codec, nil) }, "cannot open the \(codecName) decoder") } catch { throw error.mediaError }
    }

    deinit {
        FFmpegLog.unregister(context?.pointee.opaque)
        avcodec_free_context(&context)
    }

    /// Sends one compressed sample; `nil` drains the decoder (after the last sample).
    /// - Returns: `false` when the decoder holds frames to receive first (send it again after).
    public func send(_ data: Data?, presentationTime: Int64, decodeTime: Int64, duration: Int64, isKeyFrame: Bool) throws -> Bool {
        guard let context else { return false }
        guard let data else {
            let r = avcodec_send_packet(context, nil)
            return r >= 0 || r == splice_averror_eof()
        }
        let p = packet.pointer
        av_packet_unref(p)
        guard av_new_packet(p, Int32(clamping: data.count)) >= 0 else { throw MediaError(.io, "out of memory (av_new_packet)") }
        data.withUnsafeBytes { raw in if let b = raw.bindMemory(to: UInt8.self).baseAddress, !raw.isEmpty { p.pointee.data.update(from: b, count: raw.count) } }
        p.pointee.pts = presentationTime
        p.pointee.dts = decodeTime
        p.pointee.duration = duration
        p.pointee.flags = isKeyFrame ? AV_PKT_FLAG_KEY : 0
        let r = avcodec_send_packet(context, p)
        if r == splice_averror_eagain() { return false }
        if r < 0 { damagedPackets += 1 }
        return true
    }

    /// The next decoded frame, or `nil` when the decoder needs more input (or is drained).
    public func receive() throws -> Frame? {
        guard let context else { return nil }
        // A frame is allocated only when one is handed out: an empty receive keeps it for the next.
        let frame = try spare ?? Frame()
        spare = nil
        while true {
            let r = avcodec_receive_frame(context, frame.pointer)
            if r == splice_averror_eagain() || r == splice_averror_eof() {
                spare = frame
                return nil
            }
            if r == splice_averror_invaliddata() { damagedPackets += 1; continue }
            if r < 0 { throw FFmpegError(code: r, operation: "decoding \(codecName)").mediaError }
            return frame
        }
    }

    private var spare: Frame?
}
