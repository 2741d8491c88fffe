/// HDR10+ dynamic metadata (SMPTE ST 2094-40) as HEVC and Matroska carry it: an ITU-T T.35
/// message — country 0xB5, provider 0x003C, provider-oriented code 0x0001, application 4 —
/// in a prefix SEI NAL unit in the stream, or as a Matroska block addition.
public enum HDR10Plus {
    /// The T.35 header every HDR10+ message starts with (country, provider, oriented code, application).
    static let header: [UInt8] = [0xB5, 0x00, 0x3C, 0x00, 0x01, 0x04]

    /// Whether `t35` is an HDR10+ message.
    public static func isHDR10Plus(_ t35: some Collection<UInt8>) -> Bool { t35.starts(with: header) }

    /// An HEVC prefix SEI NAL unit (type 39) holding `t35` as its one
    /// `user_data_registered_itu_t_t35` message (payload type 4), emulation-prevented, behind a
    /// big-endian length of `lengthSize` bytes (1, 2 or 4, the `hvcC`'s); nil when `t35` is
    /// longer than that length can say.
    public static func hevcSEI(_ t35: [UInt8], lengthSize: Int) -> [UInt8]? {
        var rbsp: [UInt8] = [4]
        var size = t35.count
        while size >= 255 {
            rbsp.append(0xFF)
            size -= 255
        }
        rbsp.append(UInt8(truncatingIfNeeded: size))   // lint: checked (< 255)
        rbsp += t35
        rbsp.append(0x80)                               // rbsp_trailing_bits
        var nal: [UInt8] = [39 << 1, 1]
        var zeros = 0
        for b in rbsp {
            if zeros >= 2, b <= 3 {
                nal.append(3)
                zeros = 0
            }
            nal.append(b)
            zeros = b == 0 ? zeros + 1 : 0
        }
        guard [1, 2, 4].contains(lengthSize), nal.count < 1 << (8 * lengthSize - 1) else { return nil }
        return (0..<lengthSize).reversed().map { UInt8(truncatingIfNeeded: nal.count >> (8 * $0)) } + nal
    }
}

/// The HDR metadata an HEVC sample carries in its prefix SEI: HDR10+ (T.35), the mastering
/// display (payload 137) and the content light level (payload 144).
public struct HEVCSEIMetadata: Sendable, Hashable {
    /// An HDR10+ message was found.
    public var hasHDR10Plus = false
    /// The mastering display colour volume SEI, if any.
    public var masteringDisplay: MasteringDisplay?
    /// The content light level SEI, if any.
    public var contentLightLevel: ContentLightLevel?

    /// Scans `sample` (NAL units behind big-endian lengths of `lengthSize` bytes); what cannot be
    /// read is skipped (the sample is untrusted: every length is checked against what is left).
    public init(sample: [UInt8], lengthSize: Int) {
        guard (1...4).contains(lengthSize) else { return }
        var at = 0
        while at + lengthSize < sample.count {
            let length = sample[at..<(at + lengthSize)].reduce(0) { $0 << 8 | Int(widening: $1) }
            at += lengthSize
            guard length >= 2, length <= sample.count - at else { return }
            let nal = sample[at..<(at + length)]
            at += length
            guard (nal[nal.startIndex] >> 1) & 0x3F == 39 else { continue }   // prefix SEI
            readMessages(HEVCSEIMetadata.unescaped(nal.dropFirst(2)))
        }
    }

    /// The RBSP of a NAL unit's payload: every emulation-prevention byte (00 00 03) removed.
    static func unescaped(_ b: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var zeros = 0
        for byte in b {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    private mutating func readMessages(_ rbsp: [UInt8]) {
        var at = 0
        func coded() -> Int? {   // payloadType / payloadSize: 0xFF bytes adding 255, then the last
            var value = 0
            while at < rbsp.count {
                let b = rbsp[at]
                at += 1
                value += Int(widening: b)
                if b != 0xFF { return value }
                if value > 1 << 20 { return nil }
            }
            return nil
        }
        // (messages until only rbsp_trailing_bits are left)
        while at + 1 < rbsp.count {
            guard let type = coded(), let size = coded(), size <= rbsp.count - at else { return }
            let payload = Array(rbsp[at..<(at + size)])
            at += size
            switch type {
            case 4 where HDR10Plus.isHDR10Plus(payload): hasHDR10Plus = true
            case 137: masteringDisplay = MasteringDisplay(mdcvPayload: payload)
            case 144: contentLightLevel = ContentLightLevel(clliPayload: payload)
            default: break
            }
        }
    }
}
