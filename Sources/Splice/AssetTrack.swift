import MediaCore
import ISOBMFF

/// One track of an `Asset`: its media, language, flags, group, associations and edits.
public final class AssetTrack: @unchecked Sendable, CustomStringConvertible {
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

    weak var asset: Asset?
    /// The parsed `trak` for MP4/MOV sources.
    let isoTrack: Track?
    /// The libavformat stream index for other sources.
    let streamIndex: Int?
    /// What Splice knows of a libavformat stream beyond the public fields.
    struct StreamDetails {
        var timeBase: (num: Int32, den: Int32)
        /// How packets become ISO samples (the format description's sample entry).
        var conversion: PacketConversion
        /// Why the stream has no ISO sample entry, when it has none.
        var isoProblem: String?
        /// Encoder delay in samples (Opus pre-skip, Matroska's CodecDelay).
        var initialPadding = 0
        /// Video whose frames are reordered (B-frames).
        var reordersFrames = false
        var isHearingImpaired = false
        var isVisualImpaired = false
    }
    let stream: StreamDetails?

    init(trackID: Int, mediaType: MediaType, formatDescriptions: [FormatDescription], languageCode: String,
         extendedLanguageTag: String?, isEnabled: Bool, alternateGroup: Int, name: String?, timeRange: TimeRange,
         naturalTimeScale: Int32, segments: [TrackSegment], sampleCount: Int?, isDefault: Bool, isForced: Bool,
         associations: [TrackAssociationType: [Int]], isoTrack: Track?, streamIndex: Int?,
         stream: StreamDetails? = nil) {
        self.trackID = trackID
        self.mediaType = mediaType
        self.formatDescriptions = formatDescriptions
        self.languageCode = languageCode
        self.extendedLanguageTag = extendedLanguageTag
        self.isEnabled = isEnabled
        self.alternateGroup = alternateGroup
        self.name = name
        self.timeRange = timeRange
        self.naturalTimeScale = naturalTimeScale
        self.segments = segments
        self.sampleCount = sampleCount
        self.isDefault = isDefault
        self.isForced = isForced
        self.associations = associations
        self.isoTrack = isoTrack
        self.streamIndex = streamIndex
        self.stream = stream
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
        case .describesMusicAndSoundForAccessibility:
            stream?.isHearingImpaired ?? taggedCharacteristics.contains(AssetTrack.musicAndSoundTag)
        case .describesVideoForAccessibility:
            stream?.isVisualImpaired ?? taggedCharacteristics.contains(AssetTrack.videoDescriptionTag)
        }
    }

    /// Apple's tagged media characteristics (`udta/tagc`) of an MP4/MOV track.
    static let musicAndSoundTag = "public.accessibility.describes-music-and-sound"
    static let videoDescriptionTag = "public.accessibility.describes-video"

    var taggedCharacteristics: [String] {
        guard let udta = isoTrack?.otherTrackBoxes.first(where: { $0.type == "udta" }),
              let boxes = try? Box.parseAll(Array(udta.bytes.dropFirst(8))) else { return [] }
        return boxes.filter { $0.type == "tagc" }.map { String(decoding: $0.payload.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// The codec as a short name: the sample-entry type for MP4/MOV, FFmpeg's codec name otherwise.
    public var codecName: String {
        guard let f = formatDescriptions.first else { return "none" }
        if isoTrack != nil { return f.codec.description }
        return f.codecName ?? f.codec.description
    }

    public var description: String {
        "track \(trackID) (\(mediaType), \(codecName), \(languageCode))"
    }
}

/// Tracks that are alternatives to each other: one shared non-zero alternate group.
public struct TrackGroup: Sendable {
    public let alternateGroup: Int
    public let tracks: [AssetTrack]
    /// The enabled track of the group (the one a player shows by default), if any.
    public var defaultTrack: AssetTrack? { tracks.first { $0.isEnabled } }
}
