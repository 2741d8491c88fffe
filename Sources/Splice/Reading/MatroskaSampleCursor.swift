import Foundation
import MediaCore
import Matroska

/// A Matroska track's frames as samples: decode times and durations, in the segment's ticks.
///
/// Matroska stores presentation times only. Decode times are made as libavformat makes them:
/// with a reorder delay of `d` frames (the most any frame comes before frames shown earlier),
/// frame `i` is decoded at the `i - d`th presentation time in order, and the first `d` frames a
/// frame's duration apart before that. Each sample lasts until the next one's decode time; the
/// last as long as its block says.
struct MatroskaTimeline: Sendable {
    let frames: MatroskaFrames
    let decodeTimes: [Int64]
    let durations: [Int64]
    let reorderDelay: Int

    /// - Parameter reorders: video, whose frames may be stored out of presentation order.
    /// - Throws: `.unsupported` for frames whose times go back or repeat where they may not, or
    ///   come before 0 (encoder delay, which libavformat's reading handles).
    init(frames: MatroskaFrames, reorders: Bool) throws {
        self.frames = frames
        let pts = frames.times
        let n = pts.count
        guard let lowest = pts.min(), lowest >= 0 else { throw MediaError(.unsupported, "frames before time 0") }
        var dts = pts
        var delay = 0
        if reorders {
            let order = pts.indices.sorted { pts[$0] < pts[$1] || (pts[$0] == pts[$1] && $0 < $1) }
            var rank = [Int](repeating: 0, count: n)
            for (r, i) in order.enumerated() { rank[i] = r }
            delay = pts.indices.map { $0 - rank[$0] }.max() ?? 0
            for i in delay..<n { dts[i] = pts[order[i - delay]] }
            if delay > 0 {
                var step = max(1, frames.durations[delay])
                for j in stride(from: delay - 1, through: 0, by: -1) {
                    if frames.durations[j] > 0 { step = frames.durations[j] }
                    dts[j] = dts[j + 1] - step
                }
            }
        }
        for i in 1..<max(n, 1) where dts[i] <= dts[i - 1] {
            throw MediaError(.unsupported, "frames whose decode times repeat or go back (at frame \(i))")
        }
        var durations = [Int64](repeating: 0, count: n)
        for i in 0..<n {
            durations[i] = i + 1 < n ? dts[i + 1] - dts[i] : frames.durations[i] > 0 ? frames.durations[i] : i > 0 ? durations[i - 1] : 0
        }
        decodeTimes = dts
        self.durations = durations
        reorderDelay = delay
    }

    /// The earliest presentation time.
    var firstPresentation: Int64 { frames.times.min() ?? 0 }
    /// Where the last sample ends, in decode time.
    var end: Int64 { (decodeTimes.last ?? 0) + (durations.last ?? 0) }
}

/// One Matroska track's samples: from the key frame at or before a span's start to its end,
/// each frame's bytes read from the file (or left there, for a writer to copy file to file).
final class MatroskaSampleCursor: SampleCursor {
    private let timeline: MatroskaTimeline
    private let file: ReadOnlyFile
    private let timescale: Int32
    private let format: FormatDescription
    private let isVideo: Bool
    private let sampleRate: Int
    private let copiesSampleData: Bool
    private var index = 0
    private var endIndex: Int
    private var window = Data()
    private var windowStart: UInt64 = 0
    /// Frames smaller than this are read through a window of `windowSize` bytes (laced audio
    /// lies together); larger ones are read alone.
    static let windowSize = 64 << 10

    init(track: AssetTrack, backing: MatroskaTrackBacking, file: ReadOnlyFile, span: MediaSpan, copiesSampleData: Bool) {
        timeline = backing.timeline
        self.file = file
        timescale = backing.timescale
        format = track.formatDescriptions[0]
        isVideo = track.mediaType == .video
        sampleRate = backing.sampleRate
        self.copiesSampleData = copiesSampleData
        endIndex = timeline.decodeTimes.count
        position(at: span)
    }

    /// As `ISOSampleCursor` positions: from the last key frame at or before the first frame that
    /// ends after the span's start, to the last frame decoded before its end that is shown before it.
    private func position(at span: MediaSpan) {
        let pts = timeline.frames.times
        if span.start.isNumeric {
            let start = span.start.convertScale(timescale, method: .down).value
            var key = 0
            for i in pts.indices {
                if !isVideo || timeline.frames.keyFrames[i] { key = i }
                if pts[i] + timeline.durations[i] > start { break }
            }
            index = key
        }
        guard span.end.isNumeric else { return }
        let end = span.end.convertScale(timescale, method: .up).value
        var last = index
        for i in index..<endIndex {
            guard timeline.decodeTimes[i] < end else { break }
            if pts[i] < end { last = i + 1 }
        }
        endIndex = last
    }

    func next() throws -> SampleBuffer? {
        guard index < endIndex else { return nil }
        let i = index
        index += 1
        let frames = timeline.frames
        let offset = frames.offsets[i], size = Int(widening: frames.sizes[i])
        let storage: SampleBuffer.Storage = copiesSampleData
            ? .bytes(try read(offset: offset, size: size))
            : .file(SampleBuffer.FileRange(file: file, offset: offset, length: size))
        var sample = SampleBuffer(
            storage: storage,
            decodeTimeStamp: MediaTime(value: timeline.decodeTimes[i], timescale: timescale),
            presentationTimeStamp: MediaTime(value: frames.times[i], timescale: timescale),
            duration: MediaTime(value: timeline.durations[i], timescale: timescale),
            isSync: frames.keyFrames[i] || !isVideo, formatDescription: format)
        if let padding = frames.discardPadding[i], padding > 0, sampleRate > 0 {
            // DiscardPadding in nanoseconds, counted in samples as libavformat counts it.
            let samples = (Double(padding) * Double(sampleRate) / 1e9).rounded()
            if let n = samples.rounded(saturating: Int64.self) {
                sample.trimDurationAtEnd = MediaTime(value: n, timescale: Int32(clamping: sampleRate))
            }
        }
        return sample
    }

    func close() {}

    /// A frame's bytes: small ones through a window read at once.
    private func read(offset: UInt64, size: Int) throws -> Data {
        guard size < MatroskaSampleCursor.windowSize / 4 else { return try file.readData(at: offset, count: size) }
        let end = offset + UInt64(clamping: size)
        if offset < windowStart || end > windowStart + UInt64(clamping: window.count) {
            let length = min(UInt64(clamping: MatroskaSampleCursor.windowSize), file.size - offset)
            window = try file.readData(at: offset, count: Int(clamping: max(length, UInt64(clamping: size))))
            windowStart = offset
        }
        let from = Int(clamping: offset - windowStart)
        return window.subdata(in: from..<(from + size))
    }
}
