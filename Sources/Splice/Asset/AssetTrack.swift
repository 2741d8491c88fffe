import MediaCore
import ISOBMFF

/// One track of an `Asset`: its media, language, flags, group, associations and edits.
public final class AssetTrack: Sendable, CustomStringConvertible {
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
        var naturalSize: Dimensions?
        var preferredTransform = AffineTransform2D.identity
        var preferredVolume: Float = 0
        var totalSampleDataLength: Int64 = 0
        var minFrameDuration = MediaTime.invalid
        var commonMetadata: [MetadataItem] = []
    }

    /// The track ID (`tkhd` for MP4/MOV; stream index + 1 for other containers).
    public let trackID: Int
    /// What the track carries.
    public let mediaType: MediaType
    /// The descriptions of its samples, one per sample entry (most tracks have one).
    public let formatDescriptions: [FormatDescription]
    /// ISO 639-2/T language; nil when the file says none (`und`).
    public let languageCode: String?
    /// BCP 47 tag from `elng`, when present.
    public let extendedLanguageTag: String?
    /// Whether a player plays the track by default (`tkhd` flags; Matroska's default flag).
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
    /// Whether the track is forced (subtitles shown whatever the viewer chose).
    public let isForced: Bool
    /// The track ID references of each association type, as stored.
    public let associations: [TrackAssociationType: [Int]]
    /// The display size (`tkhd` width and height for MP4/MOV, else the coded size) of a visual
    /// track; nil for audio.
    public let naturalSize: Dimensions?
    /// How the frames are displayed (`tkhd` matrix): a rotation for a phone's portrait video.
    public let preferredTransform: AffineTransform2D
    /// The audio volume (`tkhd`; 1 = full); 0 for tracks without sound.
    public let preferredVolume: Float
    /// The sum of the sample sizes, in bytes: exact for MP4/MOV; for other containers estimated
    /// from the stream's bit rate (0 when the container does not say).
    public let totalSampleDataLength: Int64
    /// The shortest sample duration of a video track (MP4/MOV); invalid when not known.
    public let minFrameDuration: MediaTime
    /// The track's title and language as metadata items (`title`, `language`).
    public let commonMetadata: [MetadataItem]

    /// The asset the track belongs to; nil once that object is gone (the track itself stays
    /// readable: a composition takes it, and `AssetReader(asset: track.owningAsset)` reads it).
    public var asset: Asset? { link.asset }
    /// Its asset's file and source, kept for as long as the track lives.
    var origin: AssetOrigin { link.origin }
    /// The asset and origin, made once when the asset is (`Asset.init`).
    let link = AssetLink()
    /// The track's asset: `asset`, or, once that object is gone, one made again around the
    /// track alone (`Asset(reviving:)`).
    var owningAsset: Asset { asset ?? Asset(reviving: self) }
    /// What the track's source keeps of it.
    let backing: any TrackBacking

    init(_ p: Properties, backing: any TrackBacking) {
        trackID = p.trackID
        mediaType = p.mediaType
        formatDescriptions = p.formatDescriptions
        languageCode = p.languageCode == "und" || p.languageCode.isEmpty ? nil : p.languageCode
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
        naturalSize = p.naturalSize
        preferredTransform = p.preferredTransform
        preferredVolume = p.preferredVolume
        totalSampleDataLength = p.totalSampleDataLength
        minFrameDuration = p.minFrameDuration
        commonMetadata = p.commonMetadata
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

    /// Samples per second over the track's media (the frame rate of video); 0 when not known.
    public var nominalFrameRate: Float {
        if sampleCount == nil, let rate = backing.frameRate { return Float(Double(rate.num) / Double(rate.den)) }
        guard let n = sampleCount, n > 0, timeRange.duration.isNumeric, timeRange.duration > .zero else { return 0 }
        return Float(Double(n) / mediaDuration.seconds)
    }

    /// Bits per second over the track's duration; 0 when not known.
    public var estimatedDataRate: Float {
        guard totalSampleDataLength > 0, mediaDuration.seconds > 0 else { return 0 }
        return Float(Double(totalSampleDataLength) * 8 / mediaDuration.seconds)
    }

    /// The duration of the media (all samples), whatever part of it the edit list shows.
    var mediaDuration: MediaTime { backing.mediaDuration ?? timeRange.duration }

    /// The characteristics the track's media has (`visual`, `audible`, `legible`, accessibility).
    public var mediaCharacteristics: [MediaCharacteristic] {
        MediaCharacteristic.allCases.filter(hasMediaCharacteristic)
    }

    /// Whether Splice can hand out and write the track's samples: a known codec with an ISO
    /// sample entry (or text subtitles), not an attachment.
    public var isPlayable: Bool {
        guard !backing.isAttachment, let f = formatDescriptions.first else { return false }
        return backing.isoProblem == nil && (f.sampleEntry != nil || mediaType.isLegible)
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

    /// The ISO sample-entry type of the track's samples (`avc1`, `mp4a`, `tx3g`), for every
    /// container (Splice builds sample entries for Matroska, TS and the rest); for samples
    /// that have none, a code made from the codec's name.
    public var codec: FourCC? { formatDescriptions.first?.codec }

    /// FFmpeg's name of the codec (`h264`, `aac`, `mov_text`), for every container; the
    /// sample-entry type when FFmpeg has no name for it; "none" for a track without samples.
    public var codecName: String {
        guard let f = formatDescriptions.first else { return "none" }
        return f.codecName ?? f.codec.description
    }

    public var description: String {
        "track \(trackID) (\(mediaType), \(codecName), \(languageCode ?? "und"))"
    }

    /// Timeline time − media time through the edit that shows media first (a single-edit list);
    /// for a track without an edit list, minus the asset's start time (libavformat containers
    /// whose timestamps start later than 0, such as MPEG-TS).
    var timelineShift: MediaTime {
        guard let first = segments.first(where: { !$0.isEmpty }), let source = first.source else {
            // (the origin's: a clip's `Asset` may be gone while a composition reads its track)
            return .zero - (asset?.startTime ?? link.attachedOrigin?.startTime ?? .zero)
        }
        return first.target.start - source.start
    }
}

/// Tracks that are alternatives to each other: one shared non-zero alternate group.
public struct TrackGroup: Sendable {
    /// The group number (`tkhd`).
    public let alternateGroup: Int
    /// The IDs of the group's tracks.
    public var trackIDs: [Int] { members.map(\.trackID) }
    let members: [AssetTrack]
    /// The enabled track of the group (the one a player shows by default), if any.
    public var defaultTrack: AssetTrack? { members.first { $0.isEnabled } }
}

/// A track's way back to its asset, set once, when the asset that loaded the track is made: the
/// asset weakly (it holds its tracks) and its origin strongly. An asset made again around the
/// track (`Asset(reviving:)`) does not change it.
final class AssetLink: Sendable {
    private struct Link {
        weak var asset: Asset?
        var origin: AssetOrigin?
    }
    private let link = Mutex(Link())

    /// Ties the track to `asset` and `origin`, the first time only.
    func attach(_ asset: Asset, _ origin: AssetOrigin) {
        link.withLock { if $0.origin == nil { ($0.asset, $0.origin) = (asset, origin) } }
    }

    /// The asset, while that object lives.
    var asset: Asset? { link.withLock { $0.asset } }

    /// The asset's file and source, once the asset has been made.
    var attachedOrigin: AssetOrigin? { link.withLock { $0.origin } }

    /// The asset's file and source (a track is read only once its asset has been made).
    var origin: AssetOrigin {
        guard let origin = attachedOrigin else { preconditionFailure("a track read before its asset was made") }
        return origin
    }
}
