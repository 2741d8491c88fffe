import Foundation
import MediaCore

/// Trimming: a part of one file, every sample copied.
extension ExportSession {
    /// The export of a part of a file (`passthrough` with `timeRange`), frame-exact into MP4/MOV.
    /// `cutMode` `.smart` (the default) re-encodes the frames from the start to the first sync
    /// sample and from the last copied one to the end, and the sound's first and last frames,
    /// and copies the rest: every stored frame is shown, which every player follows. `.exact`
    /// copies every sample from the sync sample before the start and hides the extra ones with
    /// the edit list (AVFoundation's layout); `.keyframe` moves the cut to sync samples. Into
    /// other containers the cut moves to sync samples. Run it with `run()`.
    ///
    /// `cutMode` nil cuts smart where it can and falls back (with edit lists into MP4/MOV, at
    /// sync samples elsewhere: `notes` and `warnings` say so); a mode given is honoured, or the
    /// export throws `.unsupported` saying why.
    /// - Throws: `.fileNotFound`, what `Asset(url:)` throws, `.invalidData` for a range past the end.
    public static func trimming(_ clip: Clip, to outputURL: URL, cutMode: CutMode? = nil) throws -> ExportSession {
        let asset = try clip.open()
        let session = ExportSession(asset: asset, preset: .passthrough)
        if let cutMode { session.cutMode = cutMode } else { session.setDefaultCutMode(.smart) }
        session.timeRange = try clip.timeRange(in: asset)
        session.outputURL = outputURL
        return session
    }
}
