import CFFmpeg
import FFmpegLoader
import Foundation
import MediaCore

/// Composes one output picture at a time: a background, then pictures (video frames) and still
/// images drawn in order, each into a rectangle, turned, at an opacity. Scaling and colour
/// conversion are libswscale's (the picture's own matrix and range; an RGB image converted
/// with the canvas's matrix — for untagged video BT.709 from 720 lines up, BT.601 below); the
/// blend is straight-alpha "over" in the canvas's YUV, 8- or 10-bit (`PlaneOps`).
///
/// ```swift
/// let canvas = try PictureCanvas(width: 1280, height: 720, pixelFormat: .yuv420p, color: picture.color)
/// try canvas.begin(filling: picture)                       // the video frame, as it is
/// try canvas.draw(logo, in: .init(x: 1100, y: 600, width: 160, height: 100), opacity: 0.8)
/// let out = try canvas.finish()
/// ```
public final class PictureCanvas: @unchecked Sendable {   // confined: used by one thread at a time (its compositor's)
    /// A rectangle in pixels.
    public struct Rect: Sendable, Hashable {
        public var x, y, width, height: Int
        public init(x: Int, y: Int, width: Int, height: Int) { (self.x, self.y, self.width, self.height) = (x, y, width, height) }
    }

    public let width: Int
    public let height: Int
    /// `.yuv420p` or `.yuv420p10le`.
    public let pixelFormat: PixelBuffer.PixelFormat
    /// The output's colour tags; their matrix and range are the canvas's.
    public let color: PixelBuffer.Color
    private let background: (red: Double, green: Double, blue: Double)
    private var backgroundLevels: [Int] = []
    private var current: Frame?
    var currentFrame: Frame? { current }
    private var scalers: [String: OpaquePointer] = [:]
    private var prepared: [String: (frame: Frame, opaque: Bool)] = [:]
    private var preparedNow: Set<String> = []

    /// - Throws: `.unsupported` for a pixel format other than yuv420p/yuv420p10le or an empty size.
    public init(width: Int, height: Int, pixelFormat: PixelBuffer.PixelFormat, color: PixelBuffer.Color,
                background: (red: Double, green: Double, blue: Double) = (0, 0, 0)) throws {
        guard pixelFormat == .yuv420p || pixelFormat == .yuv420p10le else {
            throw MediaError(.unsupported, "video compositions render yuv420p or yuv420p10le, not \(pixelFormat)")
        }
        guard width >= 2, height >= 2, width <= 16384, height <= 16384 else {
            throw MediaError(.unsupported, "a render size of \(width)x\(height) (2x2 to 16384x16384)")
        }
        if let message = splice_ffmpeg_load_converters() {
            throw MediaError(.unsupported, String(cString: message) + " (install Debian's libswscale6)")
        }
        (self.width, self.height, self.pixelFormat, self.background) = (width, height, pixelFormat, background)
        var c = color
        c.isFullRange = c.isFullRange ?? false
        self.color = c
        backgroundLevels = try levels(ofRed: background.red, green: background.green, blue: background.blue)
    }

    deinit { for s in scalers.values { sws_freeContext(s) } }

    private var isTenBit: Bool { pixelFormat == .yuv420p10le }
    private var fullRange: Bool { color.isFullRange ?? false }

    /// libswscale's matrix for the canvas: its tag, else by height (BT.709 from 720 lines up).
    static func swsMatrix(_ c: PixelBuffer.Color, height: Int) -> Int32 {
        switch c.matrix {
        case 1: SWS_CS_ITU709
        case 9, 10: SWS_CS_BT2020
        case 5, 6: SWS_CS_ITU601
        default: height >= 720 ? SWS_CS_ITU709 : SWS_CS_ITU601
        }
    }

    // MARK: Pictures

    /// Starts a picture filled with the background colour (or `color`, RGB 0…1); `covered`:
    /// what is drawn next covers every pixel (the fill is skipped).
    public func begin(color: (red: Double, green: Double, blue: Double)? = nil, covered: Bool = false) throws {
        let f = try Frame.allocate(format: pixelFormat.avFormat, width: width, height: height)
        if covered {
            // Nothing to fill.
        } else if let c = color, c != background {
            fill(f, levels: try levels(ofRed: c.red, green: c.green, blue: c.blue), alpha: nil)
        } else {
            fill(f, levels: backgroundLevels, alpha: nil)
        }
        current = f
    }

    /// Starts a picture that is `picture` (the canvas's format and size): its pixels are shared
    /// until something is drawn over them, then copied once.
    public func begin(filling picture: PixelBuffer) throws {
        guard picture.width == width, picture.height == height, picture.pixelFormat == pixelFormat, let frame = picture.storage as? Frame else {
            try begin()
            try draw(picture, in: Rect(x: 0, y: 0, width: width, height: height))
            return
        }
        current = try frame.reference()
    }

    /// Draws `picture` — its `crop` (source pixels; nil: all of it), turned by `orientation` —
    /// scaled into `rect` (canvas pixels, clipped to the canvas) at `opacity`.
    public func draw(_ picture: PixelBuffer, crop: Rect? = nil, orientation: PictureOrientation = .upright, in rect: Rect,
                     opacity: Double = 1) throws {
        guard let canvas = current, rect.width > 0, rect.height > 0, opacity > 0 else { return }
        let source = try (picture.storage as? Frame) ?? Frame.copying(picture)
        var c = crop ?? Rect(x: 0, y: 0, width: source.width, height: source.height)
        c.x = max(0, min(c.x, source.width - 2)) & ~1
        c.y = max(0, min(c.y, source.height - 2)) & ~1
        c.width = max(2, min(c.width, source.width - c.x))
        c.height = max(2, min(c.height, source.height - c.y))
        let scaled = orientation.size(width: rect.width, height: rect.height)    // before turning
        let direct = orientation.isUpright && opacity >= 1 && rect.x >= 0 && rect.y >= 0 && rect.x % 2 == 0 && rect.y % 2 == 0
            && rect.x + rect.width <= width && rect.y + rect.height <= height
        try writable()
        if direct {
            try scale(source, crop: c, to: canvas, at: (rect.x, rect.y), size: scaled)
            return
        }
        var layer = try Frame.allocate(format: pixelFormat.avFormat, width: scaled.width, height: scaled.height)
        try scale(source, crop: c, to: layer, at: (0, 0), size: scaled)
        if !orientation.isUpright { layer = try turn(layer, orientation) }
        blend(layer, alpha: false, at: (rect.x, rect.y), opacity: opacity)
    }

    /// Draws `image` scaled into `rect` at `opacity`; `letterboxed`: fitted inside it with its
    /// aspect ratio kept, on opaque black bars (one layer, so that a dissolve between two such
    /// images mixes them linearly everywhere).
    public func draw(_ image: StillImage, in rect: Rect, opacity: Double = 1, letterboxed: Bool = false) throws {
        guard current != nil, rect.width > 0, rect.height > 0, opacity > 0 else { return }
        let key = "\(ObjectIdentifier(image).hashValue) \(rect.width)x\(rect.height) \(letterboxed)"
        let overlay: (frame: Frame, opaque: Bool)
        if let cached = prepared[key] {
            overlay = cached
        } else {
            let opaque = try !image.hasAlpha()
            overlay = (try prepare(image, width: rect.width, height: rect.height, letterboxed: letterboxed), opaque)
            prepared[key] = overlay
        }
        preparedNow.insert(key)
        try writable()
        blend(overlay.frame, alpha: true, at: (rect.x, rect.y), opacity: opacity, opaque: overlay.opaque)
    }

    /// The picture composed since `begin`, tagged with the canvas's colour.
    public func finish() throws -> PixelBuffer {
        guard let f = current else { throw MediaError(.invalidOperation, "finish() before begin()") }
        current = nil
        for key in prepared.keys where !preparedNow.contains(key) { prepared[key] = nil }   // images no longer shown
        preparedNow = []
        f.pointer.pointee.color_range = fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        f.pointer.pointee.colorspace = AVColorSpace(rawValue: UInt32(clamping: color.matrix))
        f.pointer.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(clamping: color.primaries))
        f.pointer.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(clamping: color.transfer))
        f.pointer.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        return f.picture!
    }

    // MARK: Steps

    func writable() throws {
        guard let f = current else { return }
        guard av_frame_make_writable(f.pointer) >= 0 else { throw MediaError(.io, "out of memory (picture)") }
    }

    /// Scales `source`'s `crop` into `target` at `origin` (even) at `size`, through libswscale.
    func scale(_ source: Frame, crop c: Rect, to target: Frame, at origin: (Int, Int), size: (width: Int, height: Int)) throws {
        let key = "\(source.pixelFormat.rawValue) \(c.width)x\(c.height) \(target.pixelFormat.rawValue) \(size.width)x\(size.height) "
            + "\(source.pointer.pointee.color_range.rawValue) \(source.pointer.pointee.colorspace.rawValue)"
        let sws: OpaquePointer
        if let s = scalers[key] {
            sws = s
        } else {
            guard let s = sws_getContext(Int32(clamping: c.width), Int32(clamping: c.height), source.pixelFormat, Int32(clamping: size.width), Int32(clamping: size.height),
                                         target.pixelFormat, Int32(truncatingIfNeeded: SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT), nil, nil, nil) else {
                throw MediaError(.unsupported, "cannot scale \(c.width)x\(c.height) pictures to \(size.width)x\(size.height)")
            }
            let f = source.pointer.pointee
            let isRGB = PictureCanvas.isRGB(source.pixelFormat)
            // A picture keeps its own matrix (YUV to YUV scales and changes range only); RGB
            // images take the canvas's.
            let matrix = isRGB ? PictureCanvas.swsMatrix(color, height: height)
                : PictureCanvas.swsMatrix(PixelBuffer.Color(matrix: Int(widening: f.colorspace.rawValue)), height: source.height)
            let sourceFull: Int32 = isRGB || f.color_range == AVCOL_RANGE_JPEG ? 1 : 0
            let targetFull: Int32 = PictureCanvas.isRGB(target.pixelFormat) ? 1 : (fullRange ? 1 : 0)
            let coefficients = sws_getCoefficients(matrix)
            _ = sws_setColorspaceDetails(s, coefficients, sourceFull, coefficients, targetFull, 0, 1 << 16, 1 << 16)
            scalers[key] = s
            sws = s
        }
        let planes = Int(widening: av_pix_fmt_count_planes(source.pixelFormat))
        var src: [UnsafePointer<UInt8>?] = [nil, nil, nil, nil]
        var srcStride: [Int32] = [0, 0, 0, 0]
        for p in 0..<min(planes, 4) {
            let (base, stride) = source.mutablePlane(p)
            let (dx, dy) = Frame.byteOffset(source.pixelFormat, plane: p, x: c.x, y: c.y)
            src[p] = UnsafePointer((base + dy * stride + dx).assumingMemoryBound(to: UInt8.self))
            srcStride[p] = Int32(clamping: stride)
        }
        var dst: [UnsafeMutablePointer<UInt8>?] = [nil, nil, nil, nil]
        var dstStride: [Int32] = [0, 0, 0, 0]
        for p in 0..<Int(widening: av_pix_fmt_count_planes(target.pixelFormat)) {
            let (base, stride) = target.mutablePlane(p)
            let (dx, dy) = Frame.byteOffset(target.pixelFormat, plane: p, x: origin.0, y: origin.1)
            dst[p] = (base + dy * stride + dx).assumingMemoryBound(to: UInt8.self)
            dstStride[p] = Int32(clamping: stride)
        }
        let r = sws_scale(sws, src, srcStride, 0, Int32(clamping: c.height), dst, dstStride)
        guard r > 0 else { throw MediaError(.invalidData, "cannot scale a \(c.width)x\(c.height) picture") }
    }

    static func isRGB(_ format: AVPixelFormat) -> Bool {
        guard let d = av_pix_fmt_desc_get(format) else { return false }
        return d.pointee.flags & UInt64(truncatingIfNeeded: AV_PIX_FMT_FLAG_RGB) != 0 || format == AV_PIX_FMT_PAL8
    }

    static func hasAlphaChannel(_ format: AVPixelFormat) -> Bool {
        guard let d = av_pix_fmt_desc_get(format) else { return true }
        return d.pointee.flags & UInt64(truncatingIfNeeded: AV_PIX_FMT_FLAG_ALPHA) != 0 || format == AV_PIX_FMT_PAL8
    }}
