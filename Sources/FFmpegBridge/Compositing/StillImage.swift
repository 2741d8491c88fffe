import CFFmpeg
import Foundation
import MediaCore

/// A still image decoded through libavcodec — PNG (with alpha), JPEG, WebP, BMP, TIFF — turned
/// upright (a JPEG's EXIF `Orientation` applied) and held as RGBA with straight alpha.
///
/// PNG, JPEG and WebP files are decoded when first drawn (their size comes from their header),
/// and their pixels can be let go of (`releasePixels()`) and decoded again: a slideshow of
/// hundreds of photos holds only the ones on screen.
///
/// ```swift
/// let logo = try StillImage(contentsOf: URL(fileURLWithPath: "logo.png"))
/// (logo.width, logo.height)
/// ```
public final class StillImage: @unchecked Sendable {   // decoded state under `lock`
    /// The upright size.
    public let width: Int
    public let height: Int
    /// The EXIF orientation applied (upright when there was none).
    public let orientation: PictureOrientation
    /// The file (or name) the image came from, for messages.
    public let name: String
    /// The file the image was read from (nil: made from data).
    public private(set) var url: URL?
    private let data: Data
    private let codec: String
    private let lock = NSLock()
    /// The decoder's picture (not yet turned), while the image is in memory.
    private var decoded: Frame?
    private var transparent: Bool?

    /// The largest image accepted, in pixels (16384×16384; larger ones are refused before
    /// anything is allocated for them).
    static let maximumPixels = 16384 * 16384

    /// - Throws: `.invalidData` naming the file when it is no image Splice can read.
    public convenience init(contentsOf url: URL) throws {
        let file = try ReadOnlyFile(path: url.path)
        guard file.size <= 1 << 30 else { throw MediaError(.unsupported, "an image of \(file.size) bytes is more than Splice reads (1 GiB)", file: url.path) }
        try self.init(data: try file.readData(at: 0, count: Int(clamping: file.size)), name: url.path)
        self.url = url
    }

    public init(data: Data, name: String) throws {
        guard let codec = StillImage.codecName(of: [UInt8](data.prefix(16))) else {
            throw MediaError(.invalidData, "not an image Splice can read (PNG, JPEG, WebP, BMP or TIFF)", file: name)
        }
        (self.data, self.codec, self.name) = (data, codec, name)
        orientation = codec == "mjpeg" ? PictureOrientation(exifOrientation: ExifReader.orientation(inJPEG: data) ?? 1) : .upright
        var size = ImageHeader.size(of: data, codec: codec)
        if size == nil {
            let frame = try StillImage.decodeFrame(data, codec: codec, name: name)
            decoded = frame
            size = (frame.width, frame.height)
        }
        if let s = size { size = orientation.size(width: s.0, height: s.1) }
        guard let (w, h) = size, w > 0, h > 0, w * h <= StillImage.maximumPixels else {
            throw MediaError(.invalidData, "the image's size \(size.map { "\($0.0)x\($0.1)" } ?? "?") is outside 1x1 to 16384x16384", file: name)
        }
        (width, height) = (w, h)
    }

    /// The upright image as a picture (RGBA), decoded if it is not in memory.
    public func picture() throws -> PixelBuffer { try frame().picture! }

    /// Whether any pixel is not fully opaque (decodes the image if needed).
    public func hasAlpha() throws -> Bool {
        if let t = lock.withLock({ transparent }) { return t }
        let native = try nativeFrame()
        let t = PictureCanvas.hasAlphaChannel(native.pixelFormat) ? StillImage.anyTransparent(try frame()) : false
        lock.withLock { transparent = t }
        return t
    }

    /// Lets go of the decoded pixels (they are decoded again when next needed).
    public func releasePixels() {
        lock.withLock { decoded = nil }
    }

    /// The decoder's picture, as stored (not turned).
    func nativeFrame() throws -> Frame {
        if let f = lock.withLock({ decoded }) { return f }
        let f = try StillImage.decodeFrame(data, codec: codec, name: name)
        guard orientation.size(width: f.width, height: f.height) == (width, height) else {
            throw MediaError(.invalidData, "decodes to \(f.width)x\(f.height), but its header says otherwise", file: name)
        }
        lock.withLock { decoded = f }
        return f
    }

    /// The upright picture in RGBA.
    func frame() throws -> Frame {
        let rgba = try PictureConverter(pixelFormat: .rgba, fullRange: true).convert(try nativeFrame())
        return orientation.isUpright ? rgba : try StillImage.turn(rgba, orientation)
    }

    static func codecName(of b: [UInt8]) -> String? {
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "png" }
        if b.starts(with: [0xFF, 0xD8, 0xFF]) { return "mjpeg" }
        if b.count >= 12, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) { return "webp" }
        if b.starts(with: Array("BM".utf8)) { return "bmp" }
        if b.starts(with: [0x49, 0x49, 0x2A, 0x00]) || b.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return "tiff" }
        return nil
    }

    private static func decodeFrame(_ data: Data, codec: String, name: String) throws -> Frame {
        let decoder = try Decoder(parameters: CodecParameters(mediaType: .video, codecName: codec), timescale: 1)
        _ = try decoder.send(data, presentationTime: 0, decodeTime: 0, duration: 1, isKeyFrame: true)
        var frame = try decoder.receive()
        if frame == nil {
            _ = try decoder.send(nil, presentationTime: 0, decodeTime: 0, duration: 0, isKeyFrame: false)
            frame = try decoder.receive()
        }
        guard let frame, frame.width > 0, frame.height > 0 else {
            throw MediaError(.invalidData, "the \(codec == "mjpeg" ? "jpeg" : codec) decoder could not decode it (damaged or truncated)", file: name)
        }
        guard frame.width * frame.height <= maximumPixels else {
            throw MediaError(.unsupported, "the image is \(frame.width)x\(frame.height), larger than Splice takes (16384x16384)", file: name)
        }
        return frame
    }

    private static func turn(_ frame: Frame, _ o: PictureOrientation) throws -> Frame {
        let (w, h) = o.size(width: frame.width, height: frame.height)
        let out = try Frame.allocate(format: AV_PIX_FMT_RGBA, width: w, height: h)
        let (src, srcStride) = frame.mutablePlane(0)
        let (dst, dstStride) = out.mutablePlane(0)
        PlaneOps.orient(UInt32.self, src: src, srcStride: srcStride, width: frame.width, height: frame.height,
                        dst: dst, dstStride: dstStride, orientation: o)
        return out
    }

    private static func anyTransparent(_ frame: Frame) -> Bool {
        let (base, stride) = frame.mutablePlane(0)
        for y in 0..<frame.height {
            let row = (base + y * stride).assumingMemoryBound(to: UInt8.self)
            for x in 0..<frame.width where row[4 * x + 3] != 255 { return true }
        }
        return false
    }
}

/// The one EXIF field compositing needs: a JPEG's `Orientation` (tag 0x0112 of IFD0 in the APP1
/// `Exif` segment; CIPA DC-008). Reads only within the segment's bounds.
enum ExifReader {
    static func orientation(inJPEG data: Data) -> Int? {
        let b = [UInt8](data.prefix(1 << 17))   // APP segments come first; 128 KiB holds them
        var i = 2
        while i + 4 <= b.count, b[i] == 0xFF {
            let marker = b[i + 1]
            if marker == 0xDA || marker == 0xD9 { return nil }   // start of scan: no EXIF before it
            let length = Int(widening: b[i + 2]) << 8 | Int(widening: b[i + 3])
            guard length >= 2, i + 2 + length <= b.count else { return nil }
            if marker == 0xE1, length >= 8, Array(b[(i + 4)..<(i + 10)]) == [0x45, 0x78, 0x69, 0x66, 0, 0] {
                return tiffOrientation(Array(b[(i + 10)..<(i + 2 + length)]))
            }
            i += 2 + length
        }
        return nil
    }

    private static func tiffOrientation(_ t: [UInt8]) -> Int? {
        guard t.count >= 8 else { return nil }
        let little = t[0] == 0x49
        func u16(_ o: Int) -> Int? { o + 2 <= t.count ? (little ? Int(widening: t[o]) | Int(widening: t[o + 1]) << 8 : Int(widening: t[o]) << 8 | Int(widening: t[o + 1])) : nil }
        func u32(_ o: Int) -> Int? { guard let hi = u16(little ? o + 2 : o), let lo = u16(little ? o : o + 2) else { return nil }; return hi << 16 | lo }
        guard let ifd = u32(4), let count = u16(ifd) else { return nil }
        for k in 0..<min(count, 512) {
            let entry = ifd + 2 + 12 * k
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112 { return u16(entry + 8) }
        }
        return nil
    }
}

/// The size in an image file's header (PNG `IHDR`, JPEG `SOFn`, WebP `VP8 `/`VP8L`/`VP8X`),
/// read without decoding; nil for other formats or a header that does not say.
enum ImageHeader {
    static func size(of data: Data, codec: String) -> (Int, Int)? {
        let b = [UInt8](data.prefix(1 << 17))
        func be16(_ o: Int) -> Int { Int(widening: b[o]) << 8 | Int(widening: b[o + 1]) }
        func le16(_ o: Int) -> Int { Int(widening: b[o]) | Int(widening: b[o + 1]) << 8 }
        func le24(_ o: Int) -> Int { Int(widening: b[o]) | Int(widening: b[o + 1]) << 8 | Int(widening: b[o + 2]) << 16 }
        switch codec {
        case "png" where b.count >= 24 && Array(b[12..<16]) == Array("IHDR".utf8):
            let w = Int(widening: b[16]) << 24 | Int(widening: b[17]) << 16 | Int(widening: b[18]) << 8 | Int(widening: b[19])
            let h = Int(widening: b[20]) << 24 | Int(widening: b[21]) << 16 | Int(widening: b[22]) << 8 | Int(widening: b[23])
            return (w, h)
        case "mjpeg":
            var i = 2
            while i + 9 <= b.count, b[i] == 0xFF {
                let m = b[i + 1]
                if m == 0xDA || m == 0xD9 { return nil }
                if (0xC0...0xCF).contains(m), m != 0xC4, m != 0xC8, m != 0xCC { return (be16(i + 7), be16(i + 5)) }
                i += 2 + be16(i + 2)
            }
            return nil
        case "webp" where b.count >= 30:
            switch String(decoding: b[12..<16], as: UTF8.self) {
            case "VP8 " where b[23] == 0x9D && b[24] == 0x01 && b[25] == 0x2A: return (le16(26) & 0x3FFF, le16(28) & 0x3FFF)
            case "VP8L" where b[20] == 0x2F:
                let bits = le24(21) | Int(widening: b[24]) << 24
                return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
            case "VP8X": return (le24(24) + 1, le24(27) + 1)
            default: return nil
            }
        default:
            return nil
        }
    }
}
