import Foundation

/// How a track's samples are encoded: the codec and its parameters (`CodecParameters`), the
/// sample-entry type, and — when the samples have one — the complete ISO sample entry, which
/// a writer copies unchanged so that nothing is lost.
///
/// Passed along with every sample, so it is one shared reference behind a value: copying a
/// description costs a reference count; changing one copies it first.
public struct FormatDescription: Sendable, Hashable {
    private final class Storage: @unchecked Sendable {   // copied before a change (copy on write): never changed once shared
        var parameters: CodecParameters
        var codec: FourCC
        var sampleEntry: Data?

        init(parameters: CodecParameters, codec: FourCC, sampleEntry: Data?) {
            self.parameters = parameters
            self.codec = codec
            self.sampleEntry = sampleEntry
        }

        func copy() -> Storage { Storage(parameters: parameters, codec: codec, sampleEntry: sampleEntry) }
    }

    private var storage: Storage

    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// The codec and its parameters.
    public var parameters: CodecParameters {
        get { storage.parameters }
        set { unique().parameters = newValue }
    }
    /// The sample-entry type (`avc1`, `mp4a`, `tx3g`, …), or a code derived from the codec for
    /// samples that have no sample entry.
    public var codec: FourCC {
        get { storage.codec }
        set { unique().codec = newValue }
    }
    /// The complete sample-entry box (header included), byte-exact, when the samples have one.
    public var sampleEntry: Data? {
        get { storage.sampleEntry }
        set { unique().sampleEntry = newValue }
    }

    /// What the samples carry: video, audio, text…
    public var mediaType: MediaType {
        get { storage.parameters.mediaType }
        set { unique().parameters.mediaType = newValue }
    }
    /// FFmpeg's codec name (`h264`, `aac`, `subrip`) when known.
    public var codecName: String? {
        get { storage.parameters.codecName.isEmpty ? nil : storage.parameters.codecName }
        set { unique().parameters.codecName = newValue ?? "" }
    }
    /// Video: the coded picture size, when known.
    public var dimensions: Dimensions? {
        get { storage.parameters.dimensions }
        set {
            unique().parameters.width = newValue?.width ?? 0
            storage.parameters.height = newValue?.height ?? 0
        }
    }
    /// Audio: samples per second as the codec configuration says (the AudioSpecificConfig's, for AAC), when known.
    public var sampleRate: Double? {
        get { storage.parameters.sampleRate > 0 ? Double(storage.parameters.sampleRate) : nil }
        set { unique().parameters.sampleRate = newValue.map { $0.rounded(saturating: Int.self) ?? 0 } ?? 0 }
    }
    /// Audio: the channels a decoder puts out (the AudioSpecificConfig's, for AAC: 1 for mono whatever the sample entry's field says), when known.
    public var channelCount: Int? {
        get { storage.parameters.channelCount > 0 ? storage.parameters.channelCount : nil }
        set { unique().parameters.channelCount = newValue ?? 0 }
    }
    /// Codec configuration bytes (FFmpeg `extradata`), when there are any.
    public var codecConfiguration: Data? {
        get { storage.parameters.extradata.isEmpty ? nil : Data(storage.parameters.extradata) }
        set { unique().parameters.extradata = newValue.map { [UInt8]($0) } ?? [] }
    }

    /// A description of samples with `parameters`; `codec` defaults to the first four letters of
    /// FFmpeg's codec name.
    public init(parameters: CodecParameters, codec: FourCC? = nil, sampleEntry: Data? = nil) {
        storage = Storage(parameters: parameters, codec: codec ?? FourCC(String(parameters.codecName.prefix(4))),
                          sampleEntry: sampleEntry)
    }

    /// A description from its parts; what is not given is unknown.
    public init(mediaType: MediaType, codec: FourCC, codecName: String? = nil,
                dimensions: Dimensions? = nil, sampleRate: Double? = nil, channelCount: Int? = nil,
                sampleEntry: Data? = nil, codecConfiguration: Data? = nil) {
        var p = CodecParameters(mediaType: mediaType, codecName: codecName ?? "")
        p.width = dimensions?.width ?? 0
        p.height = dimensions?.height ?? 0
        p.sampleRate = sampleRate.map { $0.rounded(saturating: Int.self) ?? 0 } ?? 0
        p.channelCount = channelCount ?? 0
        p.extradata = codecConfiguration.map { [UInt8]($0) } ?? []
        storage = Storage(parameters: p, codec: codec, sampleEntry: sampleEntry)
    }

    public static func == (a: FormatDescription, b: FormatDescription) -> Bool {
        if a.storage === b.storage { return true }
        return a.codec == b.codec && a.sampleEntry == b.sampleEntry && a.parameters == b.parameters
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(mediaType)
        hasher.combine(codec)
        hasher.combine(storage.parameters.codecName)
        hasher.combine(sampleEntry)
    }
}
