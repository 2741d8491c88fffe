import MediaCore

/// Which tracks of a source a copy or an export keeps: by track ID or by media type, as
/// `mkvmerge --audio-tracks` and `ffmpeg -map` let users choose (the CLI's `--tracks` and
/// `--exclude-tracks`).
///
/// A track is kept when it matches `included` (or `included` is nil) and does not match
/// `excluded`. What a kept track referred to by `tref` is left out of is dropped with a note, and
/// a group whose default track is left out gets its first kept track as its default.
///
/// ```swift
/// let pipe = try SamplePipe.mirroring(asset, to: URL(fileURLWithPath: "movie.ts"),
///                                     keeping: TrackSelection(excluding: [.mediaType(.subtitle), .mediaType(.text)]))
/// ```
public struct TrackSelection: Sendable, Hashable, CustomStringConvertible {
    /// One track, or every track of a media type.
    public enum Item: Sendable, Hashable, CustomStringConvertible {
        /// The track with this ID (as `splice inspect` shows it).
        case trackID(Int)
        /// Every track of this media type.
        case mediaType(MediaType)

        /// `3`, `audio`.
        public var description: String {
            switch self {
            case .trackID(let id): "\(id)"
            case .mediaType(let type): "\(type)"
            }
        }

        func matches(_ track: AssetTrack) -> Bool {
            switch self {
            case .trackID(let id): track.trackID == id
            case .mediaType(let type): track.mediaType == type
            }
        }
    }

    /// The tracks kept; nil: every track.
    public var included: [Item]?
    /// The tracks left out (wins over `included`).
    public var excluded: [Item]

    /// Every track.
    public static let all = TrackSelection()

    /// The tracks that match `including` (nil: every track) and not `excluding`.
    public init(including: [Item]? = nil, excluding: [Item] = []) {
        self.included = including
        self.excluded = excluding
    }

    /// Whether `track` is kept.
    public func includes(_ track: AssetTrack) -> Bool {
        (included?.contains { $0.matches(track) } ?? true) && !excluded.contains { $0.matches(track) }
    }

    /// Whether every track is kept.
    public var keepsEverything: Bool { included == nil && excluded.isEmpty }

    /// Parses a comma-separated list of track IDs and media types: `1,3`, `audio,subtitle`,
    /// `video,2` (the names of `MediaType.description`).
    /// - Throws: `.invalidOperation` naming the item that is neither.
    public static func items(_ list: String) throws -> [Item] {
        try list.split(separator: ",", omittingEmptySubsequences: false).map { part in
            let text = part.trimmingCharacters(in: .whitespaces)
            if let id = Int(text), id > 0 { return .trackID(id) }   // lint: checked (parses text: nil when it is not a number)
            if let type = MediaType.allNames[text] { return .mediaType(type) }
            throw MediaError(.invalidOperation, "'\(text)' is neither a track ID nor a media type ("
                             + MediaType.allNames.keys.sorted().joined(separator: ", ") + ")")
        }
    }

    /// Checks that every track ID named is one of `asset`'s.
    /// - Throws: `.invalidOperation` naming the ID and the asset's tracks.
    public func check(against asset: Asset) throws {
        for case .trackID(let id) in (included ?? []) + excluded where asset.track(withTrackID: id) == nil {
            throw MediaError(.invalidOperation, "there is no track \(id); its tracks are "
                             + asset.tracks.map { "\($0.trackID) (\($0.mediaType))" }.joined(separator: ", "), file: asset.filePath())
        }
    }

    /// `tracks 1, audio except 3`.
    public var description: String {
        let kept = included.map { "tracks " + $0.map(\.description).joined(separator: ", ") } ?? "every track"
        return excluded.isEmpty ? kept : kept + " except " + excluded.map(\.description).joined(separator: ", ")
    }
}

extension MediaType {
    /// Every media type by its name (`description`).
    static let allNames: [String: MediaType] = Dictionary(uniqueKeysWithValues:
        [MediaType.video, .audio, .subtitle, .text, .closedCaption, .timecode, .metadata, .data].map { ($0.description, $0) })
}
