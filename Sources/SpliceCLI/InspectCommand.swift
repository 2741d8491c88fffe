import Foundation
import Splice

/// `splice inspect`: the track structure of a movie, as a table or JSON (one `AssetReport` behind both).
enum InspectCommand: Command {
    static let name = "inspect"
    static let abstract = "Show a movie's tracks, groups, associations and edits."
    static let usage = "splice inspect <file> [--json] [--salvage]"
    static let help = """
        OVERVIEW: \(abstract)

        Shows every track (type, codec, language, enabled flag, alternate group,
        name, track associations, sample count, duration, edit list), then the
        alternate groups and their default tracks, then each video track's dynamic
        range: SDR, HDR10, HDR10+, PQ without mastering metadata, HLG, or Dolby
        Vision's profile, compatibility and base layer, with the mastering display
        and content light level. Sample counts are the packets the
        reader hands out: where a container does not state them (Matroska, TS), they
        are counted in one pass over the file. MP4, MOV, M4A, M4V and 3GP are
        read natively; other containers (MKV, WebM, TS, AVI, …) through libavformat.

        USAGE: \(usage)

        ARGUMENTS:
          <file>                  The movie to inspect.

        OPTIONS:
          --json                  Print JSON: {format, duration, tracks: [{id, mediaType,
                                  codec, language, extendedLanguage, enabled,
                                  alternateGroup, name, associations, edits,
                                  sampleCount, dynamicRange, …}], groups: [{alternateGroup, tracks,
                                  defaultTrack}], salvage: [notes]}.
          --salvage               Read a damaged MP4/MOV for what it still holds: samples
                                  wholly in the file, tracks that can be read (warnings say
                                  what is left out), as `remux --salvage` copies it.
          -h, --help              Show help information.

        EXIT STATUS: 0 success, 64 usage error, 65 invalid or unsupported file, 66 missing file.

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: ["--json", "--salvage"])
        guard args.positionals.count == 1 else {
            throw UsageError(message: args.positionals.isEmpty ? "missing <file>" : "too many arguments; expected one <file>")
        }
        let asset = try Asset(url: URL(fileURLWithPath: args.positionals[0]), salvage: args.flags.contains("--salvage"))
        for note in asset.salvageNotes {
            Terminal.error("warning: \(asset.url.path): \(note)\n")
        }
        let report = AssetReport(asset: asset)
        if args.flags.contains("--json") {
            Terminal.output(try report.json() + "\n")
        } else {
            Terminal.output(report.table())
        }
        return ExitCode.success
    }
}
