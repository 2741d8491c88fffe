import Foundation
import MediaCore
import FFmpegBridge

/// Pictures composed from several video tracks by a `VideoComposition` (AVFoundation's
/// `AVAssetReaderVideoCompositionOutput`): one picture every `frameDuration`, from the reader's
/// range start (or zero) to its end — or the composition's last instruction's end, or the
/// asset's duration. Each track is decoded by an output of its own (on a thread of its own);
/// at each output time the picture each track shows then is drawn as the instruction in force
/// says, then the overlays.
///
/// ```swift
/// let output = AssetReaderVideoCompositionOutput(videoTracks: asset.tracks(withMediaType: .video), videoSettings: nil)
/// output.videoComposition = composition
/// try reader.add(output)
/// reader.startReading()
/// while let frame = output.copyNextSampleBuffer() { … frame.pixelBuffer … }
/// ```
public final class AssetReaderVideoCompositionOutput: SampleBufferSource, @unchecked Sendable {
    public let videoTracks: [AssetTrack]
    /// The pictures handed out: `pixelFormat` (yuv420p10le renders in 10 bits; other formats are
    /// converted from yuv420p), and `size`/maximums to scale the render size; nil: yuv420p at the
    /// render size.
    public let videoSettings: VideoOutputSettings?
    /// The composition; nil: `VideoComposition(propertiesOf:)` of the tracks' asset. Set before reading.
    public var videoComposition: VideoComposition?

    let outputs: [AssetReaderTrackOutput]
    weak var reader: AssetReader?
    private let lock = NSLock()
    private var state: State?

    /// What reading has reached: the next frame's index, each track's current and next picture.
    private struct State {
        var composition: VideoComposition
        var compositor: VideoCompositor
        var start: MediaTime
        var end: MediaTime
        var index: Int64 = 0
        var current: [SampleBuffer?]
        var next: [SampleBuffer?]
        var ended: [Bool]
    }

    public init(videoTracks: [AssetTrack], videoSettings: VideoOutputSettings?) {
        self.videoTracks = videoTracks
        self.videoSettings = videoSettings
        let format: PixelBuffer.PixelFormat = videoSettings?.pixelFormat == .yuv420p10le ? .yuv420p10le : .yuv420p
        outputs = videoTracks.map { AssetReaderTrackOutput(track: $0, outputSettings: .video(VideoOutputSettings(pixelFormat: format))) }
    }

    /// The next composed picture, or nil at the end (or when reading or rendering failed: the
    /// reader's `status` and `error` say).
    public func copyNextSampleBuffer() -> SampleBuffer? {
        lock.withLock {
            do {
                if state == nil { state = try makeState() }
                return try next()
            } catch {
                let e = error as? MediaError ?? MediaError(.io, "\(error)")
                reader?.fail(e)
                state?.end = .zero
                return nil
            }
        }
    }

    private func makeState() throws -> State {
        let composition: VideoComposition
        if let c = videoComposition {
            composition = c
        } else if let asset = videoTracks.first?.asset {
            composition = try VideoComposition(propertiesOf: asset)
        } else {
            throw MediaError(.invalidOperation, "a video composition output without tracks needs a videoComposition")
        }
        guard composition.frameDuration.isNumeric, composition.frameDuration > .zero else {
            throw MediaError(.invalidOperation, "the video composition's frameDuration must be positive, not \(composition.frameDuration)")
        }
        let range = reader?.timeRange ?? .everything
        let trackEnd = videoTracks.map(\.timeRange.end).max() ?? .zero
        var end = composition.duration > .zero ? composition.duration : trackEnd
        if range.end.isNumeric { end = min(end, range.end) }
        let format: PixelBuffer.PixelFormat = videoSettings?.pixelFormat == .yuv420p10le ? .yuv420p10le : .yuv420p
        let compositor = VideoCompositor(composition: composition, pixelFormat: format, settings: videoSettings)
        return State(composition: composition, compositor: compositor, start: range == .everything ? .zero : range.start, end: end,
                     current: videoTracks.map { _ in nil }, next: videoTracks.map { _ in nil }, ended: videoTracks.map { _ in false })
    }

    private func next() throws -> SampleBuffer? {
        guard var s = state else { return nil }
        let d = s.composition.frameDuration
        let time = s.start + MediaTime(value: d.value * s.index, timescale: d.timescale)
        guard time < s.end else { return nil }
        var pictures: [Int: PixelBuffer] = [:]
        for i in videoTracks.indices {
            advance(&s, track: i, to: time)
            if let shown = s.current[i], let picture = shown.imageBuffer, isShown(shown, track: i, at: time, state: s) {
                pictures[videoTracks[i].trackID] = picture
            }
        }
        let picture = try s.compositor.render(at: time, pictures: pictures, order: videoTracks.map(\.trackID))
        s.index += 1
        state = s
        let format = FormatDescription(mediaType: .video, codec: FourCC(picture.pixelFormat.rawValue), codecName: "rawvideo",
                                       dimensions: Dimensions(width: picture.width, height: picture.height))
        return SampleBuffer(pixels: picture, presentationTimeStamp: time, duration: d, formatDescription: format)
    }

    /// Moves track `i` on to the latest picture that starts at or before `time`.
    private func advance(_ s: inout State, track i: Int, to time: MediaTime) {
        while true {
            if s.next[i] == nil, !s.ended[i] {
                s.next[i] = outputs[i].copyNextSampleBuffer()
                if s.next[i] == nil { s.ended[i] = true }
            }
            guard let n = s.next[i], n.presentationTimeStamp <= time else { return }
            s.current[i] = n
            s.next[i] = nil
        }
    }

    /// Whether a picture is still shown at `time`: until its end (its duration), or until the
    /// track's end when it has none.
    private func isShown(_ sample: SampleBuffer, track i: Int, at time: MediaTime, state s: State) -> Bool {
        if sample.duration.isNumeric, sample.duration > .zero {
            let end = sample.presentationTimeStamp + sample.duration
            // A picture followed closely by the next is shown until it (timestamps may not add
            // up exactly); a gap (an empty edit) longer than a frame shows nothing.
            if let n = s.next[i], n.presentationTimeStamp > end, n.presentationTimeStamp - end < s.composition.frameDuration {
                return time < n.presentationTimeStamp
            }
            return time < end
        }
        return time < videoTracks[i].timeRange.end
    }
}
