import Foundation
import MediaCore
import ISOBMFF

/// One MP4/MOV track's samples, read through its sample tables: from the sync sample at or
/// before a time range's start to its end, each sample's bytes read from a window of up to
/// 4 MiB along its chunk (or left in the file, for a writer to copy file to file).
/// The cursor is a shell over one `ISOSampleReader` value: a sample costs one exclusivity
/// check, not one per field (see "Access checks on the sample path" in docs/design-notes.md).
final class ISOSampleCursor: SampleCursor {
    private var reader: ISOSampleReader

    init(track: AssetTrack, iso: Track, trackExtends: TrackExtends?, file: ReadOnlyFile, span: MediaSpan,
         copiesSampleData: Bool) {
        reader = ISOSampleReader(track: track, iso: iso, trackExtends: trackExtends, file: file, span: span,
                                 copiesSampleData: copiesSampleData)
    }

    func next() throws -> SampleBuffer? { try reader.next() }

    func close() {}
}

/// The state of an `ISOSampleCursor`.
struct ISOSampleReader {
    private var iterator: SampleIterator
    private let file: ReadOnlyFile
    private let trackID: Int
    private let timescale: Int32
    private let formats: [FormatDescription]
    private let copiesSampleData: Bool
    private var endDecodeTime: Int64 = .max
    /// How many samples are left to give, when the span ends: up to the last one, in decode
    /// order, presented before its end (those decoded before the end but shown after it are
    /// not needed, and would keep a cut's media from joining the next one's).
    private var remaining: Int = .max
    /// Where a one-segment edit list ends the media (audio only): samples past it are trimmed.
    private var editEnd: Int64?
    /// Why the track cannot be read in decode order (fragments whose decode times go back).
    private let timingProblem: String?
    private var window = FileWindow()
    /// Largest single read: chunks bigger than this are read in pieces.
    static let maximumRead: UInt64 = 4 << 20

    init(track: AssetTrack, iso: Track, trackExtends: TrackExtends?, file: ReadOnlyFile, span: MediaSpan,
         copiesSampleData: Bool) {
        iterator = SampleIterator(track: iso, trackExtends: trackExtends)
        self.file = file
        trackID = track.trackID
        timescale = track.naturalTimeScale
        formats = track.formatDescriptions
        self.copiesSampleData = copiesSampleData
        timingProblem = iso.timingProblem
        let edits = track.segments.filter { !$0.isEmpty }
        if track.mediaType == .audio, edits.count == 1, let source = edits[0].source, source.end.isNumeric {
            editEnd = source.end.convertScale(timescale, method: .up).value
        }
        position(at: span)
    }

    /// Moves to the last sync sample at or before the first sample that ends after the span's
    /// start, and ends after the last sample decoded before its end that is presented before it.
    private mutating func position(at span: MediaSpan) {
        if span.start.isNumeric {
            let start = span.start.convertScale(timescale, method: .down)
            var probe = iterator
            var index = 0, syncIndex = 0
            while let s = probe.next() {
                if s.isSync { syncIndex = index }
                if s.presentationTime + Int64(widening: s.duration) > start.value { break }
                index += 1
            }
            for _ in 0..<syncIndex { _ = iterator.next() }
        }
        guard span.end.isNumeric else { return }
        endDecodeTime = span.end.convertScale(timescale, method: .up).value
        var probe = iterator
        var index = 0, needed = 0
        while let s = probe.next(), s.decodeTime < endDecodeTime {
            index += 1
            if s.presentationTime < endDecodeTime { needed = index }
        }
        remaining = needed
    }

    mutating func next() throws -> SampleBuffer? {
        if let timingProblem { throw MediaError(.invalidData, timingProblem) }
        guard remaining > 0, let s = iterator.next(), s.decodeTime < endDecodeTime else { return nil }
        remaining -= 1
        guard s.offset <= file.size, UInt64(widening: s.size) <= file.size - s.offset else {
            throw MediaError(.invalidData, "sample at offset \(s.offset) (\(s.size) bytes) lies past the end of the file",
                             location: "track \(trackID)")
        }
        guard s.descriptionIndex >= 1, Int(widening: s.descriptionIndex) <= formats.count else {
            throw MediaError(.invalidData, "sample description index \(s.descriptionIndex) does not exist",
                             location: "track \(trackID)")
        }
        let storage: SampleBuffer.Storage = copiesSampleData
            ? .bytes(try read(s))
            : .file(SampleBuffer.FileRange(file: file, offset: s.offset, length: Int(widening: s.size)))
        var sample = SampleBuffer(
            storage: storage,
            decodeTimeStamp: MediaTime(value: s.decodeTime, timescale: timescale),
            presentationTimeStamp: MediaTime(value: s.presentationTime, timescale: timescale),
            duration: MediaTime(value: Int64(widening: s.duration), timescale: timescale),
            isSync: s.isSync, dependency: s.dependency.map(SampleBuffer.Dependency.init(rawValue:)),
            formatDescription: formats[Int(widening: s.descriptionIndex) - 1])
        if let end = editEnd, s.presentationTime < end, s.presentationTime + Int64(widening: s.duration) > end {
            sample.trimDurationAtEnd = MediaTime(value: s.presentationTime + Int64(widening: s.duration) - end, timescale: timescale)
        }
        return sample
    }

    /// The sample's bytes, from a window of up to 4 MiB read at once along its chunk.
    private mutating func read(_ s: SampleInfo) throws -> Data {
        try window.read(file, at: s.offset, size: Int(widening: s.size), span: min(s.contiguousBytes, ISOSampleReader.maximumRead))
    }
}
