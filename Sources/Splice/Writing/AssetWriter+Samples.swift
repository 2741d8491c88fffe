import Foundation
import MediaCore

/// Appending: each sample goes through its input's transform stages, is checked and timed,
/// queued in its interleaving window, and written by the muxer once every unfinished input has
/// passed that window. Everything here runs with the writer's lock held, but the entry points.
extension AssetWriter {
    func append(_ sample: SampleBuffer, to input: AssetWriterInput) -> Bool {
        let (appended, others, encoder): (Bool, Bool, EncodingStage?) = lock.withLock {
            guard _status == .writing else { return (false, false, nil) }
            if let encoder = input.state.encoder { return (false, false, encoder) }
            do {
                return (true, try appendLocked(sample, to: input), nil)
            } catch {
                failLocked(error)
                return (false, true, nil)
            }
        }
        if others { pumpAll() }
        guard let encoder else { return appended }
        // The encoder runs without the writer's lock, so that inputs encode concurrently.
        do {
            return appendAll(try encoder.encode(sample), to: input)
        } catch {
            lock.withLock { failLocked(error) }
            pumpAll()
            return false
        }
    }

    private func appendAll(_ samples: [SampleBuffer], to input: AssetWriterInput) -> Bool {
        let (appended, others): (Bool, Bool) = lock.withLock {
            guard _status == .writing else { return (false, false) }
            do {
                var moved = false
                for sample in samples { moved = try appendLocked(sample, to: input) || moved }
                return (true, moved)
            } catch {
                failLocked(error)
                return (false, true)
            }
        }
        if others { pumpAll() }
        return appended
    }

    /// Returns whether other inputs may have become ready.
    func appendLocked(_ sample: SampleBuffer, to input: AssetWriterInput) throws -> Bool {
        guard sessionStarted else { throw MediaError(.invalidOperation, "append before startSession(atSourceTime:)") }
        let state = input.state
        guard !state.isFinished else { throw MediaError(.invalidOperation, "append after markAsFinished()") }
        if state.timescale == 0 {
            state.timescale = input.mediaTimeScale > 0 ? input.mediaTimeScale : sample.decodeTimeStamp.timescale
            guard state.timescale > 0 else { throw MediaError(.invalidData, "sample has an invalid decode time") }
        }
        let frontier = state.frontier
        if !state.prerollDecided {
            // Video shown before the session start is kept only as far as decoding needs it.
            state.prerollDecided = true
            if input.mediaType == .video, input.segments == nil, session.start.isNumeric {
                state.preroll = RangeFilter(span: MediaSpan(start: session.start, end: .positiveInfinity))
            }
        }
        if var filter = state.preroll {
            let outcome = try filter.push(sample)
            state.preroll = filter.released ? nil : filter
            switch outcome {
            case .pass(let s): try transformAndEnqueue(s, to: input)
            case .release(let samples): for s in samples { try transformAndEnqueue(s, to: input) }
            case .held, .end: break
            }
        } else {
            try transformAndEnqueue(sample, to: input)
        }
        // Only a move of the slowest input can make another one ready.
        let moved = state.frontier != frontier && interleaver.updateSlowestFrontier(_inputs.map(\.state))
        if moved || interleaver.isHeavy(state) { try flush(all: false) }
        return moved
    }

    private func transformAndEnqueue(_ sample: SampleBuffer, to input: AssetWriterInput) throws {
        let state = input.state
        guard !state.stages.isEmpty else { return try enqueue(sample, to: input) }
        var samples = [sample]
        for stage in state.stages { samples = try samples.flatMap { try stage.transform($0, timescale: state.timescale) } }
        for s in samples { try enqueue(s, to: input) }
    }

    /// What the input's stages still hold, each stage's passed through the stages after it.
    func finishStages(_ state: InputState) throws -> [SampleBuffer] {
        var samples: [SampleBuffer] = []
        for stage in state.stages {
            samples = try samples.flatMap { try stage.transform($0, timescale: state.timescale) } + stage.finish(timescale: state.timescale)
        }
        return samples
    }

    /// Checks a sample's times against the previous one's and queues it in its window.
    func enqueue(_ sample: SampleBuffer, to input: AssetWriterInput) throws {
        let state = input.state
        guard !sample.isDecoded else {
            throw MediaError(.unsupported, "\(state.label): decoded samples are written through an input with output settings (an encoder)")
        }
        guard sample.decodeTimeStamp.isNumeric, sample.presentationTimeStamp.isNumeric else {
            throw MediaError(.invalidData, "\(state.label): sample without a numeric decode or presentation time")
        }
        if state.timescale == 0 { state.timescale = sample.decodeTimeStamp.timescale }
        let ts = state.timescale
        let dts = sample.decodeTimeStamp.convertScale(ts).value
        let pts = sample.presentationTimeStamp.convertScale(ts).value
        let duration = sample.duration.isNumeric ? sample.duration.convertScale(ts).value : 0
        if let last = state.lastDecodeTime, dts < last {
            throw MediaError(.invalidData, "\(state.label): decode time \(sample.decodeTimeStamp) goes back before the previous sample's")
        }
        if state.firstDecodeTime == nil { state.firstDecodeTime = dts }
        state.lastDecodeTime = dts
        let trimEnd = sample.trimDurationAtEnd > .zero ? sample.trimDurationAtEnd.convertScale(ts).value : 0
        state.presentationEnd = max(state.presentationEnd ?? .min, pts + duration - trimEnd)
        state.earliestPresentation = min(state.earliestPresentation ?? .max, pts)
        if state.firstFormat == nil { state.firstFormat = sample.formatDescription }
        let window = interleaver.windowIndex(dts, timescale: ts)
        state.pending.append(PendingSample(
            storage: sample.storage, length: sample.totalSampleSize, decodeTime: dts, compositionOffset: pts - dts,
            duration: duration, isSync: sample.isSync, dependency: sample.dependency?.rawValue,
            descriptionIndex: try muxer?.descriptionIndex(for: sample, input: input) ?? 1,
            window: window, trimDurationAtEnd: sample.trimDurationAtEnd))
        if case .bytes = sample.storage { state.pendingBytes += sample.totalSampleSize }
        state.frontier = max(state.frontier, window)
    }

    func markAsFinished(_ input: AssetWriterInput) {
        if let encoder = lock.withLock({ _status == .writing && !input.state.isFinished ? input.state.encoder : nil }) {
            do { _ = appendAll(try encoder.finish(), to: input) } catch { lock.withLock { failLocked(error) } }
        }
        lock.withLock {
            let state = input.state
            // A running block keeps itself alive; dropping it here breaks the cycle block → feeder → writer.
            state.requestBlock = nil
            guard !state.isFinished else { return }
            if _status == .writing {
                do { for s in try finishStages(state) { try enqueue(s, to: input) } } catch { failLocked(error) }
            }
            state.isFinished = true
            _ = interleaver.updateSlowestFrontier(_inputs.map(\.state))
            if _status == .writing {
                do { try flush(all: false) } catch { failLocked(error) }
            }
        }
        pumpAll()
    }

    /// Writes every chunk whose window all unfinished inputs have passed (everything with `all`).
    func flush(all: Bool) throws {
        guard let muxer, let counts = interleaver.writableCounts(_inputs.map(\.state), all: all) else { return }
        try muxer.write(counts, of: _inputs, session: session)
        for (input, n) in zip(_inputs, counts) { input.state.removePending(n) }
    }
}
