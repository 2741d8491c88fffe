import Foundation
import MediaCore
import Matroska

/// A Matroska track's frames as samples: decode times and durations, in the segment's ticks.
///
/// Matroska stores presentation times only. Decode times are made as libavformat makes them:
/// with a reorder delay of `d` frames (the most any frame comes before frames shown earlier),
/// frame `i` is decoded at the `i - d`th presentation time in order, and the first `d` frames a
/// frame's duration apart before that. Times out of order are then put in order by the rules
/// libavformat's packets are put in order by (`TimestampOrder`), and each sample lasts until
/// the next frame's decode time.
struct MatroskaTimeline: Sendable {
    let frames: MatroskaFrames
    /// Each sample's frame (frames whose times go back are left out).
    private(set) var frameIndexes: [Int] = []
    private(set) var presentationTimes: [Int64] = []
    private(set) var decodeTimes: [Int64] = []
    private(set) var durations: [Int64] = []
    private(set) var reorderDelay = 0
    /// Frames whose times were put in order, and the largest change in ticks.
    private(set) var repairedFrames = 0, largestRepair: Int64 = 0
    /// Frames left out because their time went back by a frame or more.
    private(set) var droppedFrames = 0

    /// - Parameters:
    ///   - reorders: video, whose frames may be stored out of presentation order.
    ///   - tick: the time units in a tick: the timeline's times are ticks × `tick`.
    /// - Throws: `.unsupported` for frames before time 0 (encoder delay, which libavformat's
    ///   reading handles), or times that do not fit in those units.
    init(frames: MatroskaFrames, reorders: Bool, tick: Int64 = 1) throws {
        self.frames = frames
        let pts = frames.times
        guard let lowest = pts.min(), lowest >= 0 else { throw MediaError(.unsupported, "frames before time 0") }
        var dts = pts
        if reorders { reorderDelay = try MatroskaTimeline.decodeTimes(&dts, frames: frames) }
        putInOrder(dts: dts)
        if tick != 1 {
            func scaled(_ values: [Int64]) throws -> [Int64] {
                try values.map {
                    let (v, overflow) = $0.multipliedReportingOverflow(by: tick)
                    guard !overflow else { throw MediaError(.unsupported, "a time of \($0) ticks does not fit") }
                    return v
                }
            }
            (presentationTimes, decodeTimes, durations) = (try scaled(presentationTimes), try scaled(decodeTimes), try scaled(durations))
            largestRepair = largestRepair.multipliedReportingOverflow(by: tick).overflow ? .max : largestRepair * tick
        }
    }

    /// Decode times from presentation times (see the type); returns the reorder delay.
    private static func decodeTimes(_ dts: inout [Int64], frames: MatroskaFrames) throws -> Int {
        let pts = frames.times, n = pts.count
        let order = pts.indices.sorted { pts[$0] < pts[$1] || (pts[$0] == pts[$1] && $0 < $1) }
        var rank = [Int](repeating: 0, count: n)
        for (r, i) in order.enumerated() { rank[i] = r }
        let delay = pts.indices.map { $0 - rank[$0] }.max() ?? 0
        for i in delay..<n { dts[i] = pts[order[i - delay]] }
        if delay > 0 {
            var step = max(1, frames.durations[delay])
            for j in stride(from: delay - 1, through: 0, by: -1) {
                if frames.durations[j] > 0 { step = frames.durations[j] }
                let (t, overflow) = dts[j + 1].subtractingReportingOverflow(step)
                guard !overflow else { throw MediaError(.unsupported, "frame durations too long to count decode times back by") }
                dts[j] = t
            }
        }
        return delay
    }

    /// Puts the times in order (`TimestampOrder`, the rules `PacketTimeline` applies to
    /// libavformat's packets); each sample lasts until the next frame's decode time.
    private mutating func putInOrder(dts raw: [Int64]) {
        let pts = frames.times, n = raw.count
        var order = TimestampOrder()
        for i in 0..<n {
            guard let (d, p) = order.place(decodeTime: raw[i], presentationTime: pts[i]) else { continue }
            var duration = frames.durations[i]
            if i + 1 < n, raw[i + 1] > d { duration = raw[i + 1].subtractingSaturating(d) }
            if duration == 0 { duration = order.lastDuration }
            order.lastDuration = duration
            frameIndexes.append(i)
            presentationTimes.append(p)
            decodeTimes.append(d)
            durations.append(duration)
        }
        (repairedFrames, droppedFrames, largestRepair) = (order.repaired, order.dropped, order.largestRepair)
    }

    /// The earliest presentation time.
    var firstPresentation: Int64 { presentationTimes.min() ?? 0 }
    /// Where the last sample ends, in decode time.
    var end: Int64 { (decodeTimes.last ?? 0) &+ (durations.last ?? 0) }
}

/// One Matroska track's samples: from the key frame at or before a span's start to its end,
/// each frame's bytes read from the file (or left there, for a writer to copy file to file).
/// The cursor is a shell over one `MatroskaSampleReader` value, as `ISOSampleCursor` is.
final class MatroskaSampleCursor: SampleCursor {
    private var reader: MatroskaSampleReader

    init(track: AssetTrack, backing: MatroskaTrackBacking, file: ReadOnlyFile, span: MediaSpan, copiesSampleData: Bool) {
        reader = MatroskaSampleReader(track: track, backing: backing, file: file, span: span, copiesSampleData: copiesSampleData)
    }

    func next() throws -> SampleBuffer? { try reader.next() }

    func close() {}
}

/// The state of a `MatroskaSampleCursor`.
struct MatroskaSampleReader {
    private let timeline: MatroskaTimeline
    private let file: ReadOnlyFile
    private let timescale: Int32
    private let format: FormatDescription
    private let isVideo: Bool
    private let sampleRate: Int
    private let copiesSampleData: Bool
    private var index = 0
    private var endIndex: Int
    private var window = FileWindow()
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
    private mutating func position(at span: MediaSpan) {
        let pts = timeline.presentationTimes
        if span.start.isNumeric {
            let start = span.start.convertScale(timescale, method: .down).value
            var key = 0
            for i in pts.indices {
                if !isVideo || timeline.frames.keyFrames[timeline.frameIndexes[i]] { key = i }
                if pts[i] &+ timeline.durations[i] > start { break }
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

    mutating func next() throws -> SampleBuffer? {
        guard index < endIndex else { return nil }
        let i = index, f = timeline.frameIndexes[index]
        index += 1
        let frames = timeline.frames
        let offset = frames.offsets[f], size = Int(widening: frames.sizes[f])
        let storage: SampleBuffer.Storage = copiesSampleData
            ? .bytes(try read(offset: offset, size: size))
            : .file(SampleBuffer.FileRange(file: file, offset: offset, length: size))
        var sample = SampleBuffer(
            storage: storage,
            decodeTimeStamp: MediaTime(value: timeline.decodeTimes[i], timescale: timescale),
            presentationTimeStamp: MediaTime(value: timeline.presentationTimes[i], timescale: timescale),
            duration: MediaTime(value: timeline.durations[i], timescale: timescale),
            isSync: frames.keyFrames[f] || !isVideo, formatDescription: format)
        if let padding = frames.discardPadding[f], padding > 0, sampleRate > 0 {
            // DiscardPadding in nanoseconds, counted in samples as libavformat counts it.
            let samples = (Double(padding) * Double(sampleRate) / 1e9).rounded()
            if let n = samples.rounded(saturating: Int64.self) {
                sample.trimDurationAtEnd = MediaTime(value: n, timescale: Int32(clamping: sampleRate))
            }
        }
        return sample
    }

    /// A frame's bytes: small ones through a window read at once.
    private mutating func read(offset: UInt64, size: Int) throws -> Data {
        guard size < MatroskaSampleReader.windowSize / 4 else { return try file.readData(at: offset, count: size) }
        return try window.read(file, at: offset, size: size, span: UInt64(clamping: MatroskaSampleReader.windowSize))
    }
}
