import MediaCore

/// A stage between `AssetWriterInput.append(_:)` and the interleaver that changes what is
/// written: the encoder of an input with output settings (`EncodingStage`), text subtitles
/// between tx3g and a container's packets (`TextConversion`); a resampler or a filter next.
/// Each input has its own stages, run in order, each sample's output handed to the next stage.
///
/// The writer runs every stage the same way (`AssetWriter.runStages`): a stage that
/// `runsConcurrently` runs outside the writer's lock — its input's stages one at a time, under
/// the input's stage lock, while other inputs' stages and the muxer go on — and any other stage
/// under the writer's lock, one at a time with everything the writer does (what a stage whose
/// state the muxer reads needs).
protocol SampleStage: AnyObject {
    /// Whether the stage may run while other inputs' stages and the writer run: its state is
    /// its own (or under a lock of its own).
    var runsConcurrently: Bool { get }
    /// The samples to write for `sample` (none while a stage holds it back, several when it lets
    /// go of what it held). Times are converted to `timescale`, the input's, where a stage makes
    /// new samples.
    func process(_ sample: SampleBuffer, timescale: Int32) throws -> [SampleBuffer]
    /// What the stage still holds, at the input's end (`markAsFinished()` or `finishWriting`).
    func finish(timescale: Int32) throws -> [SampleBuffer]
    /// What the stage corrected or did not take, for `AssetWriter.warnings`.
    var warnings: [String] { get }
}

extension SampleStage {
    var warnings: [String] { [] }
}
