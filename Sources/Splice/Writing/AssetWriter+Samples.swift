import Foundation
import MediaCore

/// Appending: each sample goes through its input's stages (`SampleStage`), is checked and
/// timed, queued in its interleaving window, and written by the muxer once every unfinished
/// input has passed that window. Everything here runs with the writer's lock held, but the entry
/// points and the stages that run concurrently.
extension AssetWriter {
    func append(_ sample: SampleBuffer, to input: AssetWriterInput) -> Bool {
        let state = input.state
        let (appended, others, staged): (Bool, Bool, Bool) = lock.withLock {
            guard _status == .writing else {
                // (AVFoundation raises an exception here; Splice fails the writer, saying why)
                if _status == .unknown { failLocked(MediaError(.invalidOperation, "a sample was appended before startWriting()")) }
                return (false, false, false)
            }
            do {
                // A copy (no stages) takes the lock once.
                guard !state.stages.isEmpty else { return (true, try appendLocked(sample, to: input), false) }
                try checkAppendable(state)
                if state.stageTimescale == 0 {
                    state.stageTimescale = input.mediaTimeScale > 0 ? input.mediaTimeScale : sample.decodeTimeStamp.timescale
                }
                return (true, false, true)
            } catch {
                failLocked(error)
                return (false, true, false)
            }
        }
        if others { pumpAll() }
        guard staged else { return appended }
        do {
            return appendAll(try runStages(state, [sample], finishing: false), to: input)
        } catch {
            lock.withLock { failLocked(error) }
            pumpAll()
            return false
        }
    }

    /// Appends `samples` in order, as as many calls of `append(_:to:)` do; an input without
    /// stages (a copy) takes the lock once for them all.
    func append(contentsOf samples: [SampleBuffer], to input: AssetWriterInput) -> Bool {
        guard samples.count > 1, lock.withLock({ input.state.stages.isEmpty }) else {
            return samples.allSatisfy { append($0, to: input) }
        }
        return appendAll(samples, to: input)
    }

    /// Runs `samples` through the input's stages in order — with `finishing`, each stage's held
    /// samples too — each stage outside the writer's lock when it `runsConcurrently`, else under it.
    func runStages(_ state: InputState, _ samples: [SampleBuffer], finishing: Bool) throws -> [SampleBuffer] {
        try state.stageLock.withLock {
            let timescale = lock.withLock { state.stageTimescale }
            var out = samples
            for stage in state.stages {
                let run = { [out] () throws -> [SampleBuffer] in
                    try out.flatMap { try stage.process($0, timescale: timescale) } + (finishing ? stage.finish(timescale: timescale) : [])
                }
                out = try stage.runsConcurrently ? run() : lock.withLock(run)
            }
            return out
        }
    }

    /// Appends what the input's stages still hold, once (at `markAsFinished()` or `finishWriting`).
    func finishStages(of input: AssetWriterInput) {
        let state = input.state
        let due: Bool = lock.withLock {
            guard _status == .writing, !state.isFinished, !state.stagesFinished, !state.stages.isEmpty else { return false }
            state.stagesFinished = true
            return true
        }
        guard due else { return }
        do { _ = appendAll(try runStages(state, [], finishing: true), to: input) } catch { lock.withLock { failLocked(error) } }
    }

    /// Appends samples past the stages (or of an input without any) under one lock.
    private func appendAll(_ samples: [SampleBuffer], to input: AssetWriterInput) -> Bool {
        let (appended, others): (Bool, Bool) = lock.withLock {
            guard _status == .writing else {
                // (Only a copy's batch can come before `startWriting()`; staged samples passed `append`.)
                if _status == .unknown { failLocked(MediaError(.invalidOperation, "a sample was appended before startWriting()")) }
                return (false, false)
            }
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

    private func checkAppendable(_ state: InputState) throws {
        guard sessionStarted else { throw MediaError(.invalidOperation, "append before startSession(atSourceTime:)") }
        guard !state.isFinished else { throw MediaError(.invalidOperation, "append after markAsFinished()") }
    }

    /// Returns whether other inputs may have become ready.
    func appendLocked(_ sample: SampleBuffer, to input: AssetWriterInput) throws -> Bool {
        let state = input.state
        try checkAppendable(state)
        if state.timescale == 0 {
            state.timescale = input.mediaTimeScale > 0 ? input.mediaTimeScale : sample.decodeTimeStamp.timescale
            guard state.timescale > 0 else { throw MediaError(.invalidData, "sample has an invalid decode time") }
        }
        let frontier = state.frontier
        if !state.prerollDecided {
            // Video shown before the session start is kept only as far as decoding needs it.
            state.prerollDecided = true
            if input.mediaType == .video, input.segments == nil, let start = input.cut?.read.start ?? (session.start.isNumeric ? session.start : nil) {
                state.preroll = RangeFilter(span: MediaSpan(start: start, end: .positiveInfinity))
            }
        }
        if var filter = state.preroll {
            let outcome = try filter.push(sample)
            state.preroll = filter.released ? nil : filter
            switch outcome {
            case .pass(let s): try enqueue(s, to: input)
            case .release(let samples): for s in samples { try enqueue(s, to: input) }
            case .held, .end: break
            }
        } else {
            try enqueue(sample, to: input)
        }
        // Only a move of the slowest input can make another one ready.
        let moved = state.frontier != frontier && interleaver.updateSlowestFrontier(_inputs.map(\.state))
        if moved || interleaver.isHeavy(state) { try flush(all: false) }
        return moved
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
        finishStages(of: input)
        lock.withLock {
            let state = input.state
            // A running block keeps itself alive; dropping it here breaks the cycle block → feeder → writer.
            state.requestBlock = nil
            guard !state.isFinished else { return }
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
