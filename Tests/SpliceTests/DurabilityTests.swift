import Foundation
import Testing
import TestSupport

/// When an output is flushed to disk: a new one is left to the kernel's writeback (as `cp` and
/// `ffmpeg` leave theirs), one that replaces a file is flushed before it takes the file's
/// place, and `--sync` flushes every one. The `fsync` calls are counted by `strace` (not under
/// the sanitizers: LeakSanitizer stops a traced process).
@Suite("Durability")
struct DurabilityTests {
    static let notSanitized = ProcessInfo.processInfo.environment["SPLICE_SANITIZER"] == nil

    /// The `fsync`/`fdatasync` calls `splice arguments` makes, and its result.
    static func flushes(_ arguments: [String]) throws -> (count: Int, result: Tool.Result) {
        let log = Fixtures.path("durability-\(UUID().uuidString.prefix(8)).strace")
        defer { try? FileManager.default.removeItem(at: log) }
        let r = try Tool.run("strace", ["-f", "-qq", "-e", "trace=fsync,fdatasync", "-o", log.path, Tool.spliceBinary] + arguments)
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        return (lines.filter { $0.contains("fsync(") || $0.contains("fdatasync(") }.count, r)
    }

    @Test(.enabled(if: notSanitized))
    func aNewOutputIsLeftToTheKernelAReplacementAndSyncAreFlushed() throws {
        let input = Fixtures.path("durability-in.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-f", "lavfi", "-i", "sine=d=2",
                         "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", input.path])
        let out = Fixtures.path("durability-out.mp4")
        try? FileManager.default.removeItem(at: out)
        defer { try? FileManager.default.removeItem(at: out) }

        let new = try DurabilityTests.flushes(["remux", input.path, out.path])
        #expect(new.result.status == 0, "\(new.result.stderr)")
        #expect(new.count == 0)

        let replacing = try DurabilityTests.flushes(["remux", input.path, out.path, "--force"])
        #expect(replacing.result.status == 0, "\(replacing.result.stderr)")
        #expect(replacing.count >= 1)

        try FileManager.default.removeItem(at: out)
        let synced = try DurabilityTests.flushes(["--sync", "remux", input.path, out.path])
        #expect(synced.result.status == 0, "\(synced.result.stderr)")
        #expect(synced.count >= 2)   // the file, and its directory's entry

        // Every output is whole either way: the same packets as the source.
        #expect(try ContainerTests.payloadHashes(out) == ContainerTests.payloadHashes(input))
    }
}
