import MediaCore

/// The fixed layouts of ISO/IEC 14496-12 sample entries (§12.1.3 VisualSampleEntry, §12.2.3
/// AudioSampleEntry), around the codec's configuration boxes.
public enum SampleEntryBuilder {
    /// A plain box of `type` around `payload`.
    static func box(_ type: FourCC, _ payload: [UInt8]) -> [UInt8] {
        var w = BoxWriter()
        w.box(type) { $0.append(payload) }
        return w.bytes
    }

    /// `entry` with `child` added after its other children (where movenc writes `btrt`: last).
    /// Nil when `entry` is not a box.
    public static func appending(_ child: [UInt8], to entry: [UInt8]) -> [UInt8]? {
        var r = ByteReader(entry, path: "sample entry")
        guard let header = try? BoxHeader.parse(&r, available: UInt64(clamping: entry.count), allowToEnd: false),
              r.position <= entry.count else { return nil }
        var w = BoxWriter()
        w.box(header.type) { w in
            w.append(entry[r.position...])
            w.append(child)
        }
        return w.bytes
    }

    /// A VisualSampleEntry of `type`, sized from `p`, with `children` (the configuration boxes).
    /// HEVC Dolby Vision without a base layer other decoders show (profile 5) is `dvh1`, as
    /// Dolby's ISO binding asks, so that those decoders do not show it wrongly.
    static func visual(_ type: FourCC, _ p: CodecParameters, _ children: [UInt8]) -> [UInt8] {
        var w = BoxWriter()
        let type: FourCC = type == "hvc1" && p.dolbyVision.map({ $0.compatibleBaseLayer == nil }) == true ? "dvh1" : type
        w.box(type) { w in
            w.zeros(6); w.u16(1)                      // reserved, data_reference_index
            w.zeros(16)                               // pre_defined, reserved
            w.u16(UInt16(clamping: p.width)); w.u16(UInt16(clamping: p.height))
            w.u32(0x0048_0000); w.u32(0x0048_0000)   // 72 dpi
            w.u32(0); w.u16(1)                        // reserved, frame_count
            w.zeros(32)                               // compressorname
            w.u16(0x18); w.i16(-1)                    // depth, pre_defined
            // The children in movenc's order (mov_write_video_tag): the codec's configuration,
            // colr, clli, mdcv, pasp (btrt, known only at the end, is added last: `appending`).
            w.append(children)
            w.append(colourBox(p))
            // HDR10 static metadata (ISO/IEC 23001-8 boxes, as QuickTime and FFmpeg read them).
            if let c = p.contentLightLevel { w.box("clli") { $0.append(c.clliPayload) } }
            if let m = p.masteringDisplay { w.box("mdcv") { $0.append(m.mdcvPayload) } }
            if let d = p.dolbyVision { w.box(d.boxType) { $0.append(d.record) } }
            if p.hasNonSquarePixels {
                // pasp (§12.1.4): hSpacing, vSpacing.
                w.box("pasp") { w in
                    w.u32(UInt32(clamping: p.sampleAspectRatio.numerator)); w.u32(UInt32(clamping: p.sampleAspectRatio.denominator))
                }
            }
        }
        return w.bytes
    }

    /// `colr` (nclx, §12.1.5) when `p` tags its colours (primaries, transfer or matrix other
    /// than unspecified, 2), else nothing.
    static func colourBox(_ p: CodecParameters) -> [UInt8] {
        guard [p.colorPrimaries, p.transferCharacteristics, p.matrixCoefficients].contains(where: { $0 != 2 }),
              [p.colorPrimaries, p.transferCharacteristics, p.matrixCoefficients].allSatisfy({ (0...255).contains($0) }) else { return [] }
        var w = BoxWriter()
        w.box("colr") { w in
            w.fourCC("nclx")
            w.u16(UInt16(clamping: p.colorPrimaries)); w.u16(UInt16(clamping: p.transferCharacteristics)); w.u16(UInt16(clamping: p.matrixCoefficients))
            w.u8(p.isFullRange == true ? 0x80 : 0)
        }
        return w.bytes
    }

    /// An AudioSampleEntry (version 0) of `type` with `p`'s channels and rate, and `children`.
    static func audio(_ type: FourCC, _ p: CodecParameters, _ children: [UInt8]) -> [UInt8] {
        var w = BoxWriter()
        w.box(type) { w in
            w.zeros(6); w.u16(1)
            w.zeros(8)
            w.u16(UInt16(clamping: max(1, p.channelCount))); w.u16(16)
            w.u32(0)
            // 16.16 fixed point; rates above 65535 Hz do not fit and are written as 0.
            w.u32((0...0xFFFF).contains(p.sampleRate) ? UInt32(truncatingIfNeeded: p.sampleRate) << 16 : 0)
            w.append(children)
        }
        return w.bytes
    }
}

extension CodecMapping {
    /// An `mp4a` entry (version 0, as ISO files have it) as QuickTime writes AAC in a MOV: a
    /// version 1 sound description (QTFF, "Sound Sample Description (Version 1)": compression
    /// ID -2, 1024 samples per packet), its `esds` inside `wave` after `frma` and `mp4a`, ended
    /// by a terminator, and a `chan` layout for mono and stereo. Nil for any other entry.
    public static func quickTimeSoundEntry(_ entry: [UInt8]) -> [UInt8]? {
        guard entry.count >= 36, Array(entry[4..<8]) == Array("mp4a".utf8), entry[16] == 0, entry[17] == 0,
              let children = sampleEntryChildren(entry, mediaType: .audio),
              let esds = children.first(where: { $0.type == "esds" }) else { return nil }
        let channels = UInt16(widening: entry[24]) << 8 | UInt16(widening: entry[25])
        let rate = entry[32..<36]
        var w = BoxWriter()
        w.box("mp4a") { w in
            w.zeros(6); w.u16(1)
            w.u16(1); w.u16(0); w.u32(0)                  // version 1, revision, vendor
            w.u16(channels); w.u16(16)
            w.u16(0xFFFE); w.u16(0)                       // compression ID -2 (compressed), packet size
            w.append(Array(rate))
            w.u32(1024); w.u32(0); w.u32(0); w.u32(2)     // samples per packet, bytes per packet/frame/sample
            w.box("wave") { w in
                w.box("frma") { $0.fourCC("mp4a") }
                w.box("mp4a") { $0.u32(0) }
                w.append(esds.serialized)
                w.box(FourCC(rawValue: 0)) { _ in }       // terminator
            }
            // Core Audio channel layout tags: mono (100 << 16 | 1), stereo (101 << 16 | 2).
            if channels == 1 || channels == 2 {
                w.box("chan") { w in w.u32(0); w.u32(channels == 1 ? 0x0064_0001 : 0x0065_0002); w.u32(0); w.u32(0) }
            }
        }
        return w.bytes
    }
}
