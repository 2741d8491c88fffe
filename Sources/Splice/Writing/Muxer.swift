import MediaCore
import ISOBMFF
import Subtitles

/// Where an `AssetWriter`'s interleaved samples go: the native MP4/MOV muxer (`MovieMuxer`) or
/// a libavformat muxer (`FormatMuxer`). The writer owns the output file (a temporary file
/// committed on success) and the state machine; a muxer only lays out what it is given.
protocol Muxer: AnyObject {
    /// The text subtitle packets the container takes (nil for MP4/MOV, which take tx3g samples,
    /// and for containers that hold no text).
    var textFormat: SubtitlePacketFormat? { get }
    /// The sample description `sample` refers to (1-based; MP4/MOV dedup their entries, other
    /// containers have one per stream).
    func descriptionIndex(for sample: SampleBuffer, input: AssetWriterInput) throws -> UInt32
    /// Writes the first `counts[i]` pending samples of each input.
    func write(_ counts: [Int], of inputs: [AssetWriterInput], session: WriterSession) throws
    /// Writes what follows the samples (the movie box, an index, a trailer).
    func finish(_ inputs: [AssetWriterInput], session: WriterSession) throws
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
}

extension AssetWriterInputGroup {
    /// `alternate_group` numbers and enabled flags: each group one unique non-zero number
    /// (its preferred one when free), its default input enabled and the rest disabled.
    static func assignments(_ groups: [AssetWriterInputGroup]) -> [ObjectIdentifier: (group: Int16, enabled: Bool)] {
        var numbers = [Int?](repeating: nil, count: groups.count)
        var used = Set<Int>()
        // Preferred numbers first (the first group asking for a number gets it), then the lowest free ones.
        for (i, g) in groups.enumerated() {
            if let n = g.preferredAlternateGroup, n > 0, n <= Int(Int16.max), used.insert(n).inserted { numbers[i] = n }
        }
        var next = 1
        for i in groups.indices where numbers[i] == nil {
            while used.contains(next) { next += 1 }
            numbers[i] = next
            used.insert(next)
        }
        var result: [ObjectIdentifier: (Int16, Bool)] = [:]
        for (g, n) in zip(groups, numbers) {
            for input in g.inputs { result[ObjectIdentifier(input)] = (Int16(n!), input === g.defaultInput) }
        }
        return result
    }
}

extension MediaType {
    /// The handler name a new track of this type gets.
    var defaultHandlerName: String {
        switch self {
        case .video: "VideoHandler"
        case .audio: "SoundHandler"
        case .subtitle, .text, .closedCaption: "SubtitleHandler"
        case .timecode: "TimeCodeHandler"
        case .metadata: "MetadataHandler"
        case .data: "DataHandler"
        }
    }

    /// Handler names that say nothing of the track (the defaults of Splice, FFmpeg and Apple).
    static func isDefaultHandlerName(_ name: String) -> Bool {
        ["VideoHandler", "SoundHandler", "SubtitleHandler", "TextHandler", "DataHandler", "MetadataHandler",
         "TimeCodeHandler", "Core Media Video", "Core Media Audio", "Core Media Text", "ISO Media file produced by Google Inc."]
            .contains(name) || name.isEmpty
    }
}
