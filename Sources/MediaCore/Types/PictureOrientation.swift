/// How a picture's pixels are turned to be shown upright: the eight axis-aligned orientations
/// (quarter turns, mirrors and their combinations) a `tkhd` matrix or a JPEG's EXIF
/// `Orientation` tag can ask for.
///
/// The turned picture's pixel (u, v) is the source's pixel (x, y) with, when `swapsAxes` is
/// false, x = u and y = v — each mirrored (`W − 1 − u`) when `flipsX`/`flipsY` — and when it is
/// true, y = u and x = v, mirrored likewise.
///
/// ```swift
/// PictureOrientation(transform: track.preferredTransform)   // a phone's portrait recording: swapsAxes, flipsX
/// PictureOrientation(exifOrientation: 6)                     // the same turn, from a JPEG
/// ```
public struct PictureOrientation: Sendable, Hashable {
    /// Whether rows and columns trade places (a quarter turn).
    public var swapsAxes: Bool
    /// Whether the turned picture is mirrored left to right.
    public var flipsX: Bool
    /// Whether the turned picture is mirrored top to bottom.
    public var flipsY: Bool

    /// An orientation from its parts (by default, upright).
    public init(swapsAxes: Bool = false, flipsX: Bool = false, flipsY: Bool = false) {
        self.swapsAxes = swapsAxes
        self.flipsX = flipsX
        self.flipsY = flipsY
    }

    /// The picture as it is stored.
    public static let upright = PictureOrientation()

    /// Whether the picture is shown as stored.
    public var isUpright: Bool { self == .upright }

    /// The orientation of a transform's linear part, or nil when it is not axis-aligned (a turn
    /// by another angle, a shear). Scale does not matter.
    public init?(transform t: AffineTransform2D) {
        if t.b == 0, t.c == 0, t.a != 0, t.d != 0 {
            self.init(swapsAxes: false, flipsX: t.a < 0, flipsY: t.d < 0)
        } else if t.a == 0, t.d == 0, t.b != 0, t.c != 0 {
            self.init(swapsAxes: true, flipsX: t.c < 0, flipsY: t.b < 0)
        } else {
            return nil
        }
    }

    /// EXIF's `Orientation` (1 upright … 8); other values are upright.
    public init(exifOrientation value: Int) {
        switch value {
        case 2: self.init(flipsX: true)
        case 3: self.init(flipsX: true, flipsY: true)
        case 4: self.init(flipsY: true)
        case 5: self.init(swapsAxes: true)
        case 6: self.init(swapsAxes: true, flipsX: true)
        case 7: self.init(swapsAxes: true, flipsX: true, flipsY: true)
        case 8: self.init(swapsAxes: true, flipsY: true)
        default: self.init()
        }
    }

    /// The size of a `width`×`height` picture once turned.
    public func size(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsAxes ? (height, width) : (width, height)
    }
}
