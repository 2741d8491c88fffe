import Foundation
import Testing
import TestSupport

/// Nothing is lost and nothing is left: an output that is an input is refused, signals end a
/// job with 128 + the signal and the directory as it was, a closed stderr does not end a job,
/// SIGKILL and a full disk leave nothing.
@Suite("No debris")
struct NoDebrisTests {
    /// A 20 s 320x240 movie with sound: a re-encode of it lasts a few seconds.
    static let long: Result<URL, Error> = Result {
        let url = Fixtures.path("debris-long.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=20", "-f", "lavfi", "-i", "sine=d=20",
                         "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", url.path])
        return url
    }

    static let notSanitized = ProcessInfo.processInfo.environment["SPLICE_SANITIZER"] == nil

    /// A fresh directory holding a copy of `long` (and, for the jobs that take them, a second
    /// movie, an audio file, subtitles and an image), for the test to spoil.
    static func workspace(_ name: String, in parent: URL = Fixtures.directory) throws -> URL {
        let dir = parent.appendingPathComponent("debris-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: try long.get(), to: dir.appendingPathComponent("in.mp4"))
        return dir
    }

    static func listing(_ dir: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            files[name] = try Data(contentsOf: dir.appendingPathComponent(name))
        }
        return files
    }

    /// Starts `splice arguments`, sends `signal` once stderr has shown `afterLine` (or, with
    /// none, after `delay` seconds) and returns the exit status.
    static func interrupted(_ arguments: [String], signal: Int32, afterFirstLine: Bool = true, delay: Double = 1) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tool.spliceBinary)
        process.arguments = arguments
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        if afterFirstLine {
            var seen = Data()
            while !seen.contains(UInt8(ascii: "\n")) {
                let chunk = err.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                seen += chunk
            }
        } else {
            usleep(UInt32(delay * 1_000_000))
        }
        kill(process.processIdentifier, signal)
        DispatchQueue.global().async { _ = err.fileHandleForReading.readDataToEndOfFile() }
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal ? 1000 + process.terminationStatus : process.terminationStatus
    }

    static func export(_ dir: URL, _ out: String = "out.mp4") -> [String] {
        ["export", dir.appendingPathComponent("in.mp4").path, "-o", dir.appendingPathComponent(out).path,
         "--preset", "highestQuality", "--progress", "json"]
    }

    // MARK: An output is never an input

    /// Every job, with `--force`, refuses an output that is one of its inputs — by the same path,
    /// through `../`, a symbolic link or a hard link — and leaves the input as it was.
    @Test func anOutputThatIsAnInputIsRefused() throws {
        let dir = try Self.workspace("same")
        let input = dir.appendingPathComponent("in.mp4").path
        let sound = dir.appendingPathComponent("sound.m4a").path
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=d=2", "-c:a", "aac", sound])
        let srt = try Fixtures.write("debris.srt", "1\n00:00:00,500 --> 00:00:01,500\nHello\n")
        let image = dir.appendingPathComponent("still.png").path
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48", "-frames:v", "1", image])
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("link.mp4").path, withDestinationPath: input)
        try FileManager.default.linkItem(atPath: input, toPath: dir.appendingPathComponent("hard.mp4").path)
        let spellings = [input, dir.appendingPathComponent("sub/../in.mp4").path, dir.appendingPathComponent("link.mp4").path,
                         dir.appendingPathComponent("hard.mp4").path]
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let before = try Data(contentsOf: URL(fileURLWithPath: input)), soundBefore = try Data(contentsOf: URL(fileURLWithPath: sound))
        for out in spellings {
            let jobs: [[String]] = [
                ["remux", input, out, "--force"],
                ["export", input, "-o", out, "--preset", "passthrough", "--force"],
                ["concat", sound, input, "-o", out, "--force"],
                ["merge", input, sound, "-o", out, "--force"],
                ["mix", input, sound, "-o", out, "--force"],
                ["subtitles", "add", input, srt.path, "-o", out, "--force"],
                ["images", image, "--audio", input, "-o", out, "--force"],
            ]
            for job in jobs {
                let r = try Tool.splice(job)
                #expect(r.status == 1, "\(job.joined(separator: " ")): \(r.status) \(r.stderr)")
                #expect(r.stderr.contains("is an input of this job"), "\(job.joined(separator: " ")): \(r.stderr)")
            }
        }
        // The audio file as the output of a job that reads it.
        let r = try Tool.splice(["merge", input, sound, "-o", sound, "--force"])
        #expect(r.status == 1 && r.stderr.contains("is an input of this job"), "\(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: sound)) == soundBefore)
    }

    // MARK: Signals

    /// SIGINT, SIGTERM and SIGHUP during an export end it with 130, 143 and 129, and leave the
    /// directory as it was — after the first progress line, and at 1 s.
    @Test(.enabled(if: notSanitized), arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGHUP, Int32(129))])
    func signalsEndAJobWithNothingLeft(signal: Int32, status: Int32) throws {
        let dir = try Self.workspace("signal-\(signal)")
        let before = try Self.listing(dir)
        for afterFirstLine in [true, false] {
            let code = try Self.interrupted(Self.export(dir), signal: signal, afterFirstLine: afterFirstLine)
            #expect(code == status, "signal \(signal), after the first line: \(afterFirstLine)")
            #expect(try Self.listing(dir) == before)
        }
    }

    /// A SIGINT sent right after the first progress line is never lost (50 times).
    @Test(.enabled(if: notSanitized)) func anInterruptIsNeverLost() throws {
        let dir = try Self.workspace("never-lost")
        let before = try Self.listing(dir)
        var statuses: [Int32: Int] = [:]
        for _ in 0..<50 {
            statuses[try Self.interrupted(Self.export(dir), signal: SIGINT), default: 0] += 1
        }
        #expect(statuses == [130: 50])
        #expect(try Self.listing(dir) == before)
    }

    /// stderr's reader going away (`… 2>&1 | head -1`) does not end the job: it finishes, exit 0,
    /// and its output is whole.
    @Test(.enabled(if: notSanitized)) func aClosedStderrDoesNotEndAJob() throws {
        let dir = try Self.workspace("pipe")
        let args = Self.export(dir).map { "'\($0)'" }.joined(separator: " ")
        let r = try Tool.check("bash", ["-c", "'\(Tool.spliceBinary)' \(args) 2>&1 | head -1; exit ${PIPESTATUS[0]}"])
        #expect(r.stdout.hasPrefix("{\"progress\""))
        let duration = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
                                                  dir.appendingPathComponent("out.mp4").path]).stdout
        #expect(abs((Double(duration.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 20) < 0.1, "\(duration)")
    }

    /// `remux --verify` interrupted while it reads its copy back (the copy then has a name,
    /// `.<name>.verifying-<pid>`) removes it: exit 130, nothing left.
    @Test(.enabled(if: notSanitized)) func anInterruptedVerificationLeavesNothing() throws {
        let dir = try Self.workspace("verify")
        let before = try Self.listing(dir)
        var caught = false
        for _ in 0..<10 where !caught {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Tool.spliceBinary)
            process.arguments = ["remux", dir.appendingPathComponent("in.mp4").path, dir.appendingPathComponent("out.mp4").path, "--verify"]
            process.standardError = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            while process.isRunning, !(try FileManager.default.contentsOfDirectory(atPath: dir.path).contains { $0.contains(".verifying") }) {
                usleep(2_000)
            }
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            if process.terminationStatus == 0 { try FileManager.default.removeItem(at: dir.appendingPathComponent("out.mp4")); continue }
            caught = true
            #expect(process.terminationStatus == 130)
            #expect(try Self.listing(dir) == before)
        }
        #expect(caught, "the verification was never caught running")
    }

    /// SIGKILL at 1 s leaves nothing on tmpfs: the output has no name until it is complete.
    @Test(.enabled(if: notSanitized)) func aKilledJobLeavesNothing() throws {
        let dir = try Self.workspace("kill", in: URL(fileURLWithPath: "/dev/shm"))
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try Self.listing(dir)
        let code = try Self.interrupted(Self.export(dir), signal: SIGKILL, afterFirstLine: false)
        #expect(code == 1000 + SIGKILL)
        #expect(try Self.listing(dir) == before)
    }

    // MARK: A full disk

    /// A 2 MB tmpfs, mounted for the test (root only).
    static func smallDisk() throws -> URL? {
        let dir = Fixtures.path("debris-small-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let r = try Tool.run("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", dir.path])
        return r.status == 0 ? dir : nil
    }

    static let canMount: Bool = {
        guard getuid() == 0, let dir = try? smallDisk() else { return false }
        _ = try? Tool.run("umount", [dir.path])
        return true
    }()

    /// An export and thumbnails that do not fit say "No space left on device" naming the output,
    /// and leave the disk as it was (the thumbnails that fitted removed too).
    @Test(.enabled(if: canMount)) func aFullDiskLeavesNothing() throws {
        guard let disk = try Self.smallDisk() else { return }
        defer { _ = try? Tool.run("umount", [disk.path]) }
        let input = try Self.long.get()
        let out = disk.appendingPathComponent("out.mp4").path
        let r = try Tool.splice(["export", input.path, "-o", out, "--preset", "passthrough"])
        #expect(r.status == 1)
        #expect(r.stderr.contains(out) && r.stderr.contains("No space left on device"), "\(r.stderr)")
        #expect(try Self.listing(disk).isEmpty)
        // Thumbnails: the first fit, the third does not.
        let filler = disk.appendingPathComponent("filler")
        let png = Fixtures.path("debris-frame.png")
        try Tool.check(Tool.spliceBinary, ["thumbnail", input.path, "--at", "1", "-o", png.path, "--force"])
        let size = try Data(contentsOf: png).count
        try Data(count: 2 * 1024 * 1024 - 2 * size - 4096 * 4).write(to: filler)
        let before = try Self.listing(disk)
        let t = try Tool.splice(["thumbnail", input.path, "--at", "1,2,3,4", "-o", disk.appendingPathComponent("t-%d.png").path])
        #expect(t.status == 1)
        #expect(t.stderr.contains("No space left on device") && t.stderr.contains(disk.path), "\(t.stderr)")
        #expect(!t.stderr.contains("NSCocoaErrorDomain"))
        #expect(try Self.listing(disk) == before)
    }
}
