import Foundation
import MediaCore

/// An `AssetWriter`'s one state, behind its `Mutex` (`AssetWriter.core`): where it is, its
/// inputs and what it keeps of each (`InputState`, by the input's `index`), the file, the muxer,
/// the interleaver and the session. It holds no stage: stages run under their input's lock,
/// taken before this one, so the lock order is in the types.
struct WriterCore {
    /// The output's path, for messages.
    let outputPath: String
    var status: AssetWriter.Status = .unknown
    var error: MediaError?
    var inputs: [AssetWriterInput] = []
    var states: [InputState] = []
    var groups: [AssetWriterInputGroup] = []
    /// What a copied MP4/MOV movie keeps (see `copyMovieStructure(of:)`).
    var template = MovieTemplate()
    var file: OutputFile?
    var muxer: (any Muxer)?
    var interleaver = Interleaver(inputs: [])
    var session = WriterSession(start: .zero)
    var sessionStarted = false

    init(outputPath: String) { self.outputPath = outputPath }

    /// Writing stopped (completed, failed or cancelled).
    var hasEnded: Bool { status != .writing && status != .unknown }

    /// Fails the writer with `error`: the file is removed and pending samples dropped.
    mutating func fail(_ error: Error) {
        guard status == .writing || status == .unknown else { return }
        var e = (error as? MediaError) ?? MediaError(.io, "\(error)")
        if e.file == nil { e.file = outputPath }
        status = .failed
        self.error = e
        tearDown()
    }

    /// A misuse of the writer: it fails (status `.failed`, `error` set), and the error is thrown.
    mutating func refuse(_ reason: String) -> MediaError {
        let error = MediaError(.invalidOperation, reason, file: outputPath)
        fail(error)
        return error
    }

    /// Drops the muxer, the temporary file and every pending sample.
    mutating func tearDown() {
        muxer = nil
        file?.discard()
        for i in states.indices { states[i].discardPending() }
    }

    /// Ready to take a sample — or, once writing has failed or been cancelled, ready to be told
    /// so by `append(_:)` returning `false`, until the input is marked finished: a feeding loop
    /// always gets to the end of its block.
    func isReady(_ i: Int) -> Bool {
        if status == .failed || status == .cancelled { return !states[i].isFinished }
        return status == .writing && sessionStarted && interleaver.isReady(states[i])
    }

    func checkAppendable(_ i: Int) throws {
        guard sessionStarted else { throw MediaError(.invalidOperation, "append before startSession(atSourceTime:)") }
        guard !states[i].isFinished else { throw MediaError(.invalidOperation, "append after markAsFinished()") }
    }

    /// Appends `sample` (past its input's stages) to input `i`; returns whether other inputs may
    /// have become ready.
    mutating func append(_ sample: SampleBuffer, to i: Int) throws -> Bool {
        try checkAppendable(i)
        let input = inputs[i]
        if states[i].timescale == 0 {
            states[i].timescale = input.mediaTimeScale > 0 ? input.mediaTimeScale : sample.decodeTimeStamp.timescale
            guard states[i].timescale > 0 else { throw MediaError(.invalidData, "sample has an invalid decode time") }
        }
        let frontier = states[i].frontier
        if !states[i].prerollDecided {
            // Video shown before the session start is kept only as far as decoding needs it.
            states[i].prerollDecided = true
            if input.mediaType == .video, input.segments == nil, let start = input.cut?.read.start ?? (session.start.isNumeric ? session.start : nil) {
                states[i].preroll = RangeFilter(span: MediaSpan(start: start, end: .positiveInfinity))
            }
        }
        if var filter = states[i].preroll {
            let outcome = try filter.push(sample)
            states[i].preroll = filter.released ? nil : filter
            switch outcome {
            case .pass(let s): try enqueue(s, to: i)
            case .release(let samples): for s in samples { try enqueue(s, to: i) }
            case .held, .end: break
            }
        } else {
            try enqueue(sample, to: i)
        }
        // Only a move of the slowest input can make another one ready.
        let moved = states[i].frontier != frontier && interleaver.updateSlowestFrontier(states)
        if moved || interleaver.isHeavy(pendingBytes: states[i].pendingBytes) { try flush(all: false) }
        return moved
    }

    /// Checks a sample's times against the previous one's and queues it in its window.
    mutating func enqueue(_ sample: SampleBuffer, to i: Int) throws {
        let label = states[i].label
        guard !sample.isDecoded else {
            throw MediaError(.unsupported, "\(label): decoded samples are written through an input with output settings (an encoder)")
        }
        guard sample.decodeTimeStamp.isNumeric, sample.presentationTimeStamp.isNumeric else {
            throw MediaError(.invalidData, "\(label): sample without a numeric decode or presentation time")
        }
        if states[i].timescale == 0 { states[i].timescale = sample.decodeTimeStamp.timescale }
        let ts = states[i].timescale
        let dts = sample.decodeTimeStamp.convertScale(ts).value
        let pts = sample.presentationTimeStamp.convertScale(ts).value
        let duration = sample.duration.isNumeric ? sample.duration.convertScale(ts).value : 0
        if let last = states[i].lastDecodeTime, dts < last {
            throw MediaError(.invalidData, "\(label): decode time \(sample.decodeTimeStamp) goes back before the previous sample's")
        }
        let description = try muxer?.descriptionIndex(for: sample, input: inputs[i], index: i, label: label) ?? 1
        let trimEnd = sample.trimDurationAtEnd > .zero ? sample.trimDurationAtEnd.convertScale(ts).value : 0
        let window = interleaver.windowIndex(dts, timescale: ts)
        states[i].record(sample, dts: dts, pts: pts, duration: duration, trimEnd: trimEnd, window: window, description: description)
    }

    /// Writes every chunk whose window all unfinished inputs have passed (everything with `all`).
    mutating func flush(all: Bool) throws {
        guard let muxer, let counts = interleaver.writableCounts(states, all: all) else { return }
        try muxer.write(counts, of: inputs, states: &states, session: session)
        for i in states.indices { states[i].removePending(counts[i]) }
    }
}

extension InputState {
    /// Queues `sample` (its times in this input's timescale) in `window`.
    mutating func record(_ sample: SampleBuffer, dts: Int64, pts: Int64, duration: Int64, trimEnd: Int64, window: Int64, description: UInt32) {
        if firstDecodeTime == nil { firstDecodeTime = dts }
        lastDecodeTime = dts
        presentationEnd = max(presentationEnd ?? .min, pts + duration - trimEnd)
        earliestPresentation = min(earliestPresentation ?? .max, pts)
        if firstFormat == nil { firstFormat = sample.formatDescription }
        pending.append(PendingSample(
            storage: sample.storage, length: sample.totalSampleSize, decodeTime: dts, compositionOffset: pts - dts,
            duration: duration, isSync: sample.isSync, dependency: sample.dependency?.rawValue,
            descriptionIndex: description, window: window, trimDurationAtEnd: sample.trimDurationAtEnd))
        if case .bytes = sample.storage { pendingBytes += sample.totalSampleSize }
        frontier = max(frontier, window)
    }
}
