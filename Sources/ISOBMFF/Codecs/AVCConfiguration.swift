import MediaCore

/// `AVCDecoderConfigurationRecord` (ISO/IEC 14496-15 §5.3.3): read from a record
/// (`init(record:)`, in `DecoderConfiguration.swift`) or built from SPS and PPS NAL units.
public struct AVCConfiguration: Sendable {
    /// The record's bytes.
    public let record: [UInt8]
    /// Its NAL length size and parameter sets.
    public let nal: NALConfiguration

    /// The record for a stream whose first NAL units (Annex B) hold its SPS and PPS.
    static func record(fromAnnexB b: [UInt8]) throws -> [UInt8] {
        let units = AnnexB.nalUnits(b)
        let sps = units.filter { $0.first.map { $0 & 0x1F == 7 } ?? false }
        let pps = units.filter { $0.first.map { $0 & 0x1F == 8 } ?? false }
        guard let first = sps.first, first.count >= 4, !pps.isEmpty else {
            throw MediaError(.invalidData, "H.264 stream without SPS and PPS before its first frame")
        }
        var w = BoxWriter()
        w.u8(1)
        w.append(first[(first.startIndex + 1)...(first.startIndex + 3)])   // profile, compatibility, level
        w.u8(0xFF)                                                          // 4-byte NAL lengths
        w.u8(0xE0 | UInt8(truncatingIfNeeded: min(31, sps.count)))
        for s in sps.prefix(31) { w.u16(UInt16(clamping: s.count)); w.append(s) }
        w.u8(UInt8(truncatingIfNeeded: min(255, pps.count)))
        for p in pps.prefix(255) { w.u16(UInt16(clamping: p.count)); w.append(p) }
        return w.bytes
    }
}
