import Foundation
import MediaCore
import FFmpegBridge

/// Still images into a video: a composition of letterboxed overlays, one after another.
extension VideoComposition {
    /// Still images shown one after another, each `framesPerImage` frames, fitted inside the
    /// render size with their aspect ratio kept (on black bars); with `crossfadeFrames`, each
    /// image dissolves into the next over that many frames centred on their boundary (the
    /// frame on the boundary is an even mix), so the whole lasts images × framesPerImage frames.
    /// Export it with a `MutableComposition` of the audio (or of nothing):
    ///
    /// ```swift
    /// let slides = try VideoComposition(images: photos, renderSize: Dimensions(width: 1920, height: 1080),
    ///                                   frameDuration: MediaTime(value: 1, timescale: 30), framesPerImage: 90, crossfadeFrames: 30)
    /// let session = ExportSession(asset: try MutableComposition().makeAsset(), preset: .highestQuality)
    /// session.videoComposition = slides
    /// ```
    /// - Throws: `.invalidOperation` without images, or for a crossfade longer than an image is shown.
    public init(images: [StillImage], renderSize: Dimensions, frameDuration: MediaTime, framesPerImage: Int, crossfadeFrames: Int = 0) throws {
        guard !images.isEmpty else { throw MediaError(.invalidOperation, "no images to show") }
        guard framesPerImage >= 1 else { throw MediaError(.invalidOperation, "each image is shown for at least one frame") }
        guard crossfadeFrames >= 0, crossfadeFrames <= framesPerImage else {
            throw MediaError(.invalidOperation, "a crossfade of \(crossfadeFrames) frames is longer than an image is shown (\(framesPerImage))")
        }
        self.init(renderSize: renderSize, frameDuration: frameDuration)
        let frame = { (k: Int) in MediaTime(value: Int64(widening: k) * frameDuration.value, timescale: frameDuration.timescale) }
        let total = images.count * framesPerImage
        instructions = [VideoCompositionInstruction(timeRange: TimeRange(start: .zero, end: frame(total)))]
        let half = crossfadeFrames / 2
        for (i, image) in images.enumerated() {
            let first = i == 0 ? 0 : i * framesPerImage - half
            let last = i == images.count - 1 ? total : (i + 1) * framesPerImage - half + crossfadeFrames
            var overlay = VideoCompositionOverlay(image: image, frame: CGRect(x: 0, y: 0, width: renderSize.width, height: renderSize.height),
                                                  timeRange: TimeRange(start: frame(first), end: frame(last)))
            overlay.isLetterboxed = true
            if i > 0, crossfadeFrames > 0 {
                overlay.setOpacityRamp(fromStartOpacity: 0, toEndOpacity: 1, timeRange: TimeRange(start: frame(first), end: frame(first + crossfadeFrames)))
            }
            overlays.append(overlay)
        }
    }
}
