import Foundation
import MediaCore
import ISOBMFF

/// QuickTime chapter tracks: text tracks that audio and video tracks refer to with `chap`, one
/// sample per chapter. Read into `Asset.chapters`, and made from a container's chapters.
enum ChapterTrack {
    /// The chapter-list tracks of an MP4/MOV (text tracks that are targets of `chap`).
    static func tracks(of asset: Asset) -> [AssetTrack] {
        let targets = Set(asset.tracks.flatMap { $0.associations[.chapterList] ?? [] })
        return asset.tracks.filter { targets.contains($0.trackID) && $0.mediaType.isLegible && $0.backing.isoStructure != nil }
    }

    /// The chapters of the asset's first chapter track.
    static func chapters(of asset: Asset) throws -> [Asset.Chapter] {
        try tracks(of: asset).first.map(chapters(of:)) ?? []
    }

    /// The chapters of a chapter track: one per non-empty sample, on the movie timeline and
    /// cut to it (a composition of part of a movie shows part of its chapters).
    /// - Throws: why the track's samples cannot be read.
    static func chapters(of track: AssetTrack) throws -> [Asset.Chapter] {
        guard let asset = track.asset else { return [] }
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: track)
        try reader.add(output)
        guard reader.startReading() else { throw reader.error ?? MediaError(.io, "cannot read the chapter track") }
        var result: [Asset.Chapter] = []
        while let s = output.copyNextSampleBuffer() {
            let title = TX3G.decode(try s.data).text
            let start = max(.zero, s.presentationTimeStamp), end = min(s.presentationTimeStamp + s.duration, asset.duration)
            if !title.isEmpty, start < end {
                result.append(Asset.Chapter(title: title, timeRange: TimeRange(start: start, end: end)))
            }
        }
        if reader.status == .failed { throw reader.error ?? MediaError(.io, "cannot read the chapter track") }
        return result
    }
}

/// The samples of a QuickTime chapter track: one per chapter (a 16-bit length and the UTF-8
/// title), gaps between chapters as empty samples.
final class ChapterSamples: SampleBufferSource, Sendable {
    /// A QuickTime text sample entry, as QuickTime and ffmpeg write it for chapters. (Made anew
    /// each time: a `Data` kept in a global is reported as a leak by LeakSanitizer.)
    static var sampleEntry: Data { Data([
        0x00, 0x00, 0x00, 0x3B, 0x74, 0x65, 0x78, 0x74, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x0D, 0x66, 0x74, 0x61, 0x62, 0x00, 0x01, 0x00, 0x01, 0x00,
    ]) }
    let formatDescription = FormatDescription(mediaType: .text, codec: "text", sampleEntry: ChapterSamples.sampleEntry)
    /// The samples not yet handed out.
    private let samples: Mutex<[(text: String, start: MediaTime, duration: MediaTime)]>

    /// Gaps shorter than this between a chapter's end and the next one's start are closed (the
    /// chapter runs on): Matroska files often end a chapter a millisecond before the next.
    static let smallestGap = MediaTime(value: 1, timescale: 10)

    init(_ chapters: [Asset.Chapter]) {
        var samples: [(text: String, start: MediaTime, duration: MediaTime)] = []
        var t = MediaTime.zero
        let sorted = chapters.sorted(by: { $0.timeRange.start < $1.timeRange.start })
        for (i, c) in sorted.enumerated() {
            let start = max(c.timeRange.start, t)
            if start > t { samples.append(("", t, start - t)) }
            var end = max(start, c.timeRange.end)
            if i + 1 < sorted.count, sorted[i + 1].timeRange.start > end, sorted[i + 1].timeRange.start - end < ChapterSamples.smallestGap {
                end = sorted[i + 1].timeRange.start
            }
            samples.append((c.title, start, end - start))
            t = end
        }
        self.samples = Mutex(samples)
    }

    func copyNextSampleBuffer() -> SampleBuffer? {
        samples.withLock { samples in
            guard !samples.isEmpty else { return nil }
            let s = samples.removeFirst()
            let utf8 = Array(s.text.utf8.prefix(0xFFFF))
            let data = Data([UInt8(truncatingIfNeeded: utf8.count >> 8), UInt8(truncatingIfNeeded: utf8.count & 0xFF)] + utf8)
            return SampleBuffer(data: data, decodeTimeStamp: s.start, presentationTimeStamp: s.start, duration: s.duration,
                                isSync: true, formatDescription: formatDescription)
        }
    }
}
