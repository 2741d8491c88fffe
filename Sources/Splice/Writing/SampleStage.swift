import MediaCore

/// A stage between `AssetWriterInput.append(_:)` and the interleaver that changes what is
/// written: the encoder of an input with output settings (`EncodingStage`), text subtitles
/// between tx3g and a container's packets (`TextConversion`); a resampler or a filter next.
/// Each input has its own stages, run in order, each sample's output handed to the next stage.
///
/// A stage is confined: not `Sendable`, it lives in its input's `InputStages`, behind the
/// input's stage lock, and runs there — its input's stages one at a time, never holding the
/// writer's lock, while other inputs' stages and the muxer go on. What the muxer needs of a
/// stage (the text stage's packet format and header) is copied into the writer's state with
/// the samples the stage hands on (`TextFacts`).
protocol SampleStage: AnyObject {    /// The samples to write for `sample` (none while a stage holds it back, several when it lets
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
