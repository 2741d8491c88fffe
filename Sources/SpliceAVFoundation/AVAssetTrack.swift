// AVFoundation's track class over Splice's `AssetTrack`: the properties in AVFoundation's
// types (`naturalSize` a `CGSize`, `formatDescriptions` `[Any]` of `CMFormatDescription`s,
// `preferredTransform` a `CGAffineTransform`), and `track` for what Splice adds.
import Foundation
@_exported import Splice

/// A track of a movie (AVFoundation's `AVAssetTrack`); `track` is Splice's.
public final class AVAssetTrack: Sendable, CustomStringConvertible {
    /// Splice's track.
    public let track: AssetTrack
    /// The asset, held weakly (the asset holds its tracks).
    private struct Owner { weak var asset: AVAsset? }
    private let owner: Mutex<Owner>

    init(_ track: AssetTrack, of asset: AVAsset) {
        self.track = track
        owner = Mutex(Owner(asset: asset))
    }

    /// The asset the track belongs to (not kept alive by it).
    public var asset: AVAsset? { owner.withLock { $0.asset } }

    /// The track's ID.
    public var trackID: CMPersistentTrackID { track.trackID }
    /// The kind of media.
    public var mediaType: AVMediaType { track.mediaType }
    /// The sample descriptions, as `CMFormatDescription`s (`[Any]`, as AVFoundation's).
    public var formatDescriptions: [Any] { track.formatDescriptions }
    /// The span of the movie's timeline the track covers.
    public var timeRange: CMTimeRange { track.timeRange }
    /// The track's media timescale.
    public var naturalTimeScale: CMTimeScale { track.naturalTimeScale }
    /// The size of the stored pictures; zero for tracks without pictures.
    public var naturalSize: CGSize { track.naturalSize.map { CGSize($0) } ?? .zero }
    /// How the pictures are meant to be shown (a rotation, for phone video).
    public var preferredTransform: CGAffineTransform { track.preferredTransform }
    /// The playback volume (audio).
    public var preferredVolume: Float { track.preferredVolume }
    /// Frames per second (video).
    public var nominalFrameRate: Float { track.nominalFrameRate }
    /// Bits per second.
    public var estimatedDataRate: Float { track.estimatedDataRate }
    /// The shortest time between two samples.
    public var minFrameDuration: CMTime { track.minFrameDuration }
    /// The sample data's size in bytes.
    public var totalSampleDataLength: Int64 { track.totalSampleDataLength }
    /// The ISO 639-2/T language code, if any.
    public var languageCode: String? { track.languageCode }
    /// The BCP 47 language tag, if any.
    public var extendedLanguageTag: String? { track.extendedLanguageTag }
    /// Whether the track is shown by default.
    public var isEnabled: Bool { track.isEnabled }
    /// Whether Splice can decode the track.
    public var isPlayable: Bool { track.isPlayable }
    /// Whether the samples are in the movie's file (Splice reads no references to others).
    public var isSelfContained: Bool { true }
    /// Whether the track's samples can be decoded.
    public var isDecodable: Bool { track.isPlayable }
    /// The track's edits.
    public var segments: [AVAssetTrackSegment] { track.segments }
    /// What the media offers.
    public var mediaCharacteristics: [AVMediaCharacteristic] { track.mediaCharacteristics }
    /// The track's metadata items.
    public var commonMetadata: [AVMetadataItem] { track.commonMetadata }
    /// The track's metadata items.
    public var metadata: [AVMetadataItem] { track.commonMetadata }
    /// The handler name (Splice's addition).
    public var name: String? { track.name }
    /// The kinds of references the track has to others (`tref`).
    public var availableTrackAssociationTypes: [AVAssetTrack.AssociationType] { track.availableTrackAssociationTypes }
    /// Whether the track can be read sample by sample from any position.
    public var canProvideSampleCursors: Bool { false }

    /// Whether the media offers `characteristic`.
    public func hasMediaCharacteristic(_ characteristic: AVMediaCharacteristic) -> Bool { track.hasMediaCharacteristic(characteristic) }

    /// The tracks this one refers to by `type`.
    public func associatedTracks(ofType type: AVAssetTrack.AssociationType) -> [AVAssetTrack] {
        let ids = track.associatedTracks(ofType: type).map(\.trackID)
        return ids.compactMap { id in asset?.track(withTrackID: id) }
    }

    /// The segment of the track at `trackTime`, if any.
    public func segment(forTrackTime trackTime: CMTime) -> AVAssetTrackSegment? {
        segments.first { $0.target.contains(trackTime) }
    }

    /// Loads a property (`.naturalSize`, `.preferredTransform`, `.formatDescriptions`, `.timeRange`, …).
    public func load<Value>(_ property: AVAsyncProperty<AVAssetTrack, Value>) async throws -> Value { try property.read(self) }

    /// Loads two properties at once.
    public func load<A, B>(_ a: AVAsyncProperty<AVAssetTrack, A>, _ b: AVAsyncProperty<AVAssetTrack, B>) async throws -> (A, B) {
        (try a.read(self), try b.read(self))
    }

    /// Splice's description of the track.
    public var description: String { track.description }
}

extension AVAssetTrack {
    /// A kind of reference from one track to others (`tref`): `.chapterList`, `.forcedSubtitlesOnly`, …
    public typealias AssociationType = TrackAssociationType
}

extension AVAsyncProperty where Root == AVAssetTrack {
    init(track value: @escaping @Sendable (AVAssetTrack) -> Value) { read = value }
}

extension AVAsyncProperty where Root == AVAssetTrack, Value == CGSize {
    /// The track's natural size.
    public static var naturalSize: Self { Self(track: { $0.naturalSize }) }
}

extension AVAsyncProperty where Root == AVAssetTrack, Value == CGAffineTransform {
    /// The track's preferred transform.
    public static var preferredTransform: Self { Self(track: { $0.preferredTransform }) }
}

extension AVAsyncProperty where Root == AVAssetTrack, Value == [CMFormatDescription] {
    /// The track's format descriptions.
    public static var formatDescriptions: Self { Self(track: { $0.track.formatDescriptions }) }
}

extension AVAsyncProperty where Root == AVAssetTrack, Value == CMTimeRange {
    /// The track's time range.
    public static var timeRange: Self { Self(track: { $0.timeRange }) }
}

extension AVAsyncProperty where Root == AVAssetTrack, Value == Float {
    /// The track's frame rate.
    public static var nominalFrameRate: Self { Self(track: { $0.nominalFrameRate }) }
    /// The track's data rate.
    public static var estimatedDataRate: Self { Self(track: { $0.estimatedDataRate }) }
    /// The track's volume.
    public static var preferredVolume: Self { Self(track: { $0.preferredVolume }) }
}

extension AVAsyncProperty where Root == AVAssetTrack, Value == String? {
    /// The track's language code.
    public static var languageCode: Self { Self(track: { $0.languageCode }) }
    /// The track's language tag.
    public static var extendedLanguageTag: Self { Self(track: { $0.extendedLanguageTag }) }
}

extension AVAsyncProperty where Root == AVAssetTrack, Value == Bool {
    /// Whether the track is enabled.
    public static var isEnabled: Self { Self(track: { $0.isEnabled }) }
    /// Whether the track can be played.
    public static var isPlayable: Self { Self(track: { $0.isPlayable }) }
}

extension AVAsyncProperty where Root == AVAssetTrack, Value == [AVAssetTrackSegment] {
    /// The track's edits.
    public static var segments: Self { Self(track: { $0.segments }) }
}
