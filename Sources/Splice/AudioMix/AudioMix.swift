import MediaCore

/// How the audio tracks of an asset are mixed (AVFoundation's `AVAudioMix`): a volume curve
/// per track. An export mixes every enabled audio track; a track without parameters plays at
/// 1, and parameters for a track ID that is not an audio track of the asset are named in its
/// warnings (AVFoundation ignores them silently).
///
/// ```swift
/// var music = AudioMixInputParameters(track: musicTrack)
/// music.setVolumeRamp(fromStartVolume: 0, toEndVolume: 0.5, timeRange: fadeIn)
/// var mix = AudioMix()
/// mix.inputParameters = [music]
/// ```
public struct AudioMix: Sendable, Hashable {
    /// The tracks' volume curves; a track without parameters plays at 1.
    public var inputParameters: [AudioMixInputParameters]

    /// A mix with these parameters.
    public init(inputParameters: [AudioMixInputParameters] = []) {
        self.inputParameters = inputParameters
    }

    /// The parameters of track `trackID`, if the mix has any.
    public func parameters(forTrackID trackID: Int) -> AudioMixInputParameters? {
        inputParameters.first { $0.trackID == trackID }
    }
}

/// AVFoundation's name for the mix one builds (a Swift value is mutable where it is a `var`).
public typealias MutableAudioMix = AudioMix

/// One track's volume in a mix (AVFoundation's `AVAudioMixInputParameters`): a volume set at a
/// time holds until the next setting, a ramp is linear in amplitude over its range and its end
/// volume holds after it, and before the first setting the volume is 1.
public struct AudioMixInputParameters: Sendable, Hashable {
    /// The ID of the audio track whose volume this sets.
    public var trackID: Int
    /// The curve, in seconds of the asset's timeline.
    public private(set) var gain = GainCurve()

    /// Parameters for track `trackID`, at volume 1 until a setting.
    public init(trackID: Int) { self.trackID = trackID }
    /// Parameters for `track` (AVFoundation's `init(track:)`).
    public init(track: AssetTrack) { trackID = track.trackID }
    /// Parameters for a composition's `track`.
    public init(track: CompositionTrack) { trackID = track.trackID }

    /// `volume` from `time` on (negative volumes are 0).
    public mutating func setVolume(_ volume: Float, at time: MediaTime) {
        gain.setVolume(max(0, volume), at: time.seconds)
    }

    /// From `startVolume` at the range's start to `endVolume` at its end, linearly.
    public mutating func setVolumeRamp(fromStartVolume startVolume: Float, toEndVolume endVolume: Float, timeRange: TimeRange) {
        gain.setRamp(from: max(0, startVolume), to: max(0, endVolume), start: timeRange.start.seconds, end: timeRange.end.seconds)
    }

    /// The setting in force at `time`: its start and end volumes and its range (a step: an empty
    /// range); nil before the first setting (the volume is 1 there).
    public func volumeRamp(for time: MediaTime) -> (startVolume: Float, endVolume: Float, timeRange: TimeRange)? {
        guard let r = gain.ramp(at: time.seconds) else { return nil }
        let scale = max(time.timescale, 1000)
        return (r.from, r.to, TimeRange(start: MediaTime(seconds: r.start, preferredTimescale: scale),
                                        end: MediaTime(seconds: r.end, preferredTimescale: scale)))
    }

    /// The volume at `time`.
    public func volume(at time: MediaTime) -> Float { gain.volume(at: time.seconds) }
}

/// AVFoundation's name for the parameters one builds.
public typealias MutableAudioMixInputParameters = AudioMixInputParameters
