import MediaCore

/// How one track refers to another: a `tref` reference type.
///
/// The named types are AVFoundation's; any other four-character code works too:
/// `TrackAssociationType(rawValue: "hint")`.
public struct TrackAssociationType: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The `tref` reference type.
    public let rawValue: FourCC

    /// The association of `tref` type `rawValue`.
    public init(rawValue: FourCC) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = FourCC(value) }

    /// `fall`: this audio track's fallback when the player cannot play it.
    public static let audioFallback = TrackAssociationType(rawValue: "fall")
    /// `chap`: the chapter list of this track.
    public static let chapterList = TrackAssociationType(rawValue: "chap")
    /// `forc`: the forced-only subtitle track that goes with this subtitle track.
    public static let forcedSubtitlesOnly = TrackAssociationType(rawValue: "forc")
    /// `folw`: the track to select together with this one.
    public static let selectionFollower = TrackAssociationType(rawValue: "folw")
    /// `tmcd`: this track's timecode track.
    public static let timecode = TrackAssociationType(rawValue: "tmcd")
    /// `cdsc`: the track that this metadata track describes.
    public static let metadataReferent = TrackAssociationType(rawValue: "cdsc")

    public var description: String { rawValue.description }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue.description < b.rawValue.description }
}

/// What a track's media is for, independent of its codec.
public enum MediaCharacteristic: Sendable, Hashable, CaseIterable {
    /// Text to read: subtitles, captions, timed text.
    case legible
    /// Sound.
    case audible
    /// Pictures.
    case visual
    /// Subtitles or captions for the deaf and hard of hearing (Matroska's hearing-impaired flag).
    case describesMusicAndSoundForAccessibility
    /// Audio description for the blind (Matroska's visual-impaired flag).
    case describesVideoForAccessibility
}
