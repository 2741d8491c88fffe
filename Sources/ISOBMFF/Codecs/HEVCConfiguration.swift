import MediaCore

/// `HEVCDecoderConfigurationRecord` (ISO/IEC 14496-15 §8.3.3): read from a record
/// (`init(record:)`, in `DecoderConfiguration.swift`) or built from VPS, SPS and PPS NAL units.
public struct HEVCConfiguration: Sendable {
    /// The record's bytes.
    public let record: [UInt8]
    /// Its NAL length size and parameter sets.
    public let nal: NALConfiguration

    static func record(fromAnnexB b: [UInt8]) throws -> [UInt8] {
        let units = AnnexB.nalUnits(b).filter { $0.count >= 2 }
        func ofType(_ t: UInt8) -> [ArraySlice<UInt8>] { units.filter { ($0.first! >> 1) & 0x3F == t } }
        let vps = ofType(32), sps = ofType(33), pps = ofType(34)
        guard let first = sps.first, !vps.isEmpty, !pps.isEmpty else {
            throw MediaError(.invalidData, "HEVC stream without VPS, SPS and PPS before its first frame")
        }
        var r = BitReader(rbsp: first.dropFirst(2))
        r.skip(4)                                   // sps_video_parameter_set_id
        let maxSubLayersMinus1 = Int(widening: r.bits(3))
        let temporalIdNested = r.bit()
        // profile_tier_level(1, maxSubLayersMinus1): the general part is copied whole (12 bytes).
        var general: [UInt8] = []
        for _ in 0..<12 { general.append(UInt8(truncatingIfNeeded: r.bits(8))) }
        var subProfile = [Bool](), subLevel = [Bool]()
        for _ in 0..<maxSubLayersMinus1 { subProfile.append(r.flag()); subLevel.append(r.flag()) }
        if maxSubLayersMinus1 > 0 { for _ in maxSubLayersMinus1..<8 { r.skip(2) } }
        for i in 0..<maxSubLayersMinus1 {
            if subProfile[i] { r.skip(88) }
            if subLevel[i] { r.skip(8) }
        }
        _ = r.ue()                                  // sps_seq_parameter_set_id
        let chromaFormat = r.ue()
        if chromaFormat == 3 { r.skip(1) }
        _ = r.ue(); _ = r.ue()                      // picture size
        if r.flag() { for _ in 0..<4 { _ = r.ue() } }
        // Exp-Golomb values from the file can be near 2^32: add in Int.
        let lumaDepth = Int(widening: r.ue()) + 8, chromaDepth = Int(widening: r.ue()) + 8
        guard !r.isOverrun, chromaFormat <= 3, lumaDepth <= 16, chromaDepth <= 16 else {
            throw MediaError(.invalidData, "HEVC sequence parameter set cannot be read")
        }
        var w = BoxWriter()
        w.u8(1)
        w.append(general)                           // profile space/tier/idc, compatibility, constraints, level
        w.u16(0xF000)                               // min_spatial_segmentation_idc 0
        w.u8(0xFC)                                  // parallelismType 0
        w.u8(0xFC | UInt8(truncatingIfNeeded: chromaFormat))
        w.u8(0xF8 | UInt8(truncatingIfNeeded: lumaDepth - 8))
        w.u8(0xF8 | UInt8(truncatingIfNeeded: chromaDepth - 8))
        w.u16(0)                                    // avgFrameRate
        w.u8(UInt8(truncatingIfNeeded: (maxSubLayersMinus1 + 1) << 3) | UInt8(truncatingIfNeeded: temporalIdNested << 2) | 3)
        let arrays: [(UInt8, [ArraySlice<UInt8>])] = [(32, vps), (33, sps), (34, pps)]
        w.u8(UInt8(truncatingIfNeeded: arrays.count))
        for (type, list) in arrays {
            w.u8(0x80 | type)                       // array_completeness: all in the entry
            w.u16(UInt16(truncatingIfNeeded: min(list.count, 0xFFFF)))
            for u in list { w.u16(UInt16(clamping: u.count)); w.append(u) }
        }
        return w.bytes
    }
}

