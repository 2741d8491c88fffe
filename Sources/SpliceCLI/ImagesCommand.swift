import Foundation
import Splice

/// `splice images`: still images into a video (a `VideoComposition` of overlays, exported).
enum ImagesCommand: Command {
    static let name = "images"
    static let abstract = "Make a video of still images, with an optional crossfade and soundtrack."
    static let usage = """
        splice images <image>... -o <output> [--fps <n>] [--seconds-per-image <d>] [--size <w>x<h>] [--audio <file>]
                      [--crossfade <d>] [--preset <name>] [--faststart] \(FragmentOptions.usage) [--force] [--progress json]
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
        \(ParsedArguments.optionHelp("-o <output>", "The file to write (\(FileType.listing(FileType.allCases.filter { !$0.holdsSoundOnly }))).", column: 28))
          --fps <n>                 Frames per second (default 30).
          --seconds-per-image <d>   How long each image is shown (default 3; with --fps alone, one frame).
          --size <w>x<h>            The frame size (default: the first image's, upright, made even).
          --audio <file>            A soundtrack, cut to the video's length.
          --crossfade <d>           Dissolve between images over <d> seconds (at most seconds-per-image).
          --preset <name>           An export preset (default highestQuality; passthrough means highestQuality).
          --faststart               Put the movie header first (MP4/MOV).
        \(FragmentOptions.help)
          --force                   Replace <output> if it exists.
          --progress json           One JSON object per line on stderr.
          -h, --help                Show help information.

        EXIT STATUS: 0 success, 1 failure, 64 usage error, 65 an image or the audio cannot be
        read, 66 missing file, 129, 130, 143 interrupted (SIGHUP, SIGINT, SIGTERM).

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: FragmentOptions.flags.union(["--faststart", "--force"]),
                                       options: FragmentOptions.options.union(["-o", "--fps", "--seconds-per-image", "--size", "--audio", "--crossfade", "--preset", "--progress"]))
        guard !args.positionals.isEmpty else { throw UsageError(message: "expected one or more images") }
        var options = SlideshowOptions(frameRate: try args.number("--fps", in: 1...240, default: 30)!, renderSize: try args.size("--size", even: true),
                                       audio: try args.options["--audio"].map(ParsedArguments.clip), preset: try args.preset())
        // --fps alone: one image per frame.
        let seconds = try args.number("--seconds-per-image", in: 0.001...86_400) ?? (args.options["--fps"] != nil ? 1 / options.frameRate : 3)
        options.imageDuration = MediaTime(seconds: seconds, preferredTimescale: 90_000)
        let fade = try args.number("--crossfade", in: 0...86_400, default: 0)!
        guard fade <= seconds else { throw UsageError(message: "--crossfade \(fade) s is longer than each image is shown (\(seconds) s)") }
        options.crossfade = MediaTime(seconds: fade, preferredTimescale: 90_000)
        let session = try ExportSession.slideshow(of: args.positionals.map { URL(fileURLWithPath: $0) }, to: try args.output(), options: options)
        return try JobRunner.export(session, args)
    }
}
