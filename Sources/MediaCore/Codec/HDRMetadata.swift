/// SMPTE ST 2086 mastering display colour volume: the primaries, white point and luminance range
/// of the display a picture was graded on (HEVC/AV1 SEI and OBU metadata, the `mdcv` box,
/// Matroska's MasteringMetadata). Held in the units every one of those carries: chromaticities
/// in 0.00002 steps, luminance in 0.0001 cd/m² steps, so that values copy between them exactly.
public struct MasteringDisplay: Sendable, Hashable {
    /// A CIE 1931 xy chromaticity in units of 0.00002 (0…50000).
    public struct Chromaticity: Sendable, Hashable {
        /// The x coordinate, in units of 0.00002.
        public var x: UInt16
        /// The y coordinate, in units of 0.00002.
        public var y: UInt16
        /// A chromaticity from coordinates already in units of 0.00002.
        public init(x: UInt16, y: UInt16) { self.x = x; self.y = y }
        /// From coordinates in 0…1 (rounded to the nearest step).
        public init(x: Double, y: Double) {
            self.x = UInt16(clamping: (x * 50000).rounded(saturating: Int.self) ?? 0)
            self.y = UInt16(clamping: (y * 50000).rounded(saturating: Int.self) ?? 0)
        }
    }

    /// The display's red primary.
    public var red: Chromaticity
    /// The display's green primary.
    public var green: Chromaticity
    /// The display's blue primary.
    public var blue: Chromaticity
    /// The display's white point.
    public var whitePoint: Chromaticity
    /// The display's maximum luminance, in units of 0.0001 cd/m².
    public var maxLuminance: UInt32
    /// The display's minimum luminance, in units of 0.0001 cd/m².
    public var minLuminance: UInt32

    /// A mastering display from values already in the carried units.
    public init(red: Chromaticity, green: Chromaticity, blue: Chromaticity, whitePoint: Chromaticity,
                maxLuminance: UInt32, minLuminance: UInt32) {
        self.red = red
        self.green = green
        self.blue = blue
        self.whitePoint = whitePoint
        self.maxLuminance = maxLuminance
        self.minLuminance = minLuminance
    }

    /// A BT.2020 / D65 mastering display of `maxNits`…`minNits` cd/m² (the usual HDR10 grade:
    /// `MasteringDisplay.bt2020(maxNits: 1000, minNits: 0.0001)`).
    public static func bt2020(maxNits: Double, minNits: Double) -> MasteringDisplay {
        MasteringDisplay(red: Chromaticity(x: 0.708, y: 0.292), green: Chromaticity(x: 0.170, y: 0.797),
                         blue: Chromaticity(x: 0.131, y: 0.046), whitePoint: Chromaticity(x: 0.3127, y: 0.3290),
                         maxLuminance: UInt32(clamping: (maxNits * 10000).rounded(saturating: Int.self) ?? 0),
                         minLuminance: UInt32(clamping: (minNits * 10000).rounded(saturating: Int.self) ?? 0))
    }

    /// The P3 / D65 display most HDR10 material is graded on.
    public static func displayP3(maxNits: Double, minNits: Double) -> MasteringDisplay {
        MasteringDisplay(red: Chromaticity(x: 0.680, y: 0.320), green: Chromaticity(x: 0.265, y: 0.690),
                         blue: Chromaticity(x: 0.150, y: 0.060), whitePoint: Chromaticity(x: 0.3127, y: 0.3290),
                         maxLuminance: UInt32(clamping: (maxNits * 10000).rounded(saturating: Int.self) ?? 0),
                         minLuminance: UInt32(clamping: (minNits * 10000).rounded(saturating: Int.self) ?? 0))
    }

    /// The `mdcv` payload (ISO/IEC 23001-8 and QuickTime: primaries in the SEI's G, B, R order,
    /// white point, max and min luminance).
    public var mdcvPayload: [UInt8] {
        var out: [UInt8] = []
        for c in [green, blue, red, whitePoint] { out += [UInt8(truncatingIfNeeded: c.x >> 8), UInt8(truncatingIfNeeded: c.x & 0xFF), UInt8(truncatingIfNeeded: c.y >> 8), UInt8(truncatingIfNeeded: c.y & 0xFF)] }
        for v in [maxLuminance, minLuminance] { out += [UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16 & 0xFF), UInt8(truncatingIfNeeded: v >> 8 & 0xFF), UInt8(truncatingIfNeeded: v & 0xFF)] }
        return out
    }

    /// Reads an `mdcv` payload (nil when shorter than its 24 bytes).
    public init?(mdcvPayload p: [UInt8]) {
        guard p.count >= 24 else { return nil }
        func u16(_ i: Int) -> UInt16 { UInt16(widening: p[i]) << 8 | UInt16(widening: p[i + 1]) }
        func u32(_ i: Int) -> UInt32 { UInt32(widening: u16(i)) << 16 | UInt32(widening: u16(i + 2)) }
        self.init(red: Chromaticity(x: u16(8), y: u16(10)), green: Chromaticity(x: u16(0), y: u16(2)),
                  blue: Chromaticity(x: u16(4), y: u16(6)), whitePoint: Chromaticity(x: u16(12), y: u16(14)),
                  maxLuminance: u32(16), minLuminance: u32(20))
    }

    /// x265's and x264's `master-display` option: `G(x,y)B(x,y)R(x,y)WP(x,y)L(max,min)` in the same units.
    public var x265Option: String {
        "G(\(green.x),\(green.y))B(\(blue.x),\(blue.y))R(\(red.x),\(red.y))WP(\(whitePoint.x),\(whitePoint.y))L(\(maxLuminance),\(minLuminance))"
    }

    /// SVT-AV1's `mastering-display` option: the same in plain numbers (chromaticities 0…1, cd/m²).
    public var svtAV1Option: String {
        func c(_ v: UInt16) -> String { String(Double(v) / 50000) }
        func l(_ v: UInt32) -> String { String(Double(v) / 10000) }
        return "G(\(c(green.x)),\(c(green.y)))B(\(c(blue.x)),\(c(blue.y)))R(\(c(red.x)),\(c(red.y)))"
            + "WP(\(c(whitePoint.x)),\(c(whitePoint.y)))L(\(l(maxLuminance)),\(l(minLuminance)))"
    }
}

/// CTA-861.3 content light level: the brightest pixel (MaxCLL) and the brightest frame average
/// (MaxFALL) of the stream, in cd/m² (HEVC/AV1 SEI and metadata, the `clli` box).
public struct ContentLightLevel: Sendable, Hashable {
    /// MaxCLL: the brightest pixel of the stream, in cd/m².
    public var maxContentLightLevel: UInt16
    /// MaxFALL: the brightest frame average of the stream, in cd/m².
    public var maxFrameAverageLightLevel: UInt16

    /// A content light level from MaxCLL and MaxFALL in cd/m².
    public init(maxContentLightLevel: UInt16, maxFrameAverageLightLevel: UInt16) {
        self.maxContentLightLevel = maxContentLightLevel
        self.maxFrameAverageLightLevel = maxFrameAverageLightLevel
    }

    /// The `clli` payload: MaxCLL, MaxFALL.
    public var clliPayload: [UInt8] {
        [UInt8(truncatingIfNeeded: maxContentLightLevel >> 8), UInt8(truncatingIfNeeded: maxContentLightLevel & 0xFF),
         UInt8(truncatingIfNeeded: maxFrameAverageLightLevel >> 8), UInt8(truncatingIfNeeded: maxFrameAverageLightLevel & 0xFF)]
    }

    /// Reads a `clli` payload (MaxCLL, MaxFALL, 16 bits each); nil when it is shorter than 4 bytes.
    public init?(clliPayload p: [UInt8]) {
        guard p.count >= 4 else { return nil }
        self.init(maxContentLightLevel: UInt16(widening: p[0]) << 8 | UInt16(widening: p[1]), maxFrameAverageLightLevel: UInt16(widening: p[2]) << 8 | UInt16(widening: p[3]))
    }
}

/// A Dolby Vision decoder configuration record (Dolby's "Dolby Vision Streams Within the ISO Base
/// Media File Format", 3.2): the 24 bytes of the `dvcC` (profiles up to 7), `dvvC` (8 to 10) or
/// `dvwC` (above) box, also Matroska's `BlockAdditionMapping` and FFmpeg's `DOVI_CONF` side data.
/// Kept as the bytes read, so that a copy writes them unchanged.
public struct DolbyVisionConfiguration: Sendable, Hashable {
    /// The record, 24 bytes.
    public let record: [UInt8]

    /// Reads a record; nil when shorter than 24 bytes or of version 0.
    public init?(record bytes: [UInt8]) {
        guard bytes.count >= 24, bytes[0] >= 1 else { return nil }
        record = Array(bytes.prefix(24))
    }

    /// A record of these fields (the reserved bits zero).
    public init(major: UInt8 = 1, minor: UInt8 = 0, profile: Int, level: Int, rpuPresent: Bool = true, enhancementLayerPresent: Bool = false,
                baseLayerPresent: Bool = true, compatibilityID: Int) {
        var r = [UInt8](repeating: 0, count: 24)
        (r[0], r[1]) = (max(1, major), minor)
        let p = UInt8(clamping: profile) & 0x7F, l = UInt8(clamping: level) & 0x3F
        r[2] = p << 1 | l >> 5
        r[3] = (l & 0x1F) << 3 | (rpuPresent ? 4 : 0) | (enhancementLayerPresent ? 2 : 0) | (baseLayerPresent ? 1 : 0)
        r[4] = (UInt8(clamping: compatibilityID) & 0x0F) << 4
        record = r
    }

    /// `dv_version_major`.
    public var versionMajor: Int { Int(widening: record[0]) }
    /// `dv_version_minor`.
    public var versionMinor: Int { Int(widening: record[1]) }
    /// `dv_profile` (5: IPTPQc2, no compatible base layer; 7: dual layer; 8: with a compatible base layer; 10: AV1).
    public var profile: Int { Int(widening: record[2] >> 1) }
    /// `dv_level` (the picture size and rate class).
    public var level: Int { Int(widening: (record[2] & 1) << 5 | record[3] >> 3) }
    /// `rpu_present_flag`: the stream carries reference processing units (NAL type 62 in HEVC).
    public var rpuPresent: Bool { record[3] & 4 != 0 }
    /// `el_present_flag`: an enhancement layer.
    public var enhancementLayerPresent: Bool { record[3] & 2 != 0 }
    /// `bl_present_flag`: a base layer.
    public var baseLayerPresent: Bool { record[3] & 1 != 0 }
    /// `dv_bl_signal_compatibility_id`: what a decoder without Dolby Vision shows of the base
    /// layer — 0 nothing right (profile 5), 1 HDR10, 2 SDR, 4 HLG, 6 Blu-ray HDR10.
    public var compatibilityID: Int { Int(widening: record[4] >> 4) }

    /// The box that holds the record in a sample entry: `dvcC`, `dvvC` or `dvwC`.
    public var boxType: FourCC { profile <= 7 ? "dvcC" : profile <= 10 ? "dvvC" : "dvwC" }

    /// The base layer a decoder without Dolby Vision shows, by `compatibilityID`; nil: none it shows right.
    public var compatibleBaseLayer: String? {
        switch compatibilityID {
        case 1, 6: "HDR10"
        case 2: "SDR"
        case 4: "HLG"
        default: nil
        }
    }

    /// `Dolby Vision 8.4 (HLG-compatible)`, `Dolby Vision 5 (no compatible base layer)`.
    public var summary: String {
        let version = compatibilityID > 0 ? "\(profile).\(compatibilityID)" : "\(profile)"
        return "Dolby Vision \(version) (" + (compatibleBaseLayer.map { "\($0)-compatible" } ?? "no compatible base layer") + ")"
    }
}
