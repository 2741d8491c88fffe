import MediaCore
import ISOBMFF

/// One track of an `Asset`: its media, language, flags, group, associations and edits.
public final class AssetTrack: @unchecked Sendable, CustomStringConvertible {
    /// The public properties of a track, as its source's loader fills them in.
    struct Properties {
        var trackID: Int
        var mediaType: MediaType
        var formatDescriptions: [FormatDescription]
        var languageCode = "und"
        var extendedLanguageTag: String?
        var isEnabled = true
        var alternateGroup = 0
        var name: String?
        var timeRange: TimeRange
        var naturalTimeScale: Int32
        var segments: [TrackSegment] = []
        var sampleCount: Int?
        var isDefault = false
        var isForced = false
        var associations: [TrackAssociationType: [Int]] = [:]
    }

    /// The track ID (`tkhd` for MP4/MOV; stream index + 1 for other containers).
    public let trackID: Int
    public let mediaType: MediaType
    public let formatDescriptions: [FormatDescription]
    /// ISO 639-2/T language (`und` when unspecified).
    public let languageCode: String
    /// BCP 47 tag from `elng`, when present.
    public let extendedLanguageTag: String?
    public let isEnabled: Bool
    /// The `tkhd` alternate group; 0 means none.
    public let alternateGroup: Int
    /// The handler name (MP4/MOV) or title (other containers).
    public let name: String?
    /// Where the track lies on the movie timeline.
    public let timeRange: TimeRange
    /// The media timescale (`mdhd`).
    public let naturalTimeScale: Int32
    /// The edit list; empty when the track has none.
    public let segments: [TrackSegment]
    /// Number of samples, when the container says.
    public let sampleCount: Int?
    /// Dispositions carried by containers other than MP4 (Matroska default/forced flags).
    public let isDefault: Bool
    public let isForced: Bool
    /// The track ID references of each association type, as stored.
    public let associations: [TrackAssociationType: [Int]]

    /// The asset the track belongs to.
    public internal(set) weak var asset: Asset?
    /// What the track's source keeps of it.
    let backing: any TrackBacking

    init(_ p: Properties, backing: any TrackBacking) {
        trackID = p.trackID
        mediaType = p.mediaType
        formatDescriptions = p.formatDescriptions
        languageCode = p.languageCode
        extendedLanguageTag = p.extendedLanguageTag
        isEnabled = p.isEnabled
        alternateGroup = p.alternateGroup
        name = p.name
        timeRange = p.timeRange
        naturalTimeScale = p.naturalTimeScale
        segments = p.segments
        sampleCount = p.sampleCount
        isDefault = p.isDefault
        isForced = p.isForced
        associations = p.associations
        self.backing = backing
    }

    /// The association types this track has (`tref` children), sorted.
    public var availableTrackAssociationTypes: [TrackAssociationType] {
        associations.keys.sorted()
    }

    /// The tracks this track refers to with `type`, in stored order; IDs that name no track are skipped.
    ///
    /// ```swift
    /// for fallback in track.associatedTracks(ofType: .audioFallback) { print(fallback.trackID) }
    /// ```
    public func associatedTracks(ofType type: TrackAssociationType) -> [AssetTrack] {
        guard let ids = associations[type], let asset else { return [] }
        return ids.compactMap { asset.track(withTrackID: $0) }
    }

    /// Whether the track's media has `characteristic`.
    public func hasMediaCharacteristic(_ characteristic: MediaCharacteristic) -> Bool {
        switch characteristic {
        case .legible: mediaType.isLegible
        case .audible: mediaType == .audio
        case .visual: mediaType == .video
        case .describesMusicAndSoundForAccessibility, .describesVideoForAccessibility:
            backing.accessibility.contains(characteristic)
        }
    }

    /// The codec as a short name: the sample-entry type for MP4/MOV, FFmpeg's codec name otherwise.
    public var codecName: String {
        guard let f = formatDescriptions.first else { return "none" }
        if backing.isoStructure != nil { return f.codec.description }
        return f.codecName ?? f.codec.description
    }

    public var description: String {
        "track \(trackID) (\(mediaType), \(codecName), \(languageCode))"
    }

    /// Timeline time − media time through the edit that shows media first (a single-edit list);
    /// for a track without an edit list, minus the asset's start time (libavformat containers
    /// whose timestamps start later than 0, such as MPEG-TS).
    var timelineShift: MediaTime {
        guard let first = segments.first(where: { !$0.isEmpty }), let source = first.source else {
            return .zero - (asset?.startTime ?? .zero)
        }
        return first.target.start - source.start
    }
}

/// Tracks that are alternatives to each other: one shared non-zero alternate group.
public struct TrackGroup: Sendable {
    public let alternateGroup: Int
    public let tracks: [AssetTrack]
    /// The enabled track of the group (the one a player shows by default), if any.
    public var defaultTrack: AssetTrack? { tracks.first { $0.isEnabled } }
}
