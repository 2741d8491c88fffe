import Foundation
@_exported import Splice

/// AVFoundation's export session over Splice's `ExportSession`: a failable initializer by preset
/// name, `outputFileType`, an `AVAudioMix`, `Float` progress, `.waiting` among the statuses,
/// `exportAsynchronously(completionHandler:)` and `export()`. `session` is Splice's, for what
/// Splice adds (cut modes, codecs, warnings).
public final class AVAssetExportSession: @unchecked Sendable {   // the session is thread-safe; `lock` guards `_status`
    /// Where an export stands.
    public enum Status: Int, Sendable {
        case unknown, waiting, exporting, completed, failed, cancelled
    }

    /// Splice's session.
    public let session: ExportSession
    private let lock = NSLock()
    private var started = false

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

    public var asset: AVAsset { session.asset }
    public var presetName: String { session.presetName }
    public var outputURL: URL? { get { session.outputURL } set { session.outputURL = newValue } }
    public var outputFileType: AVFileType? { get { session.outputFileType } set { session.outputFileType = newValue } }
    public var supportedFileTypes: [AVFileType] { session.supportedFileTypes }
    public var timeRange: CMTimeRange { get { session.timeRange } set { session.timeRange = newValue } }
    public var shouldOptimizeForNetworkUse: Bool {
        get { session.shouldOptimizeForNetworkUse }
        set { session.shouldOptimizeForNetworkUse = newValue }
    }
    public var metadata: [AVMetadataItem]? { get { session.metadata } set { session.metadata = newValue } }
    public var videoComposition: AVVideoComposition? { get { session.videoComposition } set { session.videoComposition = newValue } }
    /// The audio mix: its parameters as they are when the export starts.
    public var audioMix: AVAudioMix?
    public var estimatedOutputFileLength: Int64 { session.estimatedOutputFileLength }

    /// 0…1.
    public var progress: Float { Float(session.progress) }

    public var status: Status {
        switch session.status {
        case .unknown: lock.withLock { started } ? .waiting : .unknown
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

    public func cancelExport() { session.cancelExport() }

    private func prepare() {
        lock.withLock { started = true }
        if let audioMix { session.audioMix = audioMix.mix }
    }
}
