import MediaCore

/// A stage between `AssetWriterInput.append(_:)` and the interleaver that changes what is
/// written: text subtitles between tx3g and a container's packets (`TextConversion`) today, an
/// encoder tomorrow. Each input has its own stages, run in order on the writer's lock.
protocol SampleTransform: AnyObject {
    /// The samples to write for `sample` (none while a stage holds it back, several when it lets
    /// go of what it held). Times are converted to `timescale`, the input's, where a stage makes
    /// new samples.
    func transform(_ sample: SampleBuffer, timescale: Int32) throws -> [SampleBuffer]
    /// What the stage still holds, at the input's end (`markAsFinished()` or `finishWriting`).
    func finish(timescale: Int32) throws -> [SampleBuffer]
}
