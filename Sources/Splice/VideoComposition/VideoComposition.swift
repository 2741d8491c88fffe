import Foundation
import MediaCore
import FFmpegBridge

/// How the video tracks of an asset become one picture per frame (AVFoundation's
/// `AVVideoComposition`): a render size, a frame duration, a background colour, instructions
/// that say which tracks are shown over which time range — each through a layer instruction's
/// transform, opacity and crop — and still-image overlays drawn over everything (the
/// counterpart of AVFoundation's Core Animation tool, for still images).
///
/// A value type: `MutableVideoComposition` is the same type.
///
/// ```swift
/// var composition = try VideoComposition(propertiesOf: asset)          // upright, the track's size and rate
/// composition.overlays.append(VideoCompositionOverlay(image: try StillImage(contentsOf: logoURL),
///                                                     frame: CGRect(x: 16, y: 16, width: 200, height: 80), opacity: 0.8))
/// session.videoComposition = composition
/// ```
///
/// Coordinates are pixels with the origin at the top left, y down (as the pictures' rows; not
/// Core Animation's bottom-left origin). Transforms must keep edges axis-aligned: quarter turns,
/// mirrors, scales and translations (a turn by another angle is refused when rendering).
public struct VideoComposition: Sendable {
    /// The size of the pictures drawn, in pixels.
    public var renderSize: Dimensions
    /// The time between output frames (1/30 s for 30 fps).
    public var frameDuration: MediaTime
    /// What shows where no layer is drawn.
    public var backgroundColor: RGBColor = .black
    /// Which tracks are drawn when; instructions should not overlap. Where none covers a time,
    /// the background and the overlays show.
    public var instructions: [VideoCompositionInstruction] = []
    /// Still images over the layers, in order (the last on top). An overlay whose frame is
    /// empty or lies wholly outside `renderSize` fails the export or output that draws it
    /// (AVFoundation draws nothing there, without a word).
    public var overlays: [VideoCompositionOverlay] = []

    /// A composition drawing `renderSize` pictures every `frameDuration`, with no instructions yet.
    public init(renderSize: Dimensions, frameDuration: MediaTime) {
        self.renderSize = renderSize
        self.frameDuration = frameDuration
    }

    /// The default composition of `asset`'s enabled video tracks (AVFoundation's
    /// `videoComposition(withPropertiesOf:)`): the first track's size as shown (its natural size
    /// through its matrix, so a phone's portrait recording renders upright), its frame rate, and
    /// one instruction over the whole asset with each track's matrix as its transform.
    /// - Throws: `.unsupported` when the asset has no video track.
    public init(propertiesOf asset: Asset) throws {
        let tracks = asset.tracks(withMediaType: .video).filter(\.isEnabled)
        guard let first = tracks.first ?? asset.tracks(withMediaType: .video).first, let natural = first.naturalSize else {
            throw MediaError(.unsupported, "\(asset.url.lastPathComponent) has no video track to compose", file: asset.filePath())
        }
        self.init(renderSize: VideoComposition.shownSize(natural, first.preferredTransform),
                  frameDuration: VideoComposition.frameDuration(forRate: Double(first.nominalFrameRate)))
        var instruction = VideoCompositionInstruction(timeRange: TimeRange(start: .zero, duration: asset.duration))
        instruction.layerInstructions = (tracks.isEmpty ? [first] : tracks).map { track in
            var layer = VideoCompositionLayerInstruction(assetTrack: track)
            layer.setTransform(track.preferredTransform, at: .zero)
            return layer
        }
        instructions = [instruction]
    }

    /// The properties of `composition` as it is now (`composition.asset()`).
    public init(propertiesOf composition: MutableComposition) throws {
        try self.init(propertiesOf: composition.asset())
    }

    /// Refuses what cannot be drawn: a frame duration that is not positive, a render size
    /// without pixels, an overlay whose frame is empty or lies wholly outside the picture
    /// (AVFoundation draws nothing there without a word).
    func check() throws {
        guard frameDuration.isNumeric, frameDuration > .zero else {
            throw MediaError(.invalidOperation, "the video composition's frameDuration must be positive, not \(String(format: "%.3f s", frameDuration.seconds))")
        }
        guard renderSize.width > 0, renderSize.height > 0 else {
            throw MediaError(.invalidOperation, "the video composition's renderSize \(renderSize.width)x\(renderSize.height) has no pixels")
        }
        let picture = CGRect(x: 0, y: 0, width: renderSize.width, height: renderSize.height)
        for (i, overlay) in overlays.enumerated() {
            let f = overlay.frame
            let at = "overlay \(i + 1)'s frame (x \(f.origin.x), y \(f.origin.y), \(f.size.width)x\(f.size.height))"
            guard f.size.width > 0, f.size.height > 0, f.origin.x.isFinite, f.origin.y.isFinite, f.size.width.isFinite, f.size.height.isFinite else {
                throw MediaError(.invalidOperation, "\(at) is empty")
            }
            guard f.intersects(picture) else {
                throw MediaError(.invalidOperation, "\(at) lies wholly outside the \(renderSize.width)x\(renderSize.height) picture")
            }
        }
    }

    /// AVFoundation's older spelling of `init(propertiesOf:)`.
    public static func videoComposition(withPropertiesOf asset: Asset) throws -> VideoComposition {
        try VideoComposition(propertiesOf: asset)
    }

    /// A frame duration for `rate` frames per second: NTSC rates (29.97, 59.94, 23.976) exactly
    /// as 1001/30000 and the like, others in 1/90000 s.
    public static func frameDuration(forRate rate: Double) -> MediaTime {
        guard rate > 0, rate.isFinite else { return MediaTime(value: 1, timescale: 30) }
        let ntsc = (rate * 1.001).rounded()
        if abs(rate * 1.001 - ntsc) < 0.005, abs(rate - ntsc) > 0.005 { return MediaTime(value: 1001, timescale: (ntsc * 1000).rounded(saturating: Int32.self) ?? 30_000) }
        if abs(rate - rate.rounded()) < 0.001 { return MediaTime(value: 1, timescale: rate.rounded(saturating: Int32.self) ?? 30) }
        return MediaTime(value: (90000 / rate).rounded(saturating: Int64.self) ?? 3000, timescale: 90000)
    }

    /// The instruction in force at `time`, if any.
    public func instruction(at time: MediaTime) -> VideoCompositionInstruction? {
        instructions.first { $0.timeRange.contains(time) }
    }

    /// The end of the last instruction (zero without instructions).
    public var duration: MediaTime {
        instructions.map(\.timeRange.end).max() ?? .zero
    }

    /// The size a picture of `natural` size is shown at through `transform` (a quarter turn
    /// swaps width and height).
    public static func shownSize(_ natural: Dimensions, _ transform: AffineTransform2D) -> Dimensions {
        let box = boundingBox(of: CGRect(x: 0, y: 0, width: natural.width, height: natural.height), through: transform)
        return Dimensions(width: box.width.rounded(saturating: Int.self) ?? 0, height: box.height.rounded(saturating: Int.self) ?? 0)
    }

    /// A layer transform that shows a track of `natural` size with its `preferredTransform`
    /// upright, fitted inside `renderSize` with its aspect ratio kept, and centred.
    public static func fittingTransform(_ natural: Dimensions, _ preferredTransform: AffineTransform2D,
                                        into renderSize: Dimensions) -> AffineTransform2D {
        let box = boundingBox(of: CGRect(x: 0, y: 0, width: natural.width, height: natural.height), through: preferredTransform)
        guard box.width > 0, box.height > 0 else { return preferredTransform }
        let scale = min(Double(renderSize.width) / box.width, Double(renderSize.height) / box.height)
        return preferredTransform.concatenating(AffineTransform2D(translationX: -box.minX, y: -box.minY))
            .concatenating(AffineTransform2D(scaleX: scale, y: scale))
            .concatenating(AffineTransform2D(translationX: ((Double(renderSize.width) - box.width * scale) / 2).rounded(),
                                             y: ((Double(renderSize.height) - box.height * scale) / 2).rounded()))
    }

    /// The axis-aligned rectangle `rect` covers once transformed.
    static func boundingBox(of rect: CGRect, through t: AffineTransform2D) -> CGRect {
        let corners = [(rect.minX, rect.minY), (rect.maxX, rect.minY), (rect.minX, rect.maxY), (rect.maxX, rect.maxY)]
            .map { t.apply(x: Double($0.0), y: Double($0.1)) }
        let xs = corners.map(\.x), ys = corners.map(\.y)
        return CGRect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
    }
}

/// AVFoundation's name for the composition one builds (a Swift value is mutable where it is a `var`).
public typealias MutableVideoComposition = VideoComposition

/// An RGB colour, each component 0…1 (the composition's background).
public struct RGBColor: Sendable, Hashable {
    /// The red component, 0…1.
    public var red: Double
    /// The green component, 0…1.
    public var green: Double
    /// The blue component, 0…1.
    public var blue: Double

    /// A colour of these components, each 0…1.
    public init(red: Double, green: Double, blue: Double) { (self.red, self.green, self.blue) = (red, green, blue) }

    /// Black.
    public static let black = RGBColor(red: 0, green: 0, blue: 0)
    /// White.
    public static let white = RGBColor(red: 1, green: 1, blue: 1)
}

/// Which tracks are drawn over one time range, top-most first (AVFoundation's
/// `AVVideoCompositionInstruction`). `MutableVideoCompositionInstruction` is the same type.
public struct VideoCompositionInstruction: Sendable {
    /// The span of the composition's timeline the instruction covers.
    public var timeRange: TimeRange
    /// The layers, the first drawn on top; a track without one is not drawn in this range.
    public var layerInstructions: [VideoCompositionLayerInstruction] = []
    /// The background in this range; nil: the composition's.
    public var backgroundColor: RGBColor?
    /// `false`: the composition's overlays are not drawn in this range.
    public var enablePostProcessing = true

    /// An instruction drawing `layerInstructions` (the first on top) over `timeRange`.
    public init(timeRange: TimeRange, layerInstructions: [VideoCompositionLayerInstruction] = []) {
        self.timeRange = timeRange
        self.layerInstructions = layerInstructions
    }
}

/// AVFoundation's name for the instruction one builds.
public typealias MutableVideoCompositionInstruction = VideoCompositionInstruction

/// How one track is drawn (AVFoundation's `AVVideoCompositionLayerInstruction`): a transform from
/// the track's pixels to render pixels, an opacity and a crop rectangle, each set at times or
/// ramped linearly over ranges. Before the first setting the transform is the identity, the
/// opacity 1, and nothing is cropped; a setting holds until the next one; a ramp's end value
/// holds after it. `MutableVideoCompositionLayerInstruction` is the same type.
public struct VideoCompositionLayerInstruction: Sendable {
    /// The ID of the video track drawn.
    public var trackID: Int
    private var transforms: [(start: Double, end: Double, from: AffineTransform2D, to: AffineTransform2D)] = []
    private var opacities = GainCurve()
    private var crops: [(start: Double, rect: CGRect)] = []

    /// How track `trackID` is drawn: as it is, until a setting.
    public init(trackID: Int) { self.trackID = trackID }
    /// How `assetTrack` is drawn (AVFoundation's `init(assetTrack:)`).
    public init(assetTrack: AssetTrack) { trackID = assetTrack.trackID }
    /// How a composition's track is drawn.
    public init(assetTrack: CompositionTrack) { trackID = assetTrack.trackID }

    /// The transform from the track's pixels to render pixels from `time` on.
    public mutating func setTransform(_ transform: AffineTransform2D, at time: MediaTime) {
        insertTransform((time.seconds, time.seconds, transform, transform))
    }

    /// A transform going linearly (each coefficient) from `start` to `end` over `timeRange`; `end` holds after it.
    public mutating func setTransformRamp(fromStart start: AffineTransform2D, toEnd end: AffineTransform2D, timeRange: TimeRange) {
        insertTransform((timeRange.start.seconds, max(timeRange.start.seconds, timeRange.end.seconds), start, end))
    }

    /// The opacity (0…1) from `time` on.
    public mutating func setOpacity(_ opacity: Float, at time: MediaTime) {
        opacities.setVolume(opacity, at: time.seconds)
    }

    /// An opacity going linearly from `start` to `end` over `timeRange`; `end` holds after it.
    public mutating func setOpacityRamp(fromStartOpacity start: Float, toEndOpacity end: Float, timeRange: TimeRange) {
        opacities.setRamp(from: start, to: end, start: timeRange.start.seconds, end: timeRange.end.seconds)
    }

    /// The part of the track's picture drawn from `time` on (its pixels; the rest is not drawn).
    public mutating func setCropRectangle(_ rect: CGRect, at time: MediaTime) {
        crops.removeAll { $0.start == time.seconds }
        crops.append((time.seconds, rect))
        crops.sort { $0.start < $1.start }
    }

    private mutating func insertTransform(_ t: (start: Double, end: Double, from: AffineTransform2D, to: AffineTransform2D)) {
        transforms.removeAll { $0.start == t.start }
        transforms.append(t)
        transforms.sort { $0.start < $1.start }
    }

    /// The transform at `time` (a ramp interpolates each coefficient linearly).
    public func transform(at time: MediaTime) -> AffineTransform2D {
        let s = time.seconds
        guard let r = transforms.last(where: { $0.start <= s }) else { return .identity }
        guard s < r.end, r.end > r.start else { return r.to }
        let f = (s - r.start) / (r.end - r.start)
        func mix(_ a: Double, _ b: Double) -> Double { a + (b - a) * f }
        return AffineTransform2D(a: mix(r.from.a, r.to.a), b: mix(r.from.b, r.to.b), c: mix(r.from.c, r.to.c),
                                 d: mix(r.from.d, r.to.d), tx: mix(r.from.tx, r.to.tx), ty: mix(r.from.ty, r.to.ty))
    }

    /// The opacity at `time`, 0…1.
    public func opacity(at time: MediaTime) -> Float { max(0, min(1, opacities.volume(at: time.seconds))) }

    /// The crop rectangle at `time`; nil: the whole picture.
    public func cropRectangle(at time: MediaTime) -> CGRect? {
        crops.last { $0.start <= time.seconds }?.rect
    }
}

/// AVFoundation's name for the layer instruction one builds.
public typealias MutableVideoCompositionLayerInstruction = VideoCompositionLayerInstruction

/// A still image drawn over a composition's layers: into `frame` (render pixels), at an opacity
/// that can be set at times or ramped, over `timeRange` (nil: always).
public struct VideoCompositionOverlay: Sendable {
    /// The picture drawn.
    public var image: StillImage
    /// Where it is drawn, in render pixels (origin top left); the image is scaled to fill it.
    public var frame: CGRect
    /// When it is drawn; nil: always.
    public var timeRange: TimeRange?
    /// `true`: the image is fitted inside `frame` with its aspect ratio kept, on opaque black bars.
    public var isLetterboxed = false
    private var opacities = GainCurve()

    /// An overlay of `image` in `frame` at `opacity` over `timeRange` (nil: always).
    public init(image: StillImage, frame: CGRect, opacity: Float = 1, timeRange: TimeRange? = nil) {
        self.image = image
        self.frame = frame
        self.timeRange = timeRange
        if opacity != 1 { opacities.setVolume(opacity, at: -.infinity) }
    }

    /// The opacity (0…1) from `time` on.
    public mutating func setOpacity(_ opacity: Float, at time: MediaTime) { opacities.setVolume(opacity, at: time.seconds) }

    /// An opacity going linearly from `start` to `end` over `timeRange`; `end` holds after it.
    public mutating func setOpacityRamp(fromStartOpacity start: Float, toEndOpacity end: Float, timeRange: TimeRange) {
        opacities.setRamp(from: start, to: end, start: timeRange.start.seconds, end: timeRange.end.seconds)
    }

    /// The opacity at `time`, 0…1.
    public func opacity(at time: MediaTime) -> Float { max(0, min(1, opacities.volume(at: time.seconds))) }
}
