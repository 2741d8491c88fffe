import Foundation
import Splice

/// `splice mix`: background music under a video, at a volume, with fades.
enum MixCommand: Command {
    static let name = "mix"
    static let abstract = "Put background music under a video, with volumes and fades."
    static let usage = """
        splice mix <video> <music> -o <output> [--at <time>] [--music-volume <v>] [--original-volume <v>] [--fade-in <seconds>]
                   [--fade-out <seconds>] [--loop] [--audio-codec aac|opus|flac|alac] [--audio-bitrate <rate>] [--faststart]
                   \(FragmentOptions.usage) [--force]
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

        OPTIONS:
          --faststart             Put the movie header first (MP4/MOV).
        \(FragmentOptions.help)

        EXIT STATUS: 0 success, 1 failure, 64 usage error, 65 invalid input, 66 missing file,
        129, 130, 143 interrupted (SIGHUP, SIGINT, SIGTERM).

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: FragmentOptions.flags.union(["--loop", "--faststart", "--force"]),
                                       options: FragmentOptions.options.union(["-o", "--at", "--music-volume", "--original-volume", "--fade-in", "--fade-out",
                                                                               "--audio-codec", "--audio-bitrate"]))
        let files = try args.positionals(2, "<video> and <music>")
        var options = MixOptions(startTime: try args.time("--at") ?? .zero, loops: args.has("--loop"))
        let volume = 0.0...100, seconds = 0.0...86_400
        options.musicVolume = Float(try args.number("--music-volume", in: volume, default: 0.5)!)
        options.originalVolume = try args.number("--original-volume", in: volume).map(Float.init)
        options.fadeIn = MediaTime(seconds: try args.number("--fade-in", in: seconds, default: 0)!, preferredTimescale: 90_000)
        options.fadeOut = MediaTime(seconds: try args.number("--fade-out", in: seconds, default: 0)!, preferredTimescale: 90_000)
        options.audioCodec = try args.codec("--audio-codec", AudioEncodingSettings.Codec.self, except: [.mp3])
        options.audioBitRate = try args.bitRate("--audio-bitrate")
        let session = try ExportSession.mixing(try ParsedArguments.clip(files[1]), under: try ParsedArguments.clip(files[0]), to: try args.output(), options: options)
        return try JobRunner.export(session, args)
    }
}
