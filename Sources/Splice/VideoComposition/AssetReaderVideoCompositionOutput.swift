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
public final class AssetReaderVideoCompositionOutput: SampleBufferSource, Sendable {
    /// The tracks drawn.
    public let videoTracks: [AssetTrack]
    /// The pictures handed out: `pixelFormat` (yuv420p10le renders in 10 bits; other formats are
    /// converted from yuv420p), and `size`/maximums to scale the render size; nil: yuv420p at the
    /// render size. Its `toneMapping` makes HDR tracks SDR before they are drawn.
    public let videoSettings: VideoOutputSettings?
    /// The composition; nil: `VideoComposition(propertiesOf:)` of the tracks' asset. Set before reading.
    public var videoComposition: VideoComposition? {
        get { settings.withLock { $0.videoComposition } }
        set { settings.withLock { $0.videoComposition = newValue } }
    }
    /// The reader this output was added to.
    var reader: AssetReader? {
        get { settings.withLock { $0.reader } }
        set { settings.withLock { $0.reader = newValue } }
    }

    let outputs: [AssetReaderTrackOutput]
    private struct Settings {
        var videoComposition: VideoComposition?
        weak var reader: AssetReader?
    }
    private let settings = Mutex(Settings())
    /// The rendering, a few pictures ahead on a thread of its own (while the encoder works), and
    /// whether it failed.
    private let rendering = Mutex<(cursor: PrefetchingCursor?, failed: Bool)>((nil, false))

    /// An output drawing `videoTracks` (of the reader's asset) as `videoComposition` says, into pictures of `videoSettings`.
    public init(videoTracks: [AssetTrack], videoSettings: VideoOutputSettings?) {
        self.videoTracks = videoTracks
        self.videoSettings = videoSettings
        let format = AssetReaderVideoCompositionOutput.renderFormat(videoSettings)
        var decoded = VideoOutputSettings(pixelFormat: format)
        decoded.decoderThreadCount = videoSettings?.decoderThreadCount ?? 0
        // (HDR tracks become SDR before they are drawn, and the overlays are drawn over SDR)
        decoded.toneMapping = videoSettings?.toneMapping
        outputs = videoTracks.map { AssetReaderTrackOutput(track: $0, outputSettings: .video(decoded)) }
    }

    deinit { rendering.withLock { $0.cursor?.close() } }

    /// The format pictures are decoded and composed in: 10-bit when 10-bit pictures are asked for.
    static func renderFormat(_ settings: VideoOutputSettings?) -> PixelBuffer.PixelFormat {
        settings?.pixelFormat == .yuv420p10le ? .yuv420p10le : .yuv420p
    }

    /// The next composed picture, or nil at the end (or when reading or rendering failed: the
    /// reader's `status` and `error` say).
    public func copyNextSampleBuffer() -> SampleBuffer? {
        let outcome: Result<SampleBuffer?, Error> = rendering.withLock { r in
            guard !r.failed else { return .success(nil) }
            do {
                if r.cursor == nil {
                    r.cursor = PrefetchingCursor(.init(cursor: try CompositionRenderCursor(self), decoding: nil), capacity: 3)
                }
                return .success(try r.cursor?.next())
            } catch {
                r.failed = true
                return .failure(error)
            }
        }
        do { return try outcome.get() } catch {
            reader?.fail(error as? MediaError ?? MediaError(.io, "\(error)"))
            return nil
        }
    }

    /// The composition used: the one set, else the tracks' asset's default.
    func resolvedComposition() throws -> VideoComposition {
        if let c = videoComposition { return c }
        if let asset = videoTracks.first?.asset { return try VideoComposition(propertiesOf: asset) }
        throw MediaError(.invalidOperation, "a video composition output without tracks needs a videoComposition")
    }
}

/// Renders a composition output's pictures one after another: at each frame time, each track
/// moved on to the picture it shows then, and the compositor run.
private final class CompositionRenderCursor: SampleCursor {
    private let outputs: [AssetReaderTrackOutput]
    private let tracks: [AssetTrack]
    private let composition: VideoComposition
    private let compositor: VideoCompositor
    private let start: MediaTime
    private let end: MediaTime
    private var index: Int64 = 0
    private var current: [SampleBuffer?]
    private var upcoming: [SampleBuffer?]
    private var ended: [Bool]

    init(_ output: AssetReaderVideoCompositionOutput) throws {
        composition = try output.resolvedComposition()
        try composition.check()
        (outputs, tracks) = (output.outputs, output.videoTracks)
        let range = output.reader?.timeRange ?? .everything
        let trackEnd = tracks.map(\.timeRange.end).max() ?? .zero
        var end = composition.duration > .zero ? composition.duration : trackEnd
        if range.end.isNumeric { end = min(end, range.end) }
        self.end = end
        start = range == .everything ? .zero : range.start
        compositor = VideoCompositor(composition: composition, pixelFormat: AssetReaderVideoCompositionOutput.renderFormat(output.videoSettings),
                                     settings: output.videoSettings)
        current = tracks.map { _ in nil }
        upcoming = tracks.map { _ in nil }
        ended = tracks.map { _ in false }
    }

    func close() {}

    func next() throws -> SampleBuffer? {
        let d = composition.frameDuration
        let time = start + MediaTime(value: d.value * index, timescale: d.timescale)
        guard time < end else { return nil }
        var pictures: [Int: PixelBuffer] = [:]
        for i in tracks.indices {
            advance(track: i, to: time)
            if let shown = current[i], let picture = shown.imageBuffer, isShown(shown, track: i, at: time) {
                pictures[tracks[i].trackID] = picture
            }
        }
        let picture = try compositor.render(at: time, pictures: pictures, order: tracks.map(\.trackID))
        index += 1
        let format = FormatDescription(mediaType: .video, codec: FourCC(picture.pixelFormat.rawValue), codecName: "rawvideo",
                                       dimensions: Dimensions(width: picture.width, height: picture.height))
        return SampleBuffer(pixels: picture, presentationTimeStamp: time, duration: d, formatDescription: format)
    }

    /// Moves track `i` on to the latest picture that starts at or before `time`.
    private func advance(track i: Int, to time: MediaTime) {
        while true {
            if upcoming[i] == nil, !ended[i] {
                upcoming[i] = outputs[i].copyNextSampleBuffer()
                if upcoming[i] == nil { ended[i] = true }
            }
            guard let n = upcoming[i], n.presentationTimeStamp <= time else { return }
            current[i] = n
            upcoming[i] = nil
        }
    }

    /// Whether a picture is still shown at `time`: until its end (its duration), or until the
    /// track's end when it has none.
    private func isShown(_ sample: SampleBuffer, track i: Int, at time: MediaTime) -> Bool {
        if sample.duration.isNumeric, sample.duration > .zero {
            let end = sample.presentationTimeStamp + sample.duration
            // A picture followed closely by the next is shown until it (timestamps may not add
            // up exactly); a gap (an empty edit) longer than a frame shows nothing.
            if let n = upcoming[i], n.presentationTimeStamp > end, n.presentationTimeStamp - end < composition.frameDuration {
                return time < n.presentationTimeStamp
            }
            return time < end
        }
        return time < tracks[i].timeRange.end
    }
}
