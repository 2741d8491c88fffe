import Foundation

/// The players a file is judged in, each decoding its first video stream to raw I420 frames:
/// ffmpeg, GStreamer (`decodebin`) and mpv (its encoding mode, frames as shown; subtitles not drawn).
public enum Player: String, CaseIterable, Sendable, CustomStringConvertible {
    case ffmpeg, gstreamer, mpv

    public var description: String { rawValue }

    /// Every frame the player shows, as yuv420p bytes, one after the other.
    public func frames(_ url: URL) throws -> Data {
        let out = Fixtures.path("player-\(rawValue)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        switch self {
        case .ffmpeg:
            try Tool.ffmpeg(["-i", url.path, "-map", "0:v:0", "-f", "rawvideo", "-pix_fmt", "yuv420p", out.path])
        case .gstreamer:
            let arguments = ["-q", "filesrc", "location=\(url.path)", "!", "decodebin", "!", "videoconvert", "!",
                             "video/x-raw,format=I420", "!", "filesink", "location=\(out.path)"]
            do {
                try Tool.check("gst-launch-1.0", arguments)
            } catch let error as ToolError where error.message.contains("did not finish") {
                // gst-launch (1.22) has been seen to stall on a VP9 + Opus MP4 under a loaded
                // machine, 2 of 40 runs beside three busy cores and never when idle (280 runs);
                // a second stall in a row is a failure.
                FileHandle.standardError.write(Data("gst-launch stalled on \(url.lastPathComponent); once more\n".utf8))
                try Tool.check("gst-launch-1.0", arguments)
            }
        case .mpv:
            let nut = out.appendingPathExtension("nut")
            defer { try? FileManager.default.removeItem(at: nut) }
            try Tool.check("mpv", ["--no-config", "--really-quiet", "--no-audio", "--sid=no", "--o=\(nut.path)", "--of=nut", "--ovc=rawvideo", url.path])
            try Tool.ffmpeg(["-i", nut.path, "-f", "rawvideo", "-pix_fmt", "yuv420p", out.path])
        }
        return try Data(contentsOf: out)
    }
}
