import MediaCore

/// AC-3 and E-AC-3 frame headers (ETSI TS 102 366) and the boxes made from them.
enum AC3Header {
    static let rates: [UInt32] = [48000, 44100, 32000]
    static let bitRates: [UInt32] = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 576, 640]

    /// `dac3` from an AC-3 frame.
    static func dac3(_ frame: [UInt8]) throws -> [UInt8] {
        guard frame.count >= 7, frame[0] == 0x0B, frame[1] == 0x77 else {
            throw MediaError(.invalidData, "AC-3 stream does not start with a sync frame")
        }
        var r = BitReader(Array(frame[4...]))
        let fscod = r.bits(2), frmsizecod = r.bits(6)
        let bsid = r.bits(5), bsmod = r.bits(3), acmod = r.bits(3)
        if acmod & 1 != 0 && acmod != 1 { r.skip(2) }
        if acmod & 4 != 0 { r.skip(2) }
        if acmod == 2 { r.skip(2) }
        let lfeon = r.bit()
        guard fscod < 3, frmsizecod < 38, !r.isOverrun else { throw MediaError(.invalidData, "AC-3 frame header cannot be read") }
        var w = BoxWriter()
        w.box("dac3") { w in
            let v = fscod << 22 | bsid << 17 | bsmod << 14 | acmod << 11 | lfeon << 10 | (frmsizecod >> 1) << 5
            w.u24(v)
        }
        return w.bytes
    }

    /// `dec3` from the first E-AC-3 frame (one independent substream; dependent substreams are
    /// not described).
    static func dec3(_ frame: [UInt8]) throws -> [UInt8] {
        guard frame.count >= 6, frame[0] == 0x0B, frame[1] == 0x77 else {
            throw MediaError(.invalidData, "E-AC-3 stream does not start with a sync frame")
        }
        var r = BitReader(Array(frame[2...]))
        r.skip(2 + 3)                               // strmtyp, substreamid
        let frmsiz = r.bits(11)
        let fscod = r.bits(2)
        var rate: UInt32 = 48000, blocks: UInt32 = 6
        if fscod == 3 {
            let fscod2 = r.bits(2)
            guard fscod2 < 3 else { throw MediaError(.invalidData, "E-AC-3 frame header cannot be read") }
            rate = rates[Int(widening: fscod2)] / 2
        } else {
            rate = rates[Int(widening: fscod)]
            blocks = [1, 2, 3, 6][Int(widening: r.bits(2))]
        }
        let acmod = r.bits(3), lfeon = r.bit(), bsid = r.bits(5)
        guard !r.isOverrun else { throw MediaError(.invalidData, "E-AC-3 frame header cannot be read") }
        let frameBytes = (frmsiz + 1) * 2
        let dataRate = frameBytes * 8 * rate / (256 * blocks) / 1000
        var w = BoxWriter()
        w.box("dec3") { w in
            w.u16(UInt16(truncatingIfNeeded: min(dataRate, 0x1FFF)) << 3 | 0)  // data_rate, num_ind_sub - 1 = 0
            w.u8(UInt8(truncatingIfNeeded: (fscod == 3 ? 3 : fscod) << 6 | bsid << 1))  // fscod, bsid, reserved
            w.u8(UInt8(truncatingIfNeeded: acmod << 1 | lfeon))                 // asvc 0, bsmod 0, acmod, lfeon
            w.u8(0)                                         // reserved, num_dep_sub 0, reserved
        }
        return w.bytes
    }
}
