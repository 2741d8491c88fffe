import MediaCore

/// AVFoundation's export presets (`AVAssetExportPreset…`), by the names the CLI takes.
///
/// | preset | video | audio |
/// |---|---|---|
/// | `passthrough` | copied | copied |
/// | `lowQuality` | H.264 ≤ 640x360, CRF 28, x264 `veryfast` | AAC 64 kb/s |
/// | `mediumQuality` | H.264 ≤ 1280x720, CRF 23, x264 `medium` | AAC 128 kb/s |
/// | `highestQuality` | H.264, source size, CRF 18, x264 `medium` | AAC 192 kb/s |
/// | `640x480` … `3840x2160` | H.264 ≤ the size, CRF 20, x264 `medium` | AAC 160 kb/s |
/// | `hevc1920x1080`, `hevc3840x2160` | HEVC ≤ the size, CRF 24, x265 `medium`, 10-bit when the source is | AAC 160 kb/s |
/// | `hevcHighestQuality` | HEVC, source size, CRF 20 | AAC 192 kb/s |
/// | `appleM4A` | none (`.m4a`) | AAC 192 kb/s |
public enum ExportPreset: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Every track copied (`AVAssetExportPresetPassthrough`).
    case passthrough
    /// H.264 up to 640x360 and AAC 64 kb/s (`AVAssetExportPresetLowQuality`).
    case lowQuality
    /// H.264 up to 1280x720 and AAC 128 kb/s (`AVAssetExportPresetMediumQuality`).
    case mediumQuality
    /// H.264 at the source's size and AAC 192 kb/s (`AVAssetExportPresetHighestQuality`).
    case highestQuality
    /// H.264 up to 640x480 (`AVAssetExportPreset640x480`).
    case preset640x480 = "640x480"
    /// H.264 up to 960x540 (`AVAssetExportPreset960x540`).
    case preset960x540 = "960x540"
    /// H.264 up to 1280x720 (`AVAssetExportPreset1280x720`).
    case preset1280x720 = "1280x720"
    /// H.264 up to 1920x1080 (`AVAssetExportPreset1920x1080`).
    case preset1920x1080 = "1920x1080"
    /// H.264 up to 3840x2160 (`AVAssetExportPreset3840x2160`).
    case preset3840x2160 = "3840x2160"
    /// HEVC up to 1920x1080 (`AVAssetExportPresetHEVC1920x1080`).
    case hevc1920x1080
    /// HEVC up to 3840x2160 (`AVAssetExportPresetHEVC3840x2160`).
    case hevc3840x2160
    /// HEVC at the source's size (`AVAssetExportPresetHEVCHighestQuality`).
    case hevcHighestQuality
    /// Sound only, AAC 192 kb/s in `.m4a` (`AVAssetExportPresetAppleM4A`).
    case appleM4A

    public var description: String { rawValue }

    /// What the preset encodes video to; nil: video is copied (`passthrough`) or left out (`appleM4A`).
    public struct Video: Sendable, Hashable {
        /// The video codec.
        public var codec: VideoEncodingSettings.Codec
        /// The box the picture fits in (aspect kept, never upscaled); nil: the source's size.
        public var box: Dimensions?
        /// The constant rate factor (lower is better).
        public var crf: Int
        /// The x264/x265 preset.
        public var speed: String
        /// HEVC presets: 10-bit output from a 10-bit source.
        public var keepsTenBit: Bool
    }

    /// What the preset encodes video to; nil: video is copied (`passthrough`) or left out (`appleM4A`).
    public var video: Video? {
        func h264(_ box: Dimensions?, _ crf: Int, _ speed: String = "medium") -> Video {
            Video(codec: .h264, box: box, crf: crf, speed: speed, keepsTenBit: false)
        }
        switch self {
        case .passthrough, .appleM4A: return nil
        case .lowQuality: return h264(Dimensions(width: 640, height: 360), 28, "veryfast")
        case .mediumQuality: return h264(Dimensions(width: 1280, height: 720), 23)
        case .highestQuality: return h264(nil, 18)
        case .preset640x480: return h264(Dimensions(width: 640, height: 480), 20)
        case .preset960x540: return h264(Dimensions(width: 960, height: 540), 20)
        case .preset1280x720: return h264(Dimensions(width: 1280, height: 720), 20)
        case .preset1920x1080: return h264(Dimensions(width: 1920, height: 1080), 20)
        case .preset3840x2160: return h264(Dimensions(width: 3840, height: 2160), 20)
        case .hevc1920x1080: return Video(codec: .hevc, box: Dimensions(width: 1920, height: 1080), crf: 24, speed: "medium", keepsTenBit: true)
        case .hevc3840x2160: return Video(codec: .hevc, box: Dimensions(width: 3840, height: 2160), crf: 24, speed: "medium", keepsTenBit: true)
        case .hevcHighestQuality: return Video(codec: .hevc, box: nil, crf: 20, speed: "medium", keepsTenBit: true)
        }
    }

    /// The AAC bit rate audio is encoded at (and at or below which AAC is copied); nil: copied.
    public var audioBitRate: Int? {
        switch self {
        case .passthrough: nil
        case .lowQuality: 64_000
        case .mediumQuality: 128_000
        case .highestQuality, .hevcHighestQuality, .appleM4A: 192_000
        default: 160_000
        }
    }

    /// One line for `splice export --list-presets`.
    public var summary: String {
        guard self != .passthrough else { return "every track copied, bytes unchanged" }
        let audio = "AAC \(audioBitRate! / 1000) kb/s"
        guard let v = video else { return "audio only (.m4a), \(audio)" }
        let size = v.box.map { "≤ \($0)" } ?? "source size"
        let name = v.codec == .h264 ? "H.264" : "HEVC"
        return "\(name) \(size), CRF \(v.crf), \(v.codec == .h264 ? "x264" : "x265") \(v.speed)\(v.keepsTenBit ? ", 10-bit from 10-bit" : ""); \(audio)"
    }
}
