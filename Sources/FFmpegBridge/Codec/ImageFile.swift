import CFFmpeg
import Foundation
import MediaCore

/// Still images encoded through libavcodec: PNG (from RGBA) and JPEG (from full-range YUV).
public enum ImageFile {
    public enum Format: String, Sendable, CaseIterable {
        case png, jpeg

        /// The format of a file name's extension (`png`, `jpg`, `jpeg`).
        public init?(pathExtension: String) {
            switch pathExtension.lowercased() {
            case "png": self = .png
            case "jpg", "jpeg": self = .jpeg
            default: return nil
            }
        }
    }

    /// The bytes of an image file of `picture`.
    public static func encode(_ picture: PixelBuffer, as format: Format, quality: Int = 3) throws -> Data {
        let source = try (picture.storage as? Frame) ?? Frame.copying(picture)
        var c = Encoder.Configuration(encoderName: format == .png ? "png" : "mjpeg", mediaType: .video, timescale: 25)
        c.width = picture.width
        c.height = picture.height
        c.frameRate = (25, 1)
        switch format {
        case .png:
            c.pixelFormat = .rgba
        case .jpeg:
            c.pixelFormat = .yuv420p
            c.color = PixelBuffer.Color(primaries: picture.color.primaries, transfer: picture.color.transfer,
                                        matrix: picture.color.matrix, isFullRange: true)
            c.options = [("qmin", String(quality)), ("qmax", String(quality))]
        }
        let converter = try PictureConverter(pixelFormat: c.pixelFormat, fullRange: format == .jpeg ? true : nil)
        let frame = try converter.convert(source)
        frame.presentationTimestamp = 0
        let encoder = try Encoder(c)
        let packets = try encoder.encode(frame) + encoder.encode(nil)
        guard let first = packets.first else { throw MediaError(.invalidData, "the \(format) encoder gave no image") }
        return first.data
    }
}
