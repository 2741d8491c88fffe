import Foundation
import MediaCore

/// Text subtitle packets as other containers store them (FFmpeg's codec names): one cue's
/// text per packet, with the container's markup.
public enum SubtitlePacketFormat: String, Sendable, CaseIterable {
    /// SRT text with `<i> <b> <u> <font>` (Matroska `S_TEXT/UTF8`).
    case subrip
    /// WebVTT cue text (WebM, Matroska `D_WEBVTT/SUBTITLES`).
    case webvtt
    /// An ASS/SSA dialogue line: `ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text`.
    case ass
    /// Plain text.
    case text

    /// The format of FFmpeg's codec `name`, for the text codecs.
    public init?(codecName name: String) {
        switch name {
        case "subrip", "srt": self = .subrip
        case "webvtt": self = .webvtt
        case "ass", "ssa": self = .ass
        case "text": self = .text
        default: return nil
        }
    }

    /// A packet for `cue`: SRT with `{\an8}`-style place tags; WebVTT as WebM blocks hold a cue
    /// (identifier, settings and payload lines); an ASS event after its read order `order`
    /// (the cue's own event when it came from ASS).
    public func packet(for cue: SubtitleCue, order: Int = 0) -> Data {
        switch self {
        case .text: return Data(cue.text.utf8)
        case .subrip: return Data(cue.srtText.utf8)
        case .webvtt: return Data((cue.identifier.replacingOccurrences(of: "\n", with: " ") + "\n" + cue.webVTTSettings + "\n" + cue.webVTTPayload).utf8)
        case .ass: return Data("\(order),\(cue.assEvent)".utf8)
        }
    }
}

/// Reads the cues of one track's text packets, with what its codec private data says: an ASS
/// track's script header (its styles), a WebVTT track's header (its colour classes).
public struct SubtitlePacketReader: Sendable {
    /// The packets' format.
    public let format: SubtitlePacketFormat
    /// The ASS script header (the standard one when the track has none).
    public let assHeader: SubStationAlpha.Header
    /// The WebVTT header (`WEBVTT` when the track has none).
    public let webVTTHeader: String
    private let colors: [String: UInt32]

    /// A reader of `format` packets from a track whose codec private data is `codecPrivate`.
    public init(format: SubtitlePacketFormat, codecPrivate: [UInt8]) {
        self.format = format
        var text = String(decoding: codecPrivate, as: UTF8.self)
        while text.hasSuffix("\0") { text.removeLast() }
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        text = text.replacingOccurrences(of: "\r\n", with: "\n")
        assHeader = format == .ass && SubStationAlpha.isScript(text) ? SubStationAlpha.Header(text) : .standard
        webVTTHeader = format == .webvtt && text.hasPrefix("WEBVTT") ? text : "WEBVTT"
        colors = CueClasses.colors(in: SubtitleDocument(cues: [], webVTTHeader: webVTTHeader).styleSheets)
    }

    /// The cues of a `wvtt` sample (times are the caller's to set), read with this track's header.
    public func cues(ofWVTTSample data: Data) -> [SubtitleCue] {
        WVTT.decode(data, classColors: colors)
    }

    /// The cue a packet holds (times are the caller's to set).
    public func cue(_ data: Data) -> SubtitleCue {
        var source = String(decoding: data, as: UTF8.self)
        while source.hasSuffix("\0") { source.removeLast() }
        source = source.replacingOccurrences(of: "\r\n", with: "\n")
        switch format {
        case .text:
            return SubtitleCue(start: 0, end: 0, text: source.trimmingCharacters(in: .newlines))
        case .subrip:
            let (text, styles) = Markup.parse(source, .srt)
            var cue = SubtitleCue(start: 0, end: 0, text: text, styles: styles)
            cue.placement = Markup.placementTag(in: source) ?? .bottomCenter
            cue.markup = .srt(source)
            return cue
        case .webvtt:
            let lines = source.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            let payload = lines.count == 3 ? lines[2] : source
            var cue = SubtitleCue(start: 0, end: 0, text: "")
            if lines.count == 3 { (cue.identifier, cue.settings) = (lines[0], lines[1]) }
            cue.placement = CueSettings.placement(of: cue.settings)
            cue.markup = .webVTT(payload)
            (cue.text, cue.styles) = Markup.parse(payload, .webVTT, classColors: colors)
            return cue
        case .ass:
            // ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text
            let event = source.firstIndex(of: ",").map { String(source[source.index(after: $0)...]) } ?? source
            return SubStationAlpha.cue(event: event, start: 0, end: 0, header: assHeader)
        }
    }
}
