/// An ADTS header (ISO/IEC 13818-7 / 14496-3 §1.A.2): the framing AAC carries in MPEG-TS and
/// raw `.aac` files, and the AudioSpecificConfig it implies.
public struct ADTSHeader: Sendable {
    /// The profile field: the AAC audio object type minus one (1: AAC LC).
    public var profile: UInt8
    /// The sampling frequency index (0…12; 4: 44100 Hz, 3: 48000 Hz).
    public var samplingIndex: UInt8
    /// The channel configuration (1: mono, 2: stereo, 0: given by a program config element).
    public var channelConfiguration: UInt8
    /// The header's length in bytes: 7, or 9 with a CRC.
    public var headerLength: Int

    static let rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    /// Reads the header at the start of `b`; nil when `b` does not start with one.
    public init?(_ b: [UInt8]) {
        guard b.count >= 7, b[0] == 0xFF, b[1] & 0xF6 == 0xF0 else { return nil }
        profile = b[2] >> 6
        samplingIndex = (b[2] >> 2) & 0xF
        channelConfiguration = (b[2] & 1) << 2 | b[3] >> 6
        headerLength = b[1] & 1 == 1 ? 7 : 9
        guard samplingIndex < 13, b.count >= headerLength else { return nil }
    }

    /// The sampling frequency in Hz that `samplingIndex` stands for.
    public var sampleRate: Int { ADTSHeader.rates[Int(widening: samplingIndex)] }

    /// The two-byte AudioSpecificConfig: object type (profile + 1), sampling index, channels.
    public var audioSpecificConfig: [UInt8] {
        let aot = profile + 1
        return [aot << 3 | samplingIndex >> 1, (samplingIndex & 1) << 7 | channelConfiguration << 3]
    }
}
