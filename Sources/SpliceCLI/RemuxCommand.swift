import Dispatch
import Foundation
import Splice
#if canImport(Glibc)
import Glibc
#endif

/// `splice remux`: a lossless copy into any container Splice writes, with progress, `--faststart` and `--verify`.
enum RemuxCommand: Command {
    static let name = "remux"
    static let abstract = "Copy a movie into a new file, losing nothing."
    static let usage = "splice remux <input> <output> [--tracks <list>] [--exclude-tracks <list>] [--faststart] \(FragmentOptions.usage) [--force] [--verify] [--salvage] [--verbose]"
    static let help = """
        OVERVIEW: \(abstract)

        \(ParsedArguments.wrapped("Copies every sample of every track, byte for byte, into a new file. MP4, MOV, M4A and M4V are "
            + "written natively and keep the track structure: alternate groups and their default tracks, track associations (fall, "
            + "forc, folw, chap, …), enabled flags, languages and elng tags, names, and edit lists. "
            + FileType.listing(FileType.allCases.filter { !$0.keepsBoxes }, "and") + " files are written through libavformat, "
            + "which reads every other container too."))

        Between containers the bitstream changes only where the target requires it:
        H.264/HEVC start codes become NAL lengths in MP4 (and back in TS), AAC loses its
        ADTS headers, text subtitles become tx3g in MP4 and SRT (Matroska) or WebVTT
        (WebM) elsewhere. Matroska default and forced flags become alternate groups
        (audio one group, subtitles another, one track enabled per group) and back.

        The output is written to a temporary file beside <output> and renamed into
        place only on success.

        A damaged MP4/MOV is refused, saying what is wrong, unless --salvage is given:
        then a truncated download keeps every sample wholly in the file (the rest are
        counted in a warning), a track that cannot be read is left out with a warning
        naming it, a missing movie header is made up, and the output is a valid file.

        USAGE: \(usage)

        ARGUMENTS:
          <input>                 A movie: MP4, MOV, M4A, M4V, or anything libavformat reads.
        \(ParsedArguments.optionHelp("<output>", "The file to write: \(FileType.listing(FileType.allCases.filter { !$0.holdsSoundOnly }, "or")), "
            + "or (sound only) \(FileType.listing(FileType.allCases.filter(\.holdsSoundOnly), "or"))."))

        OPTIONS:
          --faststart             Put the movie header before the media data (for streaming).
        \(FragmentOptions.help)
          --force                 Replace <output> if it exists (never <input>: a job does not write over what it reads).
          --verify                Read the output back and compare every sample with the input
                                  (MP4/MOV to MP4/MOV).
          --salvage               Copy what a damaged MP4/MOV still holds (see above).
        \(ParsedArguments.trackHelp)
          --verbose               Show FFmpeg's messages.
          -h, --help              Show help information.

        EXIT STATUS: 0 success, 1 failure (output exists, write error, verification failed),
        64 usage error, 65 invalid or unsupported input, 66 missing input, 129, 130, 143 interrupted (SIGHUP, SIGINT, SIGTERM).

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: Set(["--faststart", "--force", "--verify", "--salvage"]).union(FragmentOptions.flags),
                                       options: Set(ParsedArguments.trackOptions).union(FragmentOptions.options))
        guard args.positionals.count == 2 else {
            throw UsageError(message: args.positionals.count < 2 ? "expected <input> and <output>" : "too many arguments")
        }
        let inputURL = URL(fileURLWithPath: args.positionals[0])
        let outputURL = URL(fileURLWithPath: args.positionals[1])
        let outputType = try ParsedArguments.movieType(of: outputURL)
        if args.flags.contains("--faststart") && !outputType.movesIndexToFront {
            throw UsageError(message: "--faststart applies to \(FileType.allCases.filter(\.movesIndexToFront).map { "." + $0.rawValue }.joined(separator: ", ")) outputs")
        }
        let fragments = try FragmentOptions.parse(args, output: outputType)
        try JobRunner.checkOutput(outputURL, force: args.has("--force"), inputs: [inputURL.path])
        let asset = try Asset(url: inputURL, salvage: args.flags.contains("--salvage"))
        let selection = try args.trackSelection(of: asset)
        for note in asset.salvageNotes + asset.timingNotes {
            Terminal.error("warning: \(inputURL.path): \(note)\n")
        }
        if args.flags.contains("--verify") && !(asset.isISOBMFF && outputType.keepsBoxes) {
            throw UsageError(message: "--verify compares MP4/MOV files; compare other containers with ffmpeg's streamhash or framemd5")
        }
        // A verified copy is written beside the output and moved into place only once it has
        // been read back and compared: a copy that fails verification is never left.
        let verify = args.flags.contains("--verify")
        let writtenURL = verify ? outputURL.deletingLastPathComponent().appendingPathComponent(
            ".\(outputURL.deletingPathExtension().lastPathComponent).verifying-\(getpid()).\(outputURL.pathExtension)") : outputURL
        if verify, !selection.keepsEverything { throw UsageError(message: "--verify compares every track; it cannot be used with --tracks or --exclude-tracks") }
        let pipe = try SamplePipe.mirroring(asset, to: writtenURL, fileType: outputType, keeping: selection)
        pipe.writer.shouldOptimizeForNetworkUse = args.flags.contains("--faststart")
        FragmentOptions.apply(fragments, to: pipe.writer)
        pipe.writer.replacesExistingFile = args.flags.contains("--force")
        pipe.writer.syncsToDisk = Terminal.syncsToDisk

        let interrupted = try JobRunner.run(output: outputURL, mediaSeconds: asset.duration.seconds, json: false,
                                            install: { pipe.progressHandler = $0 }, cancel: { [weak pipe] in pipe?.cancel() }) { try pipe.run() }
        if let interrupted { return interrupted }

        for note in pipe.notes { Terminal.note(note) }
        for warning in pipe.warnings + pipe.writer.warnings {
            Terminal.error("warning: \(warning)\n")
        }
        for warning in pipe.reader?.warnings ?? [] {
            Terminal.error("warning: \(inputURL.path): \(warning)\n")
        }
        if verify { return try verified(asset, writtenURL, into: outputURL) }
        try JobRunner.summarize(outputURL, "copied")
        return ExitCode.success
    }

    /// Compares the copy at `written` with `asset` and moves it to `output`; on a difference (or
    /// a cancel while the copy is read back) removes it and throws.
    static func verified(_ asset: Asset, _ written: URL, into output: URL) throws -> Int32 {
        let cancelled = Locked(false)
        let result: SampleComparison.Result
        do {
            result = try Terminal.whileRunning(cancel: { cancelled.withLock { $0 = true } }) {
                try SampleComparison.compare(asset, try Asset(url: written), isCancelled: { cancelled.withLock { $0 } })
            }
        } catch {
            try? FileManager.default.removeItem(at: written)
            if let e = error as? MediaError, e.code == .cancelled {
                guard let status = CommandHost.current.interruption(output.path) else { throw e }
                return status
            }
            let reason = (error as? MediaError)?.message ?? "\(error)"
            throw MediaError(.invalidOperation, "verification failed: \(reason); the copy was removed and nothing was written", file: output.path)
        }
        guard rename(written.path, output.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: written)
            throw MediaError(.io, "cannot move the verified copy into place: \(reason)", file: output.path)
        }
        try JobRunner.summarize(output, "copied", "verified: \(result.tracks) tracks, \(result.samples) samples identical in bytes and timing")
        return ExitCode.success
    }
}
