import MediaCore
import ISOBMFF

/// Where an asset's samples come from, behind one interface for every kind of source: the
/// native MP4/MOV reader (`ISOMovieSource`), libavformat (`FormatSource`), and — next — a
/// composition or a decoder. `Asset`, `AssetTrack` and `AssetReader` never ask which one it is.
protocol AssetSource: AnyObject, Sendable {
    /// Opens what one reader reads through (a file handle, a demuxer) for `tracks`.
    /// - Throws: when the source cannot be read, or cannot read `timeRange`.
    func makeSession(reading tracks: [AssetTrack], timeRange: TimeRange) throws -> any ReadSession
    /// The source's own chapters (a container's chapter list), if it has any.
    var containerChapters: [Asset.Chapter]? { get }
    /// The movie's metadata (user data, container tags).
    var movieMetadata: [MetadataItem] { get }
    /// The MP4/MOV the source read, when it read one natively (its structure is copied as it is).
    var isoMovie: MovieFile? { get }
    /// The movie header new files take their dates from (an MP4/MOV's; a composition's first clip's).
    var movieHeaderTemplate: MovieHeader? { get }
    /// What structure the source carries, which copies and exports keep.
    var structure: SourceStructure { get }
    /// What a copy changes of the file's timing (`Asset.timingNotes`).
    var timingNotes: [String] { get }
    /// Each track's packets counted in one pass over the file, by track ID, for sources whose
    /// container does not say; empty when it does.
    func countPackets(of tracks: [AssetTrack]) throws -> [Int: Int]
}

extension AssetSource {
    var isoMovie: MovieFile? { nil }
    var movieHeaderTemplate: MovieHeader? { isoMovie?.movieHeader }
    var timingNotes: [String] { [] }
    func countPackets(of tracks: [AssetTrack]) throws -> [Int: Int] { [:] }
}

/// What structure a source carries, which copies and exports keep: what the mirror and the
/// export plan ask of a source, so that no code outside the sources asks what kind it is.
struct SourceStructure: Sendable {
    /// Whether it is MP4/MOV whose boxes (user data, sample entries, handlers) a file that keeps
    /// boxes takes as they are; otherwise its metadata is carried as far as Splice reads it.
    var keepsBoxes: Bool
    /// How it holds chapters: a chapter track among its tracks (MP4/MOV), the container's own
    /// list, or not at all (a composition).
    var chapters: FileType.Chapters
    /// Whether its tracks carry default and forced flags (Matroska's), from which its alternate
    /// groups are made; MP4/MOV read theirs from the tracks' headers.
    var hasTrackFlags: Bool
    /// Whether its timeline starts at `Asset.startTime` (a container's start time), which a copy keeps.
    var startsAtStartTime: Bool
    /// Whether its sound is timed in samples (an MP4's media timescale); else a copy into a file
    /// with a timescale per track times it so.
    var timesSoundInSamples: Bool
    /// Whether its tracks are segments cut from other files' tracks (a composition): an export
    /// cuts them even without a range, a copy ends with the timeline, equal descriptions of
    /// different clips are one, and its reader decodes each segment itself.
    var isCut: Bool

    /// An MP4/MOV read natively.
    static let isoMovie = SourceStructure(keepsBoxes: true, chapters: .track, hasTrackFlags: false, startsAtStartTime: false,
                                          timesSoundInSamples: true, isCut: false)
    /// A container read by libavformat or the Matroska reader.
    static let container = SourceStructure(keepsBoxes: false, chapters: .list, hasTrackFlags: true, startsAtStartTime: true,
                                           timesSoundInSamples: false, isCut: false)
    /// A composition of other files' tracks.
    static let composition = SourceStructure(keepsBoxes: false, chapters: .none, hasTrackFlags: false, startsAtStartTime: true,
                                             timesSoundInSamples: false, isCut: true)
}

/// What one `AssetReader` reads through: a cursor per output, and when reading ends, what was
/// wrong with the input but read anyway.
protocol ReadSession: AnyObject, Sendable {
    /// A cursor over `track`'s samples in media time, from the sync sample before `span`'s start
    /// to its end where the source can position (else from the first sample: `RangeFilter` cuts).
    /// - Parameter copiesSampleData: `false` leaves sample bytes in the file where they are.
    func makeCursor(for track: AssetTrack, span: MediaSpan, copiesSampleData: Bool) throws -> any SampleCursor
    /// Warnings of the whole read, once every cursor has ended.
    func warnings() -> [String]
    /// The decoded samples of `track` on the asset's timeline, cut frame-exactly to `timeRange`:
    /// by default its `timeline` cursor through a `DecodingCursor`. A source whose tracks need
    /// more (a composition: a decoder per segment, silence in audio gaps) makes its own.
    func makeDecodingCursor(for track: AssetTrack, timeline: any SampleCursor, settings: OutputSettings,
                            timeRange: TimeRange) throws -> any DecodedSampleCursor
}

extension ReadSession {
    func makeDecodingCursor(for track: AssetTrack, timeline: any SampleCursor, settings: OutputSettings,
                            timeRange: TimeRange) throws -> any DecodedSampleCursor {
        DecodingCursor(source: timeline, track: track, settings: settings, timeRange: timeRange)
    }
}

/// A track's samples in decode order.
/// Not `Sendable`: a cursor is used by one thread at a time, and handed over (`sending`); its
/// conformances are not tied to an isolation (`SendableMetatype`), so that one can be.
protocol SampleCursor: AnyObject, SendableMetatype {
    /// The next sample, or nil at the end.
    func next() throws -> SampleBuffer?
    /// Stops early (the reader was cancelled or failed); frees what the cursor holds.
    func close()
    /// Whether `close()` may run while `next()` runs on another thread (and makes it return
    /// soon); otherwise a closing reader waits until `next()` returns.
    var closesWhileReading: Bool { get }
}

extension SampleCursor {
    var closesWhileReading: Bool { false }
}

/// A cursor of decoded samples, and what its decoders met on the way.
protocol DecodedSampleCursor: SampleCursor {
    /// Damaged packets the decoders skipped so far.
    var damagedPackets: Int { get }
    /// What the decoders said since the last call.
    func takeDecoderMessages() -> [String]
    /// Where a constant frame rate's grid starts when the whole track is read (nil: at the
    /// first picture).
    var timelineOrigin: MediaTime? { get }
}

/// What a track's source keeps of it beyond `AssetTrack`'s public properties.
protocol TrackBacking: Sendable {
    /// The boxes and header fields of an MP4/MOV track that a mirror copies as they are; nil for
    /// tracks of other sources.
    var isoStructure: TrackPassthrough? { get }
    /// Why the track's samples have no ISO sample entry, when they have none.
    var isoProblem: String? { get }
    /// The accessibility characteristics the container stores for the track.
    var accessibility: Set<MediaCharacteristic> { get }
    /// An attachment (font, cover) or data stream, which a mirror leaves out.
    var isAttachment: Bool { get }
    /// The duration of all the track's samples, when the source indexes them.
    var mediaDuration: MediaTime? { get }
    /// How the track's samples are encrypted, when they are.
    var encryption: TrackEncryption? { get }
    /// The MP4/MOV track the source read (for comparing structures); nil for other sources.
    var isoTrack: Track? { get }
    /// For a track made of segments of other tracks (a composition's): those segments.
    var composedSegments: [CompositionTrackSegment]? { get }
    /// Whether a segment's samples start before it (it starts between sync samples), which only
    /// an edit list can hide.
    var startsBetweenSyncSamples: Bool { get }
    /// Video frames per second the container states, when it states one.
    var frameRate: (num: Int32, den: Int32)? { get }
    /// How far the most negative composition offset puts a sample's presentation before its
    /// decode (MP4 `ctts` version 1); zero when none does.
    var presentationLead: MediaTime { get }
}

extension TrackBacking {
    var isoTrack: Track? { nil }
    var composedSegments: [CompositionTrackSegment]? { nil }
    var startsBetweenSyncSamples: Bool { false }
    var encryption: TrackEncryption? { nil }
    var frameRate: (num: Int32, den: Int32)? { nil }
    var presentationLead: MediaTime { .zero }
}
