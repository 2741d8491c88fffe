// AVFoundation's mixing and composing reader outputs over Splice's: they take `AVAssetTrack`s and
// settings dictionaries, and their `audioMix` and `videoComposition` are AVFoundation's classes
// (copied when set, as AVFoundation's `copy` properties are). `output` is Splice's.
import Foundation
@_exported import Splice

/// Hands out the audio tracks mixed into one (AVFoundation's `AVAssetReaderAudioMixOutput`).
public final class AVAssetReaderAudioMixOutput: Sendable {
    /// Splice's output.
    public let output: AssetReaderAudioMixOutput
    /// The tracks mixed.
    public let audioTracks: [AVAssetTrack]

    /// An output of `audioTracks` mixed, decoded as `audioSettings` says (`AVFormatIDKey:
    /// kAudioFormatLinearPCM`, …; nil: 32-bit float).
    public init(audioTracks: [AVAssetTrack], audioSettings: [String: Any]?) {
        var settings: AudioOutputSettings?
        if let audioSettings, case .audio(let audio) = OutputSettings(dictionary: audioSettings, for: .audio) { settings = audio }
        self.audioTracks = audioTracks
        output = AssetReaderAudioMixOutput(audioTracks: audioTracks.map(\.track), audioSettings: settings)
    }

    /// The volumes of the tracks (a copy is taken when set); nil: each at 1.
    public var audioMix: AVAudioMix? {
        get { output.audioMix.map(AVAudioMix.init) }
        set { output.audioMix = newValue?.mix }
    }
    /// The kind of media handed out.
    public var mediaType: AVMediaType { .audio }
    /// Accepted: Splice hands out buffers of its own either way.
    public var alwaysCopiesSampleData: Bool { get { true } set { _ = newValue } }

    /// The next mixed buffer, or nil at the end (or when reading failed: see the reader's `error`).
    public func copyNextSampleBuffer() -> CMSampleBuffer? { output.copyNextSampleBuffer() }
}

/// Hands out the video tracks composed into one picture (AVFoundation's
/// `AVAssetReaderVideoCompositionOutput`).
public final class AVAssetReaderVideoCompositionOutput: Sendable {
    /// Splice's output.
    public let output: AssetReaderVideoCompositionOutput
    /// The tracks composed.
    public let videoTracks: [AVAssetTrack]

    /// An output of `videoTracks` composed, in the pixel format `videoSettings` says
    /// (`kCVPixelBufferPixelFormatTypeKey`, …; nil: 8-bit 4:2:0).
    public init(videoTracks: [AVAssetTrack], videoSettings: [String: Any]?) {
        var settings: VideoOutputSettings?
        if let videoSettings, case .video(let video) = OutputSettings(dictionary: videoSettings, for: .video) { settings = video }
        self.videoTracks = videoTracks
        output = AssetReaderVideoCompositionOutput(videoTracks: videoTracks.map(\.track), videoSettings: settings)
    }

    /// How the tracks are drawn (a copy is taken when set); nil: the tracks' default composition.
    public var videoComposition: AVVideoComposition? {
        get { output.videoComposition.map(AVMutableVideoComposition.init) }
        set { output.videoComposition = newValue?.videoComposition }
    }
    /// The kind of media handed out.
    public var mediaType: AVMediaType { .video }
    /// Accepted: Splice hands out buffers of its own either way.
    public var alwaysCopiesSampleData: Bool { get { true } set { _ = newValue } }

    /// The next composed picture, or nil at the end (or when reading failed: see the reader's `error`).
    public func copyNextSampleBuffer() -> CMSampleBuffer? { output.copyNextSampleBuffer() }
}
