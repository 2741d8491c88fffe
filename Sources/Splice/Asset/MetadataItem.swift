import Foundation
import MediaCore

/// One metadata item of a track or an asset, under AVFoundation's common keys (`title`,
/// `language`, …), whatever the container calls it (a handler name, a Matroska title).
public struct MetadataItem: Sendable, Hashable, CustomStringConvertible {
    /// The common key: `title`, `language`.
    public var commonKey: String
    /// The value, as text.
    public var value: String

    /// An item of `value` under `commonKey`.
    public init(commonKey: String, value: String) {
        self.commonKey = commonKey
        self.value = value
    }

    public var description: String { "\(commonKey): \(value)" }
}

extension Array where Element == MetadataItem {
    /// The common items of a track: its title and its language (when known).
    static func common(title: String?, language: String?) -> [MetadataItem] {
        var items: [MetadataItem] = []
        if let title, !title.isEmpty { items.append(MetadataItem(commonKey: "title", value: title)) }
        if let language, language != "und" { items.append(MetadataItem(commonKey: "language", value: language)) }
        return items
    }
}

extension MetadataItem {
    /// AVFoundation's common keys Splice reads and writes for a movie, with the QuickTime text
    /// atom, FFmpeg's tag and QuickTime's `mdta` key of each.
    static let movieKeys: [(common: String, atom: FourCC, tag: String, mdta: String)] = [
        ("title", FourCC("\u{A9}nam"), "title", "com.apple.quicktime.title"),
        ("artist", FourCC("\u{A9}ART"), "artist", "com.apple.quicktime.artist"),
        ("albumName", FourCC("\u{A9}alb"), "album", "com.apple.quicktime.album"),
        ("comment", FourCC("\u{A9}cmt"), "comment", "com.apple.quicktime.comment"),
        ("description", FourCC("\u{A9}des"), "description", "com.apple.quicktime.description"),
        ("copyrights", FourCC("\u{A9}cpy"), "copyright", "com.apple.quicktime.copyright"),
        ("creationDate", FourCC("\u{A9}day"), "creation_time", "com.apple.quicktime.creationdate"),
        ("location", FourCC("\u{A9}xyz"), "location", "com.apple.quicktime.location.ISO6709"),
        ("software", FourCC("\u{A9}too"), "encoder", "com.apple.quicktime.software"),
        ("author", FourCC("\u{A9}aut"), "author", "com.apple.quicktime.author"),
        ("make", FourCC("\u{A9}mak"), "make", "com.apple.quicktime.make"),
        ("model", FourCC("\u{A9}mod"), "model", "com.apple.quicktime.model"),
    ]

    /// The movie items of an MP4/MOV's user data (atoms and `mdta` keys Splice knows), with the
    /// `mvhd` creation time (seconds since 1904) as `creationDate` when no item gives one.
    static func movieItems(userData: [(key: String, value: String)], creationTime: UInt64) -> [MetadataItem] {
        var items: [MetadataItem] = []
        for (key, value) in userData {
            guard let k = movieKeys.first(where: { $0.atom.description == key || $0.mdta == key }),
                  !items.contains(where: { $0.commonKey == k.common }) else { continue }
            items.append(MetadataItem(commonKey: k.common, value: value))
        }
        if creationTime > 0, !items.contains(where: { $0.commonKey == "creationDate" }) {
            let date = Date(timeIntervalSince1970: Double(creationTime) - 2_082_844_800)
            items.append(MetadataItem(commonKey: "creationDate", value: ISO8601DateFormatter().string(from: date)))
        }
        return items
    }

    /// The movie items of a file libavformat read, from its tags.
    static func movieItems(tags original: [String: String]) -> [MetadataItem] {
        // Matroska's tags come upper-case (LOCATION), MP4's lower-case.
        let tags = Dictionary(original.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        return movieKeys.compactMap { k in
            (tags[k.tag] ?? (k.common == "creationDate" ? tags["date"] : nil)).map { MetadataItem(commonKey: k.common, value: $0) }
        }
    }

    /// The date of a `creationDate` value: ISO 8601, with or without a fraction of a second
    /// (FFmpeg writes six digits), `Z` or an offset.
    var date: Date? {
        var text = value.trimmingCharacters(in: .whitespaces)
        if let dot = text.firstIndex(of: "."), text[..<dot].contains("T") {
            let end = text[dot...].firstIndex { !$0.isNumber && $0 != "." } ?? text.endIndex
            text.removeSubrange(dot..<end)
        }
        if !text.hasSuffix("Z"), !text.dropFirst(19).contains(where: { $0 == "+" || $0 == "-" }) { text += "Z" }
        return ISO8601DateFormatter().date(from: text)
    }
}
