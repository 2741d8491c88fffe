import Foundation
import MediaCore
import FFmpegBridge

/// Thumbnails as files: the pictures at given times written as PNG or JPEG, all or nothing.
extension AssetImageGenerator {
    /// An image written by `writeImages(at:to:replacing:syncing:isCancelled:)`.
    public struct WrittenImage: Sendable {
        /// The file written.
        public let path: String
        /// The image's width in pixels.
        public let width: Int
        /// The image's height in pixels.
        public let height: Int
        /// The time the picture is shown from.
        public let actualTime: MediaTime
    }

    /// Writes the picture shown at each time to its path (PNG or JPEG, by the path's
    /// extension), all or nothing: each is written to a temporary file, and only when every one
    /// is there are they renamed into place.
    /// - Parameters:
    ///   - times: the times on the asset's timeline.
    ///   - paths: one per time.
    ///   - replacing: whether existing files at `paths` are replaced (else they fail the job).
    ///   - syncing: flush each file to disk before it is put in place (`AssetWriter.syncsToDisk`).
    ///   - isCancelled: asked before each image; `true` stops the job with `.cancelled`.
    /// - Throws: `.invalidOperation` when counts differ or a path is an input; `.unsupported`
    ///   for an extension that is neither PNG nor JPEG; `.fileExists` when a path exists and
    ///   `replacing` is false; what `image(at:)` throws. Nothing is written then.
    public func writeImages(at times: [MediaTime], to paths: [String], replacing: Bool = false, syncing: Bool = false,
                            isCancelled: () -> Bool = { false }) throws -> [WrittenImage] {
        guard times.count == paths.count else { throw MediaError(.invalidOperation, "\(times.count) times and \(paths.count) paths") }
        let formats = try paths.map { path in
            guard let f = ImageFileFormat(pathExtension: URL(fileURLWithPath: path).pathExtension) else {
                throw MediaError(.unsupported, "writes .png, .jpg or .jpeg images", file: path)
            }
            return f
        }
        for path in paths { try OutputFile.checkDestination(path, replacing: replacing, inputs: asset.sourceURLs.map(\.path)) }
        var files: [OutputFile] = []
        var written: [WrittenImage] = []
        for ((time, path), format) in zip(zip(times, paths), formats) {
            if isCancelled() { throw MediaError(.cancelled, "interrupted; nothing was written", file: path) }
            let (image, actual) = try self.image(at: time)
            let data = format == .png ? try AssetImageGenerator.pngData(image) : try AssetImageGenerator.jpegData(image)
            let file = try OutputFile(destination: path, replacing: replacing, syncing: syncing)
            try file.write(data)
            files.append(file)
            written.append(WrittenImage(path: path, width: image.width, height: image.height, actualTime: actual))
        }
        try OutputFile.commitAll(files)
        return written
    }
}
