import Foundation
import Synchronization
@_exported import Splice

/// AVFoundation's export session over Splice's `ExportSession`: a failable initializer by preset
/// name, `outputFileType`, an `AVAudioMix`, `Float` progress, `.waiting` among the statuses,
/// `exportAsynchronously(completionHandler:)` and `export()`. `session` is Splice's, for what
/// Splice adds (cut modes, codecs, warnings).
public final class AVAssetExportSession: Sendable {
    /// Where an export stands.
    public enum Status: Int, Sendable {
        /// Not started.
        case unknown
        /// Started, not yet writing.
        case waiting
        /// Writing.
        case exporting
        /// Written: the output is in place.
        case completed
        /// Stopped by an error (`error`); nothing was written.
        case failed
        /// Cancelled (`cancelExport()`); nothing was written.
        case cancelled
    }

    /// Splice's session; nil when the asset could not be read (`error` says why once an export is asked for).
    public let session: ExportSession?
    /// Why the asset could not be read.
    private let unreadable: Error?
    /// The preset asked for.
    private let preset: ExportPreset
    /// Whether an export was asked for (`status` says `.waiting` until it runs).
    private let started = Atomic(false)

    /// An export of `asset` (a file or a composition as it is now) with the preset named
    /// `presetName` (`AVAssetExportPresetMediumQuality`); nil when no preset has that name. An
    /// asset that cannot be read gives a session whose export fails with the reason, as
    /// AVFoundation's does.
    public init?(asset: AVAsset, presetName: String) {
        guard let preset = ExportPreset(rawValue: presetName) else { return nil }
        self.asset = asset
        self.preset = preset
        do {
            session = ExportSession(asset: try asset.spliceAsset(), preset: preset)
            unreadable = nil
        } catch {
            session = nil
            unreadable = error
        }
    }

    /// The preset names that can export `asset`; none when it cannot be read.
    public static func exportPresets(compatibleWith asset: AVAsset) -> [String] {
        guard let readable = try? asset.spliceAsset() else { return [] }
        return ExportSession.exportPresets(compatibleWith: readable).map(\.rawValue)
    }

    /// Whether `presetName` can export `asset` as `outputFileType` (nil: any type); `handler` is called with the answer.
    public static func determineCompatibility(ofExportPreset presetName: String, with asset: AVAsset, outputFileType: AVFileType?,
                                              completionHandler handler: @escaping @Sendable (Bool) -> Void) {
        guard exportPresets(compatibleWith: asset).contains(presetName), let session = AVAssetExportSession(asset: asset, presetName: presetName) else {
            return handler(false)
        }
        handler(outputFileType.map { session.supportedFileTypes.contains($0) } ?? true)
    }

    /// What is exported.
    public let asset: AVAsset

    /// The file types this export can write, given to `handler`.
    public func determineCompatibleFileTypes(completionHandler handler: @escaping @Sendable ([AVFileType]) -> Void) {
        handler(supportedFileTypes)
    }

    /// Whether the export may read its sources more than once: kept for code written for
    /// AVFoundation (which uses it for multi-pass encoding); Splice encodes in one pass, so it
    /// changes nothing.
    public var canPerformMultiplePassesOverSourceMediaData: Bool {
        get { multiplePasses.load(ordering: .acquiring) }
        set { multiplePasses.store(newValue, ordering: .releasing) }
    }
    private let multiplePasses = Atomic(false)
    /// The preset's name.
    public var presetName: String { preset.rawValue }
    /// Where the output goes; required.
    public var outputURL: URL? { get { session?.outputURL } set { session?.outputURL = newValue } }
    /// The container; nil: from `outputURL`'s extension.
    public var outputFileType: AVFileType? { get { session?.outputFileType } set { session?.outputFileType = newValue } }
    /// The file types the preset can write.
    public var supportedFileTypes: [AVFileType] { session?.supportedFileTypes ?? [] }
    /// The part of the asset exported (all of it by default).
    public var timeRange: CMTimeRange { get { session?.timeRange ?? .everything } set { session?.timeRange = newValue } }
    /// The movie header first, so that playback can start before the file is whole (MP4/MOV).
    public var shouldOptimizeForNetworkUse: Bool {
        get { session?.shouldOptimizeForNetworkUse ?? false }
        set { session?.shouldOptimizeForNetworkUse = newValue }
    }
    /// The output's metadata; nil: the asset's.
    public var metadata: [AVMetadataItem]? { get { session?.metadata } set { session?.metadata = newValue } }
    /// How the video tracks are drawn into one (overlays, layers).
    /// Copied when set, as the audio mix: reading it gives a copy.
    public var videoComposition: AVVideoComposition? {
        get { session?.videoComposition.map(AVMutableVideoComposition.init) }
        set { session?.videoComposition = newValue?.videoComposition }
    }
    /// The audio mix, copied when set (AVFoundation's `copy` property): changing the mix
    /// afterwards does not change the export; set it again. Reading it gives a copy too.
    public var audioMix: AVAudioMix? {
        get { session?.audioMix.map(AVAudioMix.init) }
        set { session?.audioMix = newValue?.mix }
    }
    /// The output's size in bytes, estimated.
    public var estimatedOutputFileLength: Int64 { session?.estimatedOutputFileLength ?? 0 }

    /// 0…1.
    public var progress: Float { Float(session?.progress ?? 0) }

    /// Where the export stands.
    public var status: Status {
        guard let session else { return started.load(ordering: .acquiring) ? .failed : .unknown }
        switch session.status {
        case .unknown: return started.load(ordering: .acquiring) ? .waiting : .unknown
        case .exporting: return .exporting
        case .completed: return .completed
        case .failed: return .failed
        case .cancelled: return .cancelled
        }
    }

    /// Why the export failed.
    public var error: Error? {
        guard let session else { return started.load(ordering: .acquiring) ? unreadable : nil }
        return session.error
    }

    /// Exports on a queue of its own; `handler` runs once it has ended (see `status`, `error`).
    public func exportAsynchronously(completionHandler handler: @escaping @Sendable () -> Void) {
        started.store(true, ordering: .releasing)
        guard let session else { return DispatchQueue.global().async(execute: handler) }
        session.exportAsynchronously(completionHandler: handler)
    }

    /// Exports; when it returns, `status` and `error` say how it ended (AVFoundation's
    /// `export()`, which does not throw).
    public func export() async {
        started.store(true, ordering: .releasing)
        try? await session?.export()
    }

    /// Exports to `url` as `fileType` (AVFoundation's `export(to:as:)`); throws why it failed or that it was cancelled.
    public func export(to url: URL, as fileType: AVFileType) async throws {
        outputURL = url
        outputFileType = fileType
        started.store(true, ordering: .releasing)
        guard let session else { throw unreadable! }
        try await session.export()
    }

    /// Stops the export; nothing is written.
    public func cancelExport() { session?.cancelExport() }
}
