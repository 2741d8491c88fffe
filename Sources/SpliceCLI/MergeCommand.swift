import Foundation
import Splice

/// `splice merge`: a video with a separately recorded sound.
enum MergeCommand: Command {
    static let name = "merge"
    static let abstract = "Put a separately recorded audio under a video."
    static let usage = "splice merge <video> <audio> -o <output> [--keep-original-audio] [--cut smart|exact|keyframe] [--preset <name>] [--faststart] \(FragmentOptions.usage) [--force]"
    static let help = """
        OVERVIEW: \(abstract)

        The video's video tracks, and the audio file's first audio track from time 0,
        trimmed to the video's duration (a shorter audio ends early). Both take #t=START,END
        ranges. The video is copied; the audio is copied when the output container holds its
        codec and encoded as AAC otherwise (a WAV recording into MP4), with a note.

        USAGE: \(usage)

        OPTIONS:
          -o <output>             The file to write.
          --keep-original-audio   Keep the video's own audio as a second, disabled track in
                                  the new audio's alternate group.
          --preset <name>         Re-encode everything with this export preset.
        \(ParsedArguments.cutHelp("How a range of the video"))
          --faststart             Put the movie header first (MP4/MOV).
        \(FragmentOptions.help)
          --force                 Replace <output> if it exists.
          -h, --help              Show help information.

        EXIT STATUS: 0 success, 1 failure, 64 usage error, 65 invalid input, 66 missing file,
        129, 130, 143 interrupted (SIGHUP, SIGINT, SIGTERM).

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: FragmentOptions.flags.union(["--keep-original-audio", "--faststart", "--force"]), options: FragmentOptions.options.union(["-o", "--cut", "--preset"]))
        let files = try args.positionals(2, "<video> and <audio>")
        let options = MergeOptions(keepsOriginalAudio: args.has("--keep-original-audio"), preset: args.options["--preset"] == nil ? nil : try args.preset(),
                                   cut: try args.cutMode())
        let session = try ExportSession.merging(try ParsedArguments.clip(files[0]), with: try ParsedArguments.clip(files[1]), to: try args.output(), options: options)
        return try JobRunner.export(session, args)
    }
}
