import Foundation
import Splice

/// `splice export`: an `ExportSession` with one of AVFoundation's presets.
enum ExportCommand: Command {
    static let name = "export"
    static let abstract = "Re-encode a movie with an export preset (AVFoundation's), keeping its structure."
    static let usage = """
        splice export <input> -o <output> [--preset <name>] [--range <start>,<end>] [--cut exact|smart|keyframe] [--video-codec h264|hevc|av1|vp9]
                      [--crf <n>] [--tone-map <operator>[:<p>]] [--threads <n>] [--audio-codec aac|opus|flac|alac|mp3] [--audio-bitrate <rate>] [--faststart] \(FragmentOptions.usage) [--force]
                      [--progress json] [--watermark <image> [--position <where>] [--margin <px>] [--opacity <0-1>]
                      [--watermark-width <px>|<percent>%]] [--tracks <list>] [--exclude-tracks <list>]
                      [--encoded-tracks <id>=<file>,…]
               splice export --list-presets [--json]
        """
    static var help: String {
        """
        OVERVIEW: \(abstract)

        Encodes video and audio as the preset says and copies every other track; AAC audio
        at or below the preset's rate that nothing changes is copied too. Alternate groups,
        enabled flags, languages, names, track associations, chapters, the movie's metadata
        and each video track's matrix are kept in every preset. Sizes fit inside the
        preset's box with the aspect ratio kept, never upscaled (a rotated video fits as
        shown). `passthrough` copies every sample; with --range it cuts frame-exactly
        through edit lists, as AVFoundation does (--cut exact), which QuickTime plays right
        and other players often do not: 'splice trim' writes a cut that plays everywhere.

        USAGE: \(usage)

        PRESETS:
        \(ExportPreset.allCases.map { "  " + $0.rawValue.padding(toLength: 22, withPad: " ", startingAt: 0) + "  " + $0.summary }.joined(separator: "\n"))

        OPTIONS:
        \(ParsedArguments.optionHelp("-o <output>", "The file to write (\(FileType.listing(FileType.allCases))).", column: 26))
          --preset <name>         One of the presets above (default: mediumQuality).
          --range <start>,<end>   Export only this part; times in seconds or [hh:]mm:ss[.fff]
                                  (<start>, to the end; ,<end> from the start).
        \(ParsedArguments.optionHelp("--cut <mode>", "passthrough with --range: exact (the default into MP4/MOV: every packet copied, "
            + "the rest hidden by the edit list), smart (the partial GOPs re-encoded: plays right in every player; the default into "
            + "\(ParsedArguments.filesWithoutEditLists), which have no edit lists) or keyframe (the cut moved to sync samples)."))
          --video-codec <codec>   Encode video with h264, hevc, av1 or vp9 instead of the preset's.
          --crf <n>               The video quality (CRF) instead of the preset's.
          --tone-map <op>[:<p>]   How HDR (PQ, HLG) becomes SDR where the output is SDR (H.264
                                  presets, 8-bit encodes): mobius (default, knee 0.95: reference
                                  white, 203 cd/m², at 97.5 % of SDR white, highlights rolled
                                  off above it), hable, reinhard, clip, linear or gamma. HEVC
                                  presets keep HDR (10-bit, PQ/HLG, HDR10 metadata).
          --threads <n>           Threads of the video encoder (and at most as many decoding): 1 for
                                  a task per core; default: the encoder's choice for the cores.
          --audio-codec <codec>   Encode audio with aac, opus, flac, alac or mp3.
          --audio-bitrate <rate>  The audio bit rate (128k, 192000).
          --faststart             Put the movie header first (MP4/MOV).
        \(FragmentOptions.help)
          --force                 Replace <output> if it exists.
        \(ParsedArguments.trackHelp)
        \(WatermarkOptions.help)
          --progress json         One JSON object per line on stderr: {"progress":…,"speed":…,"eta":…}.
          --encoded-tracks <id>=<file>,…
                                  Tracks encoded elsewhere with the same preset (a distributed
                                  export's joined pieces): each written in the place of track <id>
                                  (the file's first track of its type, as it is), with that
                                  track's language, name, flags, group and references. No --range.
          --list-presets          List the presets (--json: as JSON).
          -h, --help              Show help information.

        EXIT STATUS: 0 success, 1 failure, 64 usage error (an unknown preset), 65 invalid or
        unsupported input (a preset that cannot apply), 66 missing input, 129, 130, 143 interrupted (SIGHUP, SIGINT, SIGTERM).

        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: FragmentOptions.flags.union(["--faststart", "--force", "--list-presets", "--json"]),
                                       options: FragmentOptions.options.union(Set(["-o", "--preset", "--range", "--cut", "--video-codec", "--crf", "--tone-map", "--threads", "--audio-codec", "--audio-bitrate", "--progress",
                                                     "--encoded-tracks"]))
                                           .union(Set(WatermarkOptions.options)).union(ParsedArguments.trackOptions))
        if args.has("--list-presets") { return listPresets(json: args.has("--json")) }
        let input = try args.positionals(1, "<input>")[0]
        let session = ExportSession(asset: try Asset(url: URL(fileURLWithPath: input)), preset: try args.preset(default: .mediumQuality))
        session.outputURL = try args.output()
        session.trackSelection = try args.trackSelection(of: session.asset)
        try setEncodedTracks(args.options["--encoded-tracks"], of: session)
        if let range = try args.range("--range") { session.timeRange = range }
        let mode = try args.cutMode()
        if let mode {
            guard session.preset == .passthrough else { throw UsageError(message: "--cut applies to --preset passthrough (the other presets re-encode every frame)") }
            session.cutMode = mode
        }
        session.videoCodec = try args.codec("--video-codec", VideoEncodingSettings.Codec.self)
        session.audioCodec = try args.codec("--audio-codec", AudioEncodingSettings.Codec.self)
        session.crf = try args.integer("--crf", in: 0...63)
        if let text = args.options["--tone-map"] {
            guard let mapping = ToneMapping(argument: text) else {
                throw UsageError(message: "--tone-map takes <operator>[:<parameter>], the operator one of \(ToneMapping.Operator.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
            }
            session.toneMapping = mapping
        }
        session.threadCount = try args.integer("--threads", in: 1...256)
        session.audioBitRate = try args.bitRate("--audio-bitrate")
        if session.preset == .passthrough, session.videoCodec != nil || session.audioCodec != nil || session.crf != nil || session.audioBitRate != nil {
            throw UsageError(message: "passthrough copies every track; codec, CRF and bit-rate options need an encoding preset")
        }
        try WatermarkOptions.apply(args, to: session)
        let status = try JobRunner.export(session, args)
        let edits = (session.outputFileType ?? session.outputURL.flatMap { FileType(pathExtension: $0.pathExtension) })?.hasEditLists ?? true
        if status == ExitCode.success, mode == nil, edits, session.preset == .passthrough, session.timeRange != .everything {
            Terminal.error("note: the cut is exact (every packet copied, the rest hidden by the edit list), as AVFoundation's; "
                           + "'splice trim' (or --cut smart) writes one that plays right in every player\n")
        }
        return status
    }

    /// `--encoded-tracks 1=video.mp4,2=audio.m4a`: for each track ID, the file whose first track
    /// of that track's media type stands for it.
    static func setEncodedTracks(_ text: String?, of session: ExportSession) throws {
        guard let text else { return }
        let asset = session.asset
        var tracks: [Int: AssetTrack] = [:], files: [Asset] = []
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let id = Int(parts[0]), // lint: checked (Int(String) parses, nil when out of range)
                  let track = asset.track(withTrackID: id) else {
                throw UsageError(message: "--encoded-tracks takes <track ID>=<file>,…, each ID one of the input's tracks, not '\(item)'")
            }
            let file = try Asset(url: URL(fileURLWithPath: parts[1]))
            guard let encoded = file.tracks(withMediaType: track.mediaType).first else {
                throw MediaError(.invalidData, "has no \(track.mediaType) track to stand for track \(id)", file: parts[1])
            }
            tracks[id] = encoded
            files.append(file)
        }
        withExtendedLifetime(files) { session.encodedTracks = tracks }
    }

    static func listPresets(json: Bool) -> Int32 {
        if json {
            let items = ExportPreset.allCases.map { p -> String in
                let video = p.video.map { v in
                    "{\"codec\":\"\(v.codec.rawValue)\",\"maxWidth\":\(v.box.map { String($0.width) } ?? "null"),"
                        + "\"maxHeight\":\(v.box.map { String($0.height) } ?? "null"),\"crf\":\(v.crf),\"preset\":\"\(v.speed)\"}"
                } ?? (p == .passthrough ? "\"copy\"" : "null")
                let audio = p.audioBitRate.map { "{\"codec\":\"aac\",\"bitRate\":\($0)}" } ?? "\"copy\""
                return "{\"name\":\"\(p.rawValue)\",\"video\":\(video),\"audio\":\(audio)}"
            }
            Terminal.output("[\n  " + items.joined(separator: ",\n  ") + "\n]\n")
        } else {
            Terminal.output(ExportPreset.allCases.map { $0.rawValue.padding(toLength: 20, withPad: " ", startingAt: 0) + $0.summary + "\n" }.joined())
        }
        return ExitCode.success
    }
}
