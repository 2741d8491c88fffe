import Dispatch
import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// Many jobs at once in one process — 8 exports, 8 remuxes and 8 readers, half of them
/// cancelled at random points — as a program that calls Splice from several threads runs them
/// (and under ThreadSanitizer in CI: `make sanitize`). Every job that finishes is right (stream
/// hashes, sample counts), and every job cancelled leaves nothing in its folder.
@Suite("Concurrency stress")
struct ConcurrencyStressTests {
    static let clip: Result<URL, Error> = Result {
        let url = Fixtures.path("stress-clip.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
                         "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-bf", "2", "-c:a", "aac", "-b:a", "96k", url.path])
        return url
    }

    static func streamHash(_ url: URL) throws -> String {
        try Tool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:v?", "-map", "0:a?", "-c", "copy",
                                  "-f", "streamhash", "-hash", "md5", "-"]).stdout
    }

    /// What a job did: finished (and its output, or the reader's sample count and bytes), or was cancelled.
    enum Outcome: Sendable { case finished(String), cancelled, failed(String) }

    /// A job of the stress run: `run` does it, `cancel` stops it from another thread.
    struct Job: Sendable {
        let name: String
        let folder: URL
        let run: @Sendable () throws -> String
        let cancel: @Sendable () -> Void
    }

    /// An export's sound (its stream hash) and picture (frame count; SSIM against `reference`).
    /// x264 gives other bytes for a few frames when encoders run side by side in one process
    /// (with its macroblock tree on, as an export's is; smart cut turns it off), so the picture
    /// is judged by what it shows.
    static func export(_ source: URL, into folder: URL, reference: URL? = nil) -> Job {
        let session = ExportSession(asset: try! Asset(url: source), preset: .lowQuality)
        let output = folder.appendingPathComponent("export.mp4")
        session.outputURL = output
        return Job(name: "export", folder: folder, run: {
            try session.run()
            let sound = try Tool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", output.path, "-map", "0:a", "-c", "copy",
                                                  "-f", "streamhash", "-hash", "md5", "-"]).stdout
            let frames = try Tool.check("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v", "-show_entries",
                                                    "stream=nb_read_frames", "-of", "csv=p=0", output.path]).stdout
            guard let reference else { return sound + frames }
            let ssim = try Tool.run("ffmpeg", ["-nostdin", "-i", output.path, "-i", reference.path, "-lavfi", "ssim", "-f", "null", "-"]).stderr
            let all = ssim.split(separator: "All:").last.flatMap { Double($0.prefix(8).trimmingCharacters(in: .whitespaces)) } ?? 0
            return sound + frames + (all >= 0.99 ? "" : "SSIM \(all) against the export made alone")
        }, cancel: { session.cancelExport() })
    }

    static func remux(_ source: URL, into folder: URL, suffix: String) -> Job {
        let output = folder.appendingPathComponent("remux.\(suffix)")
        let pipe = try! SamplePipe.mirroring(try! Asset(url: source), to: output)
        return Job(name: "remux to .\(suffix)", folder: folder, run: { try pipe.run(); return try streamHash(output) }, cancel: { pipe.cancel() })
    }

    /// A reader of every track's samples, as they are: their count and a sum of their bytes.
    static func reader(_ source: URL, in folder: URL) -> Job {
        let asset = try! Asset(url: source)
        let reader = try! AssetReader(asset: asset)
        let outputs = asset.tracks.map { AssetReaderTrackOutput(track: $0) }
        for output in outputs { try! reader.add(output) }
        return Job(name: "reader", folder: folder, run: {
            guard reader.startReading() else {
                // (a cancel that lands before the start leaves the reader cancelled)
                if reader.status == .cancelled { throw MediaError(.cancelled, "cancelled before the start") }
                throw reader.error ?? MediaError(.io, "did not start")
            }
            var count = 0, sum = 0
            for output in outputs {
                while let sample = output.copyNextSampleBuffer() {
                    count += 1
                    sum = sum &+ (try sample.loadData()).reduce(0) { $0 &+ Int($1) }
                }
            }
            if reader.status == .cancelled { throw MediaError(.cancelled, "cancelled") }
            if let error = reader.error { throw error }
            return "\(count) samples, byte sum \(sum)"
        }, cancel: { reader.cancelReading() })
    }

    @Test("8 exports, 8 remuxes and 8 readers at once, half cancelled at random points")
    func manyJobsAtOnce() throws {
        let source = try Self.clip.get()
        var seed = UInt64(ProcessInfo.processInfo.environment["STRESS_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64.max)
        let firstSeed = seed
        func random(_ bound: Int) -> Int {   // SplitMix64: a run repeats with STRESS_SEED
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D1_049B_1331_11EB
            return Int(truncatingIfNeeded: (z ^ (z >> 31)) % UInt64(bound))
        }
        func folder(_ i: Int) throws -> URL {
            let url = Fixtures.path("stress-\(i)")
            try? FileManager.default.removeItem(at: url)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }
        // What each kind of job gives when it runs alone.
        let alone = try folder(100)
        let expected = (export: try Self.export(source, into: alone).run(), copy: try Self.streamHash(source),
                        reader: try Self.reader(source, in: try folder(101)).run())
        var jobs: [Job] = []
        for i in 0..<8 {
            jobs.append(Self.export(source, into: try folder(i), reference: alone.appendingPathComponent("export.mp4")))
            jobs.append(Self.remux(source, into: try folder(8 + i), suffix: i % 2 == 0 ? "mp4" : "mkv"))
            jobs.append(Self.reader(source, in: try folder(16 + i)))
        }
        let cancelAfter = jobs.indices.map { $0 % 2 == 1 ? random(400) : nil }
        let outcomes = Mutex([Outcome](repeating: .failed("did not run"), count: jobs.count))
        let group = DispatchGroup()
        for (i, job) in jobs.enumerated() {
            // (threads of their own: all 24 at once, not as many as the cores)
            group.enter()
            Thread {
                let outcome: Outcome
                do { outcome = .finished(try job.run()) } catch let e as MediaError where e.code == .cancelled { outcome = .cancelled } catch {
                    outcome = .failed("\(error)")
                }
                outcomes.withLock { $0[i] = outcome }
                group.leave()
            }.start()
            if let ms = cancelAfter[i] {
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(ms)) { job.cancel() }
            }
        }
        group.wait()
        let results = outcomes.withLock { $0 }
        for (i, job) in jobs.enumerated() {
            let context = "job \(i) (\(job.name)), STRESS_SEED=\(firstSeed)"
            switch results[i] {
            case .finished(let got):
                let want = job.name == "export" ? expected.export : job.name == "reader" ? expected.reader : expected.copy
                #expect(got == want, "\(context)")
            case .cancelled:
                #expect(cancelAfter[i] != nil, "\(context): cancelled without being asked")
                let left = (try? FileManager.default.contentsOfDirectory(atPath: job.folder.path)) ?? []
                #expect(left.isEmpty, "\(context): a cancelled job left \(left)")
            case .failed(let why):
                Issue.record("\(context) failed: \(why)")
            }
        }
    }
}
