// AVFoundation's asset classes over Splice's: `AVAsset` (a file or a composition), `AVURLAsset`,
// `AVComposition` and `AVMutableComposition`. As on Apple platforms, making an asset from a URL
// does not read the file and does not throw: its properties load it on first use (blocking, as
// AVFoundation's synchronous properties do), and a file that cannot be read gives an asset
// without tracks whose failure `statusOfValue(forKey:error:)`, `AVAssetReader(asset:)` and an
// export say.
import Foundation
@_exported import Splice

/// Where `statusOfValue(forKey:error:)` puts its error (`&error` of an `NSError?`).
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?

/// Whether a property of an asset has loaded (AVFoundation's `AVKeyValueStatus`).
public enum AVKeyValueStatus: Int, Sendable {
    /// Not asked for.
    case unknown
    /// Being loaded.
    case loading
    /// Loaded.
    case loaded
    /// Could not be loaded (see the `error` of `statusOfValue(forKey:error:)`).
    case failed
    /// Loading was cancelled.
    case cancelled
}

/// A movie (AVFoundation's `AVAsset`): a file (`AVURLAsset`, or `AVAsset(url:)`) or a composition
/// (`AVMutableComposition`), read through Splice's `Asset` (`spliceAsset()`).
public class AVAsset: @unchecked Sendable {   // unchecked: a non-final class; its state is `let`s and a Mutex, its subclasses (below) add `let`s only
    /// What the asset is made of.
    enum Backing {
        case file(URL)
        case composition(MutableComposition)
    }

    let backing: Backing
    /// The file's asset once read (a composition's is Splice's cache), and the track wrappers of
    /// the asset they were made for.
    private let loaded = Mutex<(file: Result<Asset, Error>?, tracks: (Asset, [AVAssetTrack])?)>((nil, nil))

    /// An asset of the movie at `url`; the file is read when a property is first asked for.
    public convenience init(url URL: URL) {
        self.init(backing: .file(URL))
    }

    init(backing: Backing) {
        self.backing = backing
    }

    /// Splice's asset: the file, read on first use, or the composition as it is now (the same
    /// object until it changes).
    /// - Throws: why the file, or a source of the composition, cannot be read.
    public func spliceAsset() throws -> Asset {
        switch backing {
        case .composition(let composition):
            return try composition.asset()
        case .file(let url):
            if let done = loaded.withLock({ $0.file }) { return try done.get() }
            let result = Result { try Asset(url: url) }
            loaded.withLock { if $0.file == nil { $0.file = result } }
            return try loaded.withLock { $0.file! }.get()
        }
    }

    /// The asset when it can be read.
    var readable: Asset? { try? spliceAsset() }

    /// How long the movie lasts; 0 when it cannot be read.
    public var duration: CMTime {
        if case .composition(let composition) = backing { return composition.duration }
        return readable?.duration ?? .zero
    }

    /// The tracks; none when the movie cannot be read. The same objects on every call (for a
    /// composition: until it changes).
    public var tracks: [AVAssetTrack] {
        guard let asset = readable else { return [] }
        return loaded.withLock { state in
            if let (made, tracks) = state.tracks, made === asset { return tracks }
            let tracks = asset.tracks.map { AVAssetTrack($0, of: self) }
            state.tracks = (asset, tracks)
            return tracks
        }
    }

    /// The tracks of a kind.
    public func tracks(withMediaType mediaType: AVMediaType) -> [AVAssetTrack] { tracks.filter { $0.mediaType == mediaType } }

    /// The tracks that offer `characteristic`.
    public func tracks(withMediaCharacteristic characteristic: AVMediaCharacteristic) -> [AVAssetTrack] {
        tracks.filter { $0.hasMediaCharacteristic(characteristic) }
    }

    /// The track with this ID, if any.
    public func track(withTrackID trackID: CMPersistentTrackID) -> AVAssetTrack? { tracks.first { $0.trackID == trackID } }

    /// The groups of tracks that are alternatives to each other.
    public var trackGroups: [AVAssetTrackGroup] { readable?.trackGroups ?? [] }

    /// The movie's metadata items.
    public var metadata: [AVMetadataItem] { readable?.metadata ?? [] }
    /// The movie's metadata in the common key space (Splice's items all are).
    public var commonMetadata: [AVMetadataItem] { metadata }
    /// The creation date item, if the movie has one.
    public var creationDate: AVMetadataItem? { metadata.first { $0.commonKey == "creationDate" } }
    /// The chapters' titles and ranges.
    public var chapters: [Asset.Chapter] { readable?.chapters ?? [] }

    /// Whether the movie was read and has a track Splice can play (decode).
    public var isPlayable: Bool { tracks.contains { $0.isPlayable } }
    /// Whether the movie can be exported: it was read.
    public var isExportable: Bool { readable != nil }
    /// Whether the movie's samples can be read: it was read.
    public var isReadable: Bool { readable != nil }
    /// Whether the movie can go into a composition: it was read.
    public var isComposable: Bool { readable != nil }
    /// Whether a track is encrypted.
    public var hasProtectedContent: Bool { readable?.tracks.contains { $0.encryption != nil } ?? false }
    /// Durations and times are exact (Splice reads every sample's time from the index).
    public var providesPreciseDurationAndTiming: Bool { true }
    /// The rate the movie is meant to play at.
    public var preferredRate: Float { 1 }
    /// The volume the movie is meant to play at.
    public var preferredVolume: Float { 1 }
    /// The first video track's transform, or the identity.
    public var preferredTransform: CGAffineTransform { tracks(withMediaType: .video).first?.preferredTransform ?? .identity }
    /// The first video track's size as shown, or zero (AVFoundation deprecated this for the tracks').
    public var naturalSize: CGSize {
        guard let track = tracks(withMediaType: .video).first else { return .zero }
        return CGSize(VideoComposition.shownSize(Dimensions(track.naturalSize), track.preferredTransform))
    }

    // MARK: Loading

    /// Loads the properties named in `keys` ("duration", "tracks", …: they all load with the
    /// file) on a queue of its own, then calls `handler`.
    public func loadValuesAsynchronously(forKeys keys: [String], completionHandler handler: (@Sendable () -> Void)? = nil) {
        DispatchQueue.global().async {
            _ = self.readable
            handler?()
        }
    }

    /// Whether the property named `key` has loaded; when it failed, `error` says why.
    public func statusOfValue(forKey key: String, error outError: NSErrorPointer) -> AVKeyValueStatus {
        if case .file = backing, loaded.withLock({ $0.file == nil }) { return .unknown }
        do {
            _ = try spliceAsset()
            return .loaded
        } catch {
            outError?.pointee = NSError(domain: "Splice", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
            return .failed
        }
    }

    /// Loading cannot be cancelled (a file is read at once): does nothing.
    public func cancelLoading() {}

    /// Loads a property (`.duration`, `.tracks`, `.metadata`, …).
    /// - Throws: why the movie cannot be read.
    public func load<Value>(_ property: AVAsyncProperty<AVAsset, Value>) async throws -> Value {
        try property.read(self)
    }

    /// Loads two properties at once.
    public func load<A, B>(_ a: AVAsyncProperty<AVAsset, A>, _ b: AVAsyncProperty<AVAsset, B>) async throws -> (A, B) {
        (try a.read(self), try b.read(self))
    }

    /// Loads three properties at once.
    public func load<A, B, C>(_ a: AVAsyncProperty<AVAsset, A>, _ b: AVAsyncProperty<AVAsset, B>,
                              _ c: AVAsyncProperty<AVAsset, C>) async throws -> (A, B, C) {
        (try a.read(self), try b.read(self), try c.read(self))
    }

    /// The tracks of a kind, loaded.
    public func loadTracks(withMediaType mediaType: AVMediaType) async throws -> [AVAssetTrack] {
        _ = try spliceAsset()
        return tracks(withMediaType: mediaType)
    }

    /// The track with this ID, loaded.
    public func loadTrack(withTrackID trackID: CMPersistentTrackID) async throws -> AVAssetTrack? {
        _ = try spliceAsset()
        return track(withTrackID: trackID)
    }
}

/// A property that `load(_:)` loads (AVFoundation's `AVAsyncProperty`): `.duration`, `.tracks`,
/// `.metadata`, `.isPlayable`, … of an asset; `.naturalSize`, `.preferredTransform`,
/// `.formatDescriptions`, `.timeRange`, … of a track.
public struct AVAsyncProperty<Root, Value>: Sendable {
    let read: @Sendable (Root) throws -> Value
}

extension AVAsyncProperty where Root == AVAsset {
    init(_ value: @escaping @Sendable (AVAsset) -> Value) {
        read = { asset in
            _ = try asset.spliceAsset()
            return value(asset)
        }
    }
}

extension AVAsyncProperty where Root == AVAsset, Value == CMTime {
    /// The asset's duration.
    public static var duration: Self { Self { $0.duration } }
}

extension AVAsyncProperty where Root == AVAsset, Value == [AVAssetTrack] {
    /// The asset's tracks.
    public static var tracks: Self { Self { $0.tracks } }
}

extension AVAsyncProperty where Root == AVAsset, Value == [AVMetadataItem] {
    /// The asset's metadata.
    public static var metadata: Self { Self { $0.metadata } }
    /// The asset's common metadata.
    public static var commonMetadata: Self { Self { $0.commonMetadata } }
}

extension AVAsyncProperty where Root == AVAsset, Value == Bool {
    /// Whether the asset can be played.
    public static var isPlayable: Self { Self { $0.isPlayable } }
    /// Whether the asset can be exported.
    public static var isExportable: Self { Self { $0.isExportable } }
    /// Whether the asset's samples can be read.
    public static var isReadable: Self { Self { $0.isReadable } }
}

extension AVAsyncProperty where Root == AVAsset, Value == CGAffineTransform {
    /// The asset's preferred transform.
    public static var preferredTransform: Self { Self { $0.preferredTransform } }
}

/// An asset of a file (AVFoundation's `AVURLAsset`).
public final class AVURLAsset: AVAsset, @unchecked Sendable {
    /// The file.
    public let url: URL

    /// An asset of the movie at `url`, read when a property is first asked for. `options`
    /// (`AVURLAssetPreferPreciseDurationAndTimingKey`, …) change nothing: Splice's times are exact.
    public init(url URL: URL, options: [String: Any]? = nil) {
        url = URL
        super.init(backing: .file(URL))
    }
}

/// Asks for exact durations and times: Splice's always are.
public let AVURLAssetPreferPreciseDurationAndTimingKey = "AVURLAssetPreferPreciseDurationAndTimingKey"

/// A movie made of ranges of others (AVFoundation's `AVComposition`); `composition` is Splice's.
public class AVComposition: AVAsset, @unchecked Sendable {
    /// Splice's composition.
    public let composition: MutableComposition

    init(_ composition: MutableComposition) {
        self.composition = composition
        super.init(backing: .composition(composition))
    }

    /// The composition's tracks of a kind, as composition tracks (where an expression needs
    /// them so: elsewhere `tracks(withMediaType:)` gives `AVAssetTrack`s, as for any asset).
    @_disfavoredOverload
    public func tracks(withMediaType mediaType: AVMediaType) -> [AVMutableCompositionTrack] { composition.tracks(withMediaType: mediaType) }

    /// The composition's track with this ID, as a composition track (where an expression needs one).
    @_disfavoredOverload
    public func track(withTrackID trackID: CMPersistentTrackID) -> AVMutableCompositionTrack? { composition.track(withTrackID: trackID) }
}

/// A composition one builds (AVFoundation's `AVMutableComposition`): tracks of ranges of other
/// assets' tracks. It is an `AVAsset`: readers and export sessions take it.
public final class AVMutableComposition: AVComposition, @unchecked Sendable {
    /// An empty composition.
    public init() { super.init(MutableComposition()) }

    /// An empty composition; the options of the assets it makes change nothing.
    public convenience init(urlAssetInitializationOptions options: [String: Any]? = nil) { self.init() }

    /// A composition over Splice's.
    public override init(_ composition: MutableComposition) { super.init(composition) }

    /// Adds an empty track; `kCMPersistentTrackID_Invalid` takes the next free ID, an ID in use gives nil.
    public func addMutableTrack(withMediaType mediaType: AVMediaType, preferredTrackID: CMPersistentTrackID) -> AVMutableCompositionTrack? {
        composition.addMutableTrack(withMediaType: mediaType, preferredTrackID: preferredTrackID)
    }

    /// A track of the composition that `track`'s samples can join: the first of its kind.
    public func mutableTrack(compatibleWith track: AVAssetTrack) -> AVMutableCompositionTrack? {
        composition.tracks(withMediaType: track.mediaType).first
    }

    /// Removes `track`.
    public func removeTrack(_ track: AVMutableCompositionTrack) { composition.removeTrack(track) }

    /// Inserts `range` of every track of `asset` at `time`, each into a composition track of its kind.
    /// - Throws: why the asset cannot be read, or a range that is not in it.
    public func insertTimeRange(_ range: CMTimeRange, of asset: AVAsset, at time: CMTime) throws {
        try composition.insertTimeRange(range, of: asset.spliceAsset(), at: time)
    }

    /// Inserts an empty range into every track, moving what follows.
    public func insertEmptyTimeRange(_ range: CMTimeRange) { composition.insertEmptyTimeRange(range) }

    /// Removes a range from every track, moving what follows.
    public func removeTimeRange(_ range: CMTimeRange) { composition.removeTimeRange(range) }

    /// Plays a range of every track in `duration`.
    public func scaleTimeRange(_ range: CMTimeRange, toDuration duration: CMTime) { composition.scaleTimeRange(range, toDuration: duration) }
}

extension CompositionTrack {
    /// Inserts `range` of `track` (an asset's) at `time`.
    /// - Throws: a range that is not in the track, or a track of another kind.
    public func insertTimeRange(_ range: CMTimeRange, of track: AVAssetTrack, at time: CMTime) throws {
        try insertTimeRange(range, of: track.track, at: time)
    }

    /// Whether the track has no segments.
    public var isEmptyTrack: Bool { segments.isEmpty }
}
