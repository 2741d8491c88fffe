// The types Splice's API speaks in: `import Splice` is enough to use it.
@_exported import MediaCore
@_exported import Subtitles

import FFmpegBridge
/// A still image (PNG, JPEG, WebP, BMP, TIFF), decoded through libavcodec and turned upright:
/// what a video composition's overlays draw.
public typealias StillImage = FFmpegBridge.StillImage
