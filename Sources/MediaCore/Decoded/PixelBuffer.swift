/// A decoded picture: a pixel format, a size, one to three planes with their strides, its colour
/// description and its sample aspect ratio.
public struct PixelBuffer: Sendable {
    /// The pixel formats Splice hands out and takes (FFmpeg's names).
    public enum PixelFormat: String, Sendable, Hashable, CaseIterable {
        /// Planar 8-bit Y′CbCr, chroma halved both ways.
        case yuv420p
        /// 8-bit Y′ plane and one interleaved CbCr plane, chroma halved both ways.
        case nv12
        /// Planar 10-bit Y′CbCr in 16-bit little-endian words, chroma halved both ways.
        case yuv420p10le
        /// Planar 10-bit Y′CbCr in 16-bit little-endian words, chroma halved horizontally.
        case yuv422p10le
        /// Planar 10-bit Y′CbCr in 16-bit little-endian words, full chroma.
        case yuv444p10le
        /// Planar 12-bit Y′CbCr in 16-bit little-endian words, chroma halved both ways.
        case yuv420p12le
        /// Planar 12-bit Y′CbCr in 16-bit little-endian words, chroma halved horizontally.
        case yuv422p12le
        /// Planar 12-bit Y′CbCr in 16-bit little-endian words, full chroma.
        case yuv444p12le
        /// Planar 8-bit Y′CbCr, chroma halved horizontally.
        case yuv422p
        /// Planar 8-bit Y′CbCr, full chroma.
        case yuv444p
        /// Packed 8-bit red, green, blue, alpha.
        case rgba
        /// Packed 8-bit blue, green, red, alpha.
        case bgra
        /// One 8-bit plane of luma.
        case gray

        /// The number of planes: 3 for planar Y′CbCr, 2 for NV12, 1 for packed RGB and gray.
        public var planeCount: Int {
            switch self {
            case .yuv420p, .yuv420p10le, .yuv422p, .yuv444p, .yuv422p10le, .yuv444p10le, .yuv420p12le, .yuv422p12le, .yuv444p12le: 3
            case .nv12: 2
            case .rgba, .bgra, .gray: 1
            }
        }

        /// Bytes per row and rows of plane `index` of a `width`×`height` picture, without padding.
        public func planeSize(_ index: Int, width: Int, height: Int) -> (rowBytes: Int, rows: Int) {
            let halfW = (width + 1) / 2, halfH = (height + 1) / 2
            switch (self, index) {
            case (.yuv420p, 0), (.yuv422p, 0), (.yuv444p, 0), (.gray, 0), (.nv12, 0): return (width, height)
            case (.yuv420p, _): return (halfW, halfH)
            case (.yuv420p10le, 0), (.yuv420p12le, 0), (.yuv422p10le, 0), (.yuv422p12le, 0), (.yuv444p10le, _), (.yuv444p12le, _): return (width * 2, height)
            case (.yuv420p10le, _), (.yuv420p12le, _): return (halfW * 2, halfH)
            case (.yuv422p10le, _), (.yuv422p12le, _): return (halfW * 2, height)
            case (.yuv422p, _): return (halfW, height)
            case (.yuv444p, _): return (width, height)
            case (.nv12, _): return (halfW * 2, halfH)
            case (.rgba, _), (.bgra, _): return (width * 4, height)
            case (.gray, _): return (width, height)
            }
        }

        /// Whether the format has chroma subsampled by two in both directions (needs even sizes).
        public var isSubsampled420: Bool { chromaFormat == 1 }

        /// Bits per component: 8, 10 or 12 (16-bit words hold the deeper ones).
        public var bitDepth: Int {
            switch self {
            case .yuv420p10le, .yuv422p10le, .yuv444p10le: 10
            case .yuv420p12le, .yuv422p12le, .yuv444p12le: 12
            default: 8
            }
        }

        /// The chroma format as H.264 and HEVC number it (`chroma_format_idc`): 0 gray, 1 4:2:0,
        /// 2 4:2:2, 3 4:4:4 (and packed RGB).
        public var chromaFormat: Int {
            switch self {
            case .gray: 0
            case .yuv420p, .nv12, .yuv420p10le, .yuv420p12le: 1
            case .yuv422p, .yuv422p10le, .yuv422p12le: 2
            case .yuv444p, .yuv444p10le, .yuv444p12le, .rgba, .bgra: 3
            }
        }

        /// The planar Y′CbCr format of this chroma format (1, 2, 3) and bit depth (8, 10, 12), if any.
        public init?(chromaFormat: Int, bitDepth: Int) {
            let all: [PixelFormat] = [.yuv420p, .yuv422p, .yuv444p, .yuv420p10le, .yuv422p10le, .yuv444p10le, .yuv420p12le, .yuv422p12le, .yuv444p12le]
            guard let f = all.first(where: { $0.chromaFormat == chromaFormat && $0.bitDepth == bitDepth }) else { return nil }
            self = f
        }
    }

    /// Colour primaries, transfer and matrix (ISO/IEC 23091-2 code points, as in `colr`), and range.
    public struct Color: Sendable, Hashable {
        /// The colour primaries (1: BT.709, 9: BT.2020; 2: unspecified).
        public var primaries: Int
        /// The transfer characteristics (1: BT.709, 16: PQ, 18: HLG; 2: unspecified).
        public var transfer: Int
        /// The matrix coefficients (1: BT.709, 6: BT.601, 9: BT.2020 NCL; 2: unspecified).
        public var matrix: Int
        /// `true` full range, `false` limited (video) range, nil unknown.
        public var isFullRange: Bool?

        /// A colour description; every part unspecified unless given.
        public init(primaries: Int = 2, transfer: Int = 2, matrix: Int = 2, isFullRange: Bool? = nil) {
            self.primaries = primaries
            self.transfer = transfer
            self.matrix = matrix
            self.isFullRange = isFullRange
        }

        /// Nothing known about the colour.
        public static let unspecified = Color()
    }

    /// How the pixels are stored.
    public let pixelFormat: PixelFormat
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int
    /// The picture's colour description.
    public var color: Color
    /// Width : height of one pixel (1:1 for square pixels).
    public var sampleAspectRatio: (numerator: Int, denominator: Int)
    /// The memory the planes are in, with their strides.
    public let storage: any DecodedStorage
    /// The HDR10 mastering display the picture came with (the decoder's side data), if any.
    public var masteringDisplay: MasteringDisplay?
    /// The HDR10 content light level the picture came with, if any.
    public var contentLightLevel: ContentLightLevel?
    /// Whether the picture came with HDR10+ dynamic metadata (SMPTE ST 2094-40: the stream's
    /// ITU-T T.35 SEI, or Matroska's block addition, as the decoder found it).
    public var hasHDR10Plus = false

    /// A picture of `width` × `height` pixels of `pixelFormat` whose planes are in `storage`.
    public init(pixelFormat: PixelFormat, width: Int, height: Int, color: Color = .unspecified,
                sampleAspectRatio: (numerator: Int, denominator: Int) = (1, 1), storage: any DecodedStorage) {
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.color = color
        self.sampleAspectRatio = sampleAspectRatio
        self.storage = storage
    }

    /// A black picture of `width` × `height` pixels of `pixelFormat`: Y′CbCr in video range
    /// (luma 16, chroma 128, scaled for 10 bits), RGB opaque black, gray 0.
    public static func black(_ pixelFormat: PixelFormat, width: Int, height: Int, color: Color = .unspecified) -> PixelBuffer {
        func plane(_ index: Int) -> ([UInt8], Int) {
            let (rowBytes, rows) = pixelFormat.planeSize(index, width: width, height: height)
            let pattern: [UInt8]
            let deep = pixelFormat.bitDepth > 8
            let word = { (v: Int) -> [UInt8] in
                let scaled = v << (pixelFormat.bitDepth - 8)
                return [UInt8(truncatingIfNeeded: scaled), UInt8(truncatingIfNeeded: scaled >> 8)]
            }
            switch (pixelFormat, index) {
            case (_, 0) where deep: pattern = word(16)         // 16 and 128 scaled, little-endian
            case (_, _) where deep: pattern = word(128)
            case (.rgba, _), (.bgra, _): pattern = [0, 0, 0, 255]
            case (.gray, _): pattern = [0]
            case (_, 0): pattern = [16]
            default: pattern = [128]
            }
            let count = rowBytes * rows
            return ((0..<count).map { pattern[$0 % pattern.count] }, rowBytes)
        }
        let planes = (0..<pixelFormat.planeCount).map(plane)
        return PixelBuffer(pixelFormat: pixelFormat, width: width, height: height, color: color,
                           storage: OwnedStorage(planes: planes.map(\.0), strides: planes.map(\.1)))
    }

    /// Plane `index`'s rows: its bytes (stride × rows) and its stride.
    public func withPlane<R>(_ index: Int, _ body: (UnsafeRawBufferPointer, Int) throws -> R) rethrows -> R {
        precondition(index >= 0 && index < pixelFormat.planeCount, "plane \(index) of \(pixelFormat.planeCount)")
        let (base, stride) = storage.plane(index)
        let size = pixelFormat.planeSize(index, width: width, height: height)
        let count = size.rows > 0 ? stride * (size.rows - 1) + size.rowBytes : 0
        return try body(UnsafeRawBufferPointer(start: base, count: count), stride)
    }

    /// The picture's bytes, planes one after the other and rows without padding (what
    /// `ffmpeg -f rawvideo` writes, and what `framemd5` hashes).
    public var packedBytes: [UInt8] {
        var out: [UInt8] = []
        for p in 0..<pixelFormat.planeCount {
            let size = pixelFormat.planeSize(p, width: width, height: height)
            withPlane(p) { raw, stride in
                for row in 0..<size.rows { out += raw[(row * stride)..<(row * stride + size.rowBytes)] }
            }
        }
        return out
    }
}
