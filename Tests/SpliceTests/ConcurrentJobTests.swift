import Dispatch
import Foundation
import Splice
import Testing
import TestSupport

/// Jobs run side by side in one process: what FFmpeg says about one input reaches that job's
/// warnings only.
@Suite("Concurrent jobs")
struct ConcurrentJobTests {
    /// A Matroska file and an MPEG-TS file, each with 200 bytes flipped: libavformat reads both,
    /// saying different things (`[matroska,webm] …`, `[mpegts] …`).
    static let damaged: Result<(mkv: URL, ts: URL), Error> = Result {
        let mkv = Fixtures.path("log-source.mkv"), ts = Fixtures.path("log-source.ts")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=2", "-f", "lavfi", "-i", "sine=duration=2",
                         "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", mkv.path])
        try Tool.ffmpeg(["-i", mkv.path, "-c", "copy", ts.path])
        func flipped(_ url: URL) throws -> URL {
            var bytes = [UInt8](try Data(contentsOf: url))
            var seed: UInt64 = 42
            for _ in 0..<200 {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                bytes[Int(seed >> 33) % bytes.count] ^= 0xFF
            }
            let out = Fixtures.path("flipped-" + url.lastPathComponent)
            try Data(bytes).write(to: out)
            return out
        }
        return (try flipped(mkv), try flipped(ts))
    }

    /// Copies `input` into an MP4 and returns the reader's warnings.
    static func copyWarnings(_ input: URL, _ name: String) throws -> [String] {
        let pipe = try SamplePipe.mirroring(try Asset(url: input), to: Fixtures.path(name))
        pipe.writer.replacesExistingFile = true
        try pipe.run()
        return pipe.reader?.warnings ?? []
    }

    @Test func ffmpegMessagesReachTheirOwnJob() throws {
        let (mkv, ts) = try Self.damaged.get()
        for round in 0..<4 {
            let results = Results()
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                let r = Result { try Self.copyWarnings(i == 0 ? mkv : ts, "log-\(round)-\(i).mp4") }
                results.set(i, r)
            }
            let fromMKV = try results.get(0), fromTS = try results.get(1)
            #expect(fromMKV.contains { $0.hasPrefix("ffmpeg: [matroska,webm]") }, "\(fromMKV)")
            #expect(!fromMKV.contains { $0.contains("[mpegts]") }, "\(fromMKV)")
            #expect(fromTS.contains { $0.hasPrefix("ffmpeg: [mpegts]") }, "\(fromTS)")
            #expect(!fromTS.contains { $0.contains("[matroska") }, "\(fromTS)")
        }
    }

    /// Decoders log from their own threads (frame threading): a damaged file's decoder messages
    /// reach its export's warnings, under its track, and never the clean file's export beside it.
    @Test func decoderMessagesReachTheirOwnExport() throws {
        let (damaged, _) = try Self.damaged.get()
        let clean = Fixtures.path("log-source.mkv")
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            results.set(i, Result {
                let session = try ExportSession(asset: try Asset(url: i == 0 ? damaged : clean), presetName: "lowQuality")
                session.outputURL = Fixtures.path("log-export-\(i).mp4")
                session.replacesExistingFile = true
                try session.run()
                return session.warnings
            })
        }
        let fromDamaged = try results.get(0), fromClean = try results.get(1)
        #expect(fromDamaged.contains { $0.hasPrefix("track 1: ffmpeg: [h264]") }, "\(fromDamaged)")
        #expect(!fromClean.contains { $0.contains("ffmpeg:") }, "\(fromClean)")
    }

    final class Results: @unchecked Sendable {   // state guarded by `lock`
        private let lock = NSLock()
        private var values: [Int: Result<[String], Error>] = [:]
        func set(_ i: Int, _ r: Result<[String], Error>) { lock.withLock { values[i] = r } }
        func get(_ i: Int) throws -> [String] { try lock.withLock { values[i] }!.get() }
    }
}
