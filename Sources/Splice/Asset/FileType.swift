import MediaCore
import ISOBMFF

/// The kinds of file `AssetWriter` writes: MP4, MOV, M4A and M4V natively; Matroska, WebM,
/// MPEG-TS and AVI through libavformat's muxers.
public enum FileType: String, Sendable, CaseIterable {
    case mp4, mov, m4a, m4v
    case mkv, mka, webm, ts, avi

    /// The file type for a path extension, case-insensitive.
    public init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "mp4": self = .mp4
        case "mov", "qt": self = .mov
        case "m4a", "m4b": self = .m4a
        case "m4v": self = .m4v
        case "mkv": self = .mkv
        case "mka": self = .mka
        case "webm": self = .webm
        case "ts", "m2t", "mts": self = .ts
        case "avi": self = .avi
        default: return nil
        }
    }

    /// Whether Splice writes the file itself (ISO-BMFF), keeping every box of a mirrored source.
    public var isISO: Bool {
        switch self {
        case .mp4, .mov, .m4a, .m4v: true
        default: false
        }
    }

    /// The libavformat muxer for the types written through FFmpeg.
    var muxerName: String? {
        switch self {
        case .mkv, .mka: "matroska"
        case .webm: "webm"
        case .ts: "mpegts"
        case .avi: "avi"
        default: nil
        }
    }

    /// Whether the file can hold text subtitle tracks (tx3g; SRT in Matroska; WebVTT in WebM).
    public var holdsTextSubtitles: Bool {
        switch self {
        case .mp4, .mov, .m4v, .mkv, .webm: true
        default: false
        }
    }

    /// Whether the container lists chapters of its own (Matroska, WebM); MP4/MOV carry them as
    /// a chapter track instead.
    var holdsChapters: Bool { muxerName == "matroska" || muxerName == "webm" }

    /// Whether the file is QuickTime (Macintosh language codes, Pascal handler names).
    public var isQuickTime: Bool { self == .mov }

    /// The `ftyp` a new file of this type gets.
    var fileTypeBox: FileTypeBox {
        switch self {
        case .mov: FileTypeBox(majorBrand: "qt  ", minorVersion: 0x200, compatibleBrands: ["qt  "])
        case .m4a: FileTypeBox(majorBrand: "M4A ", minorVersion: 512, compatibleBrands: ["M4A ", "isom", "iso2", "mp41"])
        case .m4v: FileTypeBox(majorBrand: "M4V ", minorVersion: 512, compatibleBrands: ["M4V ", "isom", "iso2", "avc1", "mp41"])
        default: FileTypeBox(majorBrand: "isom", minorVersion: 512, compatibleBrands: ["isom", "iso2", "avc1", "mp41"])
        }
    }

    /// The file type of an existing movie (by its `ftyp`).
    init(_ ftyp: FileTypeBox?) {
        guard let ftyp else { self = .mov; return }
        switch ftyp.majorBrand {
        case "qt  ": self = .mov
        case "M4A ", "M4B ": self = .m4a
        case "M4V ", "M4VH", "M4VP": self = .m4v
        default: self = .mp4
        }
    }
}

extension FileTypeBox {
    func write(to w: inout BoxWriter) {
        w.box("ftyp") { w in
            w.fourCC(majorBrand)
            w.u32(minorVersion)
            for b in compatibleBrands { w.fourCC(b) }
        }
    }
}
