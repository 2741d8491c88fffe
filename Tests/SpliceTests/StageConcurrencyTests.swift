import Dispatch
import Foundation
import MediaCore
@testable import Splice
import Testing
import TestSupport

/// The writer's one stage mechanism: stages that run concurrently run at the same time for two
/// inputs; the others one at a time with the writer.
@Suite("Writer stages run concurrently")
struct StageConcurrencyTests {
    /// A stage that passes samples on, but first says it started and waits (with a timeout) for
    /// the other input's stage to have started too.
    final class Rendezvous: SampleStage, @unchecked Sendable {   // immutable but for `met`, under `lock`
        let runsConcurrently: Bool
        let mine: DispatchSemaphore, theirs: DispatchSemaphore
        let timeout: Double
        private let lock = NSLock()
        private var _met: Bool?
        var met: Bool? { lock.withLock { _met } }

        init(concurrent: Bool, mine: DispatchSemaphore, theirs: DispatchSemaphore, timeout: Double) {
            (runsConcurrently, self.mine, self.theirs, self.timeout) = (concurrent, mine, theirs, timeout)
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
    static func rendezvous(concurrent: Bool, timeout: Double) throws -> [Bool?] {
        let asset = try Asset(url: try CompositionTests.clips.get()[0])
        let reader = try AssetReader(asset: asset)
        let tracks = [asset.tracks(withMediaType: .video)[0], asset.tracks(withMediaType: .audio)[0]]
        let outputs = tracks.map { AssetReaderTrackOutput(track: $0, outputSettings: nil) }
        for o in outputs { try reader.add(o) }
        #expect(reader.startReading())
        let samples = try outputs.map { try #require($0.copyNextSampleBuffer()) }
        reader.cancelReading()
        let writer = try AssetWriter(outputURL: Fixtures.path("stages-\(concurrent).mp4"))
        writer.replacesExistingFile = true
        let inputs = tracks.map { AssetWriterInput(mediaType: $0.mediaType) }
        for i in inputs { try writer.add(i) }
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        let signals = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        let stages = [0, 1].map { Rendezvous(concurrent: concurrent, mine: signals[$0], theirs: signals[1 - $0], timeout: timeout) }
        for (input, stage) in zip(inputs, stages) { input.state.stages.append(stage) }
        DispatchQueue.concurrentPerform(iterations: 2) { k in _ = inputs[k].append(samples[k]) }
        for i in inputs { i.markAsFinished() }
        writer.finish()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        return stages.map(\.met)
    }

    @Test func concurrentStagesOfTwoInputsRunAtTheSameTime() throws {
        #expect(try Self.rendezvous(concurrent: true, timeout: 10) == [true, true])
    }

    @Test func otherStagesRunOneAtATime() throws {
        // The control: under the writer's lock the first stage waits in vain, and only then the second runs.
        #expect(try Self.rendezvous(concurrent: false, timeout: 0.5).sorted { ($0 ?? false) && !($1 ?? false) } == [true, false])
    }

    @Test func theEncoderRunsConcurrentlyAndTheTextConversionDoesNot() {
        #expect(EncodingStage(settings: .audio(AudioEncodingSettings(codec: .aac)), label: "track 1").runsConcurrently)
        #expect(!TextConversion(fileType: .mkv, isForced: false, size: nil).runsConcurrently)
    }
}
