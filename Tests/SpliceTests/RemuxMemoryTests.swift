import Foundation
import Testing
import TestSupport

/// A remux holds a bounded window of the media, never the file: its peak RSS is the same for a
/// movie and for the same movie four times over (MKV → MP4, MP4 → MKV, MP4 → MP4), measured by
/// the kernel (`ru_maxrss` of the `splice` process). So is a mix's, wherever the music starts. Not under the sanitizers, whose allocators
/// keep freed memory in quarantine.
@Suite("Remux memory against file size", .serialized)
struct RemuxMemoryTests {
    static let notSanitized = ProcessInfo.processInfo.environment["SPLICE_SANITIZER"] == nil

    /// 8 s of noisy 640x360 H.264 (about 20 MB) + AAC, as MP4 and Matroska, and each four times over.
    static let media: Result<[String: URL], Error> = Result {
        let mp4 = Fixtures.path("memory.mp4"), list = Fixtures.path("memory-list.txt")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25,noise=alls=20:allf=t", "-f", "lavfi", "-i", "sine",
                         "-t", "8", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "12", "-g", "50", "-c:a", "aac", mp4.path])
        try String(repeating: "file '\(mp4.path)'\n", count: 4).write(to: list, atomically: true, encoding: .utf8)
        let mp4x4 = Fixtures.path("memory-x4.mp4")
        try Tool.ffmpeg(["-f", "concat", "-safe", "0", "-i", list.path, "-map", "0", "-c", "copy", mp4x4.path])
        var urls = ["mp4": mp4, "mp4x4": mp4x4]
        for (name, source) in [("mkv", mp4), ("mkvx4", mp4x4)] {
            let mkv = Fixtures.path("memory-\(name).mkv")
            try Tool.ffmpeg(["-i", source.path, "-map", "0", "-c", "copy", mkv.path])
            urls[name] = mkv
        }
        return urls
    }

    /// Peak resident set of `splice arguments…` in MB (Python's `resource` reads the child's `ru_maxrss`).
    static func peakRSS(_ arguments: [String]) throws -> Double {
        let script = "import resource,subprocess,sys\nr=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)\n"
            + "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
        let r = try Tool.check("python3", ["-c", script, Tool.spliceBinary] + arguments)
        let fields = r.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(fields.first == "0", "splice \(arguments.joined(separator: " ")) failed")
        return (Double(fields.last ?? "") ?? 0) / 1024
    }

    @Test(.enabled(if: notSanitized), arguments: [("mkv", "mkvx4", "mp4"), ("mp4", "mp4x4", "mkv"), ("mp4", "mp4x4", "mp4")])
    func peakMemoryDoesNotGrowWithTheFile(small: String, large: String, ext: String) throws {
        let media = try Self.media.get()
        let out = Fixtures.path("memory-out-\(small)-\(ext).\(ext)")
        let sizes = try [small, large].map { try FileManager.default.attributesOfItem(atPath: media[$0]!.path)[.size] as? Int ?? 0 }
        #expect(sizes[1] > sizes[0] * 39 / 10, "the long file is four times the short one")
        let rss = try [small, large].map { name in
            // The smallest of three runs: what the remux needs, without the machine's noise.
            try (0..<3).map { _ in try Self.peakRSS(["remux", media[name]!.path, out.path, "--force"]) }.min()!
        }
        #expect(abs(rss[1] - rss[0]) <= 5, "\(small) → \(ext): \(rss[0]) MB for \(sizes[0]) bytes, \(rss[1]) MB for \(sizes[1]) bytes")
    }

    /// A fragmented remux holds one fragment's sample references, whatever the file's length.
    @Test(.enabled(if: notSanitized))
    func fragmentedRemuxMemoryDoesNotGrowWithTheFile() throws {
        let media = try Self.media.get()
        let out = Fixtures.path("memory-out-fragmented.mp4")
        let rss = try ["mp4", "mp4x4"].map { name in
            try (0..<3).map { _ in try Self.peakRSS(["remux", media[name]!.path, out.path, "--force", "--fragment", "1"]) }.min()!
        }
        #expect(abs(rss[1] - rss[0]) <= 5, "fragmented: \(rss[0]) MB for 8 s, \(rss[1]) MB for 32 s")
    }

    /// Music that starts late in a long movie: the silence before it (an empty segment of the
    /// composition) is made a buffer at a time, not all at once (ten minutes of it at 8 kHz held
    /// 19 MB more; an hour at 48 kHz, 576 MB).
    @Test(.enabled(if: notSanitized))
    func silenceBeforeLateMusicIsNotHeld() throws {
        let movie = Fixtures.path("memory-long.mp4"), music = Fixtures.path("memory-music.m4a")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "color=c=black:s=32x32:r=1:d=600", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=8000:duration=600",
                         "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "24k", movie.path])
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=8000:duration=5", "-c:a", "aac", "-b:a", "24k", music.path])
        let out = Fixtures.path("memory-mix.mp4")
        let rss = try ["0", "590"].map { try Self.peakRSS(["mix", movie.path, music.path, "-o", out.path, "--at", $0, "--force"]) }
        #expect(rss[1] - rss[0] <= 8, "music at 0 s: \(rss[0]) MB; at 590 s: \(rss[1]) MB")
    }
}
