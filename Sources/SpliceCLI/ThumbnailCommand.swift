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
          --size <w>x<h>          The largest size, 16 to 16384 each way (never scaled up).
          --force                 Replace existing images.
          -h, --help              Show help information.

        EXIT STATUS: 0 success, 1 failure, 64 usage error, 65 invalid input or a time past the
        end, 66 missing input.

        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: ["--force"], options: ["--at", "-o", "--size"])
        let input = try args.positionals(1, "one <input>")[0]
        guard let at = args.options["--at"] else { throw UsageError(message: "missing --at <time>") }
        let output = try args.output(movie: false).path
        let times = try at.split(separator: ",").map { try ParsedArguments.time(String($0), in: "--at") }
        guard ImageFileFormat(pathExtension: URL(fileURLWithPath: output).pathExtension) != nil else {
            throw UsageError(message: "the output must end in .png, .jpg or .jpeg")
        }
        guard times.count == 1 || output.contains("%d") else { throw UsageError(message: "several times need an output pattern with %d") }
        let generator = AssetImageGenerator(asset: try Asset(url: URL(fileURLWithPath: input)))
        generator.appliesPreferredTrackTransform = true
        generator.maximumSize = try args.size("--size")
        let paths = times.indices.map { output.replacingOccurrences(of: "%d", with: String($0 + 1)) }
        let cancelled = Locked(false)
        let images = try Terminal.whileRunning(cancel: { cancelled.withLock { $0 = true } }) {
            try generator.writeImages(at: times, to: paths, replacing: args.has("--force"), syncing: Terminal.syncsToDisk, isCancelled: { cancelled.withLock { $0 } })
        }
        let shown = images.map { String(format: "%.3f", $0.actualTime.seconds) }.joined(separator: ", ")
        if let first = images.first {
            Terminal.summary(images.count == 1
                ? "\(paths[0]): \(first.width)x\(first.height), the frame shown from \(shown) s"
                : "\(paths.joined(separator: ", ")): \(images.count) images \(first.width)x\(first.height), the frames shown from \(shown) s")
        }
        return ExitCode.success
    }
}
