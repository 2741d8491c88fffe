import Foundation
import MediaCore
import ISOBMFF
import FFmpegBridge

/// How Splice reads a kind of file, one row per native reader, as `FileType` has one row per
/// kind of file written: `Asset(url:)` tries the rows whose first bytes match, in order, and
/// reads what none takes through libavformat (`FormatSource`). Adding a native reader is adding
/// a row to `rows`.
struct SourceProber: Sendable {
    /// The reader's name, for messages.
    let name: String
    /// Extensions that name files of this kind: such a file that libavformat cannot read either
    /// gets this reader's reason (a damaged MP4 named `.mp4`).
    let extensions: Set<String>
    /// libavformat's demuxers whose files this reader reads instead of them, whatever their
    /// first bytes (MP4/MOV: the MOV demuxer sizes its index by the file's own counts).
    let replacesDemuxers: [String]
    /// Whether the file's first 16 bytes say it is of this kind.
    let sniff: @Sendable ([UInt8]) -> Bool
    /// Reads the file (`salvage`: a damaged one for what it still holds); nil when this reader
    /// does not take it whole (the next row, or libavformat, reads it).
    let load: @Sendable (ReadOnlyFile, _ salvage: Bool) throws -> LoadedAsset?

    /// The native readers, in the order they are tried.
    static let rows: [SourceProber] = [isoMovie, matroska]

    /// MP4, MOV, M4A, 3GP… read natively: refused with the box path and what is wrong when damaged.
    static let isoMovie = SourceProber(
        name: "MP4/MOV", extensions: ["mp4", "mov", "qt", "m4a", "m4b", "m4v", "3gp", "3g2"], replacesDemuxers: ["mov"],
        sniff: { MovieFile.sniff($0) }, load: { try ISOMovieSource.load($0, salvage: $1) })

    /// Matroska and WebM of the common shape, read natively; anything else of them by libavformat.
    static let matroska = SourceProber(
        name: "Matroska", extensions: [], replacesDemuxers: [],
        sniff: { $0.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) }, load: { file, _ in try? MatroskaSource.load(file) })

    /// Reads the file at `path`: the first row that takes it, else libavformat by its content.
    static func load(_ file: ReadOnlyFile, path: String, salvage: Bool) throws -> LoadedAsset {
        let prefix = try file.read(at: 0, count: Int(clamping: min(file.size, 16)))
        for row in rows where row.sniff(prefix) {
            if let loaded = try row.load(file, salvage) { return loaded }
        }
        // No row's by its first bytes: what libavformat finds in it by its content. A file it
        // takes for a row's kind is still read by that row (or refused with its reason), and
        // so is a file named as a row's kind that libavformat cannot read (or reads as another).
        let named = rows.first { $0.extensions.contains(URL(fileURLWithPath: path).pathExtension.lowercased()) }
        let probed: String?
        do { probed = try InputFormatContext.probe(path: path) } catch { if named != nil { probed = nil } else { throw error.mediaError } }
        let replacing = probed.flatMap { p in rows.first { $0.replacesDemuxers.contains { p.contains($0) } } }
        if let probed, replacing == nil {
            do { return try FormatSource.load(path, format: probed) }   // (a Matroska file named `.mp4` too)
            catch where named != nil { return try read(file, with: named!, salvage: salvage) }
        }
        return try read(file, with: replacing ?? named!, salvage: salvage)
    }

    private static func read(_ file: ReadOnlyFile, with row: SourceProber, salvage: Bool) throws -> LoadedAsset {
        guard let loaded = try row.load(file, salvage) else { throw MediaError(.unsupported, "the \(row.name) reader cannot read it") }
        return loaded
    }
}
