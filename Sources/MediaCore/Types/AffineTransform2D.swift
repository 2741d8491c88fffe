import Foundation

/// A 2-D affine transform, as Core Graphics' `CGAffineTransform` (which Linux Foundation lacks):
/// a point (x, y) maps to (a·x + c·y + tx, b·x + d·y + ty). Tracks' display matrices, writer
/// inputs and video compositions share it. (Named so as not to shadow Foundation's
/// `AffineTransform`, which it converts to and from.)
///
/// ```swift
/// let portrait = AffineTransform2D(rotationAngle: .pi / 2).translatedBy(x: 0, y: -1080)
/// track.preferredTransform.rotationDegrees   // 90 for a phone's portrait recording
/// ```
public struct AffineTransform2D: Sendable, Hashable, CustomStringConvertible {
    /// The x scale (with `b`, `c` and `d`: the linear part).
    public var a: Double
    /// How much x adds to y.
    public var b: Double
    /// How much y adds to x.
    public var c: Double
    /// The y scale.
    public var d: Double
    /// The x translation.
    public var tx: Double
    /// The y translation.
    public var ty: Double

    /// The transform with these coefficients (as `CGAffineTransform(a:b:c:d:tx:ty:)`).
    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }

    /// The transform that changes nothing.
    public static let identity = AffineTransform2D(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// A move by (`x`, `y`).
    public init(translationX x: Double, y: Double) { self.init(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y) }
    /// A scale by `x` horizontally and `y` vertically.
    public init(scaleX x: Double, y: Double) { self.init(a: x, b: 0, c: 0, d: y, tx: 0, ty: 0) }
    /// A rotation by `angle` radians (counter-clockwise in a y-up system; clockwise on screen,
    /// where y points down — as Core Graphics).
    public init(rotationAngle angle: Double) {
        let (s, c) = (AffineTransform2D.exactSine(angle), AffineTransform2D.exactSine(angle + .pi / 2))
        self.init(a: c, b: s, c: -s, d: c, tx: 0, ty: 0)
    }

    /// Whether the transform changes nothing.
    public var isIdentity: Bool { self == .identity }

    /// This transform followed by `other`.
    public func concatenating(_ other: AffineTransform2D) -> AffineTransform2D {
        AffineTransform2D(a: a * other.a + b * other.c, b: a * other.b + b * other.d,
                        c: c * other.a + d * other.c, d: c * other.b + d * other.d,
                        tx: tx * other.a + ty * other.c + other.tx, ty: tx * other.b + ty * other.d + other.ty)
    }

    /// `translation` applied first, then this transform (as `CGAffineTransform.translatedBy`).
    public func translatedBy(x: Double, y: Double) -> AffineTransform2D {
        AffineTransform2D(translationX: x, y: y).concatenating(self)
    }

    /// A scale applied first, then this transform (as `CGAffineTransform.scaledBy`).
    public func scaledBy(x: Double, y: Double) -> AffineTransform2D {
        AffineTransform2D(scaleX: x, y: y).concatenating(self)
    }

    /// A rotation by `angle` radians applied first, then this transform (as `CGAffineTransform.rotated(by:)`).
    public func rotated(by angle: Double) -> AffineTransform2D {
        AffineTransform2D(rotationAngle: angle).concatenating(self)
    }

    /// The inverse, or `nil` when the transform is not invertible.
    public func inverted() -> AffineTransform2D? {
        let det = a * d - b * c
        guard det != 0, det.isFinite else { return nil }
        return AffineTransform2D(a: d / det, b: -b / det, c: -c / det, d: a / det,
                               tx: (c * ty - d * tx) / det, ty: (b * tx - a * ty) / det)
    }

    /// Where the point (x, y) goes.
    public func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        (a * x + c * y + tx, b * x + d * y + ty)
    }

    /// The rotation in degrees (0, 90, 180 or 270, clockwise on screen) when the transform is a
    /// quarter-turn rotation plus a translation; `nil` otherwise (a scale, a shear, a mirror).
    public var rotationDegrees: Int? {
        switch (a, b, c, d) {
        case (1, 0, 0, 1): 0
        case (0, 1, -1, 0): 90
        case (-1, 0, 0, -1): 180
        case (0, -1, 1, 0): 270
        default: nil
        }
    }

    // MARK: The ISO/QuickTime matrix

    /// The transform of a `tkhd`/`mvhd` matrix {a, b, u, c, d, v, tx, ty, w} (16.16 fixed point,
    /// u, v, w 2.30). u, v and w (a projective part no player uses) are ignored.
    public init(matrix m: [Int32]) {
        guard m.count == 9 else { self = .identity; return }
        let f = { (v: Int32) in Double(v) / 65536 }
        self.init(a: f(m[0]), b: f(m[1]), c: f(m[3]), d: f(m[4]), tx: f(m[6]), ty: f(m[7]))
    }

    /// As a `tkhd`/`mvhd` matrix: exact for every transform read from one (16.16 values are
    /// exact in a `Double`); other values are rounded to 1/65536 and clamped.
    public var matrix: [Int32] {
        let f = { (v: Double) in (v * 65536).rounded(saturating: Int32.self) ?? 0 }
        return [f(a), f(b), 0, f(c), f(d), 0, f(tx), f(ty), 0x4000_0000]
    }

    /// Foundation's transform with the same coefficients.
    public init(_ t: AffineTransform) {
        self.init(a: Double(t.m11), b: Double(t.m12), c: Double(t.m21), d: Double(t.m22), tx: Double(t.tX), ty: Double(t.tY))
    }

    /// Foundation's transform with the same coefficients.
    public var foundationTransform: AffineTransform {
        AffineTransform(m11: CGFloat(a), m12: CGFloat(b), m21: CGFloat(c), m22: CGFloat(d), tX: CGFloat(tx), tY: CGFloat(ty))
    }

    public var description: String { "[\(a) \(b) \(c) \(d) \(tx) \(ty)]" }

    /// sin(angle), exact (0, ±1) at multiples of π/2 so that quarter turns stay exact.
    private static func exactSine(_ angle: Double) -> Double {
        let quarters = angle / (.pi / 2)
        if abs(quarters - quarters.rounded()) < 1e-12 {
            switch (((quarters.rounded(saturating: Int.self) ?? 0) % 4) + 4) % 4 {
            case 0, 2: return 0
            case 1: return 1
            default: return -1
            }
        }
        return sin(angle)
    }
}
