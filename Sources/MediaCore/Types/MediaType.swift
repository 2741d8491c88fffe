/// What kind of media a track carries.
public enum MediaType: Sendable, Hashable, CustomStringConvertible {
    /// Pictures (`vide` handler).
    case video
    /// Sound (`soun` handler).
    case audio
    /// Subtitles (`sbtl`/`subt` handlers; SRT, ASS, PGS … in other containers).
    case subtitle
    /// QuickTime text (`text` handler) — timed text outside the subtitle handler.
    case text
    /// CEA-608/708 closed captions (`clcp` handler).
    case closedCaption
    /// SMPTE timecode (`tmcd` handler).
    case timecode
    /// Timed metadata (`meta` handler).
    case metadata
    /// Anything else: hint tracks, data streams, attachments.
    case data

    /// The name used in JSON and tables: `video`, `audio`, `subtitle`, `text`, `closedCaption`, `timecode`, `metadata`, `data`.
    public var description: String {
        switch self {
        case .video: "video"
        case .audio: "audio"
        case .subtitle: "subtitle"
        case .text: "text"
        case .closedCaption: "closedCaption"
        case .timecode: "timecode"
        case .metadata: "metadata"
        case .data: "data"
        }
    }

    /// The media type of an ISO-BMFF / QuickTime handler type.
    public init(handlerType: FourCC) {
        switch handlerType {
        case "vide", "auxv", "pict": self = .video
        case "soun": self = .audio
        case "sbtl", "subt", "subp": self = .subtitle
        case "text": self = .text
        case "clcp": self = .closedCaption
        case "tmcd": self = .timecode
        case "meta", "mdir": self = .metadata
        default: self = .data
        }
    }

    /// The handler type an ISO-BMFF writer uses for this media type.
    public var handlerType: FourCC {
        switch self {
        case .video: "vide"
        case .audio: "soun"
        case .subtitle: "sbtl"
        case .text: "text"
        case .closedCaption: "clcp"
        case .timecode: "tmcd"
        case .metadata: "meta"
        case .data: "data"
        }
    }

    /// Whether the media is meant to be read: subtitles, text, captions.
    public var isLegible: Bool { self == .subtitle || self == .text || self == .closedCaption }
}
