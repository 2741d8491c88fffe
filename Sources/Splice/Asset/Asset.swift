import Foundation
import MediaCore
import ISOBMFF
import FFmpegBridge

/// A movie file: its format, duration, tracks, track groups and associations.
///
/// MP4, QuickTime, M4A/M4V and 3GP files are read natively (every box Splice
/// knows is parsed, the rest kept byte-exact); every other container is read
/// through libavformat.
///
/// ```swift
/// let asset = try Asset(url: URL(fileURLWithPath: "movie.mp4"))
/// for group in asset.trackGroups {
///     print(group.alternateGroup, group.trackIDs, group.defaultTrack?.trackID ?? 0)
/// }
/// ```
public final class Asset: Sendable {
    /// The file the asset was opened from.
    public let url: URL
    /// Short container name: `mp4`, `mov`, `m4a`, `m4v`, `3gp`, or libavformat's demuxer name.
    public let format: String
    /// How long the movie lasts: the end of its longest track on the movie timeline.
    public let duration: MediaTime
    /// The tracks the asset could read, in the file's order (a track that cannot be read is left out with a note).
    public let tracks: [AssetTrack]
    /// Where the timeline starts: 0 for MP4/MOV, the earliest timestamp of other containers
    /// (MPEG-TS files start anywhere).
    public let startTime: MediaTime

    /// A chapter: its title and where it lies on the movie timeline.
    public struct Chapter: Sendable, Hashable {
        /// The chapter's title.
        public var title: String
        /// Where the chapter lies on the movie timeline.
        public var timeRange: TimeRange
        /// A chapter called `title` over `timeRange`.
        public init(title: String, timeRange: TimeRange) {
            self.title = title
            self.timeRange = timeRange
        }
    }

    /// Where the samples come from.
    let source: any AssetSource
    /// The chapters once read (`loadChapters()`).
    private let loadedChapters = Mutex<[Chapter]?>(nil)

    /// The movie's chapters: the container's (Matroska and others read through libavformat), or
    /// the samples of the first chapter-list track (`chap`) of an MP4/MOV. Read once, on first use.
    /// Empty when they cannot be read; `loadChapters()` says why.
    public var chapters: [Chapter] { (try? loadChapters()) ?? [] }

    /// The movie's chapters (see `chapters`), read once; a failure is not kept, so that a later
    /// call tries again.
    /// - Throws: why the chapter track cannot be read.
    public func loadChapters() throws -> [Chapter] {
        try loadedChapters.withLock { loaded in
            if let loaded { return loaded }
            let chapters = try source.containerChapters ?? ChapterTrack.chapters(of: self)
            loaded = chapters
            return chapters
        }
    }

    /// The movie's metadata under AVFoundation's common keys (`title`, `creationDate`,
    /// `location`, `artist`, …): an MP4/MOV's user data (QuickTime text atoms, iTunes and `mdta`
    /// items) and `mvhd` date, or the tags libavformat read.
    public var metadata: [MetadataItem] { source.movieMetadata }

    /// Each track's sample count by track ID: what the file says (`AssetTrack.sampleCount`), and
    /// for tracks of other containers that do not say, the packets counted in one pass over the
    /// file (no decoding; it reads the whole file).
    public func countSamples() throws -> [Int: Int] {
        var counts = Dictionary(uniqueKeysWithValues: tracks.compactMap { t in t.sampleCount.map { (t.trackID, $0) } })
        if counts.count < tracks.count {
            for (id, n) in try source.countPackets(of: tracks.filter { counts[$0.trackID] == nil }) { counts[id] = n }
        }
        return counts
    }

    /// Whether the file is ISO-BMFF (MP4, MOV, M4A, …), read natively; else libavformat read it.
    public var isISOBMFF: Bool { source.isoMovie != nil }

    /// What reading a damaged MP4/MOV with `salvage` left out or made up, one line each (empty
    /// for a sound file).
    public let salvageNotes: [String]
    /// What a composition's asset leaves out of the composition, one line each: tracks without
    /// media (AVFoundation keeps them as tracks without samples). An export warns of them.
    public let notes: [String]

    /// Opens and reads the structure of the movie at `url`.
    /// - Parameters:
    ///   - url: the file; its content decides how it is read (a Matroska file named `.mp4` is
    ///     read as Matroska).
    ///   - salvage: read a damaged MP4/MOV for what it still holds instead of refusing it:
    ///     a truncated download keeps every sample wholly in the file, a track that cannot be read
    ///     is left out, a missing `mvhd` is made up; `salvageNotes` says what was done. (Matroska
    ///     and WebM files of H.264, HEVC, VP9, AV1, AAC, AC-3 and E-AC-3 are read natively too; other containers, and any
    ///     Matroska file the native reader does not take whole, damaged ones included, are read by
    ///     libavformat, which reads damaged files as far as it can anyway.)
    /// - Throws: `MediaError` naming the file and what is wrong: `.fileNotFound`, `.invalidData`
    ///   (with the box path), `.truncated`, `.unsupported`.
    public convenience init(url: URL, salvage: Bool = false) throws {
        let path = url.path
        let loaded: LoadedAsset
        do {
            loaded = try SourceProber.load(try ReadOnlyFile(path: path), path: path, salvage: salvage)
        } catch let error as MediaError {
            throw error.inFile(path)
        }
        self.init(url: url, loaded: loaded)
    }

    /// A composition as it is now: each track laid out (see `CompositionSource.load`).
    convenience init(composition: MutableComposition) throws {
        self.init(url: URL(fileURLWithPath: "composition"), loaded: try CompositionSource.load(composition))
    }

    private init(url: URL, loaded: LoadedAsset) {
        self.url = url
        format = loaded.format
        duration = loaded.duration
        tracks = loaded.tracks
        startTime = loaded.startTime
        source = loaded.source
        salvageNotes = loaded.salvageNotes
        notes = loaded.notes
        let origin = AssetOrigin(url: url, format: format, duration: duration, startTime: startTime, source: source, salvageNotes: salvageNotes)
        for t in tracks { t.link.attach(self, origin) }
    }

    /// An asset again for a track whose `Asset` object is gone (`Asset(url:).tracks[0]` put
    /// into a composition): the same file and source, with that track only.
    convenience init(reviving track: AssetTrack) {
        let o: AssetOrigin = track.origin
        self.init(url: o.url, loaded: LoadedAsset(format: o.format, duration: o.duration, startTime: o.startTime, tracks: [track],
                                                  source: o.source, salvageNotes: o.salvageNotes))
    }

    /// What a copy changes of the file's timing, one line each: fragments of an MP4 that start
    /// after the samples before them end (a copy's sample table makes the sample before each
    /// last longer). Empty for most files.
    public var timingNotes: [String] { source.timingNotes }

    /// Whether the asset is a composition's (`MutableComposition.makeAsset()`).
    public var isComposition: Bool { source.structure.isCut }

    /// The files the asset reads: its own, or a composition's source files, in track and
    /// segment order, each once.
    public var sourceURLs: [URL] {
        isComposition ? Asset.firstOfEach(tracks.flatMap { sourceURLs(of: $0) }) : [url]
    }

    /// The files a track's samples come from: the asset's, or a composition track's segments'.
    public func sourceURLs(of track: AssetTrack) -> [URL] {
        guard let segments = track.backing.composedSegments else { return [url] }
        return Asset.firstOfEach(segments.compactMap(\.sourceURL))
    }

    private static func firstOfEach(_ urls: [URL]) -> [URL] {
        var seen: Set<URL> = []
        return urls.filter { seen.insert($0).inserted }
    }

    /// The file a message about `track` (or, with none, about the asset) names: the asset's; for
    /// a composition, the track's only source file, or none when it has several (the message
    /// then names the segment).
    public func filePath(of track: AssetTrack? = nil) -> String? {
        guard isComposition else { return url.path }
        let urls = track.map { sourceURLs(of: $0) } ?? sourceURLs
        return urls.count == 1 ? urls[0].path : nil
    }

    /// Opens and reads the structure of the movie at `url` without blocking the caller.
    public static func load(_ url: URL) async throws -> Asset {
        try await Task.detached { try Asset(url: url) }.value
    }

    /// The track with `trackID`, if there is one.
    public func track(withTrackID trackID: Int) -> AssetTrack? {
        tracks.first { $0.trackID == trackID }
    }

    /// The tracks of `mediaType`, in file order.
    public func tracks(withMediaType mediaType: MediaType) -> [AssetTrack] {
        tracks.filter { $0.mediaType == mediaType }
    }

    /// The tracks that have `characteristic`, in file order.
    public func tracks(withMediaCharacteristic characteristic: MediaCharacteristic) -> [AssetTrack] {
        tracks.filter { $0.hasMediaCharacteristic(characteristic) }
    }

    /// Tracks sharing a non-zero alternate group, one group per number, in order of first appearance.
    public var trackGroups: [TrackGroup] {
        var order: [Int] = []
        var members: [Int: [AssetTrack]] = [:]
        for t in tracks where t.alternateGroup != 0 {
            if members[t.alternateGroup] == nil { order.append(t.alternateGroup) }
            members[t.alternateGroup, default: []].append(t)
        }
        return order.map { TrackGroup(alternateGroup: $0, members: members[$0]!) }
    }
}

/// What a track keeps of its asset, strongly (the asset holds its tracks, so a track holds its
/// `Asset` weakly): enough to read its samples after the `Asset` object is gone, as an
/// AVFoundation track can be.
struct AssetOrigin: Sendable {
    let url: URL
    let format: String
    let duration: MediaTime
    let startTime: MediaTime
    let source: any AssetSource
    let salvageNotes: [String]
}

/// What a source's loader found: the asset's properties and the source to read samples from.
struct LoadedAsset {
    var format: String
    var duration: MediaTime
    var startTime: MediaTime
    var tracks: [AssetTrack]
    var source: any AssetSource
    var salvageNotes: [String] = []
    var notes: [String] = []
}

/// What Splice shows of its libraries' own messages.
public enum Diagnostics {
    /// Prints FFmpeg's messages on stderr as `ffmpeg: …` (`true`), or keeps only its warnings and
    /// errors for `AssetReader.warnings` (the default).
    public static func showFFmpegMessages(_ show: Bool) {
        FFmpegLog.setVerbose(show)
    }

    /// Sends FFmpeg's messages to `handler` instead of stderr, nil restores stderr: the warnings
    /// and errors no job keeps (a job's own go to its `warnings`), and every line shown by
    /// `showFFmpegMessages(true)`. `handler` gets the line and whether it is an error (not a
    /// warning or information), on the thread that logged, possibly on several at once.
    public static func setFFmpegMessageHandler(_ handler: (@Sendable (_ line: String, _ isError: Bool) -> Void)?) {
        guard let handler else { return FFmpegLog.setHandler(nil) }
        FFmpegLog.setHandler { level, line in handler(line, level <= 16) }   // 16: AV_LOG_ERROR
    }
}
