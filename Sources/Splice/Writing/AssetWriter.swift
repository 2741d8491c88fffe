import Dispatch
import Foundation
import MediaCore
import ISOBMFF
import FFmpegBridge

/// Writes sample buffers into a new MP4, MOV, M4A or M4V file, natively, or into a Matroska,
/// WebM, MPEG-TS or AVI file through libavformat.
///
/// The file is written to a temporary file beside `outputURL` and renamed into place by
/// `finishWriting`; a failed or cancelled writer leaves nothing behind. Tracks are
/// interleaved in chunks of about `preferredMediaChunkDuration` by decode time: an input
/// that gets ahead of the others is not ready until they catch up, which keeps memory
/// bounded whatever the file size, and the layout depends only on the samples.
///
/// This file holds the state machine and the public API; appending and flushing are in
/// `AssetWriter+Samples.swift`, the request plumbing in `AssetWriter+Requests.swift`, and
/// the layout of the file in the muxers (`MovieMuxer`, `FormatMuxer`).
///
/// ```swift
/// let writer = try AssetWriter(outputURL: url, fileType: .mp4)
/// let input = AssetWriterInput(mediaType: .audio, sourceFormatHint: track.formatDescriptions[0])
/// writer.add(input)
/// writer.startWriting()
/// writer.startSession(atSourceTime: .zero)
/// … input.append(sample) … input.markAsFinished()
/// try await writer.finishWriting()
/// ```
public final class AssetWriter: Sendable {
    /// Where a writer is (AVFoundation's `AVAssetWriter.Status`).
    public enum Status: Sendable, Equatable {
        /// Inputs can be added; writing has not started.
        case unknown
        /// Samples are being written (after `startWriting()`).
        case writing
        /// Finished: the file is in place.
        case completed
        /// Stopped on an error (`error`); nothing is left at `outputURL`.
        case failed
        /// Cancelled (`cancelWriting()`); nothing is left at `outputURL`.
        case cancelled
    }

    /// Where the file goes (written to a temporary file and renamed there when writing finishes).
    public let outputURL: URL
    /// The container written.
    public let fileType: FileType
    /// The writer's settings, as its properties set them; one lock for all.
    struct Settings {
        var movieTimeScale: Int32 = 1000
        var shouldOptimizeForNetworkUse: Bool = false
        var replacesExistingFile: Bool = false
        var syncsToDisk: Bool = false
        var chapters: [Asset.Chapter] = []
        var metadata: [MetadataItem] = []
        var fragments = FragmentSettings()
    }

    let settings = Mutex(Settings())

    /// The movie timescale (`mvhd`, edit lists, track durations). Set before `startWriting()`.
    public var movieTimeScale: Int32 {
        get { settings.withLock { $0.movieTimeScale } }
        set { settings.withLock { $0.movieTimeScale = newValue } }
    }
    /// Put `moov` before `mdat` so that players can start before the whole file is read.
    public var shouldOptimizeForNetworkUse: Bool {
        get { settings.withLock { $0.shouldOptimizeForNetworkUse } }
        set { settings.withLock { $0.shouldOptimizeForNetworkUse = newValue } }
    }
    /// Whether an existing file at `outputURL` may be replaced (atomically, on success).
    public var replacesExistingFile: Bool {
        get { settings.withLock { $0.replacesExistingFile } }
        set { settings.withLock { $0.replacesExistingFile = newValue } }
    }
    /// Whether the output is flushed to disk before it is put in place (`fsync`), so that it
    /// survives a power loss from then on — for a program that deletes the inputs once the job
    /// is done (the command line's `--sync`). Off by default: it costs a remux about a fifth of
    /// its time. An output that replaces a file is flushed either way.
    public var syncsToDisk: Bool {
        get { settings.withLock { $0.syncsToDisk } }
        set { settings.withLock { $0.syncsToDisk = newValue } }
    }
    /// Chapters, on the output's timeline, for containers that list them (Matroska, WebM). Set
    /// before `startWriting()`.
    public var chapters: [Asset.Chapter] {
        get { settings.withLock { $0.chapters } }
        set { settings.withLock { $0.chapters = newValue } }
    }
    /// The movie's metadata to write (`title`, `creationDate`, `location`, …); empty: none of
    /// its own — an MP4/MOV copies what `copyMovieStructure(of:)` took, if anything. In MP4/MOV
    /// the items replace the copied user data (`creationDate` sets `mvhd` too); elsewhere they
    /// are the container's tags. Set before writing starts.
    public var metadata: [MetadataItem] {
        get { settings.withLock { $0.metadata } }
        set { settings.withLock { $0.metadata = newValue } }
    }

    /// The writer's one state (status, inputs and their `InputState`s, file, muxer, interleaver,
    /// session), behind one lock. Each input's stage lock (`AssetWriterInput.stages`) is taken
    /// before it, never inside it: `WriterCore` holds no stage.
    let core: Mutex<WriterCore>

    /// Makes a writer for `outputURL`; `fileType` defaults to the one its extension names.
    /// - Throws: `.unsupported` when no file type is given and the extension names none Splice
    ///   writes; `.invalidOperation` when `fileType` is of another kind than the extension names
    ///   (`.mkv` into `x.mp4`; AVFoundation writes it and names it wrong).
    public init(outputURL: URL, fileType: FileType? = nil) throws {
        self.outputURL = outputURL
        let type = try fileType ?? FileType.writing(outputURL)
        try FileType.check(type, against: outputURL)
        if type.muxerName != nil {
            do { try FFmpegLibraries.load(for: "writing .\(type.rawValue) files") } catch {
                throw MediaError(.unsupported, error.description, file: outputURL.path, underlying: error)
            }
        }
        self.fileType = type
        core = Mutex(WriterCore(outputPath: outputURL.path))
    }

    /// Where the writer is.
    public var status: Status { core.withLock { $0.status } }
    /// Why writing failed, when `status` is `.failed`.
    public var error: MediaError? { core.withLock { $0.error } }
    /// The inputs added, in order: the file's tracks.
    public var inputs: [AssetWriterInput] { core.withLock { $0.inputs } }
    /// The groups added.
    public var inputGroups: [AssetWriterInputGroup] { core.withLock { $0.groups } }
    /// What encoders corrected or did not take (a size rounded to even, an unknown option).
    public var warnings: [String] {
        // (each input's stages under its own lock, the writer's not held)
        inputs.flatMap { input in input.stages.withLock { ($0.list ?? []).flatMap(\.warnings) } }
    }

    // MARK: Inputs and groups

    /// Whether `input` can be added: not added yet, its settings fit the file type, before writing starts.
    public func canAdd(_ input: AssetWriterInput) -> Bool {
        core.withLock { refusal(of: input, in: $0) == nil }
    }

    /// Adds `input`.
    /// - Throws: why it cannot be added (writing has started, it belongs to a writer already, or it
    ///   has output settings); the writer then fails with the same error.
    public func add(_ input: AssetWriterInput) throws {
        try core.withLock { c in
            if let reason = refusal(of: input, in: c) { throw c.refuse(reason) }
            input.writer = self
            input.index = c.inputs.count
            c.states.append(InputState(index: c.inputs.count, sourceTrackID: input.sourceTrackID))
            c.inputs.append(input)
        }
    }

    private func refusal(of input: AssetWriterInput, in c: borrowing WriterCore) -> String? {
        if c.status != .unknown { return "inputs are added before startWriting()" }
        if input.writer === self { return "the input was added already" }
        if input.writer != nil { return "the input belongs to another writer" }
        switch input.outputSettings {
        case .video where input.mediaType != .video: return "video encoding settings are for video inputs, not \(input.mediaType)"
        case .audio where input.mediaType != .audio: return "audio encoding settings are for audio inputs, not \(input.mediaType)"
        default: break
        }
        return nil
    }

    /// Whether `group` can be added: its inputs are this writer's, in no other group, and its
    /// default input (if any) is one of them.
    public func canAdd(_ group: AssetWriterInputGroup) -> Bool {
        core.withLock { refusal(of: group, in: $0) == nil }
    }

    private func refusal(of group: AssetWriterInputGroup, in c: borrowing WriterCore) -> String? {
        if c.status != .unknown { return "groups are added before startWriting()" }
        if group.inputs.isEmpty { return "a group needs at least one input" }
        if !group.inputs.allSatisfy({ i in c.inputs.contains { $0 === i } }) { return "a group's inputs are added to the writer first" }
        if let d = group.defaultInput, !group.inputs.contains(where: { $0 === d }) { return "a group's default input is one of its inputs" }
        let grouped = c.groups.flatMap(\.inputs)
        if group.inputs.contains(where: { i in grouped.contains { $0 === i } }) { return "an input belongs to one group at most" }
        return nil
    }

    /// Adds `group`.
    /// - Throws: why it cannot be added (see `canAdd(_:)`); the writer then fails with the same error.
    public func add(_ group: AssetWriterInputGroup) throws {
        try core.withLock { c in
            if let reason = refusal(of: group, in: c) { throw c.refuse(reason) }
            c.groups.append(group)
        }
    }

    /// Carries the movie-level structure of `asset` into the new file, when both are MP4/MOV:
    /// its timescale, its `ftyp` (when the file types agree), the `mvhd` fields (dates, rate,
    /// volume, matrix) and the movie's `udta`/`meta`. Call before `startWriting()`; for other
    /// sources it does nothing.
    public func copyMovieStructure(of asset: Asset) {
        guard let movie = asset.source.isoMovie else {
            // A composition's new headers take the first clip's times (an MP4/MOV's).
            if let header = asset.source.movieHeaderTemplate {
                core.withLock { if $0.status == .unknown { $0.template.stamp(from: header) } }
            }
            return
        }
        core.withLock { c in
            guard c.status == .unknown else { return }
            if movie.movieHeader.timescale <= UInt32(clamping: Int32.max) { movieTimeScale = Int32(clamping: movie.movieHeader.timescale) }
            c.template = MovieTemplate(fileType: FileType(movie.fileType) == fileType ? movie.fileType : nil,
                                       header: movie.movieHeader, boxes: movie.otherMovieBoxes)
            c.template.stamp(from: movie.movieHeader)
        }
    }

    // MARK: Writing

    /// Creates the temporary output file and starts accepting samples. Returns `false` (with
    /// `status` `.failed` and `error` set) when the file cannot be created.
    @discardableResult
    public func startWriting() -> Bool {
        let settings = self.settings.withLock { $0 }
        return core.withLock { c in
            guard c.status == .unknown else { return false }
            do {
                let file = try OutputFile(destination: outputURL.path, replacing: settings.replacesExistingFile, syncing: settings.syncsToDisk)
                c.file = file
                c.muxer = try makeMuxer(file, settings, c)
                c.interleaver = Interleaver(inputs: c.inputs)
                _ = c.interleaver.updateSlowestFrontier(c.states)
                c.status = .writing
                return true
            } catch {
                c.fail(error)
                return false
            }
        }
    }

    private func makeMuxer(_ file: OutputFile, _ settings: Settings, _ c: borrowing WriterCore) throws -> any Muxer {
        switch fileType.writer {
        case .libavformat(let name):
            if try settings.fragments.plan() != nil {
                throw MediaError(.unsupported, "movie fragments are written into MP4, M4V, M4A and MOV files, not .\(fileType.rawValue)")
            }
            return try FormatMuxer(fileType: fileType, muxerName: name, file: file, groups: c.groups, chapters: settings.chapters,
                                   metadata: settings.metadata)
        case .iso(let ftyp, _):
            if let plan = try settings.fragments.plan() {
                return try FragmentedMovieMuxer(file: file, fileType: fileType, ftyp: c.template.fileType ?? ftyp,
                                                template: c.template.with(settings.metadata), groups: c.groups, inputCount: c.inputs.count,
                                                movieTimeScale: settings.movieTimeScale, plan: plan)
            }
            return try MovieMuxer(file: file, fileType: fileType, ftyp: c.template.fileType ?? ftyp, template: c.template.with(settings.metadata),
                                  groups: c.groups, inputCount: c.inputs.count, movieTimeScale: settings.movieTimeScale,
                                  fastStart: settings.shouldOptimizeForNetworkUse)
        }
    }

    /// Starts the session: samples are written relative to `time` (0 for a plain copy).
    public func startSession(atSourceTime time: MediaTime) {
        core.withLock { c in
            if !c.sessionStarted {
                c.sessionStarted = true
                c.session.start = time
            }
        }
        pumpAll()
    }

    /// Ends the session at `time`: tracks are cut there (through their edit lists).
    public func endSession(atSourceTime time: MediaTime) {
        core.withLock { $0.session.end = time }
    }

    /// Stops writing and removes the temporary file; the destination is untouched.
    public func cancelWriting() {
        core.withLock { c in
            guard c.status == .writing || c.status == .unknown else { return }
            c.status = .cancelled
            c.tearDown()
        }
        pumpAll()
    }

    /// Finishes the file: unfinished inputs are marked finished, the remaining chunks and the
    /// `moov` are written, and the file is renamed into place. `handler` runs when done;
    /// then `status` is `.completed`, or `.failed` with `error` set.
    public func finishWriting(completionHandler handler: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async { [self] in
            finish()
            handler()
        }
    }

    /// Finishes the file; see `finishWriting(completionHandler:)`.
    /// - Throws: the writer's `error` when it did not complete.
    public func finishWriting() async throws {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            finishWriting { c.resume() }
        }
        if status != .completed {
            throw error ?? MediaError(.cancelled, "writing was cancelled", file: outputURL.path)
        }
    }

    /// Finishes the file on the calling thread; see `finishWriting(completionHandler:)`.
    public func finish() {
        // What the unfinished inputs' stages hold is written first (outside the lock, as stages run).
        let unfinished = core.withLock { c in c.status == .writing ? c.inputs.filter { !c.states[$0.index].isFinished } : [] }
        for input in unfinished { finishStages(of: input) }
        core.withLock { c in
            guard c.status == .writing, let file = c.file, let muxer = c.muxer else { return }
            do {
                for i in c.states.indices {
                    c.states[i].isFinished = true
                    c.states[i].requestBlock = nil
                }
                try c.flush(all: true)
                try muxer.finish(c.inputs, states: c.states, session: c.session)
                c.muxer = nil
                try file.commit()
                c.status = .completed
            } catch {
                c.fail(error)
            }
        }
    }
}
