// AVFoundation's Swift spellings over Splice, for code ported from Apple platforms with its
// `import AVFoundation` (and `import CoreMedia`) changed to `import SpliceAVFoundation`. Like
// `import AVFoundation`, the module brings Foundation and Dispatch. Where AVFoundation's type is
// a class with Apple's signatures (assets, tracks, compositions, the reader and writer, the
// audio mix and video composition) the class here wraps Splice's, which it hands out for what
// Splice adds; where the shapes agree, Splice's type takes AVFoundation's name as an alias.
// What differs still is listed in docs/porting.md.
@_exported import Dispatch
@_exported import Foundation
@_exported import Splice

/// Tracks that are alternatives to each other: Splice's `TrackGroup`.
public typealias AVAssetTrackGroup = TrackGroup
/// One edit of a track: Splice's `TrackSegment`.
public typealias AVAssetTrackSegment = TrackSegment
/// A track of a composition: Splice's `CompositionTrack`.
public typealias AVMutableCompositionTrack = CompositionTrack
/// AVFoundation's immutable composition track: Splice's `CompositionTrack`.
public typealias AVCompositionTrack = CompositionTrack
/// One segment of a composition track: Splice's `CompositionTrackSegment`.
public typealias AVCompositionTrackSegment = CompositionTrackSegment
/// Hands out one track's samples: Splice's `AssetReaderTrackOutput`.
public typealias AVAssetReaderTrackOutput = AssetReaderTrackOutput
/// One track of a movie being written: Splice's `AssetWriterInput`.
public typealias AVAssetWriterInput = AssetWriterInput
/// Inputs that are alternatives to each other: Splice's `AssetWriterInputGroup`.
public typealias AVAssetWriterInputGroup = AssetWriterInputGroup
/// A track's kind of media (`.video`, `.audio`, `.text`, `.subtitle`, …): Splice's `MediaType`.
public typealias AVMediaType = MediaType
/// What a track's media offers (`.visual`, `.audible`, `.legible`, …): Splice's `MediaCharacteristic`.
public typealias AVMediaCharacteristic = MediaCharacteristic
/// The file types: `.mp4`, `.mov`, `.m4a`, `.m4v` as in AVFoundation, and Splice's others
/// (`.mkv`, `.webm`, `.ts`, …).
public typealias AVFileType = FileType
/// A movie's metadata item: Splice's `MetadataItem`.
public typealias AVMetadataItem = MetadataItem

extension MediaType {
    /// AVFoundation's string for the kind: the handler type (`vide`, `soun`, `sbtl`, `text`, `clcp`, `tmcd`, `meta`).
    public var rawValue: String { handlerType.description }

    /// The kind whose AVFoundation string (handler type) is `rawValue`.
    public init(rawValue: String) { self.init(handlerType: FourCC(rawValue)) }
}

// The export presets, by AVFoundation's constant names; the values are Splice's preset names.
/// Every track copied as it is.
public let AVAssetExportPresetPassthrough = ExportPreset.passthrough.rawValue
/// H.264 within 640x360, AAC 64 kb/s.
public let AVAssetExportPresetLowQuality = ExportPreset.lowQuality.rawValue
/// H.264 within 1280x720, AAC 128 kb/s.
public let AVAssetExportPresetMediumQuality = ExportPreset.mediumQuality.rawValue
/// H.264 at the source's size, AAC 192 kb/s.
public let AVAssetExportPresetHighestQuality = ExportPreset.highestQuality.rawValue
/// H.264 within 640x480.
public let AVAssetExportPreset640x480 = ExportPreset.preset640x480.rawValue
/// H.264 within 960x540.
public let AVAssetExportPreset960x540 = ExportPreset.preset960x540.rawValue
/// H.264 within 1280x720.
public let AVAssetExportPreset1280x720 = ExportPreset.preset1280x720.rawValue
/// H.264 within 1920x1080.
public let AVAssetExportPreset1920x1080 = ExportPreset.preset1920x1080.rawValue
/// H.264 within 3840x2160.
public let AVAssetExportPreset3840x2160 = ExportPreset.preset3840x2160.rawValue
/// HEVC within 1920x1080.
public let AVAssetExportPresetHEVC1920x1080 = ExportPreset.hevc1920x1080.rawValue
/// HEVC within 3840x2160.
public let AVAssetExportPresetHEVC3840x2160 = ExportPreset.hevc3840x2160.rawValue
/// HEVC at the source's size.
public let AVAssetExportPresetHEVCHighestQuality = ExportPreset.hevcHighestQuality.rawValue
/// The sound only, as AAC in an M4A.
public let AVAssetExportPresetAppleM4A = ExportPreset.appleM4A.rawValue

/// How the audio tracks are mixed (AVFoundation's `AVAudioMix`). Set up on one thread (it is
/// not `Sendable`); an export session takes a copy of it (`AVAssetExportSession.audioMix`), as
/// AVFoundation's does.
public class AVAudioMix {
    /// Each track's volumes.
    public var inputParameters: [AVAudioMixInputParameters] = []

    /// A mix without parameters: every track at 1.
    public init() {}

    /// Splice's mix of these parameters.
    public var mix: AudioMix { AudioMix(inputParameters: inputParameters.map(\.parameters)) }

    /// A mix of Splice's `mix`'s parameters (a copy: changing one does not change the other).
    public convenience init(_ mix: AudioMix) {
        self.init()
        inputParameters = mix.inputParameters.map(AVAudioMixInputParameters.init(parameters:))
    }
}

/// A mix one builds (AVFoundation's `AVMutableAudioMix`).
public final class AVMutableAudioMix: AVAudioMix {
    /// AVFoundation's factory.
    public static func audioMix() -> AVMutableAudioMix { AVMutableAudioMix() }
}

/// One track's volumes (AVFoundation's `AVAudioMixInputParameters`).
/// Set up on one thread (it is not `Sendable`), as its mix.
public class AVAudioMixInputParameters {
    /// Splice's parameters, as set so far.
    public var parameters: AudioMixInputParameters

    /// The track the volumes are for.
    public var trackID: CMPersistentTrackID {
        get { parameters.trackID }
        set { parameters.trackID = newValue }
    }

    init(trackID: CMPersistentTrackID) { parameters = AudioMixInputParameters(trackID: trackID) }

    init(parameters: AudioMixInputParameters) { self.parameters = parameters }

    /// The volume at `time`'s setting: its start and end volumes and range (nil before the
    /// first, where the volume is 1).
    public func getVolumeRamp(for time: CMTime) -> (startVolume: Float, endVolume: Float, timeRange: CMTimeRange)? {
        parameters.volumeRamp(for: time)
    }
}

/// Volumes one sets (AVFoundation's `AVMutableAudioMixInputParameters`): a volume holds until
/// the next setting, a ramp is linear and its end volume holds after it.
public final class AVMutableAudioMixInputParameters: AVAudioMixInputParameters {
    /// Parameters for no track yet (set `trackID`).
    public convenience init() { self.init(trackID: kCMPersistentTrackID_Invalid) }
    /// Parameters for `track` (an asset's track).
    public convenience init(track: AVAssetTrack?) { self.init(trackID: track?.trackID ?? kCMPersistentTrackID_Invalid) }
    /// Parameters for `track` (a composition's track).
    public convenience init(track: AVMutableCompositionTrack?) { self.init(trackID: track?.trackID ?? kCMPersistentTrackID_Invalid) }

    /// AVFoundation's factory.
    public static func audioMixInputParameters(with track: AVAssetTrack?) -> AVMutableAudioMixInputParameters {
        AVMutableAudioMixInputParameters(track: track)
    }

    /// `volume` from `time` on (until the next setting).
    public func setVolume(_ volume: Float, at time: CMTime) { parameters.setVolume(volume, at: time) }

    /// From `startVolume` at the range's start to `endVolume` at its end, linearly; the end
    /// volume holds after it.
    public func setVolumeRamp(fromStartVolume startVolume: Float, toEndVolume endVolume: Float, timeRange: CMTimeRange) {
        parameters.setVolumeRamp(fromStartVolume: startVolume, toEndVolume: endVolume, timeRange: timeRange)
    }
}
