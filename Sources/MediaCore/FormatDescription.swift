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
    /// The fields live in one shared, immutable-once-shared box, so that passing a
    /// description along with every sample costs one reference count.
    private final class Storage: @unchecked Sendable {
        var mediaType: MediaType
        var codec: FourCC
        var codecName: String?
        var dimensions: Dimensions?
        var sampleRate: Double?
        var channelCount: Int?
        var sampleEntry: Data?
        var codecConfiguration: Data?

        init(mediaType: MediaType, codec: FourCC, codecName: String?, dimensions: Dimensions?, sampleRate: Double?,
             channelCount: Int?, sampleEntry: Data?, codecConfiguration: Data?) {
            self.mediaType = mediaType
            self.codec = codec
            self.codecName = codecName
            self.dimensions = dimensions
            self.sampleRate = sampleRate
            self.channelCount = channelCount
            self.sampleEntry = sampleEntry
            self.codecConfiguration = codecConfiguration
        }

        func copy() -> Storage {
            Storage(mediaType: mediaType, codec: codec, codecName: codecName, dimensions: dimensions,
                    sampleRate: sampleRate, channelCount: channelCount, sampleEntry: sampleEntry,
                    codecConfiguration: codecConfiguration)
        }
    }

    private var storage: Storage

    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    public var mediaType: MediaType {
        get { storage.mediaType }
        set { unique().mediaType = newValue }
    }
    /// The sample-entry type (`avc1`, `mp4a`, `tx3g`, …), or a code derived from the codec for other containers.
    public var codec: FourCC {
        get { storage.codec }
        set { unique().codec = newValue }
    }
    /// FFmpeg's codec name (`h264`, `aac`, `subrip`) when known.
    public var codecName: String? {
        get { storage.codecName }
        set { unique().codecName = newValue }
    }
    public var dimensions: Dimensions? {
        get { storage.dimensions }
        set { unique().dimensions = newValue }
    }
    public var sampleRate: Double? {
        get { storage.sampleRate }
        set { unique().sampleRate = newValue }
    }
    public var channelCount: Int? {
        get { storage.channelCount }
        set { unique().channelCount = newValue }
    }
    /// The complete sample-entry box (header included), byte-exact, when read from ISO-BMFF.
    public var sampleEntry: Data? {
        get { storage.sampleEntry }
        set { unique().sampleEntry = newValue }
    }
    /// Codec configuration bytes (FFmpeg `extradata`) for sources outside ISO-BMFF.
    public var codecConfiguration: Data? {
        get { storage.codecConfiguration }
        set { unique().codecConfiguration = newValue }
    }

    public init(mediaType: MediaType, codec: FourCC, codecName: String? = nil,
                dimensions: Dimensions? = nil, sampleRate: Double? = nil, channelCount: Int? = nil,
                sampleEntry: Data? = nil, codecConfiguration: Data? = nil) {
        storage = Storage(mediaType: mediaType, codec: codec, codecName: codecName, dimensions: dimensions,
                          sampleRate: sampleRate, channelCount: channelCount, sampleEntry: sampleEntry,
                          codecConfiguration: codecConfiguration)
    }

    public static func == (a: FormatDescription, b: FormatDescription) -> Bool {
        if a.storage === b.storage { return true }
        return a.mediaType == b.mediaType && a.codec == b.codec && a.codecName == b.codecName
            && a.dimensions == b.dimensions && a.sampleRate == b.sampleRate && a.channelCount == b.channelCount
            && a.sampleEntry == b.sampleEntry && a.codecConfiguration == b.codecConfiguration
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(mediaType)
        hasher.combine(codec)
        hasher.combine(codecName)
        hasher.combine(sampleEntry)
    }
}
