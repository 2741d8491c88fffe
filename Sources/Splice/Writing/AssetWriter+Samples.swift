import Foundation
import MediaCore

/// Appending: each sample goes through its input's stages (`SampleStage`, under the input's
/// stage lock), is checked and timed, queued in its interleaving window, and written by the
/// muxer once every unfinished input has passed that window (`WriterCore`, under the writer's
/// lock). The stage lock is always taken first; the writer's lock is never held while a stage runs.
extension AssetWriter {
    func append(_ sample: SampleBuffer, to input: AssetWriterInput, at i: Int) -> Bool {
        // A copy (no stages) takes the writer's lock once.
        guard input.hasStages else { return appendAll([sample], to: input, at: i) }
        let staged: Result<[SampleBuffer], Error>? = input.stages.withLock { stages in
            let ready: Result<Void, Error>? = core.withLock { c in
                guard c.status == .writing else {
                    // (AVFoundation raises an exception here; Splice fails the writer, saying why)
                    if c.status == .unknown { c.fail(MediaError(.invalidOperation, "a sample was appended before startWriting()")) }
                    return nil
                }
                do { try c.checkAppendable(i) } catch {
                    c.fail(error)
                    return .failure(error)
                }
                return .success(())
            }
            switch ready {
            case nil: return nil
            case .failure(let error)?: return .failure(error)
            case .success?: break
            }
            if stages.timescale == 0 {
                stages.timescale = input.mediaTimeScale > 0 ? input.mediaTimeScale : sample.decodeTimeStamp.timescale
            }
            stages.install(for: input, fileType: fileType, label: core.withLock { $0.states[i].label })
            return Result { try stages.run([sample], finishing: false) }
        }
        switch staged {
        case nil:
            return false
        case .failure(let error)?:
            // (the writer failed in the check above, or fails now: a stage threw)
            core.withLock { $0.fail(error) }
            pumpAll()
            return false
        case .success(let samples)?:
            return appendAll(samples, to: input, at: i, text: input.stages.withLock { $0.textFacts })
        }
    }

    /// Appends `samples` in order, as as many calls of `append(_:to:)` do; an input without
    /// stages (a copy) takes the lock once for them all.
    func append(contentsOf samples: [SampleBuffer], to input: AssetWriterInput, at i: Int) -> Bool {
        guard samples.count > 1, !input.hasStages else { return samples.allSatisfy { append($0, to: input, at: i) } }
        return appendAll(samples, to: input, at: i)
    }

    /// Appends what the input's stages still hold, once (at `markAsFinished()` or `finishWriting`).
    func finishStages(of input: AssetWriterInput) {
        guard input.hasStages else { return }
        let i = input.index
        let finished: Result<([SampleBuffer], TextFacts?), Error>? = input.stages.withLock { stages in
            let due = core.withLock { c in c.status == .writing && !c.states[i].isFinished }
            guard due, !stages.finished, stages.list != nil else { return nil }
            stages.finished = true
            return Result { (try stages.run([], finishing: true), stages.textFacts) }
        }
        switch finished {
        case nil: return
        case .success(let (samples, text))?: _ = appendAll(samples, to: input, at: i, text: text)
        case .failure(let error)?: core.withLock { $0.fail(error) }
        }
    }

    /// Appends samples past the stages (or of an input without any) under one lock, with what
    /// a text stage saw of them.
    private func appendAll(_ samples: [SampleBuffer], to input: AssetWriterInput, at i: Int, text: TextFacts? = nil) -> Bool {
        let (appended, others): (Bool, Bool) = core.withLock { c in
            guard c.status == .writing else {
                // (Only a copy's batch can come before `startWriting()`; staged samples passed `append`.)
                if c.status == .unknown { c.fail(MediaError(.invalidOperation, "a sample was appended before startWriting()")) }
                return (false, false)
            }
            if let text { c.states[i].text = text }
            do {
                var moved = false
                for sample in samples { moved = try c.append(sample, to: i) || moved }
                return (true, moved)
            } catch {
                c.fail(error)
                return (false, true)
            }
        }
        if others { pumpAll() }
        return appended
    }

    func markAsFinished(_ input: AssetWriterInput, at i: Int) {
        finishStages(of: input)
        core.withLock { c in
            // A running block keeps itself alive; dropping it here breaks the cycle block → feeder → writer.
            c.states[i].requestBlock = nil
            guard !c.states[i].isFinished else { return }
            c.states[i].isFinished = true
            _ = c.interleaver.updateSlowestFrontier(c.states)
            if c.status == .writing {
                do { try c.flush(all: false) } catch { c.fail(error) }
            }
        }
        pumpAll()
    }
}
