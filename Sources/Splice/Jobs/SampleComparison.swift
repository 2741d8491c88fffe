import Foundation
import MediaCore

/// Compares the samples of two assets track by track: bytes, decode and presentation times,
/// durations and sync flags — what `splice remux --verify` checks.
public enum SampleComparison {
    public struct Result: Sendable {
        public var tracks: Int
        public var samples: Int
    }

    /// - Throws: `.invalidData` naming the first track and sample that differ.
    public static func compare(_ a: Asset, _ b: Asset) throws -> Result {
        guard a.tracks.count == b.tracks.count else {
            throw MediaError(.invalidData, "\(a.tracks.count) tracks against \(b.tracks.count)", file: b.url.path)
        }
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
            while true {
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
                if sa.data != sb.data { throw mismatch(b, tb, n, "bytes differ") }
                if sa.decodeTimeStamp != sb.decodeTimeStamp { throw mismatch(b, tb, n, "decode time \(sb.decodeTimeStamp), expected \(sa.decodeTimeStamp)") }
                if sa.presentationTimeStamp != sb.presentationTimeStamp {
                    throw mismatch(b, tb, n, "presentation time \(sb.presentationTimeStamp), expected \(sa.presentationTimeStamp)")
                }
                if sa.duration != sb.duration { throw mismatch(b, tb, n, "duration \(sb.duration), expected \(sa.duration)") }
                if sa.isSync != sb.isSync { throw mismatch(b, tb, n, "sync flag differs") }
            }
            total += n
        }
        return Result(tracks: a.tracks.count, samples: total)
    }

    private static func mismatch(_ asset: Asset, _ track: AssetTrack, _ n: Int, _ what: String) -> MediaError {
        MediaError(.invalidData, "track \(track.trackID) sample \(n): \(what)", file: asset.url.path)
    }
}
