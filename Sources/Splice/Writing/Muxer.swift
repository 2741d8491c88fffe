import Foundation
import MediaCore
import ISOBMFF
import Subtitles

/// Where an `AssetWriter`'s interleaved samples go: the native MP4/MOV muxer (`MovieMuxer`) or
/// a libavformat muxer (`FormatMuxer`). The writer owns the output file (a temporary file
/// committed on success) and the state machine; a muxer only lays out what it is given: the
/// inputs, and what the writer keeps of each (`states`, in the same order). It is used under
/// the writer's lock, one thread at a time, and is not `Sendable`.
protocol Muxer: AnyObject {
    /// The sample description `sample` refers to (1-based; MP4/MOV dedup their entries, other
    /// containers have one per stream).
    /// (`index` is the input's position, `label` how messages name its track.)
    func descriptionIndex(for sample: SampleBuffer, input: AssetWriterInput, index: Int, label: String) throws -> UInt32
    /// Writes the first `counts[i]` pending samples of each input (a muxer may settle a state's
    /// timescale when it declares its stream).
    func write(_ counts: [Int], of inputs: [AssetWriterInput], states: inout [InputState], session: WriterSession) throws
    /// Writes what follows the samples (the movie box, an index, a trailer).
    func finish(_ inputs: [AssetWriterInput], states: [InputState], session: WriterSession) throws
}

/// The session times of a writer: where its output's timeline starts and ends, in source time.
struct WriterSession {
    var start: MediaTime
    var end: MediaTime?
}

/// What a new file keeps of a source movie (see `AssetWriter.copyMovieStructure(of:)`).
struct MovieTemplate {
    var fileType: FileTypeBox?
    var header: MovieHeader?
    var boxes: [RawBox] = []
    /// The creation and modification times (seconds since 1904) of what the output makes anew
    /// (a movie or track header without a source's): the source's, never the clock, so that the
    /// same inputs give the same bytes.
    var stamp = MovieTemplate.defaultStamp

    /// `SOURCE_DATE_EPOCH` (reproducible builds' clock, seconds since 1970) when it is set, else 0 ("unknown").
    static var defaultStamp: (creation: UInt64, modification: UInt64) {
        let epoch = sourceDateEpoch ?? 0
        return (epoch, epoch)
    }

    /// `SOURCE_DATE_EPOCH` in seconds since 1904, when set to a number.
    static var sourceDateEpoch: UInt64? {
        guard let text = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"], let seconds = UInt64(text) else { return nil }   // lint: checked (parses text: nil when it is not a number)
        return seconds.addingReportingOverflow(2_082_844_800).partialValue
    }

    /// Takes `header`'s times as the stamp (`SOURCE_DATE_EPOCH`, when set, as the modification time).
    mutating func stamp(from header: MovieHeader) {
        stamp = (header.creationTime, MovieTemplate.sourceDateEpoch ?? header.modificationTime)
    }

    /// The template with `items` as the movie's user data (replacing a copied `udta` and
    /// `meta`), and a `creationDate` item as the `mvhd` creation time.
    func with(_ items: [MetadataItem]) -> MovieTemplate {
        guard !items.isEmpty else { return self }
        var t = self
        let atoms = items.compactMap { item in
            MetadataItem.movieKeys.first { $0.common == item.commonKey }.map { ($0.atom, item.value) }
        }
        t.boxes = boxes.filter { $0.type != "udta" && $0.type != "meta" } + [UserData.userDataBox(atoms)]
        if let date = items.first(where: { $0.commonKey == "creationDate" })?.date {
            let seconds = (date.timeIntervalSince1970 + 2_082_844_800).rounded(saturating: UInt64.self, .down) ?? 0
            t.header = t.header ?? MovieHeader(version: 0, creationTime: seconds, modificationTime: stamp.modification, timescale: 0, duration: 0,
                                               rate: 0x10000, volume: 0x100, matrix: identityMatrix, nextTrackID: 0)
            t.header?.creationTime = seconds
        }
        return t
    }
}
