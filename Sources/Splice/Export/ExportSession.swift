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
public final class ExportSession: Sendable {
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
    public var outputURL: URL? { get { setting(\.outputURL) } set { set(\.outputURL, newValue) } }
    /// The container; nil: from `outputURL`'s extension.
    public var outputFileType: FileType? { get { setting(\.outputFileType) } set { set(\.outputFileType, newValue) } }
    /// The part of the asset exported (`.everything` by default), on the asset's timeline.
    public var timeRange: TimeRange { get { setting(\.timeRange) } set { set(\.timeRange, newValue) } }
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
    public var cutMode: CutMode {
        get { setting(\.cutMode) }
        set { state.withLock { $0.settings.cutMode = newValue; $0.settings.cutModeIsChosen = true } }
    }
    /// A crossfaded concat cut smart: its plan for every track (`Concatenation.crossfading`).
    var smartCrossfade: SmartCrossfade? { get { setting(\.smartCrossfade) } set { set(\.smartCrossfade, newValue) } }
    /// Put the movie header first (MP4/MOV), for playback while downloading.
    public var shouldOptimizeForNetworkUse: Bool { get { setting(\.shouldOptimizeForNetworkUse) } set { set(\.shouldOptimizeForNetworkUse, newValue) } }
    /// The movie's metadata to write (`title`, `creationDate`, `location`, …), replacing the
    /// source's; nil (the default): the source's is kept — an MP4/MOV's user data as it is, other
    /// containers' tags as far as Splice reads them (`Asset.metadata`).
    public var metadata: [MetadataItem]? { get { setting(\.metadata) } set { set(\.metadata, newValue) } }
    /// Replace an existing file at `outputURL` (AVFoundation's sessions fail instead: the default).
    public var replacesExistingFile: Bool { get { setting(\.replacesExistingFile) } set { set(\.replacesExistingFile, newValue) } }
    /// Flush the output to disk before it is put in place (`AssetWriter.syncsToDisk`, the command
    /// line's `--sync`); off by default.
    public var syncsToDisk: Bool { get { setting(\.syncsToDisk) } set { set(\.syncsToDisk, newValue) } }
    /// Overrides the preset's video codec (AVFoundation has no such setting; VP9 and AV1 are
    /// reachable only so); nil: the preset's.
    public var videoCodec: VideoEncodingSettings.Codec? { get { setting(\.videoCodec) } set { set(\.videoCodec, newValue) } }
    /// How HDR video (PQ, HLG) becomes SDR where the output is SDR: H.264 presets, and any
    /// 8-bit encode (HEVC presets keep HDR as 10-bit with the source's transfer and HDR10
    /// metadata). Möbius with a knee at 0.95 and reference white at 203 cd/m² by default
    /// (`ToneMapping.standard`, which says why).
    public var toneMapping: ToneMapping { get { setting(\.toneMapping) } set { set(\.toneMapping, newValue) } }
    /// Overrides the preset's CRF (lower is better); nil: the preset's.
    public var crf: Int? { get { setting(\.crf) } set { set(\.crf, newValue) } }
    /// The threads each re-encoded video track's encoder runs (libavcodec's `threads`), and the
    /// most its decoder runs; nil: the encoder's own choice for the machine's cores. One thread
    /// per task is what a batch or a cluster running a task per core wants (`splice.dask` sets
    /// it from the worker's `OMP_NUM_THREADS`). With one thread x264 writes the same bytes on every
    /// run and machine; frame threads make its macroblock tree differ slightly from run to run.
    public var threadCount: Int? { get { setting(\.threadCount) } set { set(\.threadCount, newValue) } }
    /// Overrides the audio codec; nil: AAC, or the file type's default when AAC cannot go in it.
    public var audioCodec: AudioEncodingSettings.Codec? { get { setting(\.audioCodec) } set { set(\.audioCodec, newValue) } }
    /// Overrides the preset's audio bit rate, in bits per second; nil: the preset's.
    public var audioBitRate: Int? { get { setting(\.audioBitRate) } set { set(\.audioBitRate, newValue) } }
    /// The audio tracks' volumes: every enabled audio track (and a disabled one it has
    /// parameters for) is mixed into one track, in the first one's place, language and group,
    /// with as many channels as the widest, and encoded — AAC at 192 kb/s under `passthrough`
    /// (video still copied), else as the preset says; a track without parameters plays at 1.
    /// Samples the mix clipped are reported in `warnings`, and so are parameters for a track ID
    /// that is not an audio track of the asset (AVFoundation ignores those silently).
    public var audioMix: AudioMix? { get { setting(\.audioMix) } set { set(\.audioMix, newValue) } }
    /// The audio tracks `audioMix` mixes when not all (a job that lays music under one track
    /// and copies the others); nil: AVFoundation's rule.
    var mixedTrackIDs: Set<Int>? { get { setting(\.mixedTrackIDs) } set { set(\.mixedTrackIDs, newValue) } }
    /// How the video tracks are drawn into the one video track of the output: their layers'
    /// transforms, opacities and crops, and still-image overlays (a watermark). The tracks it
    /// draws become one track in the first video track's place; with no video track in the asset
    /// (a composition of still images) the output gains one, as long as the composition's
    /// instructions. Video is re-encoded as the preset says — `highestQuality`'s settings under
    /// `passthrough` (`warnings` says so) — at the composition's render size and frame rate.
    public var videoComposition: VideoComposition? { get { setting(\.videoComposition) } set { set(\.videoComposition, newValue) } }
    /// Re-encoded video at exactly this size: pictures of another aspect ratio are fitted inside
    /// and letterboxed, smaller ones scaled up (what a concatenation of unlike clips needs);
    /// nil: the preset's box.
    public var videoSize: Dimensions? { get { setting(\.videoSize) } set { set(\.videoSize, newValue) } }
    /// Re-encoded video at this constant frame rate (pictures repeated or left out); nil: the
    /// source's timing.
    public var videoFrameRate: Double? { get { setting(\.videoFrameRate) } set { set(\.videoFrameRate, newValue) } }
    /// Re-encoded audio at this sample rate; nil: the source's.
    public var audioSampleRate: Int? { get { setting(\.audioSampleRate) } set { set(\.audioSampleRate, newValue) } }
    /// Re-encoded audio with this many channels; nil: the source's.
    public var audioChannelCount: Int? { get { setting(\.audioChannelCount) } set { set(\.audioChannelCount, newValue) } }
    /// `passthrough` only: audio the output container cannot hold (PCM from a WAV into MP4) is
    /// encoded (AAC at 192 kb/s, or `audioCodec`) instead of failing the export.
    public var encodesAudioTheContainerCannotHold: Bool { get { setting(\.encodesAudioTheContainerCannotHold) } set { set(\.encodesAudioTheContainerCannotHold, newValue) } }
    /// The tracks exported (every track by default): the others are left out, `tref`s to them
    /// dropped, and a group whose default track is left out gets a new one (said in `notes`).
    /// An audio mix mixes only tracks kept.
    public var trackSelection: TrackSelection { get { setting(\.trackSelection) } set { set(\.trackSelection, newValue) } }
    /// Tracks encoded elsewhere, by the ID of the track of `asset` each stands for: written in
    /// that track's place as they are (samples, format, timing), with that track's language,
    /// name, flags, group and associations, and that track is not read. A track of the same
    /// media type; the export then has no `timeRange`. How a distributed
    /// export joins what other machines encoded with the same preset (`splice.dask.export`).
    public var encodedTracks: [Int: AssetTrack] {
        get { setting(\.encodedTracks) }
        set { state.withLock { $0.settings.encodedTracks = newValue; $0.settings.encodedAssets = newValue.values.compactMap(\.asset) } }
    }
    /// What the job that made the session decided, and why, before it runs (every clip
    /// re-encoded, cuts moved to sync samples, audio encoded that the container cannot hold).
    public internal(set) var notes: [String] { get { state.withLock { $0.notes } } set { state.withLock { $0.notes = newValue } } }
    /// Called with `progress` as it moves, from the export's queues, one call at a time: at most
    /// about ten times a second (AVFoundation has no handler; `progress` is polled there), and
    /// with 1.0 once, when the export has finished.
    public var progressHandler: (@Sendable (Double) -> Void)? {
        get { state.withLock { $0.progressHandler } }
        set { state.withLock { $0.progressHandler = newValue } }
    }

    /// Everything the session holds that changes, under one lock: the settings (an export
    /// plans from one snapshot of them), the job's notes and the handler, and where the export is.
    private struct State {
        var settings: ExportPlan.Settings
        var notes: [String] = []
        var progressHandler: (@Sendable (Double) -> Void)?
        var status = Status.unknown
        var error: MediaError?
        var progress = 0.0
        var pacing = ProgressPacing()
        var warnings: [String] = []
        var cutSummary: [String] = []
        var pipe: SamplePipe?
        var cancelRequested = false
        var plansMade = 0
    }
    private let state: Mutex<State>
    /// Held while a progress value is handed to `progressHandler`, so that calls come one at a
    /// time and in order; taken before `state`, never while holding it.
    private let delivery = NSLock()

    /// How many plans `run()` made (one per export; tests count them).
    var plansMade: Int { state.withLock { $0.plansMade } }

    /// How far the export is, 0…1, on the output's timeline; it never goes back and ends at 1.
    public var progress: Double { state.withLock { $0.progress } }
    /// Where the export is.
    public var status: Status { state.withLock { $0.status } }
    /// Why the export failed; nil unless `status` is `.failed`.
    public var error: MediaError? { state.withLock { $0.error } }
    /// What the export corrected or could not carry (encoder corrections, left-out tracks).
    public var warnings: [String] { state.withLock { $0.warnings } }
    /// What a smart or keyframe cut re-encoded and copied, a line per track ("track 1: 31 frames
    /// re-encoded, 184 copied"), after the export.
    public var cutSummary: [String] { state.withLock { $0.cutSummary } }

    /// A session exporting `asset` with `preset`; set `outputURL` (and what else is wanted), then call `export()`.
    public init(asset: Asset, preset: ExportPreset) {
        self.asset = asset
        self.preset = preset
        state = Mutex(State(settings: ExportPlan.Settings(preset: preset)))
    }

    /// The settings as they are now, read at once.
    var settings: ExportPlan.Settings { state.withLock { $0.settings } }

    func setting<T: Sendable>(_ path: KeyPath<ExportPlan.Settings, T>) -> T { state.withLock { $0.settings[keyPath: path] } }
    func set<T: Sendable>(_ path: WritableKeyPath<ExportPlan.Settings, T>, _ value: T) {
        state.withLock { $0.settings[keyPath: path] = value }
    }

    /// A job's own choice of `cutMode`, which falls back where it cannot be followed (one the
    /// caller sets is honoured or refused).
    func setDefaultCutMode(_ mode: CutMode) {
        state.withLock { $0.settings.cutMode = mode; $0.settings.cutModeIsChosen = false }
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
        let start: Bool = state.withLock {
            guard $0.status == .unknown else { return false }
            $0.status = .exporting
            return true
        }
        guard start else { throw MediaError(.invalidOperation, "an export session runs once") }
        do {
            try exportNow()
            advance(to: 1, final: true)
            state.withLock { $0.status = .completed }
        } catch {
            let e = error as? MediaError ?? MediaError(.io, "\(error)")
            state.withLock {
                $0.status = e.code == .cancelled ? .cancelled : .failed
                $0.error = e
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
        let pipe: SamplePipe? = state.withLock {
            $0.cancelRequested = true
            return $0.pipe
        }
        pipe?.cancel()
    }

    // MARK: The export

    /// The part of the asset exported: `timeRange` within the asset's duration.
    public var exportedRange: TimeRange { ExportPlan.exportedRange(of: asset, settings) }

    private func exportNow() throws {
        let settings = self.settings
        guard let outputURL = settings.outputURL else { throw MediaError(.invalidOperation, "no outputURL set") }
        let fileType = try settings.outputType ?? {
            throw MediaError(.unsupported, "cannot tell the container from '.\(outputURL.pathExtension)'; set outputFileType "
                             + "(\(supportedFileTypes.map(\.rawValue).joined(separator: ", ")))", file: outputURL.path)
        }()
        try OutputFile.checkDestination(outputURL.path, replacing: settings.replacesExistingFile, inputs: inputFiles.map(\.path))
        var plan = ExportPlan(asset: asset, settings: settings, fileType: fileType)
        state.withLock { $0.plansMade += 1 }
        try plan.check()
        try plan.findCuts()
        let reader = try AssetReader(asset: asset)
        let writer = try AssetWriter(outputURL: outputURL, fileType: fileType)
        writer.shouldOptimizeForNetworkUse = settings.shouldOptimizeForNetworkUse && fileType.movesIndexToFront
        writer.replacesExistingFile = settings.replacesExistingFile
        writer.syncsToDisk = settings.syncsToDisk
        writer.settings.withLock { $0.fragments = settings.fragments }
        if let metadata = settings.metadata, !metadata.isEmpty { writer.metadata = metadata }
        let pipe = SamplePipe(reader: reader, writer: writer)
        let mirror = TrackMirror(plan: plan)
        try mirror.checkWritable(to: fileType)
        try pipe.mirror(asset, with: mirror)
        self.notes += pipe.notes
        pipe.progressHandler = { [weak self] fraction in self?.advance(to: fraction) }
        let cancelled: Bool = state.withLock {
            $0.pipe = pipe
            return $0.cancelRequested
        }
        if cancelled { throw MediaError(.cancelled, "the export was cancelled", file: outputURL.path) }
        defer { state.withLock { $0.pipe = nil } }
        try pipe.run()
        let clipping = pipe.mixes.map(\.clippedSampleCount).filter { $0 > 0 }.map {
            "the audio mix clipped \($0) samples (volumes above what the sum can hold; lower them)"
        }
        let cuts = pipe.cutReports.map { $0() }
        state.withLock {
            $0.warnings = plan.notes + pipe.warnings + writer.warnings + reader.warnings + clipping
            $0.cutSummary = cuts
        }
    }

    /// Every file the export reads: the asset's (a composition's clips) and the video
    /// composition's images.
    var inputFiles: [URL] {
        asset.sourceURLs + (videoComposition?.overlays.compactMap(\.image.url) ?? [])
            + encodedTracks.values.flatMap { $0.asset?.sourceURLs ?? [] }
    }

    /// Moves `progress` forward and tells `progressHandler`, one call at a time, in order.
    private func advance(to fraction: Double, final: Bool = false) {
        delivery.withLock {
            let (moved, handler): (Double?, (@Sendable (Double) -> Void)?) = state.withLock {
                let f = final ? 1 : min(fraction, 0.999)
                guard f > $0.progress else { return (nil, nil) }
                $0.progress = f
                return $0.pacing.tells(f) ? (f, $0.progressHandler) : (nil, nil)
            }
            if let moved { handler?(moved) }
        }
    }

}
