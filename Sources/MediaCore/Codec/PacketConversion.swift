/// How a packet's bytes must change to become a sample of its ISO sample entry: the framing
/// some containers add (start codes, ADTS headers) that MP4 keeps in the sample entry instead.
///
/// Pure Swift, so that both the libavformat reader (FFmpegBridge) and the ISO codec mapping
/// use one implementation.
public enum PacketConversion: Sendable, Hashable {
    /// The packet is the sample as it is.
    case none
    /// H.264/HEVC with start codes (MPEG-TS, raw streams) → 4-byte NAL unit lengths.
    case annexBToLengthPrefixed
    /// AAC with ADTS headers (MPEG-TS, raw `.aac`) → raw access units.
    case stripADTS

    /// The sample `packet` becomes: its bytes converted, or the packet itself for `none`.
    public func apply(_ packet: [UInt8]) -> [UInt8] {
        switch self {
        case .none: packet
        case .annexBToLengthPrefixed: AnnexB.lengthPrefixed(packet)
        case .stripADTS: ADTSHeader(packet).map { Array(packet[$0.headerLength...]) } ?? packet
        }
    }
}
