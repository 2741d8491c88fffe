/// A point or span on a media timeline: a rational number `value / timescale` seconds.
///
/// `MediaTime` is exact: comparison and arithmetic work on the rational values
/// (with 128-bit intermediates), never on floating point. Conversions to
/// another timescale say how they round.
///
/// ```swift
/// let a = MediaTime(value: 1001, timescale: 30000)   // one NTSC frame
/// let b = a.convertScale(90000, method: .nearest)  // 3003/90000
/// assert(a == b)
/// ```
public struct MediaTime: Sendable, Hashable, Comparable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Special values outside the numeric timeline.
    public enum Kind: Sendable, Hashable {
        /// A number of seconds: `value / timescale`.
        case numeric
        /// Not a time (AVFoundation's `CMTime.invalid`): what a failed conversion or an undefined operation gives.
        case invalid
        /// After every numeric time.
        case positiveInfinity
        /// Before every numeric time.
        case negativeInfinity
    }

    /// How a conversion to a coarser timescale rounds.
    public enum Rounding: Sendable {
        /// To the nearest value, halves away from zero.
        case nearest
        /// Toward zero (truncation).
        case towardZero
        /// Away from zero.
        case awayFromZero
        /// Toward negative infinity (floor).
        case down
        /// Toward positive infinity (ceiling).
        case up
    }

    /// The numerator: units of `1 / timescale` seconds (0 for the non-numeric kinds).
    public let value: Int64
    /// Units per second; always greater than zero for a numeric time.
    public let timescale: Int32
    /// Whether the time is numeric, invalid or an infinity.
    public let kind: Kind

    /// `value / timescale` seconds; `.invalid` when `timescale` is not positive.
    public init(value: Int64, timescale: Int32) {
        if timescale > 0 {
            self.value = value
            self.timescale = timescale
            self.kind = .numeric
        } else {
            self.value = 0
            self.timescale = 0
            self.kind = .invalid
        }
    }

    private init(kind: Kind) {
        self.value = 0
        self.timescale = 0
        self.kind = kind
    }

    /// Makes a time from seconds, rounded to the nearest unit of `timescale`.
    public init(seconds: Double, preferredTimescale timescale: Int32) {
        guard seconds.isFinite, timescale > 0 else {
            self = seconds.isNaN || timescale <= 0 ? .invalid : (seconds > 0 ? .positiveInfinity : .negativeInfinity)
            return
        }
        let scaled = (seconds * Double(timescale)).rounded()
        if scaled >= 9.2e18 { self = .positiveInfinity; return }
        if scaled <= -9.2e18 { self = .negativeInfinity; return }
        self.init(value: Int64(scaled), timescale: timescale)   // lint: checked (|scaled| < 9.2e18 above)
    }

    /// Zero seconds.
    public static let zero = MediaTime(value: 0, timescale: 1)
    /// Not a time.
    public static let invalid = MediaTime(kind: .invalid)
    /// After every numeric time.
    public static let positiveInfinity = MediaTime(kind: .positiveInfinity)
    /// Before every numeric time.
    public static let negativeInfinity = MediaTime(kind: .negativeInfinity)

    /// Whether the time is numeric or an infinity.
    public var isValid: Bool { kind != .invalid }
    /// Whether the time is a number of seconds (not invalid, not an infinity).
    public var isNumeric: Bool { kind == .numeric }

    /// The time in seconds (`.nan` for invalid, `±.infinity` for the infinities).
    public var seconds: Double {
        switch kind {
        case .numeric: return Double(value) / Double(timescale)
        case .invalid: return .nan
        case .positiveInfinity: return .infinity
        case .negativeInfinity: return -.infinity
        }
    }

    /// This time expressed in `newTimescale` units, rounded as asked.
    /// Values beyond the 64-bit range become the matching infinity.
    public func convertScale(_ newTimescale: Int32, method rounding: Rounding = .nearest) -> MediaTime {
        guard kind == .numeric else { return self }
        guard newTimescale > 0 else { return .invalid }
        if newTimescale == timescale { return self }
        let numerator = Int128(value) * Int128(newTimescale)
        let q = MediaTime.divide(numerator, Int128(timescale), rounding)
        return MediaTime.make(q, newTimescale)
    }

    /// This time as a count of ticks of `numerator`/`denominator` seconds (a libav time base),
    /// rounded as asked; values beyond the 64-bit range are clamped to it.
    public func ticks(numerator: Int32, denominator: Int32, rounding: Rounding = .nearest) -> Int64 {
        guard kind == .numeric, numerator > 0, denominator > 0 else { return 0 }
        let q = MediaTime.divide(Int128(value) * Int128(denominator), Int128(timescale) * Int128(numerator), rounding)
        return Int64(clamping: q)
    }

    // MARK: Arithmetic

    /// The exact sum, in a timescale both divide when one fits in 32 bits (else the finer one, rounded); beyond the 64-bit range, an infinity; with an invalid operand, or +∞ plus −∞, invalid.
    public static func + (a: MediaTime, b: MediaTime) -> MediaTime {
        combine(a, b, sign: 1)
    }

    /// The exact difference, with the rules of `+`.
    public static func - (a: MediaTime, b: MediaTime) -> MediaTime {
        combine(a, b, sign: -1)
    }

    /// The negated time (an infinity becomes the other one).
    public static prefix func - (a: MediaTime) -> MediaTime {
        switch a.kind {
        case .numeric:
            return a.value == .min ? .positiveInfinity : MediaTime(value: -a.value, timescale: a.timescale)
        case .invalid: return .invalid
        case .positiveInfinity: return .negativeInfinity
        case .negativeInfinity: return .positiveInfinity
        }
    }

    /// Adds `b` to `a`.
    public static func += (a: inout MediaTime, b: MediaTime) { a = a + b }
    /// Subtracts `b` from `a`.
    public static func -= (a: inout MediaTime, b: MediaTime) { a = a - b }

    /// The time multiplied by `multiplier`, keeping the timescale.
    public static func * (a: MediaTime, multiplier: Int64) -> MediaTime {
        switch a.kind {
        case .numeric: return make(Int128(a.value) * Int128(multiplier), a.timescale)
        case .invalid: return .invalid
        case .positiveInfinity, .negativeInfinity:
            if multiplier == 0 { return .invalid }
            return (a.kind == .positiveInfinity) == (multiplier > 0) ? .positiveInfinity : .negativeInfinity
        }
    }

    /// This time × `numerator` / `denominator` (two spans: a rate as their ratio, such as a
    /// scaled segment's target and source durations) in `timescale`, rounded as asked; exact
    /// but for that rounding (through 128 bits; beyond them, through `Double`).
    public func multiplied(by numerator: MediaTime, dividedBy denominator: MediaTime, timescale: Int32,
                           rounding: Rounding = .nearest) -> MediaTime {
        guard kind == .numeric, numerator.kind == .numeric, denominator.kind == .numeric, denominator.value != 0, timescale > 0 else { return .invalid }
        let factors = [Int128(value), Int128(numerator.value), Int128(denominator.timescale), Int128(timescale)]
        let divisors = [Int128(self.timescale), Int128(numerator.timescale), Int128(denominator.value)]
        var n: Int128 = 1, d: Int128 = 1, overflow = false
        for f in factors where !overflow { (n, overflow) = n.multipliedReportingOverflow(by: f) }
        for f in divisors where !overflow { (d, overflow) = d.multipliedReportingOverflow(by: f) }
        guard !overflow else {
            return MediaTime(seconds: seconds * numerator.seconds / denominator.seconds, preferredTimescale: timescale)
        }
        return MediaTime.make(MediaTime.divide(n, d, rounding), timescale)
    }

    /// This time in `timescale` when it is a whole number of its ticks; else itself.
    public func inTimescaleIfExact(_ timescale: Int32) -> MediaTime {
        let converted = convertScale(timescale)
        return converted == self ? converted : self
    }

    private static func combine(_ a: MediaTime, _ b: MediaTime, sign: Int128) -> MediaTime {
        switch (a.kind, b.kind) {
        case (.invalid, _), (_, .invalid): return .invalid
        case (.numeric, .numeric): break
        default:
            let bInf: Kind = sign > 0 ? b.kind : (-b).kind
            if a.kind == .numeric { return MediaTime(kind: bInf) }
            if b.kind == .numeric { return a }
            return a.kind == bInf ? a : .invalid
        }
        if a.timescale == b.timescale {
            return make(Int128(a.value) + sign * Int128(b.value), a.timescale)
        }
        // Least common multiple when it fits, else the finer timescale (rounded).
        let lcm = Int128(a.timescale) / Int128(gcd(Int64(widening: a.timescale), Int64(widening: b.timescale))) * Int128(b.timescale)
        if lcm <= Int128(Int32.max) {
            let scale = Int32(truncatingIfNeeded: lcm)
            let av = Int128(a.value) * (lcm / Int128(a.timescale))
            let bv = Int128(b.value) * (lcm / Int128(b.timescale))
            return make(av + sign * bv, scale)
        }
        let scale = max(a.timescale, b.timescale)
        let num = (Int128(a.value) * Int128(b.timescale) + sign * Int128(b.value) * Int128(a.timescale)) * Int128(scale)
        return make(divide(num, Int128(a.timescale) * Int128(b.timescale), .nearest), scale)
    }

    private static func make(_ value: Int128, _ timescale: Int32) -> MediaTime {
        if value > Int128(Int64.max) { return .positiveInfinity }
        if value < Int128(Int64.min) { return .negativeInfinity }
        return MediaTime(value: Int64(truncatingIfNeeded: value), timescale: timescale)
    }

    static func divide(_ n: Int128, _ d: Int128, _ rounding: Rounding) -> Int128 {
        let q = n / d, r = n % d
        if r == 0 { return q }
        let negative = (n < 0) != (d < 0)
        switch rounding {
        case .towardZero: return q
        case .awayFromZero: return negative ? q - 1 : q + 1
        case .down: return negative ? q - 1 : q
        case .up: return negative ? q : q + 1
        case .nearest:
            let twice = (r < 0 ? -r : r) * 2, ad = d < 0 ? -d : d
            if twice >= ad { return negative ? q - 1 : q + 1 }
            return q
        }
    }

    // MARK: Comparison

    private var order: Int {
        switch kind {
        case .negativeInfinity: return 0
        case .numeric: return 1
        case .positiveInfinity: return 2
        case .invalid: return 3
        }
    }

    /// Exact comparison of the rational values; invalid sorts after everything.
    public static func < (a: MediaTime, b: MediaTime) -> Bool {
        if a.kind != .numeric || b.kind != .numeric { return a.order < b.order }
        if a.timescale == b.timescale { return a.value < b.value }
        return Int128(a.value) * Int128(b.timescale) < Int128(b.value) * Int128(a.timescale)
    }

    /// Two times are equal when they name the same instant: 1/2 == 2/4.
    public static func == (a: MediaTime, b: MediaTime) -> Bool {
        if a.kind != .numeric || b.kind != .numeric { return a.kind == b.kind }
        if a.timescale == b.timescale { return a.value == b.value }
        return Int128(a.value) * Int128(b.timescale) == Int128(b.value) * Int128(a.timescale)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        if kind == .numeric {
            let g = MediaTime.gcd(value, Int64(widening: timescale))
            hasher.combine(value / g)
            hasher.combine(Int64(widening: timescale) / g)
        }
    }

    /// Seconds, as messages show a time ("1.5 s"; up to microseconds); `debugDescription`
    /// gives the ticks.
    public var description: String {
        switch kind {
        case .numeric:
            var text = String(format: "%.6f", seconds)
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            return text + " s"
        default: return debugDescription
        }
    }

    /// The ticks: "900000/90000".
    public var debugDescription: String {
        switch kind {
        case .numeric: return "\(value)/\(timescale)"
        case .invalid: return "invalid"
        case .positiveInfinity: return "+inf"
        case .negativeInfinity: return "-inf"
        }
    }

    /// The greatest common divisor of `a` and `b`'s magnitudes; 1 when both are 0.
    public static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var x = a.magnitude, y = b.magnitude
        while y != 0 { (x, y) = (y, x % y) }
        return x == 0 ? 1 : Int64(truncatingIfNeeded: x)
    }
}

/// The earlier of two times (`a` when they are equal).
public func min(_ a: MediaTime, _ b: MediaTime) -> MediaTime { b < a ? b : a }
/// The later of two times (`a` when they are equal).
public func max(_ a: MediaTime, _ b: MediaTime) -> MediaTime { b > a ? b : a }
