import Foundation
import Testing
import TestSupport

/// Failures leave no output and no temporary file, and never touch the input.
@Suite("Remux failures")
struct RemuxFailureTests {
    @Test func truncatedSource() throws {
        let source = try Data(contentsOf: try Fixtures.grouped.get())
        for cut in [source.count / 2, source.count - 100] {
            let input = Fixtures.path("cut-\(cut).mp4")
            try source.prefix(cut).write(to: input)
            let output = Fixtures.path("cut-\(cut)-out.mp4")
            let r = try Tool.splice(["remux", input.path, output.path])
            #expect(r.status == 65)
            #expect(r.stderr.hasPrefix("error: \(input.path): ") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output.path))
            #expect(try leftovers(of: output).isEmpty)
        }
    }

    /// Not under sanitizers: their runtimes cannot start with a 16 KiB file-size limit.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["SPLICE_SANITIZER"] == nil))
    func fileSizeLimit() throws {
        let input = try Fixtures.grouped.get()
        let before = try Data(contentsOf: input)
        let output = Fixtures.path("limited.mp4")
        try? FileManager.default.removeItem(at: output)
        // 16 KiB: the write of the first chunks fails with EFBIG.
        let r = try Tool.run("/bin/sh", ["-c", "ulimit -f 16; exec \"$0\" remux \"$1\" \"$2\"", Tool.spliceBinary, input.path, output.path])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("File too large"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: output.path))
        #expect(try leftovers(of: output).isEmpty)
        #expect(try Data(contentsOf: input) == before)
    }

    @Test func unwritableDestination() throws {
        let input = try Fixtures.grouped.get()
        let missing = Fixtures.path("no-such-dir/out.mp4")
        let r = try Tool.splice(["remux", input.path, missing.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("cannot create a file in"), "\(r.stderr)")

        // A read-only directory. Root writes into one anyway, so as root the remux runs as
        // `nobody` (setpriv), from a copy of the binary that nobody can reach.
        let dir = Fixtures.path("read-only")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: dir.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir.path) }
        let out = dir.appendingPathComponent("out.mp4")
        let ro: Tool.Result
        if getuid() == 0 {
            let binary = Fixtures.path("splice-for-nobody")
            try? FileManager.default.removeItem(at: binary)
            try FileManager.default.copyItem(atPath: Tool.spliceBinary, toPath: binary.path)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: Fixtures.directory.path)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: input.path)
            // (a child another test forks while the copy is open for writing holds it open until
            // its own exec: running the copy then fails with ETXTBSY for a moment — tried again)
            var attempt = try Tool.run("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", binary.path, "remux", input.path, out.path])
            for _ in 0..<20 where attempt.status == 126 && attempt.stderr.contains("Text file busy") {
                Thread.sleep(forTimeInterval: 0.25)
                attempt = try Tool.run("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", binary.path, "remux", input.path, out.path])
            }
            ro = attempt
        } else {
            ro = try Tool.splice(["remux", input.path, out.path])
        }
        #expect(ro.status == 1)
        #expect(ro.stderr.contains("cannot create a file in \(dir.path): Permission denied"), "\(ro.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// Ctrl-C (or SIGTERM) during a remux: exit 130 and nothing left behind. (480,000 samples take
    /// seconds to copy in a debug build; the signal comes well before the end.)
    @Test(arguments: [SIGINT, SIGTERM])
    func interruptLeavesNothing(_ signal: Int32) throws {
        // 480,000 PCM samples: long enough to be interrupted.
        let input = Fixtures.path("pcm-\(signal).mov")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=duration=10:sample_rate=48000", "-c:a", "pcm_s16le", input.path])
        let output = Fixtures.path("interrupted-\(signal).mov")
        try? FileManager.default.removeItem(at: output)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tool.spliceBinary)
        process.arguments = ["remux", input.path, output.path, "--verify"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Let it start (sanitizer builds start slowly) and get into the job.
        usleep(ProcessInfo.processInfo.environment["SPLICE_SANITIZER"] == nil ? 300_000 : 2_000_000)
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        let status = process.terminationStatus
        #expect(status == 128 + signal)
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message == "error: interrupted (\(signal == SIGINT ? "SIGINT" : "SIGTERM")); \(output.path) was not written\n")
        #expect(try leftovers(of: output).isEmpty)
    }
}
