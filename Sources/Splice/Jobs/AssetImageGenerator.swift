import Foundation
import MediaCore
import FFmpegBridge

/// Pictures of a movie at given times (AVFoundation's image generator): the frame shown at each
/// time, decoded from the sync sample before it, scaled to fit `maximumSize`, as RGBA.
///
/// ```swift
/// let generator = AssetImageGenerator(asset: asset)
/// generator.maximumSize = Dimensions(width: 320, height: 320)
/// let (image, actualTime) = try generator.image(at: MediaTime(seconds: 1.5, preferredTimescale: 600))
/// try AssetImageGenerator.pngData(image).write(to: url)
/// ```
public final class AssetImageGenerator: Sendable {
    /// The asset the pictures come from.
    public let asset: Asset
    /// The largest size of an image (aspect ratio kept, never scaled up); nil: the video's size.
    public var maximumSize: Dimensions? { get { setting(\.maximumSize) } set { set(\.maximumSize, newValue) } }
    /// Whether images are turned upright by the track's transform (90°, 180°, 270° rotations).
    public var appliesPreferredTrackTransform: Bool {
        get { setting(\.appliesPreferredTrackTransform) }
        set { set(\.appliesPreferredTrackTransform, newValue) }
    }
    /// How far before the requested time the picture may be. Decoding is always
    /// frame-exact, so these only bound what is acceptable; zero (the default) asks for the
    /// frame shown at the time.
    public var requestedTimeToleranceBefore: MediaTime {
        get { setting(\.toleranceBefore) }
        set { set(\.toleranceBefore, newValue) }
    }
    /// How far after the requested time the picture may be (zero by default; see `requestedTimeToleranceBefore`).
    public var requestedTimeToleranceAfter: MediaTime {
        get { setting(\.toleranceAfter) }
        set { set(\.toleranceAfter, newValue) }
    }

    /// The settings, under one lock: a picture is made from one snapshot of them.
    private struct Settings {
        var maximumSize: Dimensions?
        var appliesPreferredTrackTransform = false
        var toleranceBefore = MediaTime.zero
        var toleranceAfter = MediaTime.zero
    }
    private let settings = Mutex(Settings())
    private func setting<T: Sendable>(_ path: KeyPath<Settings, T>) -> T { settings.withLock { $0[keyPath: path] } }
    private func set<T: Sendable>(_ path: WritableKeyPath<Settings, T>, _ value: T) { settings.withLock { $0[keyPath: path] = value } }

    /// A generator of `asset`'s pictures (its first enabled video track's).
    public init(asset: Asset) {
        self.asset = asset
    }

    /// The picture shown at `time` and the time it is shown from.
    /// - Throws: when the asset has no video track, or `time` lies outside the video.
    public func image(at time: MediaTime) throws -> (image: PixelBuffer, actualTime: MediaTime) {
        guard let track = asset.tracks.first(where: { $0.mediaType == .video && $0.isEnabled })
                ?? asset.tracks.first(where: { $0.mediaType == .video }) else {
            throw MediaError(.unsupported, "no video track", file: asset.filePath())
        }
        // The frame shown at `time` starts at most a frame before it: read from a second before.
        let lead = MediaTime(value: 1, timescale: 1)
        let start = max(.zero, time - lead)
        let reader = try AssetReader(asset: asset)
        reader.timeRange = TimeRange(start: start, end: time + MediaTime(value: 1, timescale: 1000))
        let chosen = settings.withLock { $0 }
        let decoded = VideoOutputSettings(pixelFormat: .rgba, maximumWidth: chosen.maximumSize?.width, maximumHeight: chosen.maximumSize?.height)
        let output = AssetReaderTrackOutput(track: track, outputSettings: .video(decoded))
        try reader.add(output)
        guard reader.startReading() else { throw reader.error ?? MediaError(.io, "cannot read", file: asset.filePath()) }
        var shown: SampleBuffer?
        while let s = output.copyNextSampleBuffer() {
            if s.presentationTimeStamp <= time || shown == nil { shown = s }
        }
        if let error = reader.error { throw error }
        guard let frame = shown, let image = frame.imageBuffer else {
            throw MediaError(.invalidData, "no picture at \(String(format: "%.3f", time.seconds)) s (the video lasts \(String(format: "%.3f", track.timeRange.end.seconds)) s)",
                             file: asset.filePath())
        }
        let upright = chosen.appliesPreferredTrackTransform ? image.rotated(clockwise: track.preferredTransform.rotationDegrees ?? 0) : image
        return (upright, frame.presentationTimeStamp)
    }

    /// The image file formats (`png`, `jpeg`).
    public typealias FileFormat = ImageFileFormat

    /// A PNG file of `image`.
    public static func pngData(_ image: PixelBuffer) throws -> Data { try ImageFile.encode(image, as: .png) }

    /// A JPEG file of `image` (`quality`: libavcodec's qscale, 2 best … 31 worst).
    public static func jpegData(_ image: PixelBuffer, quality: Int = 3) throws -> Data { try ImageFile.encode(image, as: .jpeg, quality: quality) }
}

extension PixelBuffer {
    /// An RGBA picture turned by a quarter-turn multiple (other formats and angles: itself).
    func rotated(clockwise degrees: Int) -> PixelBuffer {
        guard pixelFormat == .rgba || pixelFormat == .bgra, [90, 180, 270].contains(degrees) else { return self }
        let (w, h) = (width, height)
        let (outW, outH) = degrees == 180 ? (w, h) : (h, w)
        var out = [UInt8](repeating: 0, count: outW * outH * 4)
        withPlane(0) { src, stride in
            for y in 0..<h {
                for x in 0..<w {
                    let (nx, ny): (Int, Int)
                    switch degrees {
                    case 90: (nx, ny) = (h - 1 - y, x)
                    case 180: (nx, ny) = (w - 1 - x, h - 1 - y)
                    default: (nx, ny) = (y, w - 1 - x)
                    }
                    let s = y * stride + x * 4, d = (ny * outW + nx) * 4
                    for k in 0..<4 { out[d + k] = src[s + k] }
                }
            }
        }
        return PixelBuffer(pixelFormat: pixelFormat, width: outW, height: outH, color: color,
                           storage: OwnedStorage(planes: [out], strides: [outW * 4]))
    }
}

/// The image files Splice writes: PNG and JPEG.
public typealias ImageFileFormat = ImageFile.Format
