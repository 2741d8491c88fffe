import MediaCore

/// Opus in ISO-BMFF (Encapsulation of Opus in ISO Base Media File Format §4.3.2): the `dOps`
/// box, and the `OpusHead` (RFC 7845 §5.1) that FFmpeg and Matroska keep instead. The two hold
/// the same fields, little-endian in `OpusHead` and big-endian in `dOps`.
struct OpusConfiguration {
    /// The `OpusHead` bytes.
    var head: [UInt8]
    /// Samples (at 48 kHz) to drop at the start.
    var preSkip: Int

    /// Reads a `dOps` payload; nil when it is too short.
    init?(dOps d: [UInt8]) {
        var r = ByteReader(d, path: "dOps")
        guard (try? r.u8()) != nil, let channels = try? r.u8(), let skip = try? r.u16(),
              let rate = try? r.u32(), let gain = try? r.u16(), let family = try? r.u8() else { return nil }
        var h = Array("OpusHead".utf8)
        h += [1, channels, UInt8(truncatingIfNeeded: skip & 0xFF), UInt8(truncatingIfNeeded: skip >> 8)]
        h += [UInt8(truncatingIfNeeded: rate & 0xFF), UInt8(truncatingIfNeeded: rate >> 8 & 0xFF), UInt8(truncatingIfNeeded: rate >> 16 & 0xFF), UInt8(truncatingIfNeeded: rate >> 24)]
        h += [UInt8(truncatingIfNeeded: gain & 0xFF), UInt8(truncatingIfNeeded: gain >> 8), family]
        if family != 0 { h += r.rest() }       // the channel mapping table
        head = h
        preSkip = Int(widening: skip)
    }

    /// `dOps` from FFmpeg's `OpusHead` extradata, or — without one — for a mono or stereo stream.
    static func dOps(_ p: CodecParameters) throws -> [UInt8] {
        let h = p.extradata
        var w = BoxWriter()
        if h.count >= 19, h.starts(with: Array("OpusHead".utf8)) {
            let family = h[18]
            w.box("dOps") { w in
                w.u8(0); w.u8(h[9])
                w.u16(UInt16(widening: h[10]) | UInt16(widening: h[11]) << 8)
                w.u32(UInt32(widening: h[12]) | UInt32(widening: h[13]) << 8 | UInt32(widening: h[14]) << 16 | UInt32(widening: h[15]) << 24)
                w.u16(UInt16(widening: h[16]) | UInt16(widening: h[17]) << 8)
                w.u8(family)
                if family != 0 {
                    let n = 2 + Int(widening: h[9])
                    if h.count >= 19 + n { w.append(h[19..<(19 + n)]) }
                }
            }
        } else {
            guard p.channelCount <= 2 else { throw MediaError(.invalidData, "Opus stream with \(p.channelCount) channels and no OpusHead") }
            w.box("dOps") { w in
                w.u8(0); w.u8(UInt8(clamping: max(1, p.channelCount)))
                w.u16(UInt16(clamping: p.initialPadding)); w.u32(48000); w.u16(0); w.u8(0)
            }
        }
        return w.bytes
    }
}
