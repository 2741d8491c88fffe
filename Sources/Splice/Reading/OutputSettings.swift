import Foundation
import MediaCore

/// What an `AssetReaderTrackOutput` hands out instead of the stored samples: decoded audio or
/// decoded pictures, in the format asked for (`nil` output settings: passthrough).
public enum OutputSettings: Sendable, Hashable {
    /// Decoded audio in this PCM format.
    case audio(AudioOutputSettings)
    /// Decoded pictures in this pixel format and size.
    case video(VideoOutputSettings)
}

/// Decoded audio: PCM through libavcodec and libswresample.
public struct AudioOutputSettings: Sendable, Hashable {
    /// How each sample is stored (32-bit float by default).
    public var sampleFormat: PCMBuffer.SampleFormat
    /// One interleaved plane (`true`), or a plane per channel.
    public var isInterleaved: Bool
    /// The rate; nil keeps the source's.
    public var sampleRate: Int?
    /// The channel count; nil keeps the source's.
    public var channelCount: Int?
    /// FFmpeg's channel mask (`AV_CH_*` bits) of the layout; nil: the default layout of the count.
    public var channelLayoutMask: UInt64?

    /// Settings with these values; what is nil keeps the source's.
    public init(sampleFormat: PCMBuffer.SampleFormat = .f32, isInterleaved: Bool = true, sampleRate: Int? = nil,
                channelCount: Int? = nil, channelLayoutMask: UInt64? = nil) {
        self.sampleFormat = sampleFormat
        self.isInterleaved = isInterleaved
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.channelLayoutMask = channelLayoutMask
    }
}

/// Decoded pictures: frames through libavcodec and libswscale.
public struct VideoOutputSettings: Sendable, Hashable {
    /// The pixel format handed out (yuv420p by default).
    public var pixelFormat: PixelBuffer.PixelFormat
    /// The largest width: the picture is scaled to fit inside this and `maximumHeight`, aspect ratio kept,
    /// never up, sizes rounded to even; nil keeps the source's size.
    public var maximumWidth: Int?
    /// The largest height (see `maximumWidth`); nil: no limit.
    public var maximumHeight: Int?
    /// An exact output size (AVFoundation's `AVVideoWidthKey`/`AVVideoHeightKey`): every picture
    /// comes out this size, scaled up or down as `scalingMode` says. Wins over the maximums.
    public var size: Dimensions?
    /// How a picture fills `size` (fitted inside by default).
    public var scalingMode: ScalingMode = .resizeAspect
    /// A constant frame rate (frames per second): each picture is repeated, or left out, so that
    /// one comes out every 1/`frameRate` s, showing what is shown then. nil: the source's timing.
    public var frameRate: Double?
    /// HDR to SDR: with a tone mapping, PQ and HLG pictures (by their own colour tags, else the
    /// track's) come out as SDR BT.709 made as it says, without HDR10 metadata; SDR pictures are
    /// untouched. nil (the default): pictures keep their colour. (AVFoundation tone-maps when
    /// `AVVideoColorPropertiesKey` asks for BT.709; exports to SDR codecs set this.)
    public var toneMapping: ToneMapping?
    /// The decoder's threads (0: libavcodec's choice). A smart cut decodes with one: its encoder
    /// keeps the cores busy, and each frame thread holds pictures of its own.
    var decoderThreadCount = 0

    /// The decoder threads of pictures an encoder takes (export): half the machine's cores, at
    /// least one. The encoder's frame threads keep the cores busy, and libavcodec's own choice
    /// (cores + 1) holds a set of pictures per thread for no gain in time: 20 s of 1080p to 720p
    /// on 2 cores took 313 MB with three, 292 MB with one, in the same time, to the same bytes.
    static var decoderThreadsBesideEncoder: Int { max(1, ProcessInfo.processInfo.activeProcessorCount / 2) }

    /// How a picture fills an exact `size` (AVFoundation's `AVVideoScalingMode…`).
    public enum ScalingMode: Sendable, Hashable {
        /// Fitted inside with its aspect ratio, centred, black bars around (letterbox or pillarbox).
        case resizeAspect
        /// Stretched to the size.
        case resize
    }

    /// Settings with these values; what is nil keeps the source's.
    public init(pixelFormat: PixelBuffer.PixelFormat = .yuv420p, maximumWidth: Int? = nil, maximumHeight: Int? = nil,
                size: Dimensions? = nil, scalingMode: ScalingMode = .resizeAspect, frameRate: Double? = nil,
                toneMapping: ToneMapping? = nil) {
        self.size = size
        self.toneMapping = toneMapping
        self.frameRate = frameRate
        self.scalingMode = scalingMode
        self.pixelFormat = pixelFormat
        self.maximumWidth = maximumWidth
        self.maximumHeight = maximumHeight
    }

    /// The output size for a `width`×`height` source.
    func size(forSource width: Int, _ height: Int) -> (width: Int, height: Int) {
        guard width > 0, height > 0 else { return (width, height) }
        let scale = min(1, Double(maximumWidth ?? width) / Double(width), Double(maximumHeight ?? height) / Double(height))
        func even(_ v: Double) -> Int { max(2, ((v / 2).rounded(saturating: Int.self) ?? 1) * 2) }
        if scale >= 1 { return pixelFormat.isSubsampled420 ? (width + width % 2, height + height % 2) : (width, height) }
        return (even(Double(width) * scale), even(Double(height) * scale))
    }
}
