import Dispatch
import Foundation
import ISOBMFF
import MediaCore
@testable import Splice
import Testing
import TestSupport

/// The public types used from several threads at once (run under the thread sanitizer by
/// `make sanitize`), a cancel that does not wait for a decode, and errors that are not swallowed.
@Suite("Thread safety and errors")
struct ThreadSafetyTests {
    /// A 2 s 64x64 H.264 clip with a tone, and its asset.
    static let clip: Result<URL, Error> = Result {
        let url = Fixtures.path("threads-64.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=64x64:rate=25:duration=2", "-f", "lavfi", "-i", "sine=duration=2",
                         "-c:v", "libx264", "-preset", "ultrafast", "-g", "10", "-c:a", "aac", url.path])
        return url
    }

    @Test func compositionEditedFromSeveralThreads() throws {
        let asset = try Asset(url: try Self.clip.get())
        let composition = MutableComposition()
        let second = MediaTime(value: 1, timescale: 1)
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            // Each thread inserts, reads and sets properties; the edits interleave but never tear.
            try? composition.insertTimeRange(TimeRange(start: .zero, duration: second), of: asset, at: .zero)
            for track in composition.tracks {
                track.name = "thread \(i)"
                track.languageCode = i % 2 == 0 ? "eng" : "fra"
                _ = track.segments.count + track.associations.count
                _ = track.timeRange
            }
            _ = composition.duration
            composition.writesWithoutEditLists = i % 2 == 0
        }
        // Eight whole one-second insertions: every track is eight seconds of segments without gaps.
        for track in composition.tracks {
            #expect(track.timeRange.duration == MediaTime(value: 8, timescale: 1))
            let segments = track.segments
            for (a, b) in zip(segments, segments.dropFirst()) { #expect(a.targetRange.end == b.targetRange.start) }
        }
        let out = Fixtures.path("threads-composition.mp4")
        let session = try ExportSession(asset: composition.makeAsset(), presetName: "passthrough")
        session.outputURL = out
        session.replacesExistingFile = true
        try session.run()
        #expect(try Tool.run("ffprobe", ["-v", "error", out.path]).status == 0)
    }

    @Test func writerFedAndWatchedFromSeveralThreads() throws {
        let asset = try Asset(url: try Self.clip.get())
        let out = Fixtures.path("threads-writer.mp4")
        let pipe = try SamplePipe.mirroring(asset, to: out)
        pipe.writer.replacesExistingFile = true
        let reports = Locked(0)
        pipe.progressHandler = { _ in reports.withLock { $0 += 1 } }
        let done = DispatchGroup()
        let stop = Locked(false)
        // Watchers read the writer's, inputs' and pipe's state while the pipe runs on its queues.
        for w in 0..<3 {
            DispatchQueue.global().async(group: done) {
                while !stop.value {
                    _ = pipe.writer.status
                    _ = pipe.writer.warnings
                    for input in pipe.writer.inputs {
                        _ = input.isReadyForMoreMediaData
                        _ = input.languageCode
                        _ = input.name
                    }
                    _ = pipe.reader?.warnings
                    pipe.progressHandler = { _ in reports.withLock { $0 += 1 + w * 0 } }
                }
            }
        }
        try pipe.run()
        stop.withLock { $0 = true }
        done.wait()
        #expect(reports.value > 0)
        #expect(try Tool.run("ffprobe", ["-v", "error", out.path]).status == 0)
    }

    @Test func exportWatchedAndCancelledFromAnotherThread() throws {
        let asset = try Asset(url: try Self.clip.get())
        for cancelling in [false, true] {
            let out = Fixtures.path("threads-export-\(cancelling).mp4")
            try? FileManager.default.removeItem(at: out)
            let session = try ExportSession(asset: asset, presetName: "lowQuality")
            session.outputURL = out
            let progress = Locked([Double]())
            session.progressHandler = { p in progress.withLock { $0.append(p) } }
            let finished = DispatchSemaphore(value: 0)
            session.exportAsynchronously { finished.signal() }
            while finished.wait(timeout: .now() + .milliseconds(5)) == .timedOut {
                _ = (session.progress, session.status, session.warnings, session.error)
                if cancelling, session.status == .exporting { session.cancelExport() }
            }
            let seen = progress.value
            #expect(seen == seen.sorted(), "progress went back")
            if cancelling {
                #expect(session.status == .cancelled)
                #expect(!FileManager.default.fileExists(atPath: out.path))
            } else {
                #expect(session.status == .completed, "\(String(describing: session.error))")
                #expect(seen.last == 1)
            }
        }
    }

    /// A cursor whose `next()` blocks until it is let go: a decode in progress.
    final class GatedCursor: SampleCursor, @unchecked Sendable {   // state under `lock`; the gates are semaphores
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var closes = 0
        var closeCount: Int { lock.withLock { closes } }
        func next() throws -> SampleBuffer? {
            entered.signal()
            gate.wait()
            return nil
        }
        func close() { lock.withLock { closes += 1 } }
    }

    @Test func cancelDoesNotWaitForADecode() throws {
        let track = try #require(try Asset(url: try Self.clip.get()).tracks.first)
        for prefetching in [false, true] {
            let source = GatedCursor()
            let output = AssetReaderTrackOutput(track: track)
            if prefetching { output.start(PrefetchingCursor(.init(cursor: source, decoding: nil), capacity: 2)) } else { output.start(source) }
            let reading = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                _ = output.copyNextSampleBuffer()
                reading.signal()
            }
            source.entered.wait()               // the cursor is decoding
            let stopped = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                output.stop()                   // what AssetReader.cancelReading() does
                stopped.signal()
            }
            // A stop that waited for the decode would never return: the decode is held.
            #expect(stopped.wait(timeout: .now() + 20) == .success, "stop waited for the decode")
            source.gate.signal()
            #expect(reading.wait(timeout: .now() + 20) == .success)
            // The source is closed once its sample is made, exactly once: by the decoding thread,
            // or (a cursor that cannot close while it reads) by the reader after its read.
            for _ in 0..<200 where source.closeCount == 0 { usleep(10_000) }
            #expect(source.closeCount == 1)
            #expect(output.copyNextSampleBuffer() == nil)
        }
    }

    @Test func readErrorsAreThrown() throws {
        let url = Fixtures.path("short-file.bin")
        try Data([1, 2, 3, 4]).write(to: url)
        let file = try ReadOnlyFile(path: url.path)
        let sample = SampleBuffer(fileRange: .init(file: file, offset: 2, length: 100), decodeTimeStamp: .zero,
                                  presentationTimeStamp: .zero, duration: .zero, isSync: true,
                                  formatDescription: FormatDescription(mediaType: .data, codec: "data"))
        #expect(throws: MediaError.self) { try sample.data }
    }

    @Test func chapterFailureIsNotKept() throws {
        // The grouped fixture's chapter track (7), its samples cut off after the asset was loaded.
        let url = Fixtures.path("chapters-cut.mp4")
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.copyItem(at: try Fixtures.grouped.get(), to: url)
        let whole = try Data(contentsOf: url)
        let movie = try MovieFile(file: InMemoryBytes([UInt8](whole)))
        let chapterTrack = try #require(movie.tracks.first { $0.trackID == 7 })
        let offset = try #require(chapterTrack.sampleTable.chunkOffsets.min())
        let asset = try Asset(url: url)
        try whole.prefix(Int(offset)).write(to: url)
        #expect(throws: MediaError.self) { try asset.loadChapters() }
        #expect(asset.chapters.isEmpty)
        // Copied into Matroska, the chapters are left out with a warning naming the track.
        let mkv = Fixtures.path("chapters-cut.mkv")
        let pipe = try SamplePipe.mirroring(asset, to: mkv)
        #expect(pipe.warnings.contains { $0.hasPrefix("track 7 (chapters) is left out: it cannot be read") }, "\(pipe.warnings)")
        try whole.write(to: url)
        #expect(try asset.loadChapters().count == 2)
    }
}
