import Foundation
import Splice

/// `splice images`: still images into a video (a `VideoComposition` of overlays, exported).
enum ImagesCommand: Command {
    static let name = "images"
    static let abstract = "Make a video of still images, with an optional crossfade and soundtrack."
    static let usage = """
        splice images <image>... -o <output> [--fps <n>] [--seconds-per-image <d>] [--size <w>x<h>] [--audio <file>]
                      [--crossfade <d>] [--preset <name>] [--faststart] [--force] [--progress json]
        """
    static let help = """
        OVERVIEW: \(abstract)

        Each image (PNG, JPEG, WebP, BMP, TIFF; a JPEG's EXIF orientation applied) is shown
        for --seconds-per-image, fitted inside the frame with its aspect ratio kept, on
        black bars. The video lasts images × seconds-per-image; a crossfade dissolves each
        image into the next within that time, centred on their boundary. --fps alone shows
        one image per frame. --audio adds the first audio track of a file, cut to the video.

        USAGE: \(usage)

        OPTIONS:
          -o <output>               The file to write (.mp4, .mov, .mkv, .webm, .ts).
          --fps <n>                 Frames per second (default 30).
          --seconds-per-image <d>   How long each image is shown (default 3; with --fps alone, one frame).
          --size <w>x<h>            The frame size (default: the first image's, upright, made even).
          --audio <file>            A soundtrack, cut to the video's length.
          --crossfade <d>           Dissolve between images over <d> seconds (at most seconds-per-image).
          --preset <name>           An export preset (default highestQuality; passthrough means highestQuality).
          --faststart               Put the movie header first (MP4/MOV).
          --force                   Replace <output> if it exists.
          --progress json           One JSON object per line on stderr.
          -h, --help                Show help information.

        EXIT STATUS: 0 success, 1 failure, 64 usage error, 65 an image or the audio cannot be
        read, 66 missing file, 129, 130, 143 interrupted (SIGHUP, SIGINT, SIGTERM).

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: ["--faststart", "--force"],
                                       options: ["-o", "--fps", "--seconds-per-image", "--size", "--audio", "--crossfade", "--preset", "--progress"])
        guard !args.positionals.isEmpty else { throw UsageError(message: "expected one or more images") }
        guard let output = args.options["-o"] else { throw UsageError(message: "missing -o <output>") }
        let outputURL = URL(fileURLWithPath: output)
        let force = args.flags.contains("--force")
        try JobSupport.checkOutput(outputURL, force: force, inputs: args.positionals + [args.options["--audio"]].compactMap { $0 })
        let fps = try number(args.options["--fps"], "--fps", range: 1...240) ?? 30
        let seconds = try number(args.options["--seconds-per-image"], "--seconds-per-image", range: 0.001...86_400)
        let crossfade = try number(args.options["--crossfade"], "--crossfade", range: 0...86_400) ?? 0
        let frameDuration = VideoComposition.frameDuration(forRate: fps)
        let perImage = seconds.map { max(1, ($0 / frameDuration.seconds).rounded(saturating: Int.self) ?? 1) } ?? (args.options["--fps"] != nil ? 1 : (3 / frameDuration.seconds).rounded(saturating: Int.self) ?? 1)
        let fadeFrames = (crossfade / frameDuration.seconds).rounded(saturating: Int.self) ?? 0
        guard fadeFrames <= perImage else {
            throw UsageError(message: "--crossfade \(args.options["--crossfade"]!) is longer than each image is shown (\(Double(perImage) * frameDuration.seconds) s)")
        }
        let preset = try JobSupport.preset(args.options["--preset"])
        let json = try JobSupport.jsonProgress(args)
        let images = try args.positionals.map { path -> StillImage in
            guard FileManager.default.fileExists(atPath: path) else { throw MediaError(.fileNotFound, "no such file", file: path) }
            return try StillImage(contentsOf: URL(fileURLWithPath: path))
        }
        let size = try args.options["--size"].map(parseSize) ?? Dimensions(width: images[0].width + images[0].width % 2,
                                                                           height: images[0].height + images[0].height % 2)
        let slides = try VideoComposition(images: images, renderSize: size, frameDuration: frameDuration,
                                          framesPerImage: perImage, crossfadeFrames: fadeFrames)
        let composition = MutableComposition()
        if let path = args.options["--audio"] {
            let clip = try Clip(path)
            let audio = try clip.open()
            guard let sound = audio.tracks(withMediaType: .audio).first else { throw MediaError(.invalidData, "has no audio track", file: clip.url.path) }
            let range = try clip.range(in: audio)
            let length = min(range.duration, slides.duration)
            try composition.addMutableTrack(withMediaType: .audio)!.insertTimeRange(TimeRange(start: range.start, duration: length), of: sound, at: .zero)
        }
        let session = ExportSession(asset: try composition.makeAsset(), preset: preset == .passthrough ? .highestQuality : preset)
        session.videoComposition = slides
        return try JobSupport.export(session, to: outputURL, force: force, faststart: args.flags.contains("--faststart"), json: json)
    }

    private static func number(_ text: String?, _ name: String, range: ClosedRange<Double>) throws -> Double? {
        guard let text else { return nil }
        guard let v = Double(text), range.contains(v) else {
            throw UsageError(message: "\(name) takes a number from \(range.lowerBound.formatted()) to \(range.upperBound.formatted()), not '\(text)'")
        }
        return v
    }

    /// `<w>x<h>`, even sizes from 16 to 16384.
    static func parseSize(_ text: String) throws -> Dimensions {
        let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }   // lint: checked (parses text: nil when it is not a number)
        guard parts.count == 2, (16...16384).contains(parts[0]), (16...16384).contains(parts[1]), parts[0] % 2 == 0, parts[1] % 2 == 0 else {
            throw UsageError(message: "--size takes <width>x<height>, even, 16 to 16384 (1920x1080), not '\(text)'")
        }
        return Dimensions(width: parts[0], height: parts[1])
    }
}
