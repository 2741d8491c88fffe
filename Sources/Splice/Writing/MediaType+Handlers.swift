import MediaCore

/// Handler names of new tracks, and the names that say nothing of a track.
extension MediaType {
    /// The handler name a new track of this type gets.
    var defaultHandlerName: String {
        switch self {
        case .video: "VideoHandler"
        case .audio: "SoundHandler"
        case .subtitle, .text, .closedCaption: "SubtitleHandler"
        case .timecode: "TimeCodeHandler"
        case .metadata: "MetadataHandler"
        case .data: "DataHandler"
        }
    }

    /// Handler names that say nothing of the track (the defaults of Splice, FFmpeg and Apple).
    static func isDefaultHandlerName(_ name: String) -> Bool {
        ["VideoHandler", "SoundHandler", "SubtitleHandler", "TextHandler", "DataHandler", "MetadataHandler",
         "TimeCodeHandler", "Core Media Video", "Core Media Audio", "Core Media Text", "ISO Media file produced by Google Inc."]
            .contains(name) || name.isEmpty
    }
}
