import Foundation

/// Runs command-line tools (ffmpeg, ffprobe, mediainfo, the built `splice`) from tests.
public enum Tool {
    public struct Result {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        public var stdoutData: Data
    }

    /// Runs `executable` (a path, or a name looked up in PATH) with `arguments`.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                    timeout: TimeInterval = 120, directory: URL? = nil) throws -> Result {
        let process = Process()
        if let directory { process.currentDirectoryURL = directory }
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        if let environment {
            process.environment = environment
        } else if let childOptions = ProcessInfo.processInfo.environment["SPLICE_CHILD_ASAN_OPTIONS"] {
            // Under `make sanitize` the test runner ignores its own (XCTest's) leaks, but every
            // splice process it starts is checked for leaks.
            var env = ProcessInfo.processInfo.environment
            env["ASAN_OPTIONS"] = childOptions
            process.environment = env
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // A child still running after `timeout` is stopped (SIGTERM, then SIGKILL) and the call throws.
        nonisolated(unsafe) var timedOut = false
        let watchdog = DispatchWorkItem {
            timedOut = true
            process.terminate()
            let pid = process.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + 5) { if process.isRunning { kill(pid, SIGKILL) } }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        // Read both pipes concurrently so neither fills up and blocks the child.
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        watchdog.cancel()
        if timedOut {
            throw ToolError(message: "\(executable) \(arguments.joined(separator: " ")) did not finish within \(Int(timeout)) s and was stopped")
        }
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self), stdoutData: outData)
    }

    /// Runs a tool that must succeed; throws with its stderr otherwise.
    @discardableResult
    public static func check(_ executable: String, _ arguments: [String]) throws -> Result {
        let r = try run(executable, arguments)
        guard r.status == 0 else {
            throw ToolError(message: "\(executable) \(arguments.joined(separator: " ")) exited \(r.status): \(r.stderr)")
        }
        return r
    }

    /// `ffmpeg -v error -y …`
    public static func ffmpeg(_ arguments: [String]) throws {
        try check("ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments)
    }

    /// The built `splice` binary, beside the test bundle in `.build/<config>/`.
    public static var spliceBinary: String {
        var dir = URL(fileURLWithPath: Bundle.main.bundlePath)
        if dir.pathExtension != "" || !FileManager.default.fileExists(atPath: dir.appendingPathComponent("splice").path) {
            for b in Bundle.allBundles where b.bundlePath.hasSuffix(".xctest") {
                dir = URL(fileURLWithPath: b.bundlePath).deletingLastPathComponent()
            }
        }
        let candidate = dir.appendingPathComponent("splice").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        return FileManager.default.currentDirectoryPath + "/.build/debug/splice"
    }

    /// ffprobe's `-show_streams` as JSON objects.
    public static func ffprobeStreams(_ url: URL) throws -> [[String: Any]] {
        let r = try check("ffprobe", ["-v", "error", "-show_streams", "-of", "json", url.path])
        let json = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any]
        return json?["streams"] as? [[String: Any]] ?? []
    }

    public static func splice(_ arguments: [String]) throws -> Result {
        try run(spliceBinary, arguments)
    }
}

public struct ToolError: Error, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
