import MediaCore
import ISOBMFF

/// What an `AssetWriterInput` encodes the decoded samples it is given into (`nil` output
/// settings: samples are written as they are).
public enum EncodingSettings: Sendable, Hashable {
    /// Encode pictures as these settings say.
    case video(VideoEncodingSettings)
    /// Encode PCM as these settings say.
    case audio(AudioEncodingSettings)
}

/// Video encoding through libavcodec.
public struct VideoEncodingSettings: Sendable, Hashable {
    /// The video codecs Splice encodes (with the encoder each uses).
    public enum Codec: String, Sendable, Hashable, CaseIterable {
        /// libx264
        case h264
        /// libx265, written as `hvc1`
        case hevc
        /// libsvtav1
        case av1
        /// libvpx-vp9
        case vp9

        /// The libavcodec encoder: the codec registry's.
        var encoderName: String { CodecRegistry.entry(named: rawValue)?.encoder ?? rawValue }
    }

    /// How the encoder spends bits.
    public enum Quality: Sendable, Hashable {
        /// Constant quality (x264/x265 CRF, SVT-AV1 and VP9 CRF scales).
        case crf(Int)
        /// An average bit rate, in bits per second.
        case bitRate(Int)
    }

    /// The codec (H.264 by default).
    public var codec: Codec
    /// The width; nil: the pictures' own (odd sizes are rounded to even for 4:2:0).
    public var width: Int?
    /// The height; nil: the pictures' own (rounded to even for 4:2:0).
    public var height: Int?
    /// How the encoder spends bits (CRF 23 by default).
    public var quality: Quality
    /// Frames between key frames; nil: the encoder's default.
    public var keyFrameInterval: Int?
    /// The nominal frame rate the encoder plans with (rate control, AV1 and VP9 need one); nil:
    /// the first picture's duration, else 30. The pictures' own times are what is written.
    public var frameRate: Double?
    /// The encoder's preset (`medium`, `veryfast`; SVT-AV1: `8`).
    public var preset: String?
    /// `tune` (x264/x265).
    public var tune: String?
    /// The profile (`high`, `main`, `main10`).
    public var profile: String?
    /// The pixel format encoded (`yuv420p`; `yuv420p10le` for 10-bit).
    public var pixelFormat: PixelBuffer.PixelFormat
    /// Colour tags written into the stream (and `colr`); nil: the pictures'.
    public var color: PixelBuffer.Color?
    /// The HDR10 mastering display, written into the stream (HEVC and AV1 SEI/OBUs, H.264 SEI) and the
    /// container (`mdcv`/`clli`, Matroska's MasteringMetadata); nil: the pictures' own (a
    /// decoded HDR10 source's), if any. Meant for 10-bit PQ or HLG encodes.
    public var masteringDisplay: MasteringDisplay?
    /// The HDR10 content light level, written like `masteringDisplay`; nil: the pictures' own, if any.
    public var contentLightLevel: ContentLightLevel?
    /// Other encoder options, passed through (`x264-params`, `x265-params`, …); the ones the
    /// encoder does not take are reported.
    public var options: [String: String]

    /// Settings with these values; what is nil is the pictures' own or the encoder's default.
    public init(codec: Codec = .h264, width: Int? = nil, height: Int? = nil, quality: Quality = .crf(23),
                keyFrameInterval: Int? = nil, frameRate: Double? = nil, preset: String? = nil, tune: String? = nil, profile: String? = nil,
                pixelFormat: PixelBuffer.PixelFormat = .yuv420p, color: PixelBuffer.Color? = nil,
                masteringDisplay: MasteringDisplay? = nil, contentLightLevel: ContentLightLevel? = nil, options: [String: String] = [:]) {
        self.codec = codec
        self.width = width
        self.height = height
        self.quality = quality
        self.keyFrameInterval = keyFrameInterval
        self.frameRate = frameRate
        self.preset = preset
        self.tune = tune
        self.profile = profile
        self.pixelFormat = pixelFormat
        self.color = color
        self.masteringDisplay = masteringDisplay
        self.contentLightLevel = contentLightLevel
        self.options = options
    }
}

/// Audio encoding through libavcodec.
public struct AudioEncodingSettings: Sendable, Hashable {
    /// The audio codecs Splice encodes (with the encoder each uses).
    public enum Codec: String, Sendable, Hashable, CaseIterable {
        /// FFmpeg's AAC encoder (AAC-LC)
        case aac
        /// libopus
        case opus
        /// FFmpeg's FLAC encoder (lossless).
        case flac
        /// FFmpeg's ALAC encoder (Apple Lossless).
        case alac
        /// libmp3lame
        case mp3

        /// The libavcodec encoder: the codec registry's.
        var encoderName: String { CodecRegistry.entry(named: rawValue)?.encoder ?? rawValue }

        /// The sample format the encoder takes.
        var sampleFormat: (PCMBuffer.SampleFormat, planar: Bool) {
            switch self {
            case .aac: (.f32, true)
            case .opus: (.f32, false)
            case .flac: (.s16, false)
            case .alac: (.s16, true)
            case .mp3: (.f32, true)
            }
        }
    }

    /// The codec (AAC by default).
    public var codec: Codec
    /// The rate; nil: the samples' own (Opus: 48 kHz).
    public var sampleRate: Int?
    /// The channel count; nil: the samples' own.
    public var channelCount: Int?
    /// Bits per second (lossy codecs); nil: the encoder's default.
    public var bitRate: Int?

    /// Settings with these values; what is nil is the samples' own or the encoder's default.
    public init(codec: Codec = .aac, sampleRate: Int? = nil, channelCount: Int? = nil, bitRate: Int? = nil) {
        self.codec = codec
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.bitRate = bitRate
    }
}
