// AVFoundation's Swift spellings over Splice, for code ported from Apple platforms with its
// `import AVFoundation` changed to `import SpliceAVFoundation`. Splice's reference types take
// AVFoundation's names as aliases; where AVFoundation's type is a class and Splice's a value
// (the audio mix and its parameters) or its API differs in shape (the export session), the
// class here wraps Splice's. What differs still is listed in docs/porting.md.
import Foundation
@_exported import Splice

public typealias AVAsset = Asset
/// An asset from a file. Unlike AVFoundation's, the initializer reads the file and throws: a
/// port writes `try AVURLAsset(url: url)`.
public typealias AVURLAsset = Asset
public typealias AVAssetTrack = AssetTrack
public typealias AVAssetTrackGroup = TrackGroup
public typealias AVAssetTrackSegment = TrackSegment
public typealias AVMutableComposition = MutableComposition
public typealias AVComposition = MutableComposition
public typealias AVMutableCompositionTrack = CompositionTrack
public typealias AVCompositionTrack = CompositionTrack
public typealias AVCompositionTrackSegment = CompositionTrackSegment
public typealias AVAssetReader = AssetReader
public typealias AVAssetReaderTrackOutput = AssetReaderTrackOutput
public typealias AVAssetReaderAudioMixOutput = AssetReaderAudioMixOutput
public typealias AVAssetReaderVideoCompositionOutput = AssetReaderVideoCompositionOutput
public typealias AVAssetWriter = AssetWriter
public typealias AVAssetWriterInput = AssetWriterInput
public typealias AVAssetWriterInputGroup = AssetWriterInputGroup
public typealias AVMediaType = MediaType
public typealias AVMediaCharacteristic = MediaCharacteristic
/// The file types: `.mp4`, `.mov`, `.m4a`, `.m4v` as in AVFoundation, and Splice's others
/// (`.mkv`, `.webm`, `.ts`, …).
public typealias AVFileType = FileType
public typealias AVMetadataItem = MetadataItem
/// A video composition (a value: a port declares it with `var`).
public typealias AVMutableVideoComposition = VideoComposition
public typealias AVVideoComposition = VideoComposition
public typealias AVMutableVideoCompositionInstruction = VideoCompositionInstruction
public typealias AVMutableVideoCompositionLayerInstruction = VideoCompositionLayerInstruction

extension AssetTrack {
    /// AVFoundation's `AVAssetTrack.AssociationType`.
    public typealias AssociationType = TrackAssociationType
}

// The export presets, by AVFoundation's constant names; the values are Splice's preset names.
public let AVAssetExportPresetPassthrough = ExportPreset.passthrough.rawValue
public let AVAssetExportPresetLowQuality = ExportPreset.lowQuality.rawValue
public let AVAssetExportPresetMediumQuality = ExportPreset.mediumQuality.rawValue
public let AVAssetExportPresetHighestQuality = ExportPreset.highestQuality.rawValue
public let AVAssetExportPreset640x480 = ExportPreset.preset640x480.rawValue
public let AVAssetExportPreset960x540 = ExportPreset.preset960x540.rawValue
public let AVAssetExportPreset1280x720 = ExportPreset.preset1280x720.rawValue
public let AVAssetExportPreset1920x1080 = ExportPreset.preset1920x1080.rawValue
public let AVAssetExportPreset3840x2160 = ExportPreset.preset3840x2160.rawValue
public let AVAssetExportPresetHEVC1920x1080 = ExportPreset.hevc1920x1080.rawValue
public let AVAssetExportPresetHEVC3840x2160 = ExportPreset.hevc3840x2160.rawValue
public let AVAssetExportPresetHEVCHighestQuality = ExportPreset.hevcHighestQuality.rawValue
public let AVAssetExportPresetAppleM4A = ExportPreset.appleM4A.rawValue

/// How the audio tracks are mixed (AVFoundation's `AVAudioMix`).
public class AVAudioMix: @unchecked Sendable {   // set up on one thread, then read by an export
    /// Each track's volumes.
    public var inputParameters: [AVAudioMixInputParameters] = []

    public init() {}

    /// Splice's mix of these parameters.
    public var mix: AudioMix { AudioMix(inputParameters: inputParameters.map(\.parameters)) }
}

/// A mix one builds (AVFoundation's `AVMutableAudioMix`).
public final class AVMutableAudioMix: AVAudioMix, @unchecked Sendable {
    /// AVFoundation's factory.
    public static func audioMix() -> AVMutableAudioMix { AVMutableAudioMix() }
}

/// One track's volumes (AVFoundation's `AVAudioMixInputParameters`).
public class AVAudioMixInputParameters: @unchecked Sendable {   // set up on one thread, then read
    /// Splice's parameters, as set so far.
    public var parameters: AudioMixInputParameters

    /// The track the volumes are for.
    public var trackID: CMPersistentTrackID {
        get { parameters.trackID }
        set { parameters.trackID = newValue }
    }

    init(trackID: CMPersistentTrackID) { parameters = AudioMixInputParameters(trackID: trackID) }

    /// The volume at `time`'s setting: its start and end volumes and range (nil before the
    /// first, where the volume is 1).
    public func getVolumeRamp(for time: CMTime) -> (startVolume: Float, endVolume: Float, timeRange: CMTimeRange)? {
        parameters.volumeRamp(for: time)
    }
}

/// Volumes one sets (AVFoundation's `AVMutableAudioMixInputParameters`): a volume holds until
/// the next setting, a ramp is linear and its end volume holds after it.
public final class AVMutableAudioMixInputParameters: AVAudioMixInputParameters, @unchecked Sendable {
    /// Parameters for no track yet (set `trackID`).
    public convenience init() { self.init(trackID: kCMPersistentTrackID_Invalid) }
    public convenience init(track: AVAssetTrack?) { self.init(trackID: track?.trackID ?? kCMPersistentTrackID_Invalid) }
    public convenience init(track: AVMutableCompositionTrack?) { self.init(trackID: track?.trackID ?? kCMPersistentTrackID_Invalid) }

    /// AVFoundation's factory.
    public static func audioMixInputParameters(with track: AVAssetTrack?) -> AVMutableAudioMixInputParameters {
        AVMutableAudioMixInputParameters(track: track)
    }

    public func setVolume(_ volume: Float, at time: CMTime) { parameters.setVolume(volume, at: time) }

    public func setVolumeRamp(fromStartVolume startVolume: Float, toEndVolume endVolume: Float, timeRange: CMTimeRange) {
        parameters.setVolumeRamp(fromStartVolume: startVolume, toEndVolume: endVolume, timeRange: timeRange)
    }
}
