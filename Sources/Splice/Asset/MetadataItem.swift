import MediaCore

/// One metadata item of a track or an asset, under AVFoundation's common keys (`title`,
/// `language`, …), whatever the container calls it (a handler name, a Matroska title).
public struct MetadataItem: Sendable, Hashable, CustomStringConvertible {
    /// The common key: `title`, `language`.
    public var commonKey: String
    public var value: String

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
