import MediaCore

/// VP9 in ISO-BMFF (VP Codec ISO Media File Format Binding §2.2): the `vpcC` box.
enum VPCodecConfiguration {
    /// `vpcC` (VP Codec ISO Media File Format Binding, version 1), from the first key frame's
    /// uncompressed header and the stream's colour parameters.
    static func box(_ p: CodecParameters, keyFrame: [UInt8]) throws -> [UInt8] {
        var r = BitReader(keyFrame)
        var profile: UInt32 = 0, bitDepth: UInt32 = 8, subsampling: UInt32 = 1  // 4:2:0 colocated with luma
        var fullRange = p.isFullRange ?? false
        if r.bits(2) == 2 {                         // frame_marker
            profile = r.bit() | r.bit() << 1
            if profile == 3 { r.skip(1) }
            if !r.flag(), !r.flag() {              // not show_existing_frame; key frame
                r.skip(2)                          // show_frame, error_resilient_mode
                if r.bits(24) == 0x498342 {
                    if profile >= 2 { bitDepth = r.flag() ? 12 : 10 }
                    let colorSpace = r.bits(3)
                    if colorSpace != 7 {
                        fullRange = r.flag()
                        if profile == 1 || profile == 3 {
                            let x = r.bit(), y = r.bit()
                            subsampling = x == 1 && y == 1 ? 1 : x == 1 ? 2 : 3
                        }
                    } else {
                        fullRange = true
                        subsampling = 3
                    }
                }
            }
        }
        let samples = p.width * p.height
        let levels: [(Int, UInt8)] = [(36864, 10), (73728, 11), (122880, 20), (245760, 21), (552960, 30), (983040, 31),
                                      (2228224, 40), (8912896, 50), (35651584, 60)]
        let level = levels.first { samples <= $0.0 }?.1 ?? 62
        var w = BoxWriter()
        w.fullBox("vpcC", version: 1, flags: 0) { w in
            w.u8(UInt8(truncatingIfNeeded: profile)); w.u8(level)
            w.u8(UInt8(truncatingIfNeeded: bitDepth << 4 | subsampling << 1 | (fullRange ? 1 : 0)))
            w.u8(UInt8(clamping: p.colorPrimaries)); w.u8(UInt8(clamping: p.transferCharacteristics))
            w.u8(UInt8(clamping: p.matrixCoefficients))
            w.u16(0)
        }
        return w.bytes
    }
}
