import Foundation
import Splice

/// `splice package`: HLS and DASH from one set of CMAF media (`Packager`).
enum PackageCommand: Command {
    static let name = "package"
    static let abstract = "Package movies for streaming: HLS and DASH over one set of CMAF segments."
    static let usage = "splice package <input>... -o <directory> [--hls] [--dash] [--segment <seconds>] [--single-file] [--progress json] [--force]"
    static let help = """
        OVERVIEW: \(abstract)

        \(ParsedArguments.wrapped("Writes every video, sound and subtitle track as CMAF (a file per track, cut into "
            + "segments where the first video track's sync samples start them, at least --segment seconds apart), and "
            + "master.m3u8 (HLS) and manifest.mpd (DASH) over the same media. The movie's structure goes into both: "
            + "alternate groups become HLS audio groups and DASH adaptation set groups, the enabled track of a group its "
            + "default (DEFAULT=YES, Role main), forced subtitles FORCED=YES and Role forced-subtitle, languages "
            + "their BCP 47 tags (elng first). Subtitles are WebVTT segments for HLS and wvtt in CMAF for DASH. "
            + "An encrypted source stays encrypted, signalled with its scheme (SAMPLE-AES-CTR for cenc, SAMPLE-AES "
            + "for cbcs; ContentProtection with cenc:default_KID) and its pssh boxes."))

        \(ParsedArguments.wrapped("Several inputs are renditions of one movie (say 1080p, 720p and 480p exports): "
            + "each video track becomes a variant, and their segments must start at the same times (encode them "
            + "with the same sync samples); a rendition that does not is refused, naming it. A sound or subtitle "
            + "track equal to an earlier input's (kind, codec, language, channels) is packaged once."))

        \(ParsedArguments.wrapped("File names are Splice's own: <input>-<track ID> (1-2 is the first input's track 2), "
            + "with segments <n>.m4s and <n>.vtt in a directory of that name, or one <input>-<track ID>.mp4 per track "
            + "with --single-file. The directory is made beside <directory> and renamed into place when complete: "
            + "a failure or an interruption leaves nothing."))

        USAGE: \(usage)

        ARGUMENTS:
          <input>                 A movie: MP4, MOV, Matroska, or anything libavformat reads.

        OPTIONS:
          -o <directory>          The package's directory (it must not exist, unless --force).
          --hls                   Write the HLS playlists (master.m3u8 and one per track).
          --dash                  Write the DASH manifest (manifest.mpd). Neither option: both.
          --segment <seconds>     The shortest segment (default 6; 0.5 to 60): a segment starts at
                                  the first sync sample at least this long after the last one.
          --single-file           One file per track, addressed by byte ranges (EXT-X-BYTERANGE;
                                  DASH on-demand with a sidx) instead of a file per segment.
          --progress json         Progress as JSON lines on stderr.
          --force                 Replace <directory> if it exists (once the new one is complete).
          -h, --help              Show help information.

        EXIT STATUS: 0 success, 1 failure, 64 usage error, 65 invalid or unsupported input
        (several edits in a track, renditions whose segments do not start together), 66 missing
        input, 129, 130, 143 interrupted (SIGHUP, SIGINT, SIGTERM).

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: ["--hls", "--dash", "--single-file", "--force"],
                                       options: ["-o", "--segment", "--progress"])
        guard !args.positionals.isEmpty else { throw UsageError(message: "expected at least one <input>") }
        let output = try args.output(movie: false)
        let inputs = args.positionals.map { URL(fileURLWithPath: $0) }
        for input in inputs where !FileManager.default.fileExists(atPath: input.path) {
            throw MediaError(.fileNotFound, "no such file", file: input.path)
        }
        let packager = Packager(inputURLs: inputs, outputDirectory: output)
        if args.has("--hls") || args.has("--dash") {
            packager.options.writesHLS = args.has("--hls")
            packager.options.writesDASH = args.has("--dash")
        }
        if let text = args.options["--segment"] {
            guard let s = Double(text), s >= 0.5, s <= 60 else { throw UsageError(message: "--segment takes a number of seconds from 0.5 to 60, not '\(text)'") }
            packager.options.segmentDuration = MediaTime(seconds: s, preferredTimescale: 90_000)
        }
        packager.options.singleFile = args.has("--single-file")
        packager.replacesExistingDirectory = args.has("--force")
        let seconds = try inputs.reduce(0.0) { $0 + (try Asset(url: $1)).duration.seconds }
        var package: Packager.Package?
        let interrupted = try JobRunner.run(output: output, mediaSeconds: seconds, json: try args.jsonProgress(),
                                            install: { packager.progressHandler = $0 }, cancel: { [weak packager] in packager?.cancel() }) {
            package = try packager.run()
        }
        if let interrupted { return interrupted }
        for note in packager.notes { Terminal.note(note) }
        for warning in packager.warnings { Terminal.error("warning: \(warning)\n") }
        if let package {
            let manifests = package.files.filter { $0 == "master.m3u8" || $0 == "manifest.mpd" }
            Terminal.summary("\(output.relativePath): packaged \(package.segments.count) tracks in \(package.files.count) files"
                             + (manifests.isEmpty ? "" : " (\(manifests.joined(separator: ", ")))"))
        }
        return ExitCode.success
    }
}
