import Foundation
import MediaCore
import Testing
import TestSupport

/// Same inputs, same bytes: every lossless job into MP4, MOV, Matroska and MPEG-TS gives
/// identical files run after run (runs side by side, so that thread timing varies), and the
/// times a file carries come from its source or `SOURCE_DATE_EPOCH`, never the clock.
@Suite("Same bytes")
struct SameBytesTests {
    /// Two clips with different SPS/PPS (so that concat writes two descriptions), B-frames and
    /// AAC, music, and subtitles.
    static let inputs: Result<(a: URL, b: URL, music: URL, srt: URL), Error> = Result {
        let a = Fixtures.path("same-a.mp4"), b = Fixtures.path("same-b.mp4"), music = Fixtures.path("same-music.m4a")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=24:duration=2", "-f", "lavfi", "-i", "sine=d=2",
                         "-c:v", "libx264", "-preset", "veryfast", "-g", "24", "-c:a", "aac", "-metadata", "creation_time=2021-03-04T05:06:07Z", a.path])
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=24:duration=2", "-f", "lavfi", "-i", "sine=f=600:d=2",
                         "-c:v", "libx264", "-c:a", "aac", b.path])
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=f=300:d=3", "-c:a", "aac", music.path])
        let srt = try Fixtures.write("same.srt", "1\n00:00:00,500 --> 00:00:01,500\nHello\n")
        return (a, b, music, srt)
    }

    static func job(_ name: String, into out: URL) throws -> [String] {
        let (a, b, music, srt) = try inputs.get()
        switch name {
        case "remux": return ["remux", a.path, out.path]
        case "subtitles": return ["subtitles", "add", a.path, srt.path, "-o", out.path]
        case "concat": return ["concat", a.path, b.path, "-o", out.path]
        case "merge": return ["merge", a.path, music.path, "-o", out.path]
        case "mix": return ["mix", a.path, music.path, "-o", out.path, "--audio-codec", "aac"]
        default: return ["export", a.path, "-o", out.path, "--preset", "passthrough", "--range", "0.5,1.5"]
        }
    }

    static let notSanitized = ProcessInfo.processInfo.environment["SPLICE_SANITIZER"] == nil

    /// Ten runs of each job into each container (two at a time): identical bytes. (Not under
    /// the sanitizers: 230 runs of an instrumented binary take too long; `make test` runs it.)
    @Test(.enabled(if: notSanitized), arguments: ["remux", "subtitles", "concat", "merge", "mix", "export"])
    func tenRunsGiveTheSameBytes(job: String) throws {
        // MPEG-TS holds no text subtitles.
        for ext in job == "subtitles" ? ["mp4", "mov", "mkv"] : ["mp4", "mov", "mkv", "ts"] {
            let outputs = (0..<10).map { Fixtures.path("same-\(job)-\($0).\(ext)") }
            let failures = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { lane in
                for k in stride(from: lane, to: 10, by: 2) {
                    do {
                        let r = try Tool.splice(try Self.job(job, into: outputs[k]) + ["--force"])
                        if r.status != 0 { failures.withLock { $0.append("\(job) .\(ext): \(r.stderr)") } }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
            let first = try Data(contentsOf: outputs[0])
            for out in outputs.dropFirst() {
                #expect(try Data(contentsOf: out) == first, "\(out.lastPathComponent) differs from the first run's")
            }
            for out in outputs { try? FileManager.default.removeItem(at: out) }
        }
    }

    /// ffprobe's `creation_time` of the file.
    static func creationTime(_ url: URL) throws -> String {
        try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format_tags=creation_time", "-of", "csv=p=0", url.path])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A concat takes the first clip's times; with `SOURCE_DATE_EPOCH`, a job without a source
    /// time (images) takes it; without, none — never the clock.
    @Test func timesComeFromTheSourceOrSourceDateEpoch() throws {
        let (a, b, _, _) = try Self.inputs.get()
        let joined = Fixtures.path("same-time-concat.mp4")
        #expect(try Tool.splice(["concat", a.path, b.path, "-o", joined.path, "--force"]).status == 0)
        #expect(try Self.creationTime(joined) == "2021-03-04T05:06:07.000000Z")
        let still = Fixtures.path("same-still.png")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48", "-frames:v", "1", still.path])
        let made = Fixtures.path("same-time-images.mp4")
        var env = ProcessInfo.processInfo.environment
        env["SOURCE_DATE_EPOCH"] = "1700000000"
        let r = try Tool.run(Tool.spliceBinary, ["images", still.path, "-o", made.path, "--force"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.creationTime(made) == "2023-11-14T22:13:20.000000Z")
        env["SOURCE_DATE_EPOCH"] = nil
        #expect(try Tool.run(Tool.spliceBinary, ["images", still.path, "-o", made.path, "--force"], environment: env).status == 0)
        #expect(try Self.creationTime(made).isEmpty, "no time is better than the clock's")
    }
}
