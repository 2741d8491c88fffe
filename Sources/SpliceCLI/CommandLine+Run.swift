import CSplice
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
public struct UsageError: Error, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// The subcommand whose arguments they are.
    public var command: String?

    /// `message`, after the subcommand.
    public var description: String { (command.map { "\($0): " } ?? "") + message }

    /// A wrong argument of `command`.
    public init(message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }
}

/// A subcommand of `splice`.
protocol Command: Sendable {
    static var name: String { get }
    static var abstract: String { get }
    static var usage: String { get }
    static var help: String { get }
    static func run(_ arguments: [String]) throws -> Int32
}

/// Splice's version: splice.h's, the one number of the C library and the command.
enum Version {
    static let string = "\(SPLICE_VERSION_MAJOR).\(SPLICE_VERSION_MINOR).\(SPLICE_VERSION_PATCH)"
}

extension CommandLine {
    static let commands: [any Command.Type] = [InspectCommand.self, RemuxCommand.self, ExportCommand.self, TrimCommand.self, ConcatCommand.self, MergeCommand.self, MixCommand.self, ImagesCommand.self, PackageCommand.self, SubtitlesCommand.self, ThumbnailCommand.self]

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

    /// Runs `splice` with `arguments` (the program's name left out) in the current host: every
    /// error is said on its diagnostics stream as one line, and the exit status returned.
    public static func run(_ arguments: [String]) -> Int32 {
        // The options of every subcommand, before or after its name.
        var args = arguments
        var host = CommandHost.current
        if let v = args.firstIndex(of: "--verbose") {
            args.remove(at: v)
            Diagnostics.showFFmpegMessages(true)
        }
        if let q = args.firstIndex(of: "--quiet") {
            args.remove(at: q)
            host.isQuiet = true
        }
        if let v = args.firstIndex(of: "--sync") {
            args.remove(at: v)
            host.syncsToDisk = true
        }
        return CommandHost.$current.withValue(host) { dispatch(args) }
    }

    /// Runs the subcommand `arguments[0]` with the rest of `arguments` in the current host, and
    /// throws what it fails with (a `UsageError` for a wrong argument, with its subcommand).
    /// - Returns: The exit status of a job that ended without an error (0, or 128 + a signal
    ///   where the host stops jobs by signals).
    public static func execute(_ arguments: [String]) throws -> Int32 {
        guard let name = arguments.first, let c = commands.first(where: { $0.name == name }) else {
            throw UsageError(message: "unknown subcommand '\(arguments.first ?? "")'")
        }
        do {
            return try c.run(Array(arguments.dropFirst()))
        } catch var e as UsageError {
            e.command = c.name
            throw e
        }
    }

    private static func dispatch(_ args: [String]) -> Int32 {
        guard let first = args.first else {
            Terminal.error(mainHelp)
            return ExitCode.usage
        }
        switch first {
        case "-h", "--help":
            Terminal.output(mainHelp)
            return ExitCode.success
        case "--version":
            Terminal.output("splice \(Version.string)\n")
            return ExitCode.success
        case "help":
            guard args.count > 1 else { Terminal.output(mainHelp); return ExitCode.success }
            guard let c = commands.first(where: { $0.name == args[1] }) else {
                return report(UsageError(message: "unknown subcommand '\(args[1])'"))
            }
            Terminal.output(c.help)
            return ExitCode.success
        default:
            guard let c = commands.first(where: { $0.name == first }) else {
                return report(UsageError(message: "unknown subcommand '\(first)'"))
            }
            let rest = Array(args.dropFirst())
            if rest.contains("-h") || rest.contains("--help") {
                Terminal.output(c.help)
                return ExitCode.success
            }
            do {
                return try c.run(rest)
            } catch let e as MediaError where e.code == .cancelled && CommandHost.current.cancellation.isCancelled {
                return CommandHost.current.interruption(nil) ?? report(e)
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
