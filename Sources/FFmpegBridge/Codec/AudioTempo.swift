import CFFmpeg
import FFmpegLoader
import MediaCore

/// Changes audio's speed and keeps its pitch, with libavfilter's `atempo`: `tempo` 2 plays twice
/// as fast (half as long). Frames in, frames out in the same format; `flush()` at the end.
public final class AudioTempo: @unchecked Sendable {   // confined: used by one thread at a time (its owner's)
    public let tempo: Double
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?

    /// - Throws: when libavfilter cannot be loaded, or `tempo` is outside 0.5…100 (`atempo`'s range).
    public init(tempo: Double) throws {
        if let message = splice_ffmpeg_load_filters() {
            throw MediaError(.unsupported, String(cString: message) + " (install Debian's libavfilter8)")
        }
        guard tempo >= 0.5, tempo <= 100 else {
            throw MediaError(.unsupported, "audio can change speed by 0.5× to 100× (atempo), not \(tempo)×")
        }
        self.tempo = tempo
    }

    deinit { avfilter_graph_free(&graph) }

    /// The frames `frame` completes (nil: the end).
    public func process(_ frame: Frame?) throws -> [Frame] {
        if let frame, graph == nil { try build(for: frame) }
        guard let source, let sink else { return [] }
        let r = av_buffersrc_add_frame_flags(source, frame?.pointer, Int32(truncatingIfNeeded: AV_BUFFERSRC_FLAG_KEEP_REF))
        if r < 0 { throw FFmpegError(code: r, operation: "changing the audio's speed").mediaError }
        var out: [Frame] = []
        while true {
            let f = try Frame()
            let g = av_buffersink_get_frame(sink, f.pointer)
            if g == splice_averror_eagain() || g == splice_averror_eof() { break }
            if g < 0 { throw FFmpegError(code: g, operation: "changing the audio's speed").mediaError }
            out.append(f)
        }
        return out
    }

    private func build(for frame: Frame) throws {
        let f = frame.pointer.pointee
        guard let g = avfilter_graph_alloc() else { throw MediaError(.io, "out of memory (filter graph)") }
        graph = g
        var layout = [CChar](repeating: 0, count: 128)
        _ = withUnsafePointer(to: frame.pointer.pointee.ch_layout) { av_channel_layout_describe($0, &layout, layout.count) }
        let format = String(cString: av_get_sample_fmt_name(AVSampleFormat(rawValue: f.format)))
        let args = "sample_rate=\(f.sample_rate):sample_fmt=\(format):channel_layout=\(String(decoding: layout.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)):time_base=1/\(f.sample_rate)"
        var r = avfilter_graph_create_filter(&source, avfilter_get_by_name("abuffer"), "in", args, nil, g)
        var tempoFilter: UnsafeMutablePointer<AVFilterContext>?
        if r >= 0 { r = avfilter_graph_create_filter(&tempoFilter, avfilter_get_by_name("atempo"), "tempo", "tempo=\(tempo)", nil, g) }
        if r >= 0 { r = avfilter_graph_create_filter(&sink, avfilter_get_by_name("abuffersink"), "out", nil, nil, g) }
        if r >= 0 { r = avfilter_link(source, 0, tempoFilter, 0) }
        if r >= 0 { r = avfilter_link(tempoFilter, 0, sink, 0) }
        if r >= 0 { r = avfilter_graph_config(g, nil) }
        if r < 0 { throw FFmpegError(code: r, operation: "cannot set up atempo (\(args))").mediaError }
    }
}
