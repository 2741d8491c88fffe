import Foundation
import Splice

/// Exit codes (sysexits.h): usage 64, bad input data 65, missing input 66, other failures 1;
/// 128 + the signal after SIGINT (130), SIGTERM (143) or SIGHUP (129), with nothing written.
enum ExitCode {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
}

/// A wrong command line: printed with a pointer to help, exit 64.
struct UsageError: Error {
    var message: String
    var command: String?
}

/// A subcommand of `splice`.
protocol Command: Sendable {
    static var name: String { get }
    static var abstract: String { get }
    static var usage: String { get }
    static var help: String { get }
    static func run(_ arguments: [String]) throws -> Int32
}

enum Version {
    static let string = "0.1.0"
}

extension CommandLine {
    static let commands: [any Command.Type] = [InspectCommand.self, RemuxCommand.self, ExportCommand.self, TrimCommand.self, ConcatCommand.self, MergeCommand.self, MixCommand.self, ImagesCommand.self, SubtitlesCommand.self, ThumbnailCommand.self]

    static var mainHelp: String {
        var s = """
        OVERVIEW: Read, inspect, remux, join, mix and re-encode movies without losing their track structure.

        USAGE: splice <subcommand> [<arguments>]

        OPTIONS:
          --verbose               Show FFmpeg's messages (for files read or written through libavformat).
          --sync                  Flush each output to disk before putting it in place (a file that
                                  replaces another always is).
          --quiet                 Print no summary line and no notes (warnings and errors still go
                                  to stderr).
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:

        """
        for c in commands { s += "  " + c.name.padding(toLength: 22, withPad: " ", startingAt: 0) + "  " + c.abstract + "\n" }
        s += "\n  See 'splice help <subcommand>' for detailed help.\n"
        return s
    }

    static func run(_ arguments: [String]) -> Int32 {
        // The options of every subcommand, before or after its name.
        var args = arguments
        if let v = args.firstIndex(of: "--verbose") {
            args.remove(at: v)
            Diagnostics.showFFmpegMessages(true)
        }
        if let q = args.firstIndex(of: "--quiet") {
            args.remove(at: q)
            Terminal.isQuiet = true
        }
        if let v = args.firstIndex(of: "--sync") {
            args.remove(at: v)
            Terminal.syncsToDisk = true
        }
        guard let first = args.first else {
            Terminal.error(mainHelp)
            return ExitCode.usage
        }
        switch first {
        case "-h", "--help":
            print(mainHelp, terminator: "")
            return ExitCode.success
        case "--version":
            print("splice \(Version.string)")
            return ExitCode.success
        case "help":
            guard args.count > 1 else { print(mainHelp, terminator: ""); return ExitCode.success }
            guard let c = commands.first(where: { $0.name == args[1] }) else {
                return report(UsageError(message: "unknown subcommand '\(args[1])'"))
            }
            print(c.help, terminator: "")
            return ExitCode.success
        default:
            guard let c = commands.first(where: { $0.name == first }) else {
                return report(UsageError(message: "unknown subcommand '\(first)'"))
            }
            let rest = Array(args.dropFirst())
            if rest.contains("-h") || rest.contains("--help") {
                print(c.help, terminator: "")
                return ExitCode.success
            }
            do {
                return try c.run(rest)
            } catch let e as MediaError where e.code == .cancelled && Signals.received != nil {
                return Signals.reportInterruption(of: nil) ?? ExitCode.failure
            } catch let e as UsageError {
                var e = e
                e.command = c.name
                return report(e)
            } catch var error as MediaError where error.trackID != nil && ["remux", "subtitles", "export"].contains(c.name) {
                // (the track the output cannot hold, and how to leave it out)
                error.message += " (leave it out: --exclude-tracks \(error.trackID!))"
                return report(error)
            } catch {
                return report(error)
            }
        }
    }

    /// Prints an error as one line on stderr and returns its exit code.
    static func report(_ error: Error) -> Int32 {
        let code: Int32
        let message: String
        switch error {
        case let e as UsageError:
            let help = e.command.map { "splice help \($0)" } ?? "splice --help"
            message = "error: \(e.message)\nSee '\(help)'."
            code = ExitCode.usage
        case let e as MediaError where e.code == .fileExists:
            message = "error: \(e) (use --force to replace it)"
            code = ExitCode.failure
        case let e as MediaError:
            message = "error: \(e)"
            switch e.code {
            case .fileNotFound: code = ExitCode.noInput
            case .invalidData, .truncated, .unsupported: code = ExitCode.dataError
            default: code = ExitCode.failure
            }
        default:
            message = "error: \(error)"
            code = ExitCode.failure
        }
        Terminal.error((message.replacingOccurrences(of: "\n", with: "\n", options: []) + "\n"))
        return code
    }
}
