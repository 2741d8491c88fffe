import MediaCore
import ISOBMFF

/// The kinds of file `AssetWriter` writes natively.
public enum FileType: String, Sendable, CaseIterable {
    case mp4, mov, m4a, m4v

    /// The file type for a path extension (`mp4`, `mov`/`qt`, `m4a`/`m4b`, `m4v`), case-insensitive.
    public init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "mp4": self = .mp4
        case "mov", "qt": self = .mov
        case "m4a", "m4b": self = .m4a
        case "m4v": self = .m4v
        default: return nil
        }
    }

    /// Whether the file is QuickTime (Macintosh language codes, Pascal handler names).
    public var isQuickTime: Bool { self == .mov }

    /// The `ftyp` a new file of this type gets.
    var fileTypeBox: FileTypeBox {
        switch self {
        case .mp4: FileTypeBox(majorBrand: "isom", minorVersion: 512, compatibleBrands: ["isom", "iso2", "avc1", "mp41"])
        case .mov: FileTypeBox(majorBrand: "qt  ", minorVersion: 0x200, compatibleBrands: ["qt  "])
        case .m4a: FileTypeBox(majorBrand: "M4A ", minorVersion: 512, compatibleBrands: ["M4A ", "isom", "iso2", "mp41"])
        case .m4v: FileTypeBox(majorBrand: "M4V ", minorVersion: 512, compatibleBrands: ["M4V ", "isom", "iso2", "avc1", "mp41"])
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
