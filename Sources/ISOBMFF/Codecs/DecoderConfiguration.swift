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
    /// The chroma format as H.264 and HEVC number it (0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4),
    /// when the record says.
    var chromaFormat: Int? { get }
    /// The level as the codec numbers it (H.264's `level_idc`, 31 for 3.1; HEVC's
    /// `general_level_idc`, 93 for 3.1), when the record says.
    var level: Int? { get }
}

extension DecoderConfiguration {
    public var chromaFormat: Int? { nil }
    public var level: Int? { nil }
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

    public var level: Int? { Int(widening: record[3]) }

    /// The first SPS's chroma format, bit depth and lossless flag: the High profiles (100 and up,
    /// H.264 §7.3.2.1.1) code them after the SPS id; the others are 4:2:0 at 8 bits.
    var coding: (chromaFormat: Int, bitDepth: Int, lossless: Bool) {
        guard [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile),
              let sps = nal.parameterSets.first(where: { ($0.first ?? 0) & 0x1F == 7 }), sps.count > 4 else { return (1, 8, false) }
        var r = BitReader(rbsp: sps[4...])   // (after the NAL header, profile, constraints and level)
        _ = r.ue()                           // seq_parameter_set_id
        let chroma = Int(clamping: r.ue())
        if chroma == 3 { _ = r.flag() }      // separate_colour_plane_flag
        let depth = Int(clamping: r.ue()) + 8
        _ = r.ue()                           // bit_depth_chroma_minus8
        let lossless = r.flag()              // qpprime_y_zero_transform_bypass_flag
        return r.isOverrun ? (1, 8, false) : (min(chroma, 3), min(depth, 16), lossless)
    }

    public var chromaFormat: Int? { coding.chromaFormat }

    public var bitDepth: Int? { coding.bitDepth }

    /// Whether the stream may code blocks without transform or quantisation (High 4:4:4
    /// Predictive's `qpprime_y_zero_transform_bypass_flag`: x264's lossless mode).
    public var isLossless: Bool { coding.lossless }

    public var profileName: String? {
        let names = [66: "Baseline", 77: "Main", 88: "Extended", 100: "High", 110: "High 10", 122: "High 4:2:2", 244: "High 4:4:4 Predictive",
                     44: "CAVLC 4:4:4 Intra", 118: "Multiview High", 128: "Stereo High"]
        return names[profile] ?? "profile_idc \(profile)"
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

    /// chroma_format_idc (byte 16's low bits).
    public var chromaFormat: Int? { Int(widening: record[16] & 3) }

    /// general_level_idc (byte 12: 30 × the level).
    public var level: Int? { Int(widening: record[12]) }

    public var profileName: String? {
        let names = [1: "Main", 2: "Main 10", 3: "Main Still Picture"]
        if let name = names[profile] { return name }
        guard profile == 4 else { return "general_profile_idc \(profile)" }
        // Range extensions, named by what they code (as x265 and ffprobe name them).
        let chroma = [0: "Monochrome", 1: "", 2: " 4:2:2", 3: " 4:4:4"][chromaFormat ?? 1] ?? ""
        let depth = bitDepth ?? 8
        return chroma.isEmpty ? "Main \(depth)" : "Main\(chroma)" + (depth > 8 ? " \(depth)" : "")
    }
}

extension AV1Configuration: DecoderConfiguration {
    public var bitDepth: Int? { record[2] & 0x40 == 0 ? 8 : record[2] & 0x20 == 0 ? 10 : 12 }

    /// seq_profile (0 Main, 1 High, 2 Professional).
    public var profile: Int { Int(widening: record[1] >> 5) }

    /// From `mono_chrome` and the subsampling bits: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    public var chromaFormat: Int? {
        let b = record[2]
        if b & 0x10 != 0 { return 0 }
        switch (b & 0x08 != 0, b & 0x04 != 0) {
        case (true, true): return 1
        case (true, false): return 2
        default: return 3
        }
    }

    /// seq_level_idx (AV1 Annex A: 8 for level 4.0).
    public var level: Int? { Int(widening: record[1] & 0x1F) }

    public var profileName: String? { ["Main", "High", "Professional"][safe: Int(widening: record[1] >> 5)] }
}

private extension Array {
    subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
