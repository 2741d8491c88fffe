import Dispatch
import Foundation
import Splice

/// `splice export`: an `ExportSession` with one of AVFoundation's presets.
enum ExportCommand: Command {
    static let name = "export"
    static let abstract = "Re-encode a movie with an export preset (AVFoundation's), keeping its structure."
    static let usage = """
        splice export <input> -o <output> [--preset <name>] [--range <start>,<end>] [--video-codec h264|hevc|av1|vp9]
                      [--crf <n>] [--audio-codec aac|opus|flac|alac|mp3] [--audio-bitrate <rate>] [--faststart] [--force]
                      [--progress json] [--watermark <image> [--position <where>] [--margin <px>] [--opacity <0-1>]
                      [--watermark-width <px>|<percent>%]]
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
        through edit lists.

        USAGE: \(usage)

        PRESETS:
        \(ExportPreset.allCases.map { "  " + $0.rawValue.padding(toLength: 22, withPad: " ", startingAt: 0) + "  " + $0.summary }.joined(separator: "\n"))

        OPTIONS:
          -o <output>             The file to write (.mp4, .mov, .m4v, .m4a, .mkv, .mka, .webm, .ts, .ogg, .opus).
          --preset <name>         One of the presets above (default: mediumQuality).
          --range <start>,<end>   Export only this part; times in seconds or [hh:]mm:ss[.fff].
          --video-codec <codec>   Encode video with h264, hevc, av1 or vp9 instead of the preset's.
          --crf <n>               The video quality (CRF) instead of the preset's.
          --audio-codec <codec>   Encode audio with aac, opus, flac, alac or mp3.
          --audio-bitrate <rate>  The audio bit rate (128k, 192000).
          --faststart             Put the movie header first (MP4/MOV).
          --force                 Replace <output> if it exists.
        \(WatermarkOptions.help)
          --progress json         One JSON object per line on stderr: {"progress":…,"speed":…,"eta":…}.
          --list-presets          List the presets (--json: as JSON).
          -h, --help              Show help information.

        EXIT STATUS: 0 success, 1 failure, 64 usage error (an unknown preset), 65 invalid or
        unsupported input (a preset that cannot apply), 66 missing input, 129, 130, 143 interrupted (SIGHUP, SIGINT, SIGTERM).

        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, flags: ["--faststart", "--force", "--list-presets", "--json"],
                                       options: Set(["-o", "--preset", "--range", "--video-codec", "--crf", "--audio-codec", "--audio-bitrate", "--progress"]).union(Set(WatermarkOptions.options)))
        if args.flags.contains("--list-presets") { return listPresets(json: args.flags.contains("--json")) }
        guard args.positionals.count == 1 else {
            throw UsageError(message: args.positionals.isEmpty ? "expected <input>" : "too many arguments")
        }
        guard let output = args.options["-o"] else { throw UsageError(message: "missing -o <output>") }
        let preset = try JobSupport.preset(args.options["--preset"], default: .mediumQuality)
        let outputURL = URL(fileURLWithPath: output)
        let force = args.flags.contains("--force")
        try JobSupport.checkOutput(outputURL, force: force, inputs: args.positionals + [args.options["--watermark"]].compactMap { $0 })
        let json = try JobSupport.jsonProgress(args)
        let session = try makeSession(args, preset: preset)
        return try JobSupport.export(session, to: outputURL, force: force, faststart: args.flags.contains("--faststart"), json: json)
    }

    /// The session the arguments describe: range and overrides checked.
    static func makeSession(_ args: ParsedArguments, preset: ExportPreset) throws -> ExportSession {
        let asset = try Asset(url: URL(fileURLWithPath: args.positionals[0]))
        let session = ExportSession(asset: asset, preset: preset)
        if let range = args.options["--range"] { session.timeRange = try parseRange(range) }
        if let v = args.options["--video-codec"] {
            guard let codec = VideoEncodingSettings.Codec(rawValue: v) else { throw UsageError(message: "--video-codec takes " + VideoEncodingSettings.Codec.allCases.map(\.rawValue).joined(separator: ", ")) }
            session.videoCodec = codec
        }
        if let a = args.options["--audio-codec"] {
            guard let codec = AudioEncodingSettings.Codec(rawValue: a) else { throw UsageError(message: "--audio-codec takes " + AudioEncodingSettings.Codec.allCases.map(\.rawValue).joined(separator: ", ")) }
            session.audioCodec = codec
        }
        if let c = args.options["--crf"] {
            guard let crf = Int(c), (0...63).contains(crf) else { throw UsageError(message: "--crf takes a number from 0 to 63") }   // lint: checked (parses text: nil when it is not a number)
            session.crf = crf
        }
        if let b = args.options["--audio-bitrate"] {
            guard let rate = parseBitRate(b) else { throw UsageError(message: "'\(b)' is not a bit rate (128k, 192000)") }
            session.audioBitRate = rate
        }
        if preset == .passthrough, session.videoCodec != nil || session.audioCodec != nil || session.crf != nil || session.audioBitRate != nil {
            throw UsageError(message: "passthrough copies every track; codec, CRF and bit-rate options need an encoding preset")
        }
        try WatermarkOptions.apply(args, to: session)
        return session
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
            print("[\n  " + items.joined(separator: ",\n  ") + "\n]")
        } else {
            for p in ExportPreset.allCases { print(p.rawValue.padding(toLength: 20, withPad: " ", startingAt: 0) + p.summary) }
        }
        return ExitCode.success
    }

    /// `<start>,<end>` in seconds or [hh:]mm:ss[.fff].
    static func parseRange(_ text: String) throws -> TimeRange {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, let start = ThumbnailCommand.parseTime(parts[0]), let end = ThumbnailCommand.parseTime(parts[1]) else {
            throw UsageError(message: "--range takes <start>,<end> (seconds or [hh:]mm:ss[.fff])")
        }
        guard end > start else { throw UsageError(message: "--range ends (\(parts[1])) before it starts (\(parts[0]))") }
        return TimeRange(start: MediaTime(seconds: start, preferredTimescale: 90_000), end: MediaTime(seconds: end, preferredTimescale: 90_000))
    }

    /// `128k`, `1.5M`, `192000`.
    static func parseBitRate(_ text: String) -> Int? {
        let lower = text.lowercased()
        let (digits, scale): (Substring, Double) = lower.hasSuffix("k") ? (lower.dropLast(), 1000) : lower.hasSuffix("m") ? (lower.dropLast(), 1_000_000) : (Substring(lower), 1)
        guard let v = Double(digits), v > 0 else { return nil }
        let rate = (v * scale).rounded(saturating: Int.self) ?? 0
        return rate >= 8000 && rate <= 10_000_000 ? rate : nil
    }
}

/// Progress of an export: the terminal's progress line, or JSON lines (`--progress json`).
final class ProgressReport: @unchecked Sendable {   // state under `lock`
    private let bar: ProgressBar
    private let json: Bool
    private let mediaSeconds: Double
    private let start = Date()
    private let lock = NSLock()
    private var last = Date.distantPast
    private var lastFraction = 0.0

    init(mediaSeconds: Double, json: Bool) {
        bar = ProgressBar(mediaSeconds: mediaSeconds)
        self.json = json
        self.mediaSeconds = mediaSeconds
    }

    var isEnabled: Bool { json || bar.isEnabled }

    func update(_ fraction: Double) {
        guard json else { return bar.update(fraction) }
        let now = Date()
        lock.withLock {
            guard now.timeIntervalSince(last) >= 0.25 || fraction >= 1, fraction > lastFraction else { return }
            last = now
            lastFraction = fraction
            write(fraction, now)
        }
    }

    private func write(_ fraction: Double, _ now: Date) {
        let elapsed = max(now.timeIntervalSince(start), 1e-6)
        let speed = fraction * mediaSeconds / elapsed
        let eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : -1
        let line = String(format: "{\"progress\":%.4f,\"speed\":%.2f,\"eta\":%.1f}\n", fraction, speed, max(0, eta))
        Terminal.error(line)
    }

    func finish() {
        guard json else { return bar.finish() }
        lock.withLock { if lastFraction < 1 { write(1, Date()) } }
    }

    func clear() { if !json { bar.clear() } }
}
