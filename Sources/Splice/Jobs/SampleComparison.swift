import Foundation
import MediaCore

/// Compares two assets: their structure (`StructureComparison`), then the samples track by
/// track — bytes, decode and presentation times, durations, sync flags and encryption
/// information — what `splice remux --verify` checks.
public enum SampleComparison {
    /// What a comparison found equal.
    public struct Result: Sendable {
        /// The number of tracks compared.
        public var tracks: Int
        /// The number of samples compared, over all tracks.
        public var samples: Int
    }

    /// Compares every track of `b` with the same track of `a`: bytes, times, sync flags, structure.
    /// - Parameters:
    ///   - a: The original.
    ///   - b: The copy.
    ///   - isCancelled: Asked before each sample; `true` stops the comparison with a `cancelled` error.
    /// - Throws: `.invalidData` naming the first track and sample that differ.
    public static func compare(_ a: Asset, _ b: Asset, isCancelled: () -> Bool = { false }) throws -> Result {
        guard a.tracks.count == b.tracks.count else {
            throw MediaError(.invalidData, "\(a.tracks.count) tracks against \(b.tracks.count)", file: b.url.path)
        }
        try StructureComparison.compare(a, b)
        var total = 0
        for (ta, tb) in zip(a.tracks, b.tracks) {
            let ra = try AssetReader(asset: a), rb = try AssetReader(asset: b)
            let oa = AssetReaderTrackOutput(track: ta), ob = AssetReaderTrackOutput(track: tb)
            // Compared as stored: media times (edit lists are compared as structure).
            oa.presentsMediaTimeline = true
            ob.presentsMediaTimeline = true
            try ra.add(oa); try rb.add(ob)
            guard ra.startReading() else { throw ra.error! }
            guard rb.startReading() else { throw rb.error! }
            var n = 0
            // Media times are compared from each track's first decode time: a copy may move a
            // fragmented source's start (its first `tfdt`) into an empty edit. Where the samples
            // are shown is compared through the edit lists below.
            var shift: (MediaTime, MediaTime)?
            var previous: (SampleBuffer, SampleBuffer, Int)?
            while true {
                if isCancelled() { throw MediaError(.cancelled, "the comparison was cancelled", file: b.url.path) }
                let sa = oa.copyNextSampleBuffer(), sb = ob.copyNextSampleBuffer()
                if let e = ra.error { throw e }
                if let e = rb.error { throw e }
                guard let sa, let sb else {
                    if sa != nil || sb != nil {
                        throw mismatch(b, tb, n, "one file has more samples (\(ta.sampleCount ?? 0) against \(tb.sampleCount ?? 0))")
                    }
                    break
                }
                n += 1
                let (za, zb) = shift ?? (sa.decodeTimeStamp, sb.decodeTimeStamp)
                shift = (za, zb)
                try compareSample(sa, za, sb, zb, n, tb, in: b, leads: (ta.backing.presentationLead, tb.backing.presentationLead))
                // A duration is compared once the next sample is known: where the source's next
                // decode time disagrees with it (a fragment starting after a gap), the copy's
                // sample table says the decode times' difference instead.
                if let (pa, pb, k) = previous {
                    let expected = pa.decodeTimeStamp + pa.duration == sa.decodeTimeStamp ? pa.duration : sa.decodeTimeStamp - pa.decodeTimeStamp
                    if pb.duration != expected { throw mismatch(b, tb, k, "duration \(pb.duration), expected \(expected)") }
                }
                previous = (sa, sb, n)
                if sa.isSync != sb.isSync { throw mismatch(b, tb, n, "sync flag differs") }
            }
            if let (pa, pb, k) = previous, pa.duration != pb.duration {
                throw mismatch(b, tb, k, "duration \(pb.duration), expected \(pa.duration)")
            }
            // Where both have edit lists they were compared exactly (StructureComparison).
            let bothEdited = ta.backing.isoTrack?.editList != nil && tb.backing.isoTrack?.editList != nil
            if let (za, zb) = shift, !bothEdited { try comparePresentation(ta, za, tb, zb, in: b) }
            if ta.encryption != nil || tb.encryption != nil { try compareEncryption(ta, a, tb, b) }
            total += n
        }
        return Result(tracks: a.tracks.count, samples: total)
    }

    /// One sample's bytes and its times from its track's first decode time — presentation times
    /// plus the track's lead (how far its most negative composition offset shows a sample before
    /// it is decoded: a fragmented copy raises such offsets, and its edit, to none negative).
    private static func compareSample(_ sa: SampleBuffer, _ za: MediaTime, _ sb: SampleBuffer, _ zb: MediaTime, _ n: Int,
                                      _ tb: AssetTrack, in b: Asset, leads: (MediaTime, MediaTime)) throws {
        if try sa.data != sb.data { throw mismatch(b, tb, n, "bytes differ") }
        if sa.decodeTimeStamp - za != sb.decodeTimeStamp - zb {
            throw mismatch(b, tb, n, "decode time \(sb.decodeTimeStamp - zb) from the first, expected \(sa.decodeTimeStamp - za)")
        }
        let (pa, pb) = (sa.presentationTimeStamp - za + leads.0, sb.presentationTimeStamp - zb + leads.1)
        if pa != pb {
            throw mismatch(b, tb, n, "presentation time \(pb) from the first decode time, expected \(pa)")
        }
    }

    /// The samples' auxiliary encryption information (IVs, subsample maps) must be the same in
    /// both, as a player finds it — through `saiz`/`saio` in the file — and, in the source, the
    /// same through `saio` as in its `senc`.
    private static func compareEncryption(_ ta: AssetTrack, _ a: Asset, _ tb: AssetTrack, _ b: Asset) throws {
        let isoA = ta.backing.isoTrack, isoB = tb.backing.isoTrack
        let expected = isoA?.encryption
        let fail = { (what: String) in MediaError(.invalidData, "track \(tb.trackID): \(what)", file: b.url.path) }
        if let location = isoA?.auxiliaryInformationLocation, let found = try location.read(from: try ReadOnlyFile(path: a.url.path)),
           found.data != expected?.data || found.sizes != expected?.sizes {
            throw MediaError(.invalidData, "track \(ta.trackID): its 'saio' does not point at its 'senc' entries: the source's encryption data is damaged",
                             file: a.url.path)
        }
        let fragmented = isoB.map { !$0.fragments.isEmpty } ?? false
        // (a fragmented copy's are in its track fragments, each 'senc' with its 'saiz'/'saio')
        guard let written = fragmented ? isoB?.encryption : try isoB?.auxiliaryInformationLocation?.read(from: try ReadOnlyFile(path: b.url.path)) else {
            if expected?.sampleCount ?? 0 > 0 { throw fail("the copy has no 'saiz'/'saio' for its encrypted samples") }
            return
        }
        guard written.data == expected?.data, written.sizes == expected?.sizes else {
            throw fail("the samples' encryption information (IVs, subsample maps) differs from the source's "
                       + "(\(written.sampleCount) entries against \(expected?.sampleCount ?? 0))")
        }
    }

    /// Whether the tracks show the same media at the same times: their edits' target ranges and
    /// source ranges (from each track's first decode time) agree, empty edits aside.
    private static func comparePresentation(_ ta: AssetTrack, _ za: MediaTime, _ tb: AssetTrack, _ zb: MediaTime, in b: Asset) throws {
        func shown(_ t: AssetTrack, _ z: MediaTime) -> [(Double, Double, Double)] {
            t.segments.compactMap { s in s.source.map { (s.target.start.seconds, s.target.duration.seconds, ($0.start - z).seconds) } }
        }
        let (sa, sb) = (shown(ta, za), shown(tb, zb))
        let close = { (x: Double, y: Double) in abs(x - y) <= 0.001 }
        // A track without an edit list (a CMAF fragment's) is shown where its media times say;
        // its copy says the same with edits. Both are compared by the range they cover.
        if !sa.isEmpty, !sb.isEmpty,
           sa.count != sb.count || !zip(sa, sb).allSatisfy({ close($0.0, $1.0) && close($0.1, $1.1) && close($0.2, $1.2) }) {
            throw MediaError(.invalidData, "track \(tb.trackID): the edit list shows other media at other times (\(sb) against \(sa))", file: b.url.path)
        }
        // (Without edits, a source's range is its decode times'; a copy's edit may also cover the
        // composition offsets, so only the start is compared then.)
        let (ra, rb) = (ta.timeRange, tb.timeRange)
        guard close(ra.start.seconds, rb.start.seconds), sa.isEmpty || close(ra.duration.seconds, rb.duration.seconds) else {
            throw MediaError(.invalidData, "track \(tb.trackID): shown over \(rb), expected \(ra)", file: b.url.path)
        }
    }

    private static func mismatch(_ asset: Asset, _ track: AssetTrack, _ n: Int, _ what: String) -> MediaError {
        MediaError(.invalidData, "track \(track.trackID) sample \(n): \(what)", file: asset.url.path)
    }
}
