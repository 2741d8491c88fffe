/// How HDR pictures (PQ or HLG) become SDR BT.709 ones: libavfilter's `zscale` takes them to
/// display light with `referenceWhite` as 1.0, `tonemap` applies `toneOperator` to each pixel's
/// largest component (scaling the three alike, so hues stay), `zscale` converts BT.2020 to
/// BT.709 primaries and BT.1886's gamma and the BT.709 matrix.
///
/// The default, Möbius with a knee at 0.95, is chosen for what an SDR screen should show of an
/// HDR grade (ITU-R BT.2408): everything up to 95 % of reference white (203 cd/m²) is left as
/// it is — the SDR part of the picture looks as it was graded — and the highlights from there to
/// the peak are rolled into the last 5 %, in order, never clipped. Reference white lands at
/// 97.5 % of SDR white (99 % of the code range). Hable (filmic) and Reinhard compress the whole
/// range and put reference white near half of SDR white: the picture comes out dark.
public struct ToneMapping: Sendable, Hashable {
    /// `tonemap`'s operators.
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        /// Linear up to the parameter (the knee, 0.3 when nil), then a Möbius curve that reaches
        /// SDR white at the peak (mpv's).
        case mobius
        /// John Hable's filmic curve (Uncharted 2), scaled so the peak is SDR white.
        case hable
        /// Reinhard's `x / (x + c)`, the parameter the contrast (0.5 when nil).
        case reinhard
        /// Everything above SDR white clipped (the parameter scales first, 1 when nil).
        case clip
        /// Linear: the peak becomes SDR white (times the parameter, 1 when nil).
        case linear
        /// A power curve with the parameter as its exponent (1.8 when nil).
        case gamma
    }

    /// The operator (Möbius by default).
    public var toneOperator: Operator
    /// The operator's parameter (see `Operator`); nil: `tonemap`'s default for it.
    public var parameter: Double?
    /// The luminance, in cd/m², that becomes SDR white before the operator: 203, HDR's reference
    /// (diffuse) white (ITU-R BT.2408).
    public var referenceWhite: Double
    /// The brightest luminance the operator expects, in cd/m²; nil: the picture's content light
    /// level (MaxCLL), else its mastering display's peak, else 1,000 (HLG's nominal peak; most
    /// PQ grades).
    public var peakLuminance: Double?
    /// `tonemap`'s desaturation of bright pixels (0: none, which keeps hues and saturation).
    public var desaturation: Double

    /// A tone mapping with these values.
    public init(toneOperator: Operator = .mobius, parameter: Double? = 0.95, referenceWhite: Double = 203,
                peakLuminance: Double? = nil, desaturation: Double = 0) {
        self.toneOperator = toneOperator
        self.parameter = parameter
        self.referenceWhite = referenceWhite
        self.peakLuminance = peakLuminance
        self.desaturation = desaturation
    }

    /// Möbius, knee 0.95, reference white 203 cd/m², no desaturation.
    public static let standard = ToneMapping()

    /// A tone mapping from `operator[:parameter]` (`mobius`, `mobius:0.8`, `hable`); nil when
    /// the operator is not one of `Operator`'s or the parameter is not a positive number.
    public init?(argument: String) {
        let parts = argument.split(separator: ":", maxSplits: 1).map(String.init)
        guard let op = parts.first.flatMap(Operator.init(rawValue:)) else { return nil }
        var parameter: Double?
        if parts.count == 2 {
            guard let p = Double(parts[1]), p.isFinite, p > 0 else { return nil }
            parameter = p
        } else if op != .mobius {
            parameter = nil
        } else {
            parameter = ToneMapping.standard.parameter
        }
        self.init(toneOperator: op, parameter: parameter)
    }

    /// The peak, relative to reference white, for a picture whose content light level is
    /// `maxCLL` and mastering display's peak `masteringPeak` (cd/m²; 0 or nil unknown): at least
    /// 1 (content no brighter than reference white is left as it is), at most PQ's 10,000 cd/m².
    public func relativePeak(maxCLL: Double?, masteringPeak: Double?) -> Double {
        let known = [peakLuminance, maxCLL, masteringPeak].compactMap { $0 }.first { $0.isFinite && $0 > 0 } ?? 1000
        let white = referenceWhite.isFinite && referenceWhite > 0 ? referenceWhite : 203
        return min(max(known / white, 1), 10_000 / white)
    }
}

extension PixelBuffer.Color {
    /// Whether the transfer is an HDR one: PQ (SMPTE ST 2084, 16) or HLG (ARIB STD-B67, 18).
    public var isHDR: Bool { transfer == 16 || transfer == 18 }

    /// SDR BT.709: its primaries, transfer and matrix, limited range.
    public static let bt709 = PixelBuffer.Color(primaries: 1, transfer: 1, matrix: 1, isFullRange: false)
}

extension CodecParameters {
    /// The stream's colour description.
    public var color: PixelBuffer.Color {
        PixelBuffer.Color(primaries: colorPrimaries, transfer: transferCharacteristics, matrix: matrixCoefficients, isFullRange: isFullRange)
    }
}
