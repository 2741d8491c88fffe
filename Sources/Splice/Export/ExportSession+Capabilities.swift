import Foundation
import MediaCore

/// What an export session can do before it runs: the presets an asset can take, the containers
/// the session can write, and a rough size of its output (AVFoundation's `exportPresets(compatibleWith:)`,
/// `supportedFileTypes`, `estimatedOutputFileLength`).
extension ExportSession {
    /// The presets that can export `asset`: every one but `appleM4A` for an asset without audio,
    /// and only `passthrough` and `appleM4A` for one without video or audio to encode.
    public static func exportPresets(compatibleWith asset: Asset) -> [ExportPreset] {
        let hasAudio = !asset.tracks(withMediaType: .audio).isEmpty
        let hasVideo = !asset.tracks(withMediaType: .video).isEmpty
        return ExportPreset.allCases.filter { p in
            switch p {
            case .passthrough: true
            case .appleM4A: hasAudio
            default: hasVideo || hasAudio
            }
        }
    }

    /// The containers this session can write, given the preset, its overrides and the asset's tracks.
    public var supportedFileTypes: [FileType] {
        let settings = self.settings
        return FileType.allCases.filter { type in ExportPlan(asset: asset, settings: settings, fileType: type).refusal == nil }
    }

    /// A rough size of the output in bytes: copied tracks' bytes in the range, encoded audio at
    /// its bit rate, encoded video at a bits-per-pixel figure for its CRF.
    public var estimatedOutputFileLength: Int64 {
        let settings = self.settings
        let plan = ExportPlan(asset: asset, settings: settings, fileType: settings.outputType)
        let seconds = ExportPlan.exportedRange(of: asset, settings).duration.seconds
        var bytes = 0.0
        for track in asset.tracks where !track.backing.isAttachment {
            let share = track.timeRange.duration.seconds > 0 ? min(1, seconds / track.timeRange.duration.seconds) : 1
            switch plan.plan(of: track) {
            case .leaveOut: continue
            case .copy, .smartCut, .smartCrossfade: bytes += Double(track.totalSampleDataLength) * share
            case .substitute(let encoded): bytes += Double(encoded.totalSampleDataLength)
            case .encode(_, .audio(let a)), .mix(_, _, _, .audio(let a)):
                bytes += Double(a.bitRate ?? 128_000) / 8 * seconds * share
            case .encode(.video(let v), .video(let e)):
                let size = v.size(forSource: track.naturalSize?.width ?? 0, track.naturalSize?.height ?? 0)
                let fps = track.nominalFrameRate > 0 ? Double(track.nominalFrameRate) : 30
                let crf: Int
                if case .crf(let q) = e.quality { crf = q } else { crf = 23 }
                let efficiency: Double = switch e.codec { case .h264: 1; case .hevc: 0.6; case .vp9: 0.65; case .av1: 0.5 }
                let bitsPerPixel = 0.07 * pow(2, Double(23 - crf) / 6) * efficiency
                bytes += Double(size.width * size.height) * fps * bitsPerPixel / 8 * seconds * share
            case .compose(_, let c, _, _):
                bytes += Double(c.renderSize.width * c.renderSize.height) / c.frameDuration.seconds * 0.07 / 8 * seconds
            case .encode, .mix:
                continue
            }
        }
        return bytes.rounded(saturating: Int64.self, .down) ?? 0
    }
}
