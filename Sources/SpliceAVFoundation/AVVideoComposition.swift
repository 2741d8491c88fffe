// AVFoundation's video composition classes over Splice's values: a port builds them as it does
// on Apple platforms (`let videoComposition = AVMutableVideoComposition()`, `renderSize` a
// `CGSize`, instructions and layer instructions set afterwards), and an export session or a
// composing output takes the Splice `VideoComposition` they describe.
import Foundation
@_exported import Splice

/// How one track is drawn (AVFoundation's `AVVideoCompositionLayerInstruction`); `instruction`
/// is Splice's value.
public class AVVideoCompositionLayerInstruction {
    /// Splice's layer instruction, as set so far.
    public var instruction: VideoCompositionLayerInstruction

    init(_ instruction: VideoCompositionLayerInstruction) { self.instruction = instruction }

    /// The ID of the track drawn.
    public var trackID: CMPersistentTrackID {
        get { instruction.trackID }
        set { instruction.trackID = newValue }
    }
}

/// A layer instruction one sets (AVFoundation's `AVMutableVideoCompositionLayerInstruction`):
/// transforms, opacities and crops set at times or ramped over ranges.
public final class AVMutableVideoCompositionLayerInstruction: AVVideoCompositionLayerInstruction {
    /// For no track yet (set `trackID`).
    public init() { super.init(VideoCompositionLayerInstruction(trackID: kCMPersistentTrackID_Invalid)) }
    /// For an asset's track.
    public init(assetTrack track: AVAssetTrack) { super.init(VideoCompositionLayerInstruction(trackID: track.trackID)) }
    /// For a composition's track.
    public init(assetTrack track: AVMutableCompositionTrack) { super.init(VideoCompositionLayerInstruction(trackID: track.trackID)) }
    /// A copy of Splice's layer instruction.
    public override init(_ instruction: VideoCompositionLayerInstruction) { super.init(instruction) }

    /// AVFoundation's factory.
    public static func videoCompositionLayerInstruction(withAssetTrack track: AVAssetTrack) -> AVMutableVideoCompositionLayerInstruction {
        AVMutableVideoCompositionLayerInstruction(assetTrack: track)
    }

    /// The transform from the track's pixels to render pixels from `time` on.
    public func setTransform(_ transform: CGAffineTransform, at time: CMTime) { instruction.setTransform(transform, at: time) }
    /// A transform going linearly from `start` to `end` over `timeRange`.
    public func setTransformRamp(fromStart start: CGAffineTransform, toEnd end: CGAffineTransform, timeRange: CMTimeRange) {
        instruction.setTransformRamp(fromStart: start, toEnd: end, timeRange: timeRange)
    }
    /// The opacity from `time` on.
    public func setOpacity(_ opacity: Float, at time: CMTime) { instruction.setOpacity(opacity, at: time) }
    /// An opacity going linearly from `start` to `end` over `timeRange`.
    public func setOpacityRamp(fromStartOpacity start: Float, toEndOpacity end: Float, timeRange: CMTimeRange) {
        instruction.setOpacityRamp(fromStartOpacity: start, toEndOpacity: end, timeRange: timeRange)
    }
    /// The part of the track's picture drawn from `time` on.
    public func setCropRectangle(_ cropRectangle: CGRect, at time: CMTime) { instruction.setCropRectangle(cropRectangle, at: time) }
}

/// Which tracks are drawn over a range (AVFoundation's `AVVideoCompositionInstruction`).
public class AVVideoCompositionInstruction {
    /// The range of the composition's timeline.
    public var timeRange: CMTimeRange = .zero
    /// How each track is drawn, the first on top.
    public var layerInstructions: [AVVideoCompositionLayerInstruction] = []
    /// What shows where no layer is drawn; nil: the composition's.
    public var backgroundColor: RGBColor?
    /// Accepted: Splice does no post-processing.
    public var enablePostProcessing = true

    init() {}

    /// Splice's instruction.
    public var instruction: VideoCompositionInstruction {
        var i = VideoCompositionInstruction(timeRange: timeRange, layerInstructions: layerInstructions.map(\.instruction))
        i.backgroundColor = backgroundColor
        i.enablePostProcessing = enablePostProcessing
        return i
    }
}

/// An instruction one sets (AVFoundation's `AVMutableVideoCompositionInstruction`).
public final class AVMutableVideoCompositionInstruction: AVVideoCompositionInstruction {
    /// An instruction over no range, drawing nothing yet.
    public override init() { super.init() }

    /// A copy of Splice's instruction.
    public init(_ instruction: VideoCompositionInstruction) {
        super.init()
        timeRange = instruction.timeRange
        layerInstructions = instruction.layerInstructions.map(AVMutableVideoCompositionLayerInstruction.init)
        backgroundColor = instruction.backgroundColor
        enablePostProcessing = instruction.enablePostProcessing
    }

    /// AVFoundation's factory.
    public static func videoCompositionInstruction() -> AVMutableVideoCompositionInstruction { AVMutableVideoCompositionInstruction() }
}

/// How the video tracks are drawn into one picture (AVFoundation's `AVVideoComposition`).
public class AVVideoComposition {
    /// The size of the pictures drawn.
    public var renderSize: CGSize = .zero
    /// The time between frames.
    public var frameDuration: CMTime = .invalid
    /// Which tracks are drawn when.
    public var instructions: [AVVideoCompositionInstruction] = []
    /// Accepted when 1: Splice draws at the render size.
    public var renderScale: Float = 1
    /// What shows where no layer is drawn (Splice's addition).
    public var backgroundColor: RGBColor = .black
    /// Still images over the layers (Splice's addition, for Core Animation's overlays).
    public var overlays: [VideoCompositionOverlay] = []

    init() {}

    /// A copy of Splice's composition.
    public init(_ composition: VideoComposition) {
        renderSize = CGSize(composition.renderSize)
        frameDuration = composition.frameDuration
        instructions = composition.instructions.map(AVMutableVideoCompositionInstruction.init)
        backgroundColor = composition.backgroundColor
        overlays = composition.overlays
    }

    /// The default composition of `asset`'s video tracks: the first's size as shown, its frame
    /// rate, one instruction with each track's transform. For an asset without video (or one
    /// that cannot be read), a composition of no size, which an export refuses with the reason.
    public convenience init(propertiesOf asset: AVAsset) {
        if let made = try? VideoComposition(propertiesOf: asset.spliceAsset()) { self.init(made) } else { self.init() }
    }

    /// Splice's composition.
    public var videoComposition: VideoComposition {
        var v = VideoComposition(renderSize: Dimensions(renderSize), frameDuration: frameDuration)
        v.instructions = instructions.map(\.instruction)
        v.backgroundColor = backgroundColor
        v.overlays = overlays
        return v
    }
}

/// A video composition one sets (AVFoundation's `AVMutableVideoComposition`).
public final class AVMutableVideoComposition: AVVideoComposition {
    /// A composition of no size and no instructions yet.
    public override init() { super.init() }

    /// A copy of Splice's composition.
    public override init(_ composition: VideoComposition) { super.init(composition) }

    /// AVFoundation's factory of `init(propertiesOf:)`.
    public static func videoComposition(withPropertiesOf asset: AVAsset) -> AVMutableVideoComposition {
        AVMutableVideoComposition(propertiesOf: asset)
    }
}
