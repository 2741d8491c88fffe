// Core Graphics' transform, which Foundation on Linux lacks (it has `CGFloat`, `CGPoint`,
// `CGSize` and `CGRect`): `CGAffineTransform` is Splice's `AffineTransform2D`, whose
// initialisers and methods already carry Core Graphics' names.
import Foundation
@_exported import Splice

/// Core Graphics' affine transform: Splice's `AffineTransform2D` — `CGAffineTransform(a:b:c:d:tx:ty:)`,
/// `.identity`, `init(translationX:y:)`, `init(scaleX:y:)`, `init(rotationAngle:)`,
/// `concatenating(_:)`, `translatedBy(x:y:)`, `scaledBy(x:y:)`, `rotated(by:)`, `inverted()`
/// and `isIdentity` work as written for Apple platforms (coefficients are `Double`, not `CGFloat`).
public typealias CGAffineTransform = AffineTransform2D

extension CGSize {
    /// The size of `dimensions`, in points as pixels (what `AVAssetTrack.naturalSize` gives on
    /// Apple platforms; Splice's `naturalSize` is `Dimensions?`).
    public init(_ dimensions: Dimensions) {
        self.init(width: Double(dimensions.width), height: Double(dimensions.height))
    }
}

extension Dimensions {
    /// Whole pixels of `size`, each side rounded to the nearest (what a `renderSize` set from a
    /// `CGSize` takes); a side that is not finite or not positive is 0.
    public init(_ size: CGSize) {
        func side(_ v: CGFloat) -> Int { let d = Double(v); return d.isFinite && d > 0 ? d.rounded(saturating: Int.self) ?? 0 : 0 }
        self.init(width: side(size.width), height: side(size.height))
    }
}
