import Dispatch
import Foundation
import MediaCore
import ISOBMFF
import FFmpegBridge

/// Exports an asset with one of AVFoundation's presets (`AVAssetExportSession`): video and
/// audio re-encoded as the preset says — or copied where nothing changes them — and every other
/// track copied, with the movie's structure kept in every preset: alternate groups, enabled
/// flags, languages, names, track associations, chapters, the movie's metadata (`udta`/`meta`:
/// creation date, `©xyz` location, titles) and each video track's matrix.
///
/// ```swift
/// let session = try ExportSession(asset: asset, presetName: "1280x720")
/// session.outputURL = URL(fileURLWithPath: "small.mp4")
/// session.progressHandler = { print(Int($0 * 100), "%") }
/// try await session.export()
/// ```
///
/// Audio: an AAC track at or below the preset's rate that nothing changes (no range cut inside
/// one of its frames, no codec or rate override) is copied; other audio is encoded. A range with
/// `passthrough` is frame-exact through edit lists (nothing is re-encoded). The output is written
/// to a temporary file and renamed into place only on success: a failed or cancelled export
/// leaves nothing.
public final class ExportSession: @unchecked Sendable {   // settings @Guarded; state under `lock`
    /// Where an export is (AVFoundation's `AVAssetExportSession.Status`, without `waiting`).
    public enum Status: Sendable, Hashable {
        /// Not started.
        case unknown
        /// Running.
        case exporting
        /// Finished: the output is in place.
        case completed
        /// Stopped by an error (`error`); nothing was written.
        case failed
        /// Cancelled (`cancelExport()`); nothing was written.
        case cancelled
    }

    /// The asset exported (a file's, or a composition's).
    public let asset: Asset
    /// The preset the export encodes with.
    public let preset: ExportPreset
    /// The preset's name (`"mediumQuality"`, `"1280x720"`).
    public var presetName: String { preset.rawValue }
    /// Where the output goes; required.
    @Guarded public var outputURL: URL? = nil
    /// The container; nil: from `outputURL`'s extension.
    @Guarded public var outputFileType: FileType? = nil
    /// The part of the asset exported (`.everything` by default), on the asset's timeline.
    @Guarded public var timeRange: TimeRange = .everything
    /// How `passthrough` writes a cut between sync samples (a `timeRange`, a composition's
    /// segments): `.exact` (the default, AVFoundation's: every packet copied, the rest hidden by
    /// edit lists), `.smart` (the partial GOPs and the sound at joins re-encoded: one edit per
    /// track, right in every player) or `.keyframe` (the cut moved to sync samples). Files
    /// without edit lists (Matroska, WebM, MPEG-TS) cut `.exact` smart. H.264, HEVC, VP9 and AV1
    /// video, AAC sound; other tracks are cut exactly into MP4/MOV and at sync samples or
    /// packets elsewhere (`warnings` says so; docs/smart-cut.md has the table).
    ///
    /// A mode that is set is honoured or refused: `.exact` into a file without edit lists, or
    /// `.smart` of video smart cut cannot re-encode, makes `export()` throw `.unsupported`
    /// saying why, and nothing is written. Left as it is, the mode falls back as above.
    @Guarded public var cutMode: CutMode = .exact { didSet { cutModeIsChosen = true } }
    /// Whether `cutMode` was set by the caller (a job's default mode is not: `setDefaultCutMode`).
    @Guarded var cutModeIsChosen = false
    /// A crossfaded concat cut smart: its plan for every track (`Concatenation.crossfading`).
    var smartCrossfade: SmartCrossfade?
    /// Put the movie header first (MP4/MOV), for playback while downloading.
    @Guarded public var shouldOptimizeForNetworkUse: Bool = false
    /// The movie's metadata to write (`title`, `creationDate`, `location`, …), replacing the
    /// source's; nil (the default): the source's is kept — an MP4/MOV's user data as it is, other
    /// containers' tags as far as Splice reads them (`Asset.metadata`).
    @Guarded public var metadata: [MetadataItem]? = nil
    /// Replace an existing file at `outputURL` (AVFoundation's sessions fail instead: the default).
    @Guarded public var replacesExistingFile: Bool = false
    /// Overrides the preset's video codec (AVFoundation has no such setting; VP9 and AV1 are
    /// reachable only so); nil: the preset's.
    @Guarded public var videoCodec: VideoEncodingSettings.Codec? = nil
    /// Overrides the preset's CRF (lower is better); nil: the preset's.
    @Guarded public var crf: Int? = nil
    /// Overrides the audio codec; nil: AAC, or the file type's default when AAC cannot go in it.
    @Guarded public var audioCodec: AudioEncodingSettings.Codec? = nil
    /// Overrides the preset's audio bit rate, in bits per second; nil: the preset's.
    @Guarded public var audioBitRate: Int? = nil
    /// The audio tracks' volumes: every enabled audio track (and a disabled one it has
    /// parameters for) is mixed into one track, in the first one's place, language and group,
    /// with as many channels as the widest, and encoded — AAC at 192 kb/s under `passthrough`
    /// (video still copied), else as the preset says; a track without parameters plays at 1.
    /// Samples the mix clipped are reported in `warnings`, and so are parameters for a track ID
    /// that is not an audio track of the asset (AVFoundation ignores those silently).
    @Guarded public var audioMix: AudioMix? = nil
    /// The audio tracks `audioMix` mixes when not all (a job that lays music under one track
    /// and copies the others); nil: AVFoundation's rule.
    @Guarded var mixedTrackIDs: Set<Int>? = nil
    /// How the video tracks are drawn into the one video track of the output: their layers'
    /// transforms, opacities and crops, and still-image overlays (a watermark). The tracks it
    /// draws become one track in the first video track's place; with no video track in the asset
    /// (a composition of still images) the output gains one, as long as the composition's
    /// instructions. Video is re-encoded as the preset says — `highestQuality`'s settings under
    /// `passthrough` (`warnings` says so) — at the composition's render size and frame rate.
    @Guarded public var videoComposition: VideoComposition? = nil
    /// Re-encoded video at exactly this size: pictures of another aspect ratio are fitted inside
    /// and letterboxed, smaller ones scaled up (what a concatenation of unlike clips needs);
    /// nil: the preset's box.
    @Guarded public var videoSize: Dimensions? = nil
    /// Re-encoded video at this constant frame rate (pictures repeated or left out); nil: the
    /// source's timing.
    @Guarded public var videoFrameRate: Double? = nil
    /// Re-encoded audio at this sample rate; nil: the source's.
    @Guarded public var audioSampleRate: Int? = nil
    /// Re-encoded audio with this many channels; nil: the source's.
    @Guarded public var audioChannelCount: Int? = nil
    /// `passthrough` only: audio the output container cannot hold (PCM from a WAV into MP4) is
    /// encoded (AAC at 192 kb/s, or `audioCodec`) instead of failing the export.
    @Guarded public var encodesAudioTheContainerCannotHold: Bool = false
    /// The tracks exported (every track by default): the others are left out, `tref`s to them
    /// dropped, and a group whose default track is left out gets a new one (said in `notes`).
    /// An audio mix mixes only tracks kept.
    @Guarded public var trackSelection: TrackSelection = .all
    /// What the job that made the session decided, and why, before it runs (every clip
    /// re-encoded, cuts moved to sync samples, audio encoded that the container cannot hold).
    @Guarded public internal(set) var notes: [String] = []
    /// Called with `progress` as it moves, from the export's queues, one call at a time: at most
    /// about ten times a second (AVFoundation has no handler; `progress` is polled there), and
    /// with 1.0 once, when the export has finished.
    @Guarded public var progressHandler: (@Sendable (Double) -> Void)? = nil

    private let lock = NSLock()
    private var _status = Status.unknown
    private var _error: MediaError?
    private var _progress = 0.0
    private var _warnings: [String] = []
    private var _cutSummary: [String] = []
    private var pipe: SamplePipe?
    private var cancelRequested = false

    /// How far the export is, 0…1, on the output's timeline; it never goes back and ends at 1.
    public var progress: Double { lock.withLock { _progress } }
    /// Where the export is.
    public var status: Status { lock.withLock { _status } }
    /// Why the export failed; nil unless `status` is `.failed`.
    public var error: MediaError? { lock.withLock { _error } }
    /// What the export corrected or could not carry (encoder corrections, left-out tracks).
    public var warnings: [String] { lock.withLock { _warnings } }
    /// What a smart or keyframe cut re-encoded and copied, a line per track ("track 1: 31 frames
    /// re-encoded, 184 copied"), after the export.
    public var cutSummary: [String] { lock.withLock { _cutSummary } }

    /// A session exporting `asset` with `preset`; set `outputURL` (and what else is wanted), then call `export()`.
    public init(asset: Asset, preset: ExportPreset) {
        self.asset = asset
        self.preset = preset
    }

    /// Exports `composition` as it is now (`composition.asset()`).
    public convenience init(asset composition: MutableComposition, preset: ExportPreset) throws {
        self.init(asset: try composition.asset(), preset: preset)
    }

    /// Exports `composition` as it is now (`composition.asset()`).
    public convenience init(asset composition: MutableComposition, presetName: String) throws {
        try self.init(asset: composition.asset(), presetName: presetName)
    }

    /// - Throws: `.unsupported` for a name that is no preset (the message lists the presets).
    public convenience init(asset: Asset, presetName: String) throws {
        guard let preset = ExportPreset(rawValue: presetName) else {
            throw MediaError(.unsupported, "no preset named '\(presetName)'; the presets are "
                             + ExportPreset.allCases.map(\.rawValue).joined(separator: ", "))
        }
        self.init(asset: asset, preset: preset)
    }

    /// Exports, blocking the caller until the output is written.
    /// - Throws: `MediaError` (`.cancelled` after `cancelExport()`); nothing is left at `outputURL` then.
    public func run() throws {
        let start: Bool = lock.withLock {
            guard _status == .unknown else { return false }
            _status = .exporting
            return true
        }
        guard start else { throw MediaError(.invalidOperation, "an export session runs once") }
        do {
            try exportNow()
            advance(to: 1, final: true)
            lock.withLock { _status = .completed }
        } catch {
            let e = error as? MediaError ?? MediaError(.io, "\(error)")
            lock.withLock {
                _status = e.code == .cancelled ? .cancelled : .failed
                _error = e
            }
            throw e
        }
    }

    /// Exports without blocking the caller; see `run()`.
    public func export() async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
            DispatchQueue.global().async {
                do { try self.run(); c.resume() } catch { c.resume(throwing: error) }
            }
        }
    }

    /// Exports on a queue of its own and calls `handler` at the end; `status` and `error` say how it went.
    public func exportAsynchronously(completionHandler handler: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async {
            _ = try? self.run()
            handler()
        }
    }

    /// Stops the export: nothing is left at `outputURL`, and `status` becomes `.cancelled`.
    public func cancelExport() {
        let pipe: SamplePipe? = lock.withLock {
            cancelRequested = true
            return self.pipe
        }
        pipe?.cancel()
    }

    // MARK: The export

    /// The part of the asset exported: `timeRange` within the asset's duration.
    public var exportedRange: TimeRange {
        let whole = TimeRange(start: .zero, duration: max(asset.duration, videoComposition?.duration ?? .zero))
        return timeRange == .everything ? whole : timeRange.intersection(whole)
    }

    /// Refuses a `timeRange` that starts or ends past the asset's end (never shortened without a word).
    private func checkRange() throws {
        guard timeRange != .everything else { return }
        let duration = String(format: "%.3f s", asset.duration.seconds)
        guard timeRange.start.isNumeric, timeRange.start >= .zero, timeRange.start < asset.duration, !exportedRange.isEmpty else {
            throw MediaError(.invalidData, "the range starts at \(String(format: "%.3f s", timeRange.start.seconds)), past the end (\(duration))", file: asset.filePath())
        }
        // A range that ends past the end is refused, not shortened without a word.
        guard !timeRange.end.isNumeric || timeRange.end <= asset.duration else {
            throw MediaError(.invalidData, "the range ends at \(String(format: "%.3f s", timeRange.end.seconds)), past the end (\(duration))", file: asset.filePath())
        }
    }

    /// Refuses what the file cannot take before anything is read: no sound for a sound-only
    /// file, tracks that cannot be copied, cuts between sync samples without edit lists.
    private func checkTracks(for fileType: FileType) throws {
        if preset == .appleM4A, asset.tracks(withMediaType: .audio).isEmpty {
            throw MediaError(.unsupported, "the appleM4A preset exports audio, and \(asset.url.lastPathComponent) has no audio track", file: asset.filePath())
        }
        if fileType.holdsSoundOnly, asset.tracks(withMediaType: .audio).isEmpty {
            throw MediaError(.unsupported, ".\(fileType.rawValue) files hold sound only, and \(asset.url.lastPathComponent) has no audio track",
                             file: asset.filePath())
        }
        for track in asset.tracks {
            let plan = plan(for: track)
            if case .leaveOut = plan { continue }
            guard case .copy = plan else {
                if let reason = ExportSession.decodingProblem(track) ?? ExportSession.encodingProblem(plan) {
                    throw MediaError(.unsupported, "track \(track.trackID) cannot be re-encoded: \(reason)", file: asset.filePath(of: track))
                }
                continue
            }
            if let reason = track.passthroughProblem {
                throw MediaError(.unsupported, "track \(track.trackID) cannot be copied: \(reason); use a preset that re-encodes")
            }
            if !fileType.hasEditLists, track.mediaType == .video, track.startsBetweenSyncSamples {
                throw MediaError(.unsupported, "track \(track.trackID) has a segment that starts between sync samples, and .\(fileType.rawValue) "
                                 + "files have no edit lists to hide what comes before it: cut at sync samples, write MP4/MOV, or re-encode")
            }
        }
    }

    /// Why a track's samples cannot be decoded here, or nil: a sample entry no codec entry reads,
    /// or a codec this machine's libavcodec has no decoder for.
    static func decodingProblem(_ track: AssetTrack) -> String? {
        // (encrypted samples are refused with the reason: no key)
        guard let format = track.formatDescriptions.first, track.encryption == nil else { return nil }
        let codec = (format.entryCodecParameters(mediaType: track.mediaType) ?? format.parameters).codecName
        if codec.isEmpty { return "Splice knows no codec for its '\(format.codec)' sample entry" }
        return Decoder.exists(for: codec) ? nil : "this machine's libavcodec has no \(codec) decoder"
    }

    /// Why a plan's encoder cannot run here (this machine's libavcodec lacks it), or nil.
    static func encodingProblem(_ plan: TrackMirror.TrackPlan) -> String? {
        let encoder: String
        switch plan {
        case .encode(_, .video(let v)), .compose(_, _, _, .video(let v)): encoder = v.codec.encoderName
        case .encode(_, .audio(let a)), .mix(_, _, _, .audio(let a)): encoder = a.codec.encoderName
        default: return nil
        }
        return Encoder.exists(named: encoder) ? nil : "this machine's libavcodec has no \(encoder) encoder"
    }

    private func exportNow() throws {
        guard let outputURL else { throw MediaError(.invalidOperation, "no outputURL set") }
        let fileType = try outputFileType ?? FileType(pathExtension: outputURL.pathExtension) ?? {
            throw MediaError(.unsupported, "cannot tell the container from '.\(outputURL.pathExtension)'; set outputFileType "
                             + "(\(supportedFileTypes.map(\.rawValue).joined(separator: ", ")))", file: outputURL.path)
        }()
        try checkBeforeReading(fileType, outputURL)
        let reader = try AssetReader(asset: asset)
        let writer = try AssetWriter(outputURL: outputURL, fileType: fileType)
        writer.shouldOptimizeForNetworkUse = shouldOptimizeForNetworkUse && fileType.movesIndexToFront
        writer.replacesExistingFile = replacesExistingFile
        if let metadata, !metadata.isEmpty { writer.metadata = metadata }
        let pipe = SamplePipe(reader: reader, writer: writer)
        var range = timeRange == .everything ? TimeRange.everything : exportedRange
        var notes: [String] = []
        if let (moved, note) = try keyframeRange(range, in: fileType) {
            range = moved
            notes.append(note)
        }
        notes += asset.notes + cutNotes(in: fileType) + audioMixNotes
        var mirror = TrackMirror(asset: asset, timeRange: range) { [self] track in plan(for: track) }
        mirror.selection = trackSelection
        notes += soundOnlyNotes(in: fileType)
        if let composition = videoComposition {
            if asset.tracks(withMediaType: .video).isEmpty {
                guard composition.duration > .zero else {
                    throw MediaError(.invalidOperation, "the video composition has no instructions, and \(asset.url.lastPathComponent) no video track: nothing says how long the video is")
                }
                if case .compose(_, _, let decoded, let encoded) = plan(forComposition: composition, in: fileType) { mirror.addedComposition = (composition, decoded, encoded) }
            }
            if preset == .passthrough { notes.append("the video composition re-encodes the video, with the highestQuality preset's settings") }
        }
        try mirror.checkWritable(to: fileType)
        try pipe.mirror(asset, with: mirror)
        self.notes += pipe.notes
        pipe.progressHandler = { [weak self] fraction in self?.advance(to: fraction) }
        let cancelled: Bool = lock.withLock {
            self.pipe = pipe
            return cancelRequested
        }
        if cancelled { throw MediaError(.cancelled, "the export was cancelled", file: outputURL.path) }
        defer { lock.withLock { self.pipe = nil } }
        try pipe.run()
        let clipping = pipe.mixes.map(\.clippedSampleCount).filter { $0 > 0 }.map {
            "the audio mix clipped \($0) samples (volumes above what the sum can hold; lower them)"
        }
        let cuts = pipe.cutReports.map { $0() }
        lock.withLock {
            _warnings = notes + pipe.warnings + writer.warnings + reader.warnings + clipping
            _cutSummary = cuts
        }
    }

    /// What is refused before anything is read: an output that exists or is an input, tracks the
    /// file cannot take, a range past the end, a cut mode that cannot be followed, a selection of
    /// tracks the asset does not have.
    private func checkBeforeReading(_ fileType: FileType, _ outputURL: URL) throws {
        try OutputFile.checkDestination(outputURL.path, replacing: replacesExistingFile, inputs: inputFiles.map(\.path))
        try checkTracks(for: fileType)
        if let (reason, trackID) = trackProblem(writing: fileType) {
            var error = MediaError(.unsupported, "the \(preset) preset cannot write .\(fileType.rawValue) files: \(reason)", file: outputURL.path)
            error.trackID = trackID
            throw error
        }
        try checkRange()
        try checkCutMode(in: fileType)
        try trackSelection.check(against: asset)
    }

    /// The tracks a sound-only file leaves out (all but the sound and the chapters), one line each.
    private func soundOnlyNotes(in fileType: FileType) -> [String] {
        guard fileType.holdsSoundOnly, preset != .appleM4A else { return [] }
        let chapters = ChapterTrack.tracks(of: asset)
        return asset.tracks.filter { t in t.mediaType != .audio && trackSelection.includes(t) && !chapters.contains { $0 === t } }
            .map { "track \($0.trackID) (\($0.mediaType)) is left out: .\(fileType.rawValue) files hold sound only" }
    }

    /// Every file the export reads: the asset's (a composition's clips) and the video
    /// composition's images.
    var inputFiles: [URL] {
        asset.sourceURLs + (videoComposition?.overlays.compactMap(\.image.url) ?? [])
    }

    /// Moves `progress` forward and tells `progressHandler`, one call at a time, in order.
    private func advance(to fraction: Double, final: Bool = false) {
        delivery.withLock {
            let moved: Double? = lock.withLock {
                let f = final ? 1 : min(fraction, 0.999)
                guard f > _progress else { return nil }
                _progress = f
                return pacing.tells(f) ? f : nil
            }
            if let moved { progressHandler?(moved) }
        }
    }
    private let delivery = NSLock()
    private var pacing = ProgressPacing()   // under `lock`
}
