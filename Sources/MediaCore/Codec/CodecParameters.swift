/// A codec and its parameters, the way every layer of Splice describes a stream: what is read
/// from a container, what the ISO codec mapping builds sample entries from, and what both
/// muxers declare their streams with. Names are FFmpeg's (`h264`, `aac`, `opus`, `subrip`), the
/// configuration bytes are FFmpeg's `extradata` (`avcC` payload for H.264, AudioSpecificConfig
/// for AAC, `OpusHead` for Opus).
///
/// A plain value: copied into and out of libav's `AVCodecParameters` by FFmpegBridge, read and
/// written by ISOBMFF without FFmpeg.
public struct CodecParameters: Sendable, Hashable {
    /// What the stream carries: video, audio, subtitles…
    public var mediaType: MediaType
    /// FFmpeg's codec name.
    public var codecName: String
    /// The container's own code for the codec, when it has one (AVI's FourCC, MP4's sample entry type).
    public var codecTag: FourCC?
    /// Codec configuration (FFmpeg's `extradata`); empty when the stream has none.
    public var extradata: [UInt8] = []
    /// Video: the coded picture width in pixels; 0 when unknown.
    public var width = 0
    /// Video: the coded picture height in pixels; 0 when unknown.
    public var height = 0
    /// Audio: samples per second; 0 when unknown.
    public var sampleRate = 0
    /// Audio: the number of channels; 0 when unknown.
    public var channelCount = 0
    /// Audio: the channel layout as a mask of WAVE/FFmpeg channel bits; 0 when unknown or not
    /// a plain mask (the encoder then takes the default layout for `channelCount`).
    public var channelLayoutMask: UInt64 = 0
    /// Bits per second; 0 when unknown.
    public var bitRate = 0
    /// Audio samples the decoder drops at the start (encoder delay, Opus pre-skip).
    public var initialPadding = 0
    /// Video: the colour primaries, an ISO/IEC 23091-2 code point (1: BT.709, 9: BT.2020; 2: unspecified).
    public var colorPrimaries = 2
    /// Video: the transfer characteristics, an ISO/IEC 23091-2 code point (16: PQ, 18: HLG; 2: unspecified).
    public var transferCharacteristics = 2
    /// Video: the matrix coefficients, an ISO/IEC 23091-2 code point (1: BT.709, 9: BT.2020 NCL; 2: unspecified).
    public var matrixCoefficients = 2
    /// Video: whether samples use the full range (0–255 for 8 bits) rather than the limited one; nil when unknown.
    public var isFullRange: Bool?
    /// Video: the mastering display of HDR10 static metadata (`mdcv`), when the stream carries it.
    public var masteringDisplay: MasteringDisplay?
    /// Video: the content light level of HDR10 static metadata (`clli`), when the stream carries it.
    public var contentLightLevel: ContentLightLevel?
    /// Video: the Dolby Vision configuration (`dvcC`/`dvvC`/`dvwC`, Matroska's block addition
    /// mapping), when the stream is Dolby Vision.
    public var dolbyVision: DolbyVisionConfiguration?
    /// Video: frames a decoder holds back to reorder them (B-frames); 0 when none or unknown.
    public var reorderDelay = 0
    /// Video: the width : height of a pixel (`pasp`); 0:0 when unknown (square).
    public var sampleAspectRatio: (numerator: Int, denominator: Int) {
        get { (sarNumerator, sarDenominator) }
        set { (sarNumerator, sarDenominator) = newValue }
    }
    private var sarNumerator = 0
    private var sarDenominator = 0
    /// Whether pixels are known not to be square.
    public var hasNonSquarePixels: Bool {
        sarNumerator > 0 && sarDenominator > 0 && sarNumerator != sarDenominator
    }

    /// Parameters of a stream of `codecName` (FFmpeg's name) with every other field unknown.
    public init(mediaType: MediaType, codecName: String) {
        self.mediaType = mediaType
        self.codecName = codecName
    }

    /// The picture size, when both sides are known.
    public var dimensions: Dimensions? {
        width > 0 && height > 0 ? Dimensions(width: width, height: height) : nil
    }
}

/// The pixel size of video or of a text box.
public struct Dimensions: Sendable, Hashable, CustomStringConvertible {
    /// The width in pixels.
    public var width: Int
    /// The height in pixels.
    public var height: Int
    /// A size of `width` × `height` pixels.
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public var description: String { "\(width)x\(height)" }
}
