import Foundation
import Splice

/// `splice trim`: a part of a file, every sample copied.
enum TrimCommand: Command {
    static let name = "trim"
    static let abstract = "Cut a part of a movie out, frame-exact, copying all but the partial GOPs."
    static let usage = "splice trim <input> -o <output> --range <start>,<end> [--cut smart|exact|keyframe] [--faststart] \(FragmentOptions.usage) [--force] [--progress json]"
    static let help = """
        OVERVIEW: \(abstract)

        Copies the samples of every track that the range shows. The cut is frame-exact: by
        default the frames from the start to the first sync sample and from the last copied
        GOP to the end are re-encoded (with the source's codec, profile and size: H.264, HEVC,
        VP9, AV1), and the sound's first and last frames; every stored frame is shown, so the
        file plays right in every player, in MP4/MOV, Matroska, WebM and MPEG-TS alike. Other
        codecs are cut at sync samples, with a line saying so. '--cut exact' (MP4/MOV) is
        'splice export <input> --preset passthrough --range <start>,<end>': every sample
        copied, the frames before the start hidden by the edit list.

        USAGE: \(usage)

        OPTIONS:
          -o <output>             The file to write.
          --range <start>,<end>   The part kept; times in seconds or [hh:]mm:ss[.fff]
                                  (<start>, to the end; ,<end> from the start).
        \(ParsedArguments.cutHelp("How a cut between sync samples"))
          --faststart             Put the movie header first (MP4/MOV).
        \(FragmentOptions.help)
          --force                 Replace <output> if it exists.
          --progress json         One JSON object per line on stderr.
          -h, --help              Show help information.

        EXIT STATUS: 0 success, 1 failure, 64 usage error, 65 invalid input or a range past the
        end, 66 missing input, 129, 130, 143 interrupted (SIGHUP, SIGINT, SIGTERM).

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: FragmentOptions.flags.union(["--faststart", "--force"]),
                                       options: FragmentOptions.options.union(["-o", "--range", "--cut", "--progress"]))
        let input = try args.positionals(1, "<input>")[0]
        guard let range = try args.range("--range") else { throw UsageError(message: "missing --range <start>,<end>") }
        let session = try ExportSession.trimming(Clip(url: URL(fileURLWithPath: input), timeRange: range), to: try args.output(),
                                                  cutMode: try args.cutMode())
        return try JobRunner.export(session, args)
    }
}
