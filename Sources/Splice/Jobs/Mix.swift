import Foundation
import MediaCore

/// How `ExportSession.mixing(_:under:to:options:)` lays music under a video.
public struct MixOptions: Sendable {
    /// Where the music starts on the video's timeline.
    public var startTime = MediaTime.zero
    /// The music's volume (1: as recorded; above 1 amplifies).
    public var musicVolume: Float = 0.5
    /// The video's own sound's volume; nil: 1 − the music's (at least 0).
    public var originalVolume: Float?
    /// A linear fade in at the music's start, this long.
    public var fadeIn = MediaTime.zero
    /// A linear fade out at the music's end, this long.
    public var fadeOut = MediaTime.zero
    /// Repeat the music to the video's end.
    public var loops = false
    /// The mix's codec; nil: the output's default (AAC, or Opus in WebM).
    public var audioCodec: AudioEncodingSettings.Codec?
    /// The mix's bit rate in bits per second; nil: 192 kb/s.
    public var audioBitRate: Int?

    /// Options with these values (by default: the music from the start at 0.5, the video's sound at 0.5, no fades, no loop).
    public init(startTime: MediaTime = .zero, musicVolume: Float = 0.5, originalVolume: Float? = nil, fadeIn: MediaTime = .zero,
                fadeOut: MediaTime = .zero, loops: Bool = false, audioCodec: AudioEncodingSettings.Codec? = nil, audioBitRate: Int? = nil) {
        self.startTime = startTime
        self.musicVolume = musicVolume
        self.originalVolume = originalVolume
        self.fadeIn = fadeIn
        self.fadeOut = fadeOut
        self.loops = loops
        self.audioCodec = audioCodec
        self.audioBitRate = audioBitRate
    }
}

extension ExportSession {
    /// The export of `video` with `music`'s first audio track mixed into its sound: the music
    /// from `startTime`, cut at the video's end (or repeated), at its volume with its fades, the
    /// original at its own; the mix takes the original's place, language and group. The video
    /// and every other track are copied; clipped samples are reported in `warnings`.
    /// - Throws: `.invalidData` when `music` has no audio track or starts past the video's end.
    public static func mixing(_ music: Clip, under video: Clip, to outputURL: URL, options: MixOptions = .init()) throws -> ExportSession {
        let type = try FileType.writing(outputURL)
        let movie = try video.open(), song = try music.open()
        guard let songTrack = song.tracks(withMediaType: .audio).first else { throw MediaError(.invalidData, "has no audio track", file: music.url.path) }
        let videoRange = try video.timeRange(in: movie), songRange = try music.timeRange(in: song)
        let length = videoRange.duration, start = options.startTime
        guard start >= .zero, start < length else {
            throw MediaError(.invalidData, "the music starts at \(start.seconds) s, past the video's end (\(String(format: "%.3f", length.seconds)) s)", file: video.url.path)
        }
        let composition = MutableComposition()
        try composition.insertTimeRange(videoRange, of: movie, at: .zero)
        let own = composition.tracks(withMediaType: .audio)
        let original = own.first { $0.isEnabled } ?? own.first
        let musicTrack = composition.addMutableTrack(withMediaType: .audio)!
        var cursor = start
        repeat {
            let piece = min(songRange.duration, length - cursor)
            try musicTrack.insertTimeRange(TimeRange(start: songRange.start, duration: piece), of: songTrack, at: cursor)
            cursor = cursor + piece
        } while options.loops && cursor < length
        musicTrack.languageCode = original?.languageCode
        musicTrack.alternateGroup = original?.alternateGroup ?? 0
        composition.writesWithoutEditLists = !type.hasEditLists

        let session = ExportSession(asset: try composition.makeAsset(), preset: .passthrough)
        session.audioMix = options.volumes(music: musicTrack.trackID, original: original?.trackID, end: cursor)
        session.mixedTrackIDs = Set([musicTrack.trackID] + (original.map { [$0.trackID] } ?? []))
        session.outputURL = outputURL
        session.audioCodec = options.audioCodec
        session.audioBitRate = options.audioBitRate
        if !movie.metadata.isEmpty { session.metadata = movie.metadata }
        return session
    }
}

extension MixOptions {
    /// The mix: the music at its volume from `startTime` to `end`, fading in and out; the
    /// original at its volume.
    func volumes(music: Int, original: Int?, end: MediaTime) -> AudioMix {
        var parameters = AudioMixInputParameters(trackID: music)
        let v = musicVolume
        parameters.setVolume(v, at: .zero)
        if fadeIn > .zero {
            parameters.setVolumeRamp(fromStartVolume: 0, toEndVolume: v, timeRange: TimeRange(start: startTime, duration: min(fadeIn, end - startTime)))
        }
        if fadeOut > .zero {
            parameters.setVolumeRamp(fromStartVolume: v, toEndVolume: 0, timeRange: TimeRange(start: max(startTime, end - fadeOut), end: end))
        }
        var mix = AudioMix()
        mix.inputParameters.append(parameters)
        if let original {
            var p = AudioMixInputParameters(trackID: original)
            p.setVolume(originalVolume ?? max(0, 1 - musicVolume), at: .zero)
            mix.inputParameters.append(p)
        }
        return mix
    }
}
