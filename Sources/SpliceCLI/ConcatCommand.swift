import Foundation
import Splice

/// `splice concat`: clips one after the other, copied byte for byte when they fit one track.
enum ConcatCommand: Command {
    static let name = "concat"
    static let abstract = "Join clips (whole files or ranges of them) one after the other."
    static let usage = "splice concat <clip>... -o <output> [--reencode auto|never|always] [--cut smart|exact|keyframe] [--preset <name>] [--audio-only] [--all-tracks] [--crossfade <seconds>] [--faststart] \(FragmentOptions.usage) [--force]"
    static let help = """
        OVERVIEW: \(abstract)

        A clip is FILE or FILE#t=START,END (#t=10,20; #t=10 to the end; #t=,20 from the
        start; seconds or [hh:]mm:ss[.fff]). Each clip brings its enabled video track and
        its enabled audio track; a clip without audio brings silence, so that sound and
        picture stay in step. Into MP4/MOV each cut is frame-exact: by default only the
        frames of a cut's partial GOPs and the sound around each join are re-encoded, the
        rest copied, and every stored frame is shown (--cut).

        USAGE: \(usage)

        OPTIONS:
          -o <output>             The file to write.
          --reencode <when>       auto (default): copy when every clip fits one track (same
                                  codec, size, profile, audio rate and channels) and every cut
                                  can be exact, else re-encode every clip to the first clip's
                                  size (others fitted inside, letterboxed) and audio format.
                                  never: fail instead (exit 65); into Matroska/TS, whose
                                  cuts cannot be hidden, snap each start back to its sync
                                  sample with a warning. always: re-encode.
        \(ParsedArguments.cutHelp("How a cut between sync samples", last: "--reencode never: exact (keyframe into \(ParsedArguments.filesWithoutEditLists)) by default, smart refused."))
          --preset <name>         The export preset when re-encoding (default: highestQuality).
        \(ParsedArguments.optionHelp("--audio-only", "Join only the audio (also for sound-only outputs: \(FileType.listing(FileType.allCases.filter(\.holdsSoundOnly)))); a clip without sound is refused."))
          --all-tracks            Keep every track all clips have (by type and language),
                                  not only the enabled video and audio.
          --crossfade <seconds>   Dissolve each clip's picture into the next's and crossfade
                                  their sound; the clips overlap, so the result is shorter by
                                  (clips − 1) × seconds. Cut smart: only the transitions (and
                                  the partial GOPs around them) re-encoded; --reencode always
                                  re-encodes every clip with the preset's settings.
          --faststart             Put the movie header first (MP4/MOV).
        \(FragmentOptions.help)
          --force                 Replace <output> if it exists.
          -h, --help              Show help information.

        EXIT STATUS: 0 success, 1 failure, 64 usage error, 65 invalid or unfit clips,
        66 missing clip, 129, 130, 143 interrupted (SIGHUP, SIGINT, SIGTERM).

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: FragmentOptions.flags.union(["--audio-only", "--all-tracks", "--faststart", "--force"]),
                                       options: FragmentOptions.options.union(["-o", "--reencode", "--cut", "--preset", "--crossfade"]))
        guard !args.positionals.isEmpty else { throw UsageError(message: "expected at least one <clip>") }
        let output = try args.output()
        var options = ConcatenationOptions(preset: try args.preset(), audioOnly: args.has("--audio-only"), allTracks: args.has("--all-tracks"))
        guard let mode = ConcatenationOptions.Reencode(rawValue: args.options["--reencode"] ?? "auto") else {
            throw UsageError(message: "--reencode takes auto, never or always")
        }
        options.reencode = mode
        options.cut = try args.cutMode()
        if let fade = try args.number("--crossfade", in: 0.001...60) {
            guard mode != .never, !options.allTracks else { throw UsageError(message: "--crossfade re-encodes; it cannot go with --reencode never or --all-tracks") }
            options.crossfade = MediaTime(seconds: fade, preferredTimescale: 90_000)
        }
        let session = try ExportSession.concatenating(try args.positionals.map(ParsedArguments.clip), to: output, options: options)
        return try JobRunner.export(session, args)
    }
}
