import CFFmpeg
import FFmpegLoader
import MediaCore

/// Turns HDR pictures (PQ or HLG) into SDR BT.709 ones with libavfilter, as `ToneMapping` says:
/// `zscale` to display light (reference white 1.0), BT.709 primaries, `tonemap`, `zscale` to
/// BT.1886's gamma and the BT.709 matrix in `pixelFormat`. One picture in, one out, the same size,
/// HDR10 side data removed. The peak is read from the first picture (its content light level or
/// mastering display, else the track's).
public final class ToneMapper: @unchecked Sendable {   // confined: used by one thread at a time (its owner's)
    public let toneMapping: ToneMapping
    public let pixelFormat: PixelBuffer.PixelFormat
    /// The colour of pictures that say nothing of theirs (the track's), and the track's HDR10
    /// metadata, used when the pictures carry none.
    private let fallback: PixelBuffer.Color
    private let trackMastering: MasteringDisplay?
    private let trackLight: ContentLightLevel?
    private var graph: VideoFilterGraph?
    private var input: (format: Int32, width: Int32, height: Int32)?
    /// The filter chain built for the first picture.
    private(set) var chain = ""

    /// - Parameters:
    ///   - color: the track's colour, for pictures whose own tags are unspecified.
    ///   - masteringDisplay, contentLightLevel: the track's HDR10 metadata (`mdcv`/`clli`).
    /// - Throws: when libavfilter cannot be loaded.
    public init(_ toneMapping: ToneMapping, pixelFormat: PixelBuffer.PixelFormat, color: PixelBuffer.Color,
                masteringDisplay: MasteringDisplay? = nil, contentLightLevel: ContentLightLevel? = nil) throws {
        if let message = splice_ffmpeg_load_filters() {
            throw MediaError(.unsupported, String(cString: message) + " (install Debian's libavfilter8)")
        }
        self.toneMapping = toneMapping
        self.pixelFormat = pixelFormat
        fallback = color
        trackMastering = masteringDisplay
        trackLight = contentLightLevel
    }

    /// `frame` tone-mapped, as a new frame with its properties (times, aspect).
    public func convert(_ frame: Frame) throws -> Frame {
        let f = frame.pointer.pointee
        let key = (f.format, f.width, f.height)
        if input.map({ $0 != key }) ?? true {
            graph = nil
            graph = try build(for: frame)
            input = key
        }
        guard let graph else { throw MediaError(.unsupported, "no tone-mapping filter graph") }
        let out = try graph.process(frame)
        av_frame_remove_side_data(out.pointer, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA)
        av_frame_remove_side_data(out.pointer, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL)
        out.pointer.pointee.pts = f.best_effort_timestamp
        return out
    }

    /// The filters after the buffer source, for a picture of colour `color` whose peak is `peak`
    /// times reference white.
    static func chain(_ t: ToneMapping, from color: PixelBuffer.Color, peak: Double, to pixelFormat: PixelBuffer.PixelFormat) -> String {
        let white = t.referenceWhite.isFinite && t.referenceWhite > 0 ? t.referenceWhite : 203
        let transfer = color.transfer == 18 ? "arib-std-b67" : "smpte2084"
        let primaries = [1: "bt709", 9: "2020", 11: "smpte431", 12: "smpte432"][color.primaries] ?? "2020"
        let matrix = [1: "bt709", 5: "470bg", 6: "170m", 9: "2020_ncl", 10: "2020_cl"][color.matrix] ?? "2020_ncl"
        let range = color.isFullRange == true ? "full" : "limited"
        var op = "tonemap=tonemap=\(t.toneOperator.rawValue):desat=\(format(max(0, t.desaturation))):peak=\(format(peak))"
        if let p = t.parameter, p.isFinite, p > 0 { op += ":param=\(format(p))" }
        return "zscale=transferin=\(transfer):primariesin=\(primaries):matrixin=\(matrix):rangein=\(range):transfer=linear:npl=\(format(white)),"
            + "format=gbrpf32le,zscale=primaries=bt709,\(op),"
            + "zscale=transfer=bt709:matrix=bt709:range=limited,format=\(pixelFormat.rawValue)"
    }

    private static func format(_ v: Double) -> String { String(format: "%.6g", v) }

    private func build(for frame: Frame) throws -> VideoFilterGraph {
        var color = frame.colorTags
        if !color.isHDR { color.transfer = fallback.transfer }
        if color.primaries == 2 { color.primaries = fallback.primaries }
        if color.matrix == 2 { color.matrix = fallback.matrix }
        if color.isFullRange == nil { color.isFullRange = fallback.isFullRange }
        let (mastering, light) = frame.hdrMetadata
        let maxCLL = (light ?? trackLight).map { Double($0.maxContentLightLevel) }
        let masteringPeak = (mastering ?? trackMastering).map { Double($0.maxLuminance) / 10_000 }
        let peak = toneMapping.relativePeak(maxCLL: maxCLL, masteringPeak: masteringPeak)
        chain = ToneMapper.chain(toneMapping, from: color, peak: peak, to: pixelFormat)
        return try VideoFilterGraph(chain, for: frame)
    }
}

/// A chain of libavfilter video filters (`zscale=…,format=…`, no commas inside a filter's
/// options) between a buffer source sized and formatted like the first frame and a sink: one
/// frame in, one frame out.
final class VideoFilterGraph {
    let chain: String
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?

    /// - Throws: when libavfilter cannot be loaded, has no filter of the chain, or refuses it.
    init(_ chain: String, for frame: Frame) throws {
        if let message = splice_ffmpeg_load_filters() {
            throw MediaError(.unsupported, String(cString: message) + " (install Debian's libavfilter8)")
        }
        self.chain = chain
        let f = frame.pointer.pointee
        guard let g = avfilter_graph_alloc() else { throw MediaError(.io, "out of memory (filter graph)") }
        graph = g
        let sar = f.sample_aspect_ratio.num > 0 && f.sample_aspect_ratio.den > 0 ? f.sample_aspect_ratio : AVRational(num: 1, den: 1)
        let args = "video_size=\(f.width)x\(f.height):pix_fmt=\(f.format):time_base=1/90000:pixel_aspect=\(sar.num)/\(sar.den)"
        var r = avfilter_graph_create_filter(&source, avfilter_get_by_name("buffer"), "in", args, nil, g)
        var last = source
        for (i, step) in chain.split(separator: ",").enumerated() where r >= 0 {
            let parts = step.split(separator: "=", maxSplits: 1).map(String.init)
            var filter: UnsafeMutablePointer<AVFilterContext>?
            guard let kind = avfilter_get_by_name(parts[0]) else {
                throw MediaError(.unsupported, "this machine's libavfilter has no \(parts[0]) filter (Debian's libavfilter8 has it)")
            }
            r = avfilter_graph_create_filter(&filter, kind, "\(parts[0])\(i)", parts.count > 1 ? parts[1] : nil, nil, g)
            if r >= 0 { r = avfilter_link(last, 0, filter, 0) }
            last = filter
        }
        if r >= 0 { r = avfilter_graph_create_filter(&sink, avfilter_get_by_name("buffersink"), "out", nil, nil, g) }
        if r >= 0 { r = avfilter_link(last, 0, sink, 0) }
        if r >= 0 { r = avfilter_graph_config(g, nil) }
        if r < 0 { throw FFmpegError(code: r, operation: "cannot set up the filters \(chain)").mediaError }
    }

    deinit { avfilter_graph_free(&graph) }

    /// The frame the chain makes of `frame`.
    func process(_ frame: Frame) throws -> Frame {
        guard let source, let sink else { throw MediaError(.unsupported, "no filter graph") }
        var r = av_buffersrc_add_frame_flags(source, frame.pointer, Int32(truncatingIfNeeded: AV_BUFFERSRC_FLAG_KEEP_REF))
        if r < 0 { throw FFmpegError(code: r, operation: "filtering a picture (\(chain))").mediaError }
        let out = try Frame()
        r = av_buffersink_get_frame(sink, out.pointer)
        if r < 0 { throw FFmpegError(code: r, operation: "filtering a picture (\(chain))").mediaError }
        return out
    }
}

extension Frame {
    /// An sRGB picture in RGBA (an overlay) coded for an HDR picture of `transfer` (16 PQ, 18
    /// HLG) and BT.2020 primaries, its white at `referenceWhite` cd/m² (BT.2408's 203: graphics
    /// white), alpha kept: what is drawn over HDR video looks as bright as it does over SDR.
    func hdrCoded(transfer: Int, referenceWhite: Double = 203) throws -> Frame {
        let name = transfer == 18 ? "arib-std-b67" : "smpte2084"
        let chain = "zscale=transferin=iec61966-2-1:primariesin=bt709:rangein=full:transfer=\(name):primaries=2020:range=full:"
            + "npl=\(String(format: "%g", referenceWhite)),format=rgba"
        return try VideoFilterGraph(chain, for: self).process(self)
    }
}
