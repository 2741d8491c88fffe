// AVFoundation's asset reader and writer over Splice's: `add(_:)` does not throw — an output or
// input that cannot be added fails the reader or writer, so that `startReading()` or
// `startWriting()` returns false and `error` says why, as Apple's code checks (`canAdd(_:)`
// first). `reader` and `writer` are Splice's, for what Splice adds.
import Foundation
@_exported import Splice

/// Reads an asset's samples (AVFoundation's `AVAssetReader`); `reader` is Splice's.
public final class AVAssetReader: Sendable {
    /// Where a reader is: `.unknown`, `.reading`, `.completed`, `.failed`, `.cancelled`.
    public typealias Status = AssetReader.Status

    /// Splice's reader.
    public let reader: AssetReader
    /// The asset read.
    public let asset: AVAsset

    /// A reader of `asset` (a file or a composition as it is now).
    /// - Throws: why the asset cannot be read.
    public init(asset: AVAsset) throws {
        self.asset = asset
        reader = try AssetReader(asset: asset.spliceAsset())
    }

    /// Where the reader is.
    public var status: Status { reader.status }
    /// Why reading failed (an output that could not be added, a damaged file).
    public var error: Error? { reader.error }
    /// The span of the asset to read; set before `startReading()`.
    public var timeRange: CMTimeRange { get { reader.timeRange } set { reader.timeRange = newValue } }
    /// The track outputs added (Splice's: a mixing or composing output reads through outputs of its own, among them).
    public var outputs: [AVAssetReaderTrackOutput] { reader.outputs }

    /// Whether `output` can be added: a track of this asset, not yet added, before reading starts.
    public func canAdd(_ output: AVAssetReaderTrackOutput) -> Bool { reader.canAdd(output) }
    /// Whether a mixing output can be added.
    public func canAdd(_ output: AVAssetReaderAudioMixOutput) -> Bool { canRead(output.output.audioTracks) }
    /// Whether a composing output can be added.
    public func canAdd(_ output: AVAssetReaderVideoCompositionOutput) -> Bool { canRead(output.output.videoTracks) }

    private func canRead(_ tracks: [AssetTrack]) -> Bool {
        reader.status == .unknown && tracks.allSatisfy { t in reader.asset.tracks.contains { $0 === t } }
    }

    /// Adds `output`; when it cannot be added, the reader fails (`startReading()` returns false, `error` says why).
    public func add(_ output: AVAssetReaderTrackOutput) { try? reader.add(output) }
    /// Adds a mixing output (see `add(_:)` of a track output).
    public func add(_ output: AVAssetReaderAudioMixOutput) { try? reader.add(output.output) }
    /// Adds a composing output (see `add(_:)` of a track output).
    public func add(_ output: AVAssetReaderVideoCompositionOutput) { try? reader.add(output.output) }

    /// Starts reading; false when the reader failed (see `error`).
    @discardableResult
    public func startReading() -> Bool { reader.startReading() }
    /// Stops reading.
    public func cancelReading() { reader.cancelReading() }
}

extension AssetReaderTrackOutput {
    /// An output of `track`: its samples as stored (`outputSettings: nil`), or decoded as
    /// `outputSettings` says (`[kCVPixelBufferPixelFormatTypeKey: …]` for pictures,
    /// `[AVFormatIDKey: kAudioFormatLinearPCM, …]` for sound: see `OutputSettings(_:)`).
    public convenience init(track: AVAssetTrack, outputSettings: [String: Any]?) {
        self.init(track: track.track, outputSettings: outputSettings.map { OutputSettings(dictionary: $0, for: track.mediaType) })
    }

    /// The kind of media of the track.
    public var mediaType: AVMediaType { track.mediaType }
}

/// Writes a movie from samples (AVFoundation's `AVAssetWriter`); `writer` is Splice's.
public final class AVAssetWriter: Sendable {
    /// Where a writer is: `.unknown`, `.writing`, `.completed`, `.failed`, `.cancelled`.
    public typealias Status = AssetWriter.Status

    /// Splice's writer.
    public let writer: AssetWriter

    /// A writer of `outputURL` as `outputFileType`.
    /// - Throws: a file type Splice cannot write, or one the extension contradicts.
    public init(outputURL: URL, fileType outputFileType: AVFileType) throws {
        writer = try AssetWriter(outputURL: outputURL, fileType: outputFileType)
    }

    /// A writer of `url` as `fileType` (AVFoundation's newer spelling).
    public convenience init(url: URL, fileType: AVFileType) throws { try self.init(outputURL: url, fileType: fileType) }

    /// Where the file goes.
    public var outputURL: URL { writer.outputURL }
    /// The container written.
    public var outputFileType: AVFileType { writer.fileType }
    /// The kinds of media the file type holds.
    public var availableMediaTypes: [AVMediaType] {
        writer.fileType.holdsSoundOnly ? [.audio] : [.video, .audio, .text, .closedCaption, .subtitle, .timecode, .metadata]
    }
    /// Where the writer is.
    public var status: Status { writer.status }
    /// Why writing failed.
    public var error: Error? { writer.error }
    /// The inputs added, in order.
    public var inputs: [AVAssetWriterInput] { writer.inputs }
    /// The groups added.
    public var inputGroups: [AVAssetWriterInputGroup] { writer.inputGroups }
    /// The movie's timescale (MP4/MOV).
    public var movieTimeScale: CMTimeScale { get { writer.movieTimeScale } set { writer.movieTimeScale = newValue } }
    /// The movie header first (MP4/MOV).
    public var shouldOptimizeForNetworkUse: Bool {
        get { writer.shouldOptimizeForNetworkUse }
        set { writer.shouldOptimizeForNetworkUse = newValue }
    }
    /// The movie's metadata.
    public var metadata: [AVMetadataItem] { get { writer.metadata } set { writer.metadata = newValue } }
    /// Write a fragmented movie, a fragment at least this long each (`.invalid`: a plain movie).
    public var movieFragmentInterval: CMTime {
        get { writer.movieFragmentInterval }
        set { writer.movieFragmentInterval = newValue }
    }
    /// `.mpeg4CMAFCompliant`: write CMAF; nil: no profile.
    public var outputFileTypeProfile: AssetWriter.FileTypeProfile? {
        get { writer.outputFileTypeProfile }
        set { writer.outputFileTypeProfile = newValue }
    }
    /// The segment duration a profile's output aims at.
    public var preferredOutputSegmentInterval: CMTime {
        get { writer.preferredOutputSegmentInterval }
        set { writer.preferredOutputSegmentInterval = newValue }
    }
    /// Where the fragments' decode times start.
    public var initialSegmentStartTime: CMTime {
        get { writer.initialSegmentStartTime }
        set { writer.initialSegmentStartTime = newValue }
    }
    /// How long the movie is expected to last: kept for code written for AVFoundation (which
    /// sizes its header by it); Splice's header is sized by what was written, so it changes nothing.
    public var overallDurationHint: CMTime {
        get { hint.withLock { $0 } }
        set { hint.withLock { $0 = newValue } }
    }
    private let hint = Mutex(CMTime.invalid)
    /// Where temporary files go: Splice writes beside the output and renames it into place; set
    /// values change nothing.
    public var directoryForTemporaryFiles: URL? {
        get { outputURL.deletingLastPathComponent() }
        set { _ = newValue }
    }

    /// Whether `input` can be added.
    public func canAdd(_ input: AVAssetWriterInput) -> Bool { writer.canAdd(input) }
    /// Adds `input`; when it cannot be added, the writer fails (`startWriting()` returns false, `error` says why).
    public func add(_ input: AVAssetWriterInput) { try? writer.add(input) }
    /// Whether `group` can be added.
    public func canAdd(_ group: AVAssetWriterInputGroup) -> Bool { writer.canAdd(group) }
    /// Adds `group` (see `add(_:)` of an input).
    public func add(_ group: AVAssetWriterInputGroup) { try? writer.add(group) }
    /// Whether `outputSettings` suit `mediaType` (nil, passthrough, always does).
    public func canApply(outputSettings: [String: Any]?, forMediaType mediaType: AVMediaType) -> Bool {
        guard let outputSettings else { return true }
        return EncodingSettings(dictionary: outputSettings, for: mediaType) != nil
    }

    /// Carries `asset`'s movie-level structure (timescale, `ftyp`, `mvhd`, `udta`) into the file
    /// (Splice's addition; MP4/MOV to MP4/MOV).
    public func copyMovieStructure(of asset: AVAsset) {
        if let source = try? asset.spliceAsset() { writer.copyMovieStructure(of: source) }
    }

    /// Starts writing; false when the writer failed (see `error`).
    @discardableResult
    public func startWriting() -> Bool { writer.startWriting() }
    /// Where the samples' times start on the movie's timeline.
    public func startSession(atSourceTime startTime: CMTime) { writer.startSession(atSourceTime: startTime) }
    /// Where the samples' times end.
    public func endSession(atSourceTime endTime: CMTime) { writer.endSession(atSourceTime: endTime) }
    /// Stops writing; nothing is left at `outputURL`.
    public func cancelWriting() { writer.cancelWriting() }
    /// Finishes the file on a queue of its own, then calls `handler` (see `status`, `error`).
    public func finishWriting(completionHandler handler: @escaping @Sendable () -> Void) { writer.finishWriting(completionHandler: handler) }
    /// Finishes the file (see `status`, `error`).
    public func finishWriting() async { try? await writer.finishWriting() }
}
