import MediaCore

/// A codec's decoder configuration record as its ISO box holds it (`avcC`, `hvcC`, `av1C`):
/// one type reads a record and writes one. Nothing outside ISOBMFF reads these bytes; other
/// layers ask `CodecParameters.configuration`.
public protocol DecoderConfiguration: Sendable {
    /// Reads a record (the box's payload, as FFmpeg's `extradata` holds it); nil when it is not
    /// one or cannot be read (every length checked against the bytes there).
    init?(record: [UInt8])
    /// The record's bytes.
    var record: [UInt8] { get }
    /// Bits per picture component, when the record says.
    var bitDepth: Int? { get }
    /// The profile by name (`High`, `Main 10`), when the record says.
    var profileName: String? { get }
}

extension CodecParameters {
    /// The decoder configuration record in `extradata`, read by its codec's registry entry; nil
    /// for codecs without one or extradata that is not one (Annex B, OBUs).
    public var configuration: (any DecoderConfiguration)? {
        CodecRegistry.entry(named: codecName)?.configuration?.init(record: extradata)
    }
}

extension AVCConfiguration: DecoderConfiguration {
    /// `AVCDecoderConfigurationRecord` (ISO/IEC 14496-15 §5.3.3.1): version 1, profile,
    /// compatibility, level, NAL length size, SPSs, PPSs, and for the High profiles chroma format
    /// and bit depths.
    public init?(record: [UInt8]) {
        guard let nal = NALConfiguration(avcC: record) else { return nil }
        self.record = record
        self.nal = nal
    }

    public var profile: Int { Int(widening: record[1]) }

    public var bitDepth: Int? {
        // By profile: High 10, High 4:2:2 and High 4:4:4 are coded at 10 bits here (encoders
        // write no deeper H.264), the others at 8.
        [110, 122, 244].contains(profile) ? 10 : 8
    }

    public var profileName: String? {
        let names = [66: "Baseline", 77: "Main", 88: "Extended", 100: "High", 110: "High 10", 122: "High 4:2:2", 244: "High 4:4:4 Predictive"]
        return names[profile] ?? "profile \(profile)"
    }
}

extension HEVCConfiguration: DecoderConfiguration {
    /// `HEVCDecoderConfigurationRecord` (ISO/IEC 14496-15 §8.3.3.1).
    public init?(record: [UInt8]) {
        guard let nal = NALConfiguration(hvcC: record) else { return nil }
        self.record = record
        self.nal = nal
    }

    /// general_profile_idc.
    public var profile: Int { Int(widening: record[1] & 0x1F) }

    /// bitDepthLumaMinus8 (byte 17, after profile, level, segmentation, parallelism and chroma format) + 8.
    public var bitDepth: Int? { Int(widening: record[17] & 7) + 8 }

    public var profileName: String? {
        let names = [1: "Main", 2: "Main 10", 3: "Main Still Picture", 4: "Range Extensions"]
        return names[profile] ?? "profile \(profile)"
    }
}

extension AV1Configuration: DecoderConfiguration {
    public var bitDepth: Int? { record[2] & 0x40 == 0 ? 8 : record[2] & 0x20 == 0 ? 10 : 12 }

    public var profileName: String? { ["Main", "High", "Professional"][safe: Int(widening: record[1] >> 5)] }
}

private extension Array {
    subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
