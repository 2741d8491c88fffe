import MediaCore

/// The RFC 6381 codec string of a sample entry (`avc1.64001f`, `mp4a.40.2`, `hvc1.2.4.L93.B0`),
/// as HLS's `CODECS` and DASH's `codecs` give it: read from the entry's configuration box
/// (ISO/IEC 14496-15 Annex E for AVC and HEVC, the AV1 and VP codec ISO bindings, RFC 6381 §3.3
/// for MPEG-4 audio). An encrypted entry (`encv`, `enca`) is named by its original format.
public enum CodecString {
    /// The codec string of `entry` in a track of `mediaType`, or nil when Splice does not know
    /// how to name its codec.
    public static func of(_ entry: [UInt8], mediaType: MediaType) -> String? {
        guard let parsed = try? SampleEntry(bytes: entry, handler: mediaType.handlerType),
              let children = CodecMapping.sampleEntryChildren(entry, mediaType: mediaType) else { return nil }
        let format = ProtectionScheme(sampleEntry: entry, mediaType: mediaType)?.originalFormat ?? parsed.type
        func child(_ type: FourCC) -> [UInt8]? { children.first { $0.type == type }?.payload }
        switch format.description {
        case "avc1", "avc2", "avc3", "avc4":
            guard let c = child("avcC"), c.count >= 4 else { return nil }
            return format.description + "." + hex(c[1]) + hex(c[2]) + hex(c[3])
        case "hvc1", "hev1", "dvh1", "dvhe":
            return child("hvcC").flatMap { hevc(format.description, $0) }
        case "av01":
            return child("av1C").flatMap(av1)
        case "vp08", "vp09":
            return child("vpcC").flatMap { vp(format.description, $0) }
        case "mp4a":
            return child("esds").flatMap(mpeg4Audio) ?? "mp4a.40.2"
        case "ac-3", "ec-3", "ac-4", "mlpa":
            return format.description
        case "Opus":
            return "opus"
        case "fLaC":
            return "flac"
        case "wvtt", "stpp":
            return format.description
        default:
            return nil
        }
    }

    /// A byte as two lower-case hexadecimal digits.
    public static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(widening: b >> 4)], digits[Int(widening: b & 0x0F)]])
    }

    /// `hvc1.<space><profile>.<compatibility>.<tier><level>.<constraints>` (ISO/IEC 14496-15 E.3).
    static func hevc(_ type: String, _ c: [UInt8]) -> String? {
        guard c.count >= 13 else { return nil }
        let space = ["", "A", "B", "C"][Int(widening: c[1] >> 6)]
        let tier = c[1] & 0x20 != 0 ? "H" : "L"
        let profile = c[1] & 0x1F
        // The compatibility flags in reverse bit order, as hexadecimal without leading zeros.
        let flags = c[2..<6].reduce(UInt32(0)) { $0 << 8 | UInt32(widening: $1) }
        var reversed: UInt32 = 0
        for bit in 0..<32 where flags & (1 << bit) != 0 { reversed |= 1 << (31 - bit) }
        var constraints = Array(c[6..<12])
        while let last = constraints.last, last == 0 { constraints.removeLast() }
        var s = "\(type).\(space)\(profile).\(String(reversed, radix: 16, uppercase: true)).\(tier)\(c[12])"
        for b in constraints { s += "." + hex(b).uppercased() }
        return s
    }

    /// `av01.<profile>.<level><tier>.<bit depth>` (AV1 Codec ISO Media File Format Binding, "Codecs Parameter String").
    static func av1(_ c: [UInt8]) -> String? {
        guard c.count >= 4 else { return nil }
        let profile = c[1] >> 5, level = c[1] & 0x1F
        let tier = c[2] & 0x80 != 0 ? "H" : "M"
        let depth = c[2] & 0x40 == 0 ? 8 : c[2] & 0x20 != 0 ? 12 : 10
        return "av01.\(profile).\(level < 10 ? "0" : "")\(level)\(tier).\(depth < 10 ? "0" : "")\(depth)"
    }

    /// `vp09.<profile>.<level>.<bit depth>` (VP Codec ISO Media File Format Binding §7).
    static func vp(_ type: String, _ c: [UInt8]) -> String? {
        guard c.count >= 7 else { return nil }   // version and flags, then the record
        func two(_ n: UInt8) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(type).\(two(c[4])).\(two(c[5])).\(two(c[6] >> 4))"
    }

    /// `mp4a.<object type>` and for MPEG-4 audio `.<audio object type>` (RFC 6381 §3.3).
    static func mpeg4Audio(_ esds: [UInt8]) -> String? {
        guard let d = ESDescriptor(esds) else { return nil }
        let type = "mp4a." + hex(d.objectType)
        guard d.objectType == 0x40 else { return type }
        guard let asc = AudioSpecificConfig(d.specificInfo) else { return type + ".2" }
        return type + ".\(asc.objectType)"
    }

    /// An AC-3 or E-AC-3 entry's channels (its first independent substream's for E-AC-3, from
    /// `dac3`/`dec3`) and their Dolby channel mask, as DASH's
    /// `tag:dolby.com,2014:dash:audio_channel_configuration:2011` writes it (ETSI TS 102 366
    /// `acmod` and `lfeon`); nil for other entries.
    public static func dolbyChannels(_ entry: [UInt8]) -> (count: Int, mask: UInt16)? {
        guard let children = CodecMapping.sampleEntryChildren(entry, mediaType: .audio) else { return nil }
        var acmod: UInt32, lfe: UInt32
        if let c = children.first(where: { $0.type == "dac3" })?.payload, c.count >= 3 {
            var r = BitReader(c)
            _ = r.bits(2 + 5 + 3)
            acmod = r.bits(3); lfe = r.bits(1)
        } else if let c = children.first(where: { $0.type == "dec3" })?.payload, c.count >= 5 {
            var r = BitReader(c)
            _ = r.bits(13 + 3 + 2 + 5 + 1 + 1 + 3)
            acmod = r.bits(3); lfe = r.bits(1)
        } else {
            return nil
        }
        let speakers: [(Int, UInt16)] = [(2, 0xA000), (1, 0x4000), (2, 0xA000), (3, 0xE000), (3, 0xA100), (4, 0xE100), (4, 0xB800), (5, 0xF800)]
        let (count, mask) = speakers[Int(clamping: acmod & 7)]
        return (count + (lfe == 1 ? 1 : 0), mask | (lfe == 1 ? 1 : 0))
    }
}
