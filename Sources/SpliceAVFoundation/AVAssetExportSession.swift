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

    /// Splice's session.
    public let session: ExportSession
    /// Whether an export was asked for (`status` says `.waiting` until it runs).
    private let started = Atomic(false)

    /// An export of `asset` with the preset named `presetName` (`AVAssetExportPresetMediumQuality`);
    /// nil when no preset has that name.
    public init?(asset: AVAsset, presetName: String) {
        guard let preset = ExportPreset(rawValue: presetName) else { return nil }
        session = ExportSession(asset: asset, preset: preset)
    }

    /// An export of a composition as it is now; nil when no preset has the name or a source
    /// cannot be read.
    public init?(asset composition: AVMutableComposition, presetName: String) {
        guard let preset = ExportPreset(rawValue: presetName), let s = try? ExportSession(asset: composition, preset: preset) else { return nil }
        session = s
    }

    /// The preset names that can export `asset`.
    public static func exportPresets(compatibleWith asset: AVAsset) -> [String] {
        ExportSession.exportPresets(compatibleWith: asset).map(\.rawValue)
    }

    /// What is exported.
    public var asset: AVAsset { session.asset }
    /// The preset's name.
    public var presetName: String { session.presetName }
    /// Where the output goes; required.
    public var outputURL: URL? { get { session.outputURL } set { session.outputURL = newValue } }
    /// The container; nil: from `outputURL`'s extension.
    public var outputFileType: AVFileType? { get { session.outputFileType } set { session.outputFileType = newValue } }
    /// The file types the preset can write.
    public var supportedFileTypes: [AVFileType] { session.supportedFileTypes }
    /// The part of the asset exported (all of it by default).
    public var timeRange: CMTimeRange { get { session.timeRange } set { session.timeRange = newValue } }
    /// The movie header first, so that playback can start before the file is whole (MP4/MOV).
    public var shouldOptimizeForNetworkUse: Bool {
        get { session.shouldOptimizeForNetworkUse }
        set { session.shouldOptimizeForNetworkUse = newValue }
    }
    /// The output's metadata; nil: the asset's.
    public var metadata: [AVMetadataItem]? { get { session.metadata } set { session.metadata = newValue } }
    /// How the video tracks are drawn into one (overlays, layers).
    public var videoComposition: AVVideoComposition? { get { session.videoComposition } set { session.videoComposition = newValue } }
    /// The audio mix, copied when set (AVFoundation's `copy` property): changing the mix
    /// afterwards does not change the export; set it again. Reading it gives a copy too.
    public var audioMix: AVAudioMix? {
        get { session.audioMix.map(AVAudioMix.init) }
        set { session.audioMix = newValue?.mix }
    }
    /// The output's size in bytes, estimated.
    public var estimatedOutputFileLength: Int64 { session.estimatedOutputFileLength }

    /// 0…1.
    public var progress: Float { Float(session.progress) }

    /// Where the export stands.
    public var status: Status {
        switch session.status {
        case .unknown: started.load(ordering: .acquiring) ? .waiting : .unknown
        case .exporting: .exporting
        case .completed: .completed
        case .failed: .failed
        case .cancelled: .cancelled
        }
    }

    /// Why the export failed.
    public var error: Error? { session.error }

    /// Exports on a queue of its own; `handler` runs once it has ended (see `status`, `error`).
    public func exportAsynchronously(completionHandler handler: @escaping @Sendable () -> Void) {
        prepare()
        session.exportAsynchronously(completionHandler: handler)
    }

    /// Exports; throws why it failed or that it was cancelled.
    public func export() async throws {
        prepare()
        try await session.export()
    }

    /// Stops the export; nothing is written.
    public func cancelExport() { session.cancelExport() }

    private func prepare() {
        started.store(true, ordering: .releasing)
    }
}
