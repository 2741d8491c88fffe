import Foundation
import MediaCore

/// Trimming: a part of one file, every sample copied.
extension ExportSession {
    /// The export of a part of a file, every sample copied: into MP4/MOV the cut is frame-exact
    /// through the edit list (samples from the sync sample before the start are kept and
    /// hidden); `passthrough` with `timeRange`. Run it with `run()`.
    /// - Throws: `.fileNotFound`, what `Asset(url:)` throws, `.invalidData` for a range past the end.
    public static func trimming(_ clip: Clip, to outputURL: URL) throws -> ExportSession {
        let asset = try clip.open()
        let session = ExportSession(asset: asset, preset: .passthrough)
        session.timeRange = try clip.timeRange(in: asset)
        session.outputURL = outputURL
        return session
    }
}
