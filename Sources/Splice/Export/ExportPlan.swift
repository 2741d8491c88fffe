import Foundation
import MediaCore

/// What an export does, decided once, before anything is read: for each track its plan (copied,
/// left out, re-encoded, mixed, composed, cut smart) and the cut it is read through; the range
/// read (a keyframe cut moves it to sync samples), the cut mode, the notes, and why the file
/// type cannot hold the result. A pure function of the asset, one snapshot of the session's
/// settings and the file type: `ExportSession` makes one per export, `supportedFileTypes` one per
/// file type, and `TrackMirror` carries out what it says.
struct ExportPlan {
    /// The session's settings, read at once (a snapshot: setters on other threads cannot tear it).
    struct Settings: Sendable {
        let preset: ExportPreset
        var outputURL: URL?
        var outputFileType: FileType?
        var timeRange = TimeRange.everything
        var cutMode = CutMode.exact
        /// Whether the caller set `cutMode` (a job's default is not chosen: it falls back).
        var cutModeIsChosen = false
        var smartCrossfade: SmartCrossfade?
        var shouldOptimizeForNetworkUse = false
        var metadata: [MetadataItem]?
        var replacesExistingFile = false
        var syncsToDisk = false
        var videoCodec: VideoEncodingSettings.Codec?
        var crf: Int?
        var toneMapping = ToneMapping.standard
        var threadCount: Int?
        var fragments = FragmentSettings()
        var audioCodec: AudioEncodingSettings.Codec?
        var audioBitRate: Int?
        var audioMix: AudioMix?
        var mixedTrackIDs: Set<Int>?
        var videoComposition: VideoComposition?
        var videoSize: Dimensions?
        var videoFrameRate: Double?
        var audioSampleRate: Int?
        var audioChannelCount: Int?
        var encodesAudioTheContainerCannotHold = false
        var trackSelection = TrackSelection.all
        var encodedTracks: [Int: AssetTrack] = [:]
        /// The encoded tracks' assets, kept (a track holds its asset weakly).
        var encodedAssets: [Asset] = []

        init(preset: ExportPreset) { self.preset = preset }

        /// The file the export writes, when it can be told.
        var outputType: FileType? {
            outputFileType ?? outputURL.flatMap { FileType(pathExtension: $0.pathExtension) }
        }
    }

    let asset: Asset
    let settings: Settings
    /// The file written; nil when it cannot be told (then no container's limits apply).
    let fileType: FileType?
    /// The part of the asset asked for: `.everything`, or `timeRange` within the asset.
    let requestedRange: TimeRange
    /// The part read and written: `requestedRange`, moved to sync samples by a keyframe cut.
    private(set) var range: TimeRange
    /// How copied ranges are cut into `fileType` (`.exact` falls back to `.smart` without edit lists).
    let cutMode: CutMode
    /// Each track's plan, by track ID (every track of the asset has one).
    private(set) var tracks: [Int: TrackPlan] = [:]
    /// Each ranged track's cut, by track ID, for the tracks read through one (copied, re-encoded).
    private(set) var cuts: [Int: TrackCut] = [:]
    /// A video composition drawn with no video track in the asset: a track of its own.
    private(set) var addedComposition: (VideoComposition, VideoOutputSettings, EncodingSettings)?
    /// What was decided and why, a line each (a moved cut, tracks cut otherwise than asked,
    /// tracks a sound-only file leaves out, mix parameters naming no audio track).
    private(set) var notes: [String] = []
    /// Why `fileType` cannot hold what this export writes; nil when it can.
    private(set) var refusal: Refusal?
    /// Why each track cannot be cut smart (`AssetTrack.smartCutProblem`, which for VP9 reads the
    /// file), asked once per track and mode.
    private let smartCutProblems = SmartCutProblems()

    /// Why `track` cannot be cut smart over `requestedRange` (re-encoding, or copying whole GOPs
    /// only), or nil; each answer found once per plan.
    func smartCutProblem(of track: AssetTrack, reencoding: Bool = true) -> String? {
        smartCutProblems.answer(track.trackID, reencoding) { track.smartCutProblem(in: requestedRange, reencoding: reencoding) }
    }

    /// What exporting `asset` with `settings` into `fileType` would write, decided without
    /// reading the file (`supportedFileTypes`, `estimatedOutputFileLength`): the tracks' plans,
    /// the cut mode and the refusal, but not the cuts (`range` is `requestedRange`).
    init(asset: Asset, settings: Settings, fileType: FileType?) {
        self.asset = asset
        self.settings = settings
        self.fileType = fileType
        requestedRange = settings.timeRange == .everything ? .everything : ExportPlan.exportedRange(of: asset, settings)
        range = requestedRange
        cutMode = settings.cutMode == .exact && fileType?.hasEditLists == false ? .smart : settings.cutMode
        for track in asset.tracks { tracks[track.trackID] = decide(for: track) }
        refusal = fileType.flatMap(refusal(writing:))
    }

    /// Finds where each track is cut, once the export is checked (the file is read for the sync
    /// samples the cuts need, each asked once), and says what was decided in `notes`.
    /// - Throws: when the file cannot be read to find a sync sample; `.invalidOperation` for a
    ///   video composition without instructions over an asset without video.
    mutating func findCuts() throws {
        guard let fileType else { throw MediaError(.invalidOperation, "the plan has no file type to cut for") }
        if let (moved, note) = try keyframeRange(in: fileType) {
            range = moved
            notes.append(note)
        }
        notes += asset.notes + cutNotes(in: fileType) + audioMixNotes + soundOnlyNotes(in: fileType) + hdrNotes
        if let composition = settings.videoComposition {
            if asset.tracks(withMediaType: .video).isEmpty {
                guard composition.duration > .zero else {
                    throw MediaError(.invalidOperation, "the video composition has no instructions, and \(asset.url.lastPathComponent) no video track: nothing says how long the video is")
                }
                if case .compose(_, _, let decoded, let encoded) = plan(forComposition: composition) { addedComposition = (composition, decoded, encoded) }
            }
            if settings.preset == .passthrough { notes.append("the video composition re-encodes the video, with the highestQuality preset's settings") }
        }
        guard range != .everything else { return }
        for track in asset.tracks where !track.backing.isAttachment {
            switch tracks[track.trackID] {
            case .copy, .encode: cuts[track.trackID] = try TrackCut(track: track, range: range)
            default: continue
            }
        }
    }

    /// `track`'s plan (`.leaveOut` for a track the asset does not have).
    func plan(of track: AssetTrack) -> TrackPlan { tracks[track.trackID] ?? .leaveOut }

    /// The part of `asset` exported under `settings`: `timeRange` within the asset's duration.
    static func exportedRange(of asset: Asset, _ settings: Settings) -> TimeRange {
        let whole = TimeRange(start: .zero, duration: max(asset.duration, settings.videoComposition?.duration ?? .zero))
        return settings.timeRange == .everything ? whole : settings.timeRange.intersection(whole)
    }

    /// Whether something is cut: a range, or a composition's segments of other files.
    var cutsSomething: Bool { asset.source.structure.isCut || requestedRange != .everything }
}

/// The answers of `ExportPlan.smartCutProblem`, kept while the plan is made and read (on the
/// thread that makes it).
private final class SmartCutProblems {
    private var answers: [Int: [Bool: String?]] = [:]

    func answer(_ trackID: Int, _ reencoding: Bool, _ find: () -> String?) -> String? {
        if let known = answers[trackID]?[reencoding] { return known }
        let found = find()
        answers[trackID, default: [:]][reencoding] = .some(found)
        return found
    }
}

extension ExportPlan {
    /// What an export does with one track.
    enum TrackPlan {
        case copy
        case leaveOut
        /// Decoded with the output settings, encoded with the encoding settings.
        case encode(OutputSettings, EncodingSettings)
        /// These audio tracks mixed (this one among them, in its place) and encoded.
        case mix([AssetTrack], AudioMix, AudioOutputSettings, EncodingSettings)
        /// These video tracks composed (this one among them, in its place) and encoded.
        case compose([AssetTrack], VideoComposition, VideoOutputSettings, EncodingSettings)
        /// Cut smart (the partial GOPs and the sound around joins re-encoded, the rest copied:
        /// one edit), or at sync samples (`reencodes` false: nothing of the source re-encoded).
        case smartCut(reencodes: Bool)
        /// The video or the sound of a crossfaded concat cut smart.
        case smartCrossfade(SmartCrossfade)
        /// Written from another file's track, encoded elsewhere (`ExportSession.encodedTracks`):
        /// its samples, format and timing in this track's place, with this track's properties.
        case substitute(AssetTrack)

        /// The codec the plan writes the track in: the source's when copied, else the encoder's;
        /// nil when the track is left out (or another track's mix carries it).
        func writtenCodec(of track: AssetTrack) -> String? {
            switch self {
            case .leaveOut: nil
            case .copy, .smartCut, .smartCrossfade: track.codecName
            case .substitute(let encoded): encoded.codecName
            case .encode(_, .video(let v)), .compose(_, _, _, .video(let v)): v.codec.rawValue
            case .encode(_, .audio(let a)), .mix(_, _, _, .audio(let a)): a.codec.rawValue
            case .mix, .compose: nil
            }
        }

        /// Whether the track's packets are copied (whole, or between a smart cut's joins).
        var copiesPackets: Bool {
            switch self {
            case .copy, .smartCut, .smartCrossfade: true
            default: false
            }
        }
    }

    /// Why a file type cannot hold what an export writes.
    enum Refusal: Sendable, Hashable, CustomStringConvertible {
        /// The `appleM4A` preset writes M4A only.
        case soundOnlyPreset
        /// A copied track whose sample entry cannot be written (its source said why).
        case noSampleEntry(track: Int, codec: String, problem: String)
        /// The file cannot hold the codec a track is written in.
        case codec(track: Int, codec: String, fileType: FileType)
        /// The file cannot hold text subtitles.
        case text(track: Int, mediaType: MediaType, fileType: FileType)

        /// The track the refusal is about (nil: the preset's).
        var trackID: Int? {
            switch self {
            case .soundOnlyPreset: nil
            case .noSampleEntry(let t, _, _), .codec(let t, _, _), .text(let t, _, _): t
            }
        }

        var description: String {
            switch self {
            case .soundOnlyPreset: "it writes .m4a files"
            case .noSampleEntry(let t, let codec, let problem): "track \(t) (\(codec)): \(problem)"
            case .codec(let t, let codec, let type) where type.keepsBoxes: "track \(t): \(codec)"
            case .codec(let t, let codec, let type): "track \(t) would be \(codec), which \(type.rawValue) files cannot hold"
            case .text(let t, let kind, let type): "track \(t) is \(kind) text, which \(type.rawValue) files cannot hold"
            }
        }
    }
}
