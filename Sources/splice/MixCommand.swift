import Foundation
import Splice

/// `splice mix`: background music under a video, at a volume, with fades.
enum MixCommand: Command {
    static let name = "mix"
    static let abstract = "Put background music under a video, with volumes and fades."
    static let usage = """
        splice mix <video> <music> -o <output> [--at <time>] [--music-volume <v>] [--original-volume <v>] [--fade-in <seconds>]
                   [--fade-out <seconds>] [--loop] [--audio-codec aac|opus|flac|alac] [--audio-bitrate <rate>] [--faststart] [--force]
        """
    static let help = """
        OVERVIEW: \(abstract)

        The music (its first audio track; <music> takes a #t=START,END range) starts at --at
        and is cut at the video's end, or repeats with --loop. It is mixed with the video's
        own sound — the music at --music-volume (default 0.5), the original at
        --original-volume (default 1 − the music's) — sample by sample, with linear fades at
        the music's start and end; the mix takes the original sound's place, language and
        group, encoded as AAC 192 kb/s unless --audio-codec says otherwise. The video and
        every other track are copied. Volumes above 1 amplify; clipped samples are reported.

        USAGE: \(usage)

        EXIT STATUS: 0 success, 1 failure, 64 usage error, 65 invalid input, 66 missing file,
        129, 130, 143 interrupted (SIGHUP, SIGINT, SIGTERM).

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: ["--loop", "--faststart", "--force"],
                                       options: ["-o", "--at", "--music-volume", "--original-volume", "--fade-in", "--fade-out", "--audio-codec", "--audio-bitrate"])
        guard args.positionals.count == 2 else { throw UsageError(message: "expected <video> and <music>") }
        guard let output = args.options["-o"] else { throw UsageError(message: "missing -o <output>") }
        func number(_ option: String, _ fallback: Double) throws -> Double {
            guard let text = args.options[option] else { return fallback }
            guard let v = Double(text), v >= 0, v.isFinite else { throw UsageError(message: "\(option) takes a number ≥ 0, not '\(text)'") }
            return v
        }
        let musicVolume = try number("--music-volume", 0.5)
        let originalVolume = try number("--original-volume", max(0, 1 - musicVolume))
        let fadeIn = try number("--fade-in", 0), fadeOut = try number("--fade-out", 0)
        guard let at = ThumbnailCommand.parseTime(args.options["--at"] ?? "0") else { throw UsageError(message: "--at takes a time") }
        let outputURL = URL(fileURLWithPath: output)
        try JobSupport.checkOutput(outputURL, force: args.flags.contains("--force"), inputs: args.positionals)

        let videoClip = try Clip(args.positionals[0]), musicClip = try Clip(args.positionals[1])
        let video = try videoClip.open(), music = try musicClip.open()
        guard let song = music.tracks(withMediaType: .audio).first else { throw MediaError(.invalidData, "has no audio track", file: musicClip.url.path) }
        let videoRange = try videoClip.range(in: video), songRange = try musicClip.range(in: music)
        let length = videoRange.duration
        let start = MediaTime(seconds: at, preferredTimescale: 90_000)
        guard start < length else {
            throw MediaError(.invalidData, "--at \(at) s is past the video's end (\(String(format: "%.3f", length.seconds)) s)", file: videoClip.url.path)
        }

        let composition = MutableComposition()
        try composition.insertTimeRange(videoRange, of: video, at: .zero)
        let original = composition.tracks(withMediaType: .audio).first { $0.isEnabled } ?? composition.tracks(withMediaType: .audio).first
        let musicTrack = composition.addMutableTrack(withMediaType: .audio)!
        var cursor = start
        repeat {
            let piece = min(songRange.duration, length - cursor)
            try musicTrack.insertTimeRange(TimeRange(start: songRange.start, duration: piece), of: song, at: cursor)
            cursor = cursor + piece
        } while args.flags.contains("--loop") && cursor < length
        musicTrack.languageCode = original?.languageCode
        musicTrack.alternateGroup = original?.alternateGroup ?? 0

        let mix = volumes(music: musicTrack, original: original, start: start, end: cursor, musicVolume: Float(musicVolume),
                          originalVolume: Float(originalVolume), fadeIn: fadeIn, fadeOut: fadeOut)
        let type = FileType(pathExtension: outputURL.pathExtension)
        composition.writesWithoutEditLists = !(type?.hasEditLists ?? true)
        let session = ExportSession(asset: try composition.makeAsset(), preset: .passthrough)
        session.audioMix = mix
        if !video.metadata.isEmpty { session.metadata = video.metadata }
        session.outputURL = outputURL
        if let c = args.options["--audio-codec"] {
            guard let codec = AudioEncodingSettings.Codec(rawValue: c), codec != .mp3 else { throw UsageError(message: "--audio-codec takes " + AudioEncodingSettings.Codec.allCases.filter { $0 != .mp3 }.map(\.rawValue).joined(separator: ", ")) }
            session.audioCodec = codec
        }
        if let b = args.options["--audio-bitrate"] {
            guard let rate = ExportCommand.parseBitRate(b) else { throw UsageError(message: "'\(b)' is not a bit rate (128k, 192000)") }
            session.audioBitRate = rate
        }
        return try JobSupport.export(session, to: outputURL, force: args.flags.contains("--force"), faststart: args.flags.contains("--faststart"))
    }

    /// The mix: the music at `musicVolume` from `start` to `end`, fading in and out; the original at `originalVolume`.
    static func volumes(music musicTrack: CompositionTrack, original: CompositionTrack?, start: MediaTime, end: MediaTime, musicVolume: Float,
                        originalVolume: Float, fadeIn: Double, fadeOut: Double) -> AudioMix {
    var mix = AudioMix()
    var musicParameters = AudioMixInputParameters(trackID: musicTrack.trackID)
    let v = musicVolume
    musicParameters.setVolume(v, at: .zero)
    if fadeIn > 0 {
        musicParameters.setVolumeRamp(fromStartVolume: 0, toEndVolume: v,
                                      timeRange: TimeRange(start: start, duration: MediaTime(seconds: min(fadeIn, (end - start).seconds), preferredTimescale: 90_000)))
    }
    if fadeOut > 0 {
        let from = max(start, end - MediaTime(seconds: fadeOut, preferredTimescale: 90_000))
        musicParameters.setVolumeRamp(fromStartVolume: v, toEndVolume: 0, timeRange: TimeRange(start: from, end: end))
    }
    mix.inputParameters.append(musicParameters)
    if let original {
        var p = AudioMixInputParameters(trackID: original.trackID)
        p.setVolume(originalVolume, at: .zero)
        mix.inputParameters.append(p)
    }
        return mix
    }
}
