import Foundation
import Splice

/// `splice subtitles add` and `extract`: SRT/WebVTT/ASS tracks into a movie, and a subtitle track back out.
enum SubtitlesCommand: Command {
    static let name = "subtitles"
    static let abstract = "Add SRT, WebVTT or ASS/SSA subtitle tracks to a movie, or extract them."
    static let usage = """
        splice subtitles add <input> <subtitle>... -o <output> [--language <code>] [--name <name>]
                                 [--forced] [--default] [--format tx3g|wvtt] [--encoding <name>]
                                 [--keep-late-cues] [--tracks <list>] [--exclude-tracks <list>]
                                 \(FragmentOptions.usage) [--force]
               splice subtitles extract <input> -o <output.srt|.vtt|.ass> [--track <id>] [--force]
        """
    static let help = """
        OVERVIEW: \(abstract)

        add: copies every track of <input> losslessly, with its structure, and adds one
        subtitle track per <subtitle> file (SRT, WebVTT or ASS/SSA; UTF-8 or UTF-16 with BOM).
        The new tracks join the movie's subtitle group (a non-zero alternate group whose
        tracks are all legible), or else form a group of their own. They are disabled
        unless --default.
        In MP4/MOV the track is tx3g by default: overlapping cues are joined (a tx3g track
        shows one sample at a time); bold, italic, underline and colour become tx3g styles;
        a cue's place ({\\an8}, WebVTT line/align, an ASS style's alignment) is kept: the
        track's one sample description is justified to the place most cues have, and a cue
        elsewhere carries a text box (tbox) of its own. --format wvtt writes WebVTT in
        MP4 instead, which keeps cue ids, settings, voices, classes and STYLE/REGION blocks.
        In Matroska the track keeps its file's format (SRT, WebVTT with its header, ASS with
        its script header); WebM holds WebVTT only. What the track's format cannot hold
        (fonts, karaoke, drawings, voices, …) is named in one warning per file.
        The handler is 'sbtl' in MP4 and in MOV (as Apple's players expect).

        extract: writes a text subtitle track — tx3g, QuickTime text or wvtt (MP4/MOV), SRT,
        ASS/SSA or WebVTT (Matroska, WebM) — as SRT, WebVTT or ASS, markup, places, ids and
        settings restored, each cue where the track's edits show it. Picture subtitles (PGS,
        VobSub, DVB) are refused by name.

        USAGE: \(usage)

        OPTIONS (add):
        \(ParsedArguments.optionHelp("-o <output>", "The movie to write (\(FileType.listing(FileType.allCases.filter(\.holdsTextSubtitles))))."))
          --language <code>       ISO 639-1/2 or BCP 47 (en, spa, pt-BR) for every new track.
                                  Default: from the file name (movie.es.srt, movie.pt-BR.srt),
                                  else 'und'. Written as ISO 639-2/T in mdhd, plus elng when a
                                  region or script is given.
          --name <name>           The track name (hdlr).
          --forced                Forced-only subtitles; linked by 'forc' from a full subtitle
                                  track of the same language in the group.
          --default               Enable the new track and disable its group-mates.
          --format tx3g|wvtt      The track's format in MP4/MOV: tx3g (default; shown by every
                                  MP4 player) or wvtt (WebVTT in MP4, ISO/IEC 14496-30).
          --keep-late-cues        Keep cues that run past the movie's end (the movie then lasts
                                  until the last one ends). Default: clipped to the movie's end,
                                  with a warning naming them.
          --encoding <name>       The subtitle files' text encoding (windows-1252, iso-8859-2, cp1251,
                                  shift_jis, gb18030, …). Default: UTF-8 or UTF-16 (by BOM); a file
                                  that is not UTF-8 is read as Windows-1252, with a warning.
          --force                 Replace <output> if it exists.
        \(ParsedArguments.trackHelp)
        \(FragmentOptions.help)

        OPTIONS (extract):
          -o <output>             The subtitle file to write (.srt, .vtt or .ass).
          --track <id>            The track to extract (default: the first text subtitle track).
          --force                 Replace <output> if it exists.

        EXIT STATUS: 0 success, 1 failure, 64 usage error, 65 invalid input (subtitle errors
        name file:line), 66 missing input.

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let verb = arguments.first else { throw UsageError(message: "expected 'add' or 'extract'") }
        let rest = Array(arguments.dropFirst())
        switch verb {
        case "add": return try add(rest)
        case "extract": return try extract(rest)
        default: throw UsageError(message: "unknown subtitles command '\(verb)'; expected 'add' or 'extract'")
        }
    }

    static func add(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: FragmentOptions.flags.union(["--forced", "--default", "--force", "--keep-late-cues"]),
                                       options: Set(["-o", "--output", "--language", "--name", "--format", "--encoding"])
                                           .union(ParsedArguments.trackOptions).union(FragmentOptions.options))
        guard let outputPath = args.options["-o"] ?? args.options["--output"] else { throw UsageError(message: "missing -o <output>") }
        guard args.positionals.count >= 2 else { throw UsageError(message: "expected <input> and at least one <subtitle>") }
        let mp4Format: SubtitleTrackFormat
        switch args.options["--format"] ?? "tx3g" {
        case "tx3g": mp4Format = .tx3g
        case "wvtt": mp4Format = .wvtt
        case let other: throw UsageError(message: "unknown --format '\(other)'; expected tx3g or wvtt")
        }
        var language: LanguageTag?
        if let code = args.options["--language"] {
            guard let tag = LanguageTag(code) else {
                throw UsageError(message: "'\(code)' is not an ISO 639-1/2 code or a BCP 47 tag (e.g. en, spa, pt-BR)")
            }
            language = tag
        }
        let outputURL = URL(fileURLWithPath: outputPath)
        guard try ParsedArguments.movieType(of: outputURL).holdsTextSubtitles else {
            throw UsageError(message: "cannot write subtitles to '.\(outputURL.pathExtension)' files; write "
                                          + FileType.listing(FileType.allCases.filter(\.holdsTextSubtitles)))
        }
        let fragments = try FragmentOptions.parse(args, output: try ParsedArguments.movieType(of: outputURL))
        try JobRunner.checkOutput(outputURL, force: args.flags.contains("--force"), inputs: args.positionals)
        let asset = try Asset(url: URL(fileURLWithPath: args.positionals[0]))
        var tracks: [NewSubtitleTrack] = []
        for (i, path) in args.positionals.dropFirst().enumerated() {
            let url = URL(fileURLWithPath: path)
            let document: SubtitleDocument
            do {
                document = try SubtitleFile.readDocument(url, encoding: args.options["--encoding"]) { Terminal.error("warning: \($0)\n") }
            } catch { throw error.mediaError }
            let tag = language ?? LanguageTag(fileName: url.lastPathComponent)
            var track = NewSubtitleTrack(document: document, language: tag, name: args.options["--name"],
                                         isForced: args.flags.contains("--forced"),
                                         isDefault: args.flags.contains("--default") && i == 0)
            track.keepsLateCues = args.flags.contains("--keep-late-cues")
            track.mp4Format = mp4Format
            track.sourceName = path
            tracks.append(track)
        }
        let (pipe, warnings) = try SamplePipe.addingSubtitles(tracks, to: asset, outputURL: outputURL, keeping: try args.trackSelection(of: asset))
        pipe.writer.replacesExistingFile = args.flags.contains("--force")
        pipe.writer.syncsToDisk = Terminal.syncsToDisk
        FragmentOptions.apply(fragments, to: pipe.writer)
        for w in warnings { Terminal.error("warning: \(w)\n") }
        try Terminal.whileRunning(cancel: { [weak pipe] in pipe?.cancel() }) { try pipe.run() }
        for note in pipe.notes { Terminal.note(note) }
        try JobRunner.summarize(outputURL, "copied", "\(tracks.count) subtitle track\(tracks.count == 1 ? "" : "s") added")
        return ExitCode.success
    }

    static func extract(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: ["--force"], options: ["-o", "--output", "--track"])
        guard let outputPath = args.options["-o"] ?? args.options["--output"] else { throw UsageError(message: "missing -o <output>") }
        guard args.positionals.count == 1 else { throw UsageError(message: "expected one <input>") }
        guard let format = SubtitleFormat(pathExtension: URL(fileURLWithPath: outputPath).pathExtension) else {
            throw UsageError(message: "the output must end in .srt, .vtt or .ass")
        }
        try JobRunner.checkOutput(URL(fileURLWithPath: outputPath), force: args.flags.contains("--force"), inputs: args.positionals)
        let asset = try Asset(url: URL(fileURLWithPath: args.positionals[0]))
        let legible = asset.tracks.filter { $0.mediaType == .subtitle || $0.mediaType == .text && $0.hasMediaCharacteristic(.legible) }
        let candidates = legible.filter { SubtitleExtraction.problem(with: $0) == nil }
        let list = candidates.map { "\($0.trackID) (\($0.languageCode ?? "und")\($0.name.map { ", \($0)" } ?? ""))" }.joined(separator: ", ")
        let track: AssetTrack
        if let id = args.options["--track"] {
            guard let n = Int(id), let t = asset.track(withTrackID: n) else {   // lint: checked (parses text: nil when it is not a number)
                throw MediaError(.invalidData, "there is no track \(id); text subtitle tracks: \(list.isEmpty ? "none" : list)", file: asset.url.path)
            }
            if let problem = SubtitleExtraction.problem(with: t) {
                throw MediaError(.unsupported, "\(problem); text subtitle tracks: \(list.isEmpty ? "none" : list)", file: asset.url.path)
            }
            track = t
        } else {
            guard let t = candidates.first else {
                let why = legible.compactMap { SubtitleExtraction.problem(with: $0) }.first.map { " (\($0))" } ?? ""
                throw MediaError(.unsupported, "no text subtitle track\(why)", file: asset.url.path)
            }
            track = t
        }
        let document = try SubtitleExtraction.document(of: track)
        let target: CueLosses.Target = switch format {
        case .srt: .srt
        case .webVTT: .webVTT(keepsHeader: true)
        case .ass: .ass
        }
        if let lost = CueLosses.warning(for: document, to: target, targetName: outputPath, file: "track \(track.trackID)") {
            Terminal.error("warning: \(lost)\n")
        }
        let output = try OutputFile(destination: outputPath, replacing: args.flags.contains("--force"), syncing: Terminal.syncsToDisk)
        try output.write(Data(SubtitleFile.render(document, format: format).utf8))
        try output.commit()
        Terminal.summary("\(outputPath): \(document.cues.count) cue\(document.cues.count == 1 ? "" : "s") of track \(track.trackID) (\(track.languageCode ?? "und"))")
        return ExitCode.success
    }
}
