/// What copying and cutting a sound codec's packets must know of it, in one place: the samples
/// a packet holds, the packets a decoder needs before a cut, whether it is lossless, and the
/// rate it is coded at. Plain data (no FFmpeg is loaded to read it); `CodecFactsTests` checks
/// each row against libavcodec's own answers (its encoders' frame sizes, its descriptors'
/// lossless property, what its decoders output).
///
/// ```swift
/// let frame = CodecFacts.of("aac")?.frameSamples   // 1024
/// ```
public struct CodecFacts: Sendable, Hashable {
    /// FFmpeg's codec name (`aac`, `opus`).
    public let codecName: String
    /// Samples per channel in each packet its encoder makes (AAC 1024; Opus 960: 20 ms at
    /// 48 kHz, libopus's default); nil when they vary (FLAC's encoder picks per stream).
    public let frameSamples: Int?
    /// Packets before a cut that its decoder needs to decode the first one right (ISO/IEC
    /// 14496-12's roll distance): AAC's overlapped transform needs the one before.
    public let prerollPackets: Int
    /// Whether decoding gives back exactly what was encoded.
    public let isLossless: Bool
    /// The one rate it is coded at (Opus: 48 kHz, RFC 7845 §4), nil when it takes the source's.
    public let sampleRate: Int?

    /// Every row, by codec name.
    public static let rows: [String: CodecFacts] = Dictionary(uniqueKeysWithValues: [
        CodecFacts("aac", frameSamples: 1024, prerollPackets: 1),
        CodecFacts("opus", frameSamples: 960, sampleRate: 48000),
        CodecFacts("mp3", frameSamples: 1152),
        CodecFacts("flac", frameSamples: nil, isLossless: true),
        CodecFacts("alac", frameSamples: 4096, isLossless: true),
    ].map { ($0.codecName, $0) })

    /// AAC's row (the codec smart cut joins).
    public static let aac = rows["aac"]!

    /// The row of `codecName`, nil for a codec without one.
    public static func of(_ codecName: String) -> CodecFacts? { rows[codecName] }

    private init(_ name: String, frameSamples: Int?, prerollPackets: Int = 0, isLossless: Bool = false, sampleRate: Int? = nil) {
        codecName = name
        self.frameSamples = frameSamples
        self.prerollPackets = prerollPackets
        self.isLossless = isLossless
        self.sampleRate = sampleRate
    }
}
