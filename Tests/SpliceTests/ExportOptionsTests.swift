import Foundation
import Splice
import Testing
import TestSupport

/// `splice export`'s options beside the preset: open ranges and the encoder's threads.
@Suite("Export options")
struct ExportOptionsTests {
    /// `--range 1.5,` runs to the end, `--range ,1` from the start; each frame in exactly one part.
    @Test func anOpenRangeRunsToTheEndOrFromTheStart() throws {
        let source = try ExportTests.aac128.get()
        var frames: [Int] = []
        for (range, name) in [(",1.24", "export-open-head.mp4"), ("1.24,", "export-open-tail.mp4")] {
            let out = Fixtures.path(name)
            try? FileManager.default.removeItem(at: out)
            let r = try Tool.splice(["export", source.path, "-o", out.path, "--preset", "lowQuality", "--range", range, "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
            let count = try Tool.check("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v", "-show_entries",
                                                   "stream=nb_read_frames", "-of", "csv=p=0", out.path]).stdout
            frames.append(Int(count.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1)
        }
        #expect(frames == [31, 44])
        let r = try Tool.splice(["trim", source.path, "-o", Fixtures.path("export-open-none.mp4").path, "--range", ","])
        #expect(r.status == 64 && r.stderr.contains("either may be left out"))
    }

    /// `--threads n` is the x264 thread count written in its SEI (the options x264 reports it ran
    /// with); one thread gives the same bytes every run (frame threads do not: x264's macroblock
    /// tree); 0 is a usage error.
    @Test(.enabled(if: EncodingTests.notUnderTSan)) func threadsFixesTheEncodersThreads() throws {
        let source = try ExportTests.aac128.get()
        func x264Options(_ threads: String, _ name: String) throws -> (options: String, bytes: Data) {
            let out = Fixtures.path(name)
            let r = try Tool.splice(["export", source.path, "-o", out.path, "--preset", "lowQuality", "--threads", threads, "--force", "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
            let bytes = try Data(contentsOf: out)
            let text = String(decoding: bytes, as: UTF8.self)
            let sei = try #require(text.range(of: "x264 - core"))
            return (String(text[sei.lowerBound...].prefix(2000)), bytes)
        }
        let one = try x264Options("1", "export-threads-1.mp4")
        #expect(one.options.contains(" threads=1 lookahead_threads=1 "), "\(one.options)")
        let three = try x264Options("3", "export-threads-3.mp4")
        #expect(three.options.contains(" threads=3 "), "\(three.options)")
        #expect(try x264Options("1", "export-threads-1b.mp4").bytes == one.bytes)
        let r = try Tool.splice(["export", source.path, "-o", Fixtures.path("export-threads-0.mp4").path, "--threads", "0"])
        #expect(r.status == 64 && r.stderr.contains("--threads"), "\(r.stderr)")
    }
}
