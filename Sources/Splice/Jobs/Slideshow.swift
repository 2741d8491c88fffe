import Foundation
import MediaCore
import FFmpegBridge

/// How `ExportSession.slideshow(of:to:options:)` shows images.
public struct SlideshowOptions: Sendable {
    /// Frames per second.
    public var frameRate: Double = 30
    /// How long each image is shown (rounded to whole frames, at least one).
    public var imageDuration = MediaTime(value: 3, timescale: 1)
    /// Each image dissolves into the next over this long, centred on their boundary (at most
    /// `imageDuration`).
    public var crossfade = MediaTime.zero
    /// The frame size; nil: the first image's upright size, made even.
    public var renderSize: Dimensions?
    /// A soundtrack: its first audio track, cut to the video's length.
    public var audio: Clip?
    /// The encoding preset (`passthrough` means `highestQuality`: images are encoded).
    public var preset = ExportPreset.highestQuality

    /// Options with these values (by default: 30 frames a second, 3 s an image, no crossfade, the first image's size, no sound).
    public init(frameRate: Double = 30, imageDuration: MediaTime = MediaTime(value: 3, timescale: 1), crossfade: MediaTime = .zero,
                renderSize: Dimensions? = nil, audio: Clip? = nil, preset: ExportPreset = .highestQuality) {
        self.frameRate = frameRate
        self.imageDuration = imageDuration
        self.crossfade = crossfade
        self.renderSize = renderSize
        self.audio = audio
        self.preset = preset
    }
}

extension ExportSession {
    /// The export of still images (PNG, JPEG, WebP, BMP, TIFF; a JPEG's EXIF orientation
    /// applied) as a video: each shown for `imageDuration`, fitted inside the frame with its
    /// aspect ratio kept, on black bars; the video lasts images × imageDuration.
    /// - Throws: `.fileNotFound`, `.invalidData` for a file that is no image, `.invalidOperation`
    ///   for a frame rate outside 1…240 or a crossfade longer than an image is shown.
    public static func slideshow(of imageURLs: [URL], to outputURL: URL, options: SlideshowOptions = .init()) throws -> ExportSession {
        guard !imageURLs.isEmpty else { throw MediaError(.invalidOperation, "no images to show") }
        guard options.frameRate >= 1, options.frameRate <= 240 else { throw MediaError(.invalidOperation, "a frame rate of \(options.frameRate) is outside 1…240") }
        let frameDuration = VideoComposition.frameDuration(forRate: options.frameRate)
        let perImage = max(1, (options.imageDuration.seconds / frameDuration.seconds).rounded(saturating: Int.self) ?? 1)
        let fadeFrames = (options.crossfade.seconds / frameDuration.seconds).rounded(saturating: Int.self) ?? 0
        guard fadeFrames <= perImage else {
            throw MediaError(.invalidOperation, "a crossfade of \(options.crossfade.seconds) s is longer than each image is shown (\(Double(perImage) * frameDuration.seconds) s)")
        }
        let images = try imageURLs.map { url -> StillImage in
            guard FileManager.default.fileExists(atPath: url.path) else { throw MediaError(.fileNotFound, "no such file", file: url.path) }
            return try StillImage(contentsOf: url)
        }
        let size = options.renderSize ?? Dimensions(width: images[0].width + images[0].width % 2, height: images[0].height + images[0].height % 2)
        let slides = try VideoComposition(images: images, renderSize: size, frameDuration: frameDuration, framesPerImage: perImage, crossfadeFrames: fadeFrames)
        let composition = MutableComposition()
        if let clip = options.audio {
            let audio = try clip.open()
            guard let sound = audio.tracks(withMediaType: .audio).first else { throw MediaError(.invalidData, "has no audio track", file: clip.url.path) }
            let range = try clip.timeRange(in: audio)
            let length = min(range.duration, slides.duration)
            try composition.addMutableTrack(withMediaType: .audio)!.insertTimeRange(TimeRange(start: range.start, duration: length), of: sound, at: .zero)
        }
        let session = ExportSession(asset: try composition.makeAsset(), preset: options.preset == .passthrough ? .highestQuality : options.preset)
        session.videoComposition = slides
        session.outputURL = outputURL
        return session
    }
}
