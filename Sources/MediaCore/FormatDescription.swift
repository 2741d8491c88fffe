import Foundation

/// The pixel size of video or of a text box.
public struct Dimensions: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public var description: String { "\(width)x\(height)" }
}

/// How a track's samples are encoded: the media type, the codec, its basic
/// parameters, and — when the source is ISO-BMFF — the original sample-entry
/// bytes, which a writer copies unchanged so that nothing is lost.
public struct FormatDescription: Sendable, Hashable {
    public var mediaType: MediaType
    /// The sample-entry type (`avc1`, `mp4a`, `tx3g`, …), or a code derived from the codec for other containers.
    public var codec: FourCC
    /// FFmpeg's codec name (`h264`, `aac`, `subrip`) when known.
    public var codecName: String?
    public var dimensions: Dimensions?
    public var sampleRate: Double?
    public var channelCount: Int?
    /// The complete sample-entry box (header included), byte-exact, when read from ISO-BMFF.
    public var sampleEntry: Data?
    /// Codec configuration bytes (FFmpeg `extradata`) for sources outside ISO-BMFF.
    public var codecConfiguration: Data?

    public init(mediaType: MediaType, codec: FourCC, codecName: String? = nil,
                dimensions: Dimensions? = nil, sampleRate: Double? = nil, channelCount: Int? = nil,
                sampleEntry: Data? = nil, codecConfiguration: Data? = nil) {
        self.mediaType = mediaType
        self.codec = codec
        self.codecName = codecName
        self.dimensions = dimensions
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.sampleEntry = sampleEntry
        self.codecConfiguration = codecConfiguration
    }
}
