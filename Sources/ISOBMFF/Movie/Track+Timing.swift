import Foundation
import MediaCore

/// What a fragmented track's timing needs once all its fragments are read: an open-ended last
/// edit given its real duration, and fragments whose `tfdt` disagrees with the durations before them.
extension Track {
    /// In a fragmented file the last edit may have a duration of 0, meaning "to the end of the
    /// media" (ISO/IEC 14496-12 §8.6.6.1), which fragments make unknown when `moov` is written.
    /// Once the fragments are read it is known: the edit gets the real duration — to the end of
    /// the last frame shown, composition offsets included — so that a defragmented copy (which
    /// has no such rule) presents the whole track.
    mutating func resolveOpenEndedEdit(movieTimescale: UInt32) {
        guard var edits = editList, let last = edits.entries.last, last.segmentDuration == 0, !last.isEmpty,
              mediaHeader.timescale > 0, movieTimescale > 0, last.rate != 0 else { return }
        let rest = presentationEnd - last.mediaTime
        guard rest > 0 else { return }
        let scaled = (Double(rest) / last.rate.magnitude.clamped(0.001, 1000)) * Double(movieTimescale) / Double(mediaHeader.timescale)
        edits.entries[edits.entries.count - 1].segmentDuration = scaled.rounded(saturating: UInt64.self) ?? 0
        editList = edits
    }
}

extension Track {
    /// How far the most negative composition offset (sample table or fragments) shows a sample
    /// before it is decoded; 0 when none is negative.
    public var compositionLead: Int64 {
        let table = sampleTable.compositionOffsets?.map(\.offset).min() ?? 0
        let fragments = self.fragments.lazy.flatMap(\.runs).flatMap(\.samples).map(\.compositionOffset).min() ?? 0
        return -Int64(widening: min(0, table, fragments))
    }

    /// The end of the last frame shown, in media time: the latest decode time plus composition
    /// offset plus duration over the sample table and the fragments (the media duration when
    /// no frame is shown after it is decoded).
    var presentationEnd: Int64 {
        var end: Int64 = 0, t: Int64 = 0
        // The sample table a run at a time: runs of one duration and one offset end with their last sample.
        let ctts = sampleTable.compositionOffsets ?? []
        var ci = 0, left: Int64 = ctts.isEmpty ? .max : Int64(widening: ctts[0].count)
        var budget = Int64(clamping: sampleTable.sampleCount)
        for run in sampleTable.timeToSample {
            var n = min(Int64(widening: run.count), budget)
            budget -= n
            let delta = Int64(widening: run.delta)
            while n > 0 {
                while left == 0 { ci += 1; left = ci < ctts.count ? Int64(widening: ctts[ci].count) : .max }
                let cto = ci < ctts.count ? Int64(widening: ctts[ci].offset) : 0
                let k = min(n, left)
                // (wrapping: a nonsense table gives a nonsense end, never a trap)
                t = t.addingReportingOverflow(delta.multipliedReportingOverflow(by: k).partialValue).partialValue
                end = max(end, t.addingReportingOverflow(cto).partialValue)
                n -= k
                if left != .max { left -= k }
            }
        }
        for f in fragments {
            t = f.baseMediaDecodeTime.map { Int64(clamping: $0) } ?? t
            for run in f.runs {
                for s in run.samples {
                    t = t.addingReportingOverflow(Int64(widening: s.duration)).partialValue
                    end = max(end, t.addingReportingOverflow(Int64(widening: s.compositionOffset)).partialValue)
                }
            }
        }
        return end > 0 ? end : Int64(clamping: mediaDuration)
    }

    /// Where a fragment's `tfdt` disagrees with the durations before it. A later start (a gap)
    /// is kept by a copy, whose sample table then gives the sample before it the longer
    /// duration: said in the returned notes. An earlier start (an overlap) would make decode
    /// times go back, which no sample table holds: said in `timingProblem`.
    mutating func checkFragmentTiming() -> [String] {
        let scale = Double(mediaHeader.timescale > 0 ? mediaHeader.timescale : 1)
        // (in Double: a gap between two times near Int64's ends does not fit an Int64)
        let seconds = { (v: Double) in String(format: "%.3f s", v / scale) }
        var notes: [String] = []
        var end: Int64? = sampleTable.sampleCount > 0 ? Int64(clamping: sampleTable.totalDuration) : nil
        for f in fragments where f.sampleCount > 0 {
            let start = f.baseMediaDecodeTime.map { Int64(clamping: $0) } ?? end ?? 0
            if let end, start != end {
                let place = "the fragment at byte \(f.moofOffset) (track \(trackID))"
                if start < end {
                    timingProblem = timingProblem ?? "\(place) starts its decode times at \(seconds(Double(start))), before the samples before it end "
                        + "(\(seconds(Double(end)))): decode times that go back cannot be kept in a sample table"
                } else {
                    notes.append("\(place) starts \(seconds(Double(start) - Double(end))) after the samples before it end: a copy keeps its decode "
                                 + "times, so the sample before it lasts that much longer")
                }
            }
            let (next, overflow) = start.addingReportingOverflow(Int64(clamping: f.duration))
            if overflow || f.baseMediaDecodeTime.map({ Int64(exactly: $0) == nil }) == true {
                timingProblem = timingProblem ?? "the fragment at byte \(f.moofOffset) (track \(trackID)) starts its decode times at "
                    + "\(f.baseMediaDecodeTime ?? 0) (tfdt), where its samples' times pass the largest a track can hold"
            }
            end = overflow ? Int64.max : next
        }
        return notes
    }
}

private extension Double {
    func clamped(_ low: Double, _ high: Double) -> Double { Swift.min(high, Swift.max(low, self)) }
}
