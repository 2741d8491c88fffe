import Dispatch
import Foundation
import MediaCore
@testable import Splice
import Testing
import TestSupport

/// The writer's one stage mechanism: each input's stages run under its own lock, never the
/// writer's, so two inputs' stages run at the same time.
@Suite("Writer stages run concurrently")
struct StageConcurrencyTests {
    /// A stage that passes samples on, but first says it started and waits (with a timeout) for
    /// the other input's stage to have started too.
    final class Rendezvous: SampleStage, @unchecked Sendable {   // immutable but for `met`, under `lock`
        let mine: DispatchSemaphore, theirs: DispatchSemaphore
        let timeout: Double
        private let lock = NSLock()
        private var _met: Bool?
        var met: Bool? { lock.withLock { _met } }

        init(mine: DispatchSemaphore, theirs: DispatchSemaphore, timeout: Double) {
            (self.mine, self.theirs, self.timeout) = (mine, theirs, timeout)
        }

        func process(_ sample: SampleBuffer, timescale: Int32) throws -> [SampleBuffer] {
            if lock.withLock({ _met == nil }) {
                mine.signal()
                let met = theirs.wait(timeout: .now() + timeout) == .success
                lock.withLock { _met = met }
            }
            return [sample]
        }

        func finish(timescale: Int32) throws -> [SampleBuffer] { [] }
    }

    /// Appends the first video and audio sample of a clip to two inputs from two threads at
    /// once, each input with a rendezvous stage; returns whether each stage met the other.
    static func rendezvous(timeout: Double) throws -> [Bool?] {
        let asset = try Asset(url: try CompositionTests.clips.get()[0])
        let reader = try AssetReader(asset: asset)
        let tracks = [asset.tracks(withMediaType: .video)[0], asset.tracks(withMediaType: .audio)[0]]
        let outputs = tracks.map { AssetReaderTrackOutput(track: $0, outputSettings: nil) }
        for o in outputs { try reader.add(o) }
        #expect(reader.startReading())
        let samples = try outputs.map { try #require($0.copyNextSampleBuffer()) }
        reader.cancelReading()
        let writer = try AssetWriter(outputURL: Fixtures.path("stages.mp4"))
        writer.replacesExistingFile = true
        let inputs = tracks.map { AssetWriterInput(mediaType: $0.mediaType) }
        for i in inputs { try writer.add(i) }
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        let signals = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        let stages = [0, 1].map { Rendezvous(mine: signals[$0], theirs: signals[1 - $0], timeout: timeout) }
        for (input, stage) in zip(inputs, stages) { input.add(stage: stage) }
        DispatchQueue.concurrentPerform(iterations: 2) { k in _ = inputs[k].append(samples[k]) }
        for i in inputs { i.markAsFinished() }
        writer.finish()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        return stages.map(\.met)
    }

    @Test func stagesOfTwoInputsRunAtTheSameTime() throws {
        #expect(try Self.rendezvous(timeout: 10) == [true, true])
    }
}
