import CFFmpeg
import FFmpegLoader
import MediaCore

/// Converts decoded audio to one PCM format (sample format, layout, rate) with libswresample.
/// Frames already in that format pass through untouched; the resampler is made from the first
/// frame that needs it.
public final class AudioConverter: @unchecked Sendable {   // confined: used by one thread at a time (its owner's)
    /// What comes out; a zero rate or channel count means the input's.
    public let output: PCMBuffer.Format
    private var swr: OpaquePointer?
    private var input: (format: Int32, rate: Int32, channels: Int32, mask: UInt64)?
    private var outputRate: Int32 = 0
    private var outputLayout = AVChannelLayout()

    public init(output: PCMBuffer.Format) throws {
        if let message = splice_ffmpeg_load_converters() {
            throw MediaError(.unsupported, String(cString: message) + " (install Debian's libswresample4)")
        }
        self.output = output
    }

    deinit {
        swr_free(&swr)
        av_channel_layout_uninit(&outputLayout)
    }

    /// `frame` in the output format (itself when it already is).
    public func convert(_ frame: Frame) throws -> Frame {
        let f = frame.pointer.pointee
        let rate = output.sampleRate > 0 ? Int32(clamping: output.sampleRate) : f.sample_rate
        let channels = output.channelCount > 0 ? Int32(clamping: output.channelCount) : f.ch_layout.nb_channels
        let inMask = f.ch_layout.order == AV_CHANNEL_ORDER_NATIVE ? f.ch_layout.u.mask : 0
        let sameLayout = channels == f.ch_layout.nb_channels && (output.channelLayoutMask == 0 || output.channelLayoutMask == inMask)
        if swr == nil, f.format == output.sampleFormat.avFormat(planar: output.isPlanar).rawValue, rate == f.sample_rate, sameLayout {
            return frame
        }
        try prepare(frame, rate: rate, channels: channels)
        return try run(frame)
    }

    /// What the resampler still holds (after the last frame), or nil.
    public func flush() throws -> Frame? {
        guard swr != nil else { return nil }
        let out = try run(nil)
        return out.pointer.pointee.nb_samples > 0 ? out : nil
    }

    private func prepare(_ frame: Frame, rate: Int32, channels: Int32) throws {
        let f = frame.pointer.pointee
        let key = (f.format, f.sample_rate, f.ch_layout.nb_channels, f.ch_layout.order == AV_CHANNEL_ORDER_NATIVE ? f.ch_layout.u.mask : 0)
        if let input, input == key { return }
        guard input == nil else { throw MediaError(.unsupported, "the audio format changed in the middle of the stream") }
        input = key
        outputRate = rate
        if output.channelLayoutMask != 0, output.channelLayoutMask.nonzeroBitCount == Int(widening: channels) {
            av_channel_layout_from_mask(&outputLayout, output.channelLayoutMask)
        } else if channels == f.ch_layout.nb_channels {
            av_channel_layout_copy(&outputLayout, &frame.pointer.pointee.ch_layout)
        } else {
            av_channel_layout_default(&outputLayout, channels)
        }
        var inLayout = f.ch_layout
        let r = swr_alloc_set_opts2(&swr, &outputLayout, output.sampleFormat.avFormat(planar: output.isPlanar), rate,
                                    &inLayout, AVSampleFormat(rawValue: f.format), f.sample_rate, 0, nil)
        // Mono into stereo: the one channel in both at its level, as AVFoundation mixes it
        // (libswresample's own matrix puts it 3 dB down in each).
        var matrix: [Double] = [1, 1]
        let monoToStereo = f.ch_layout.nb_channels == 1 && outputLayout.nb_channels == 2
        guard r >= 0, !monoToStereo || swr_set_matrix(swr, &matrix, 1) >= 0, swr_init(swr) >= 0 else {
            throw FFmpegError(code: r < 0 ? r : splice_averror(EINVAL), operation: "cannot convert \(f.sample_rate) Hz audio to \(output)").mediaError
        }
    }

    private func run(_ frame: Frame?) throws -> Frame {
        let out = try Frame()
        let inRate = Int64(widening: input?.rate ?? outputRate)
        let inSamples = Int64(widening: frame?.pointer.pointee.nb_samples ?? 0)
        let capacity = (swr_get_delay(swr, inRate) + inSamples) * Int64(widening: outputRate) / max(1, inRate) + 32
        out.pointer.pointee.format = output.sampleFormat.avFormat(planar: output.isPlanar).rawValue
        out.pointer.pointee.sample_rate = outputRate
        out.pointer.pointee.nb_samples = Int32(clamping: capacity)
        av_channel_layout_copy(&out.pointer.pointee.ch_layout, &outputLayout)
        guard av_frame_get_buffer(out.pointer, 0) >= 0 else { throw MediaError(.io, "out of memory (audio frame)") }
        let converted: Int32 = out.pointer.pointee.extended_data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 1) { outPlanes in
            guard let frame else { return swr_convert(swr, outPlanes, Int32(clamping: capacity), nil, 0) }
            return frame.pointer.pointee.extended_data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 1) { inPlanes in
                swr_convert(swr, outPlanes, Int32(clamping: capacity), inPlanes, Int32(clamping: inSamples))
            }
        }
        guard converted >= 0 else { throw FFmpegError(code: converted, operation: "converting audio").mediaError }
        out.pointer.pointee.nb_samples = converted
        out.pointer.pointee.pts = frame?.pointer.pointee.best_effort_timestamp ?? splice_av_nopts_value()
        out.pointer.pointee.best_effort_timestamp = out.pointer.pointee.pts
        return out
    }
}
