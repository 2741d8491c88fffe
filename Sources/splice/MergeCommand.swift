import Foundation
import Splice

/// `splice merge`: a video with a separately recorded sound.
enum MergeCommand: Command {
    static let name = "merge"
    static let abstract = "Put a separately recorded audio under a video."
    static let usage = "splice merge <video> <audio> -o <output> [--keep-original-audio] [--preset <name>] [--faststart] [--force]"
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
          --faststart             Put the movie header first (MP4/MOV).
          --force                 Replace <output> if it exists.
          -h, --help              Show help information.

        EXIT STATUS: 0 success, 1 failure, 64 usage error, 65 invalid input, 66 missing file,
        129, 130, 143 interrupted (SIGHUP, SIGINT, SIGTERM).

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: ["--keep-original-audio", "--faststart", "--force"], options: ["-o", "--preset"])
        guard args.positionals.count == 2 else { throw UsageError(message: "expected <video> and <audio>") }
        guard let output = args.options["-o"] else { throw UsageError(message: "missing -o <output>") }
        let outputURL = URL(fileURLWithPath: output)
        try JobSupport.checkOutput(outputURL, force: args.flags.contains("--force"), inputs: args.positionals)
        let preset = try args.options["--preset"].map { try JobSupport.preset($0) }
        let videoClip = try Clip(args.positionals[0]), audioClip = try Clip(args.positionals[1])
        let video = try videoClip.open(), audio = try audioClip.open()
        let videoTracks = video.tracks(withMediaType: .video)
        guard !videoTracks.isEmpty else { throw MediaError(.invalidData, "has no video track", file: videoClip.url.path) }
        guard let sound = audio.tracks(withMediaType: .audio).first else { throw MediaError(.invalidData, "has no audio track", file: audioClip.url.path) }
        let videoRange = try videoClip.range(in: video), soundRange = try audioClip.range(in: audio)

        let composition = MutableComposition()
        for track in videoTracks {
            try composition.addMutableTrack(withMediaType: .video)!.insertTimeRange(videoRange.intersection(track.timeRange), of: track, at: .zero)
        }
        let length = min(soundRange.duration, videoRange.duration)
        let added = composition.addMutableTrack(withMediaType: .audio)!
        try added.insertTimeRange(TimeRange(start: soundRange.start, duration: length), of: sound, at: .zero)
        if args.flags.contains("--keep-original-audio"), let original = video.tracks(withMediaType: .audio).first(where: \.isEnabled)
            ?? video.tracks(withMediaType: .audio).first {
            let kept = composition.addMutableTrack(withMediaType: .audio)!
            try kept.insertTimeRange(videoRange.intersection(original.timeRange), of: original, at: .zero)
            kept.isEnabled = false
            added.alternateGroup = 1
            kept.alternateGroup = 1
        }
        let type = FileType(pathExtension: outputURL.pathExtension)
        composition.writesWithoutEditLists = !(type?.hasEditLists ?? true)
        let session = ExportSession(asset: try composition.makeAsset(), preset: preset ?? .passthrough)
        session.encodesAudioTheContainerCannotHold = true
        if !video.metadata.isEmpty { session.metadata = video.metadata }
        session.outputURL = outputURL
        if preset == nil, let type, !type.canHold(sound.codecName) {
            Terminal.error("note: \(audioClip.url.lastPathComponent) (\(sound.codecName)) is encoded as AAC: .\(type.rawValue) files cannot hold \(sound.codecName)\n")
        }
        return try JobSupport.export(session, to: outputURL, force: args.flags.contains("--force"), faststart: args.flags.contains("--faststart"))
    }
}
