import Foundation
import Splice

/// `splice thumbnail`: the frames shown at given times, as PNG or JPEG files.
enum ThumbnailCommand: Command {
    static let name = "thumbnail"
    static let abstract = "Write the frames shown at given times as PNG or JPEG images."
    static let usage = "splice thumbnail <input> --at <time>[,<time>…] -o <out.png|out.jpg|pattern-%d.png> [--size <w>x<h>] [--force]"
    static let help = """
        OVERVIEW: \(abstract)

        Decodes the video from the sync sample before each time and writes the frame shown
        at that time (frame-exact), scaled to fit --size with its aspect ratio kept and
        turned upright by the track's rotation. Images are encoded by libavcodec.

        USAGE: \(usage)

        ARGUMENTS:
          <input>                 A movie: MP4, MOV, or anything libavformat reads.

        OPTIONS:
          --at <times>            Seconds (1.5) or [hh:]mm:ss[.fff], comma-separated.
          -o <output>             The image file; with several times, a pattern with %d
                                  (1, 2, …) such as thumb-%d.png. .png or .jpg/.jpeg.
          --size <w>x<h>          The largest size (never scaled up).
          --force                 Replace existing images.
          -h, --help              Show help information.

        EXIT STATUS: 0 success, 1 failure, 64 usage error, 65 invalid input or a time past the
        end, 66 missing input.

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: ["--force"], options: ["--at", "-o", "--size"])
        guard args.positionals.count == 1 else { throw UsageError(message: "expected one <input>") }
        guard let at = args.options["--at"] else { throw UsageError(message: "missing --at <time>") }
        guard let output = args.options["-o"] else { throw UsageError(message: "missing -o <output>") }
        let times = try at.split(separator: ",").map { part -> MediaTime in
            guard let seconds = parseTime(String(part)), seconds >= 0 else { throw UsageError(message: "'\(part)' is not a time") }
            return MediaTime(seconds: seconds, preferredTimescale: 90_000)
        }
        guard let format = ImageFileFormat(pathExtension: URL(fileURLWithPath: output).pathExtension) else {
            throw UsageError(message: "the output must end in .png, .jpg or .jpeg")
        }
        guard times.count == 1 || output.contains("%d") else { throw UsageError(message: "several times need an output pattern with %d") }
        let generator = AssetImageGenerator(asset: try Asset(url: URL(fileURLWithPath: args.positionals[0])))
        generator.appliesPreferredTrackTransform = true
        if let size = args.options["--size"] {
            let parts = size.split(separator: "x").compactMap { Int($0) }   // lint: checked (parses text: nil when it is not a number)
            guard parts.count == 2, parts.allSatisfy({ $0 > 0 }) else { throw UsageError(message: "--size wants <width>x<height>") }
            generator.maximumSize = Dimensions(width: parts[0], height: parts[1])
        }
        // All or nothing: every image is written to a temporary file first, and only when all
        // are there are they renamed into place (the ones already renamed are removed when one fails).
        let paths = times.indices.map { output.replacingOccurrences(of: "%d", with: String($0 + 1)) }
        for path in paths { try JobSupport.checkOutput(URL(fileURLWithPath: path), force: args.flags.contains("--force"), inputs: args.positionals) }
        var files: [(OutputFile, String)] = []
        let cancelled = Locked(false)
        try Signals.whileRunning(cancel: { cancelled.withLock { $0 = true } }) {
            for (time, path) in zip(times, paths) {
                if cancelled.withLock({ $0 }) { throw MediaError(.cancelled, "interrupted; nothing was written", file: path) }
                let (image, actual) = try generator.image(at: time)
                let data = format == .png ? try AssetImageGenerator.pngData(image) : try AssetImageGenerator.jpegData(image)
                let file = try OutputFile(destination: path, replacing: args.flags.contains("--force"))
                try file.write(data)
                files.append((file, "\(path): \(image.width)x\(image.height), the frame shown from \(String(format: "%.3f", actual.seconds)) s"))
            }
            try OutputFile.commitAll(files.map(\.0))
        }
        for (_, line) in files { print(line) }
        return ExitCode.success
    }

    /// Seconds from `1.5`, `01:02.5` or `1:02:03.25`.
    static func parseTime(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
        guard !parts.isEmpty, parts.count <= 3, parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        return parts.reduce(0) { $0 * 60 + $1! }
    }
}
