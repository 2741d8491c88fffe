/// A subtitle file's cues with what its format keeps beside them: WebVTT's `STYLE` and
/// `REGION` blocks, or an ASS script's header with its styles.
public struct SubtitleDocument: Sendable, Hashable {
    /// The cues, in file order.
    public var cues: [SubtitleCue]
    /// The CSS of each WebVTT `STYLE` block.
    public var styleSheets: [String] = []
    /// The settings lines of each WebVTT `REGION` block (`id:fred width:40% …`).
    public var regions: [String] = []
    /// An ASS/SSA script's header; nil for other files.
    public var assHeader: SubStationAlpha.Header?

    /// A document of `cues` with nothing beside them.
    public init(cues: [SubtitleCue]) {
        self.cues = cues
    }

    /// A document of `cues` with the STYLE and REGION blocks of a WebVTT file header (the
    /// text before its first cue, as MP4's `vttC` box and Matroska's CodecPrivate hold it).
    public init(cues: [SubtitleCue], webVTTHeader: String) {
        self.cues = cues
        var parser = WebVTTParser(webVTTHeader, file: "")
        _ = try? parser.parse()
        styleSheets = parser.styleSheets
        regions = parser.regions
    }

    /// The WebVTT file header: the `WEBVTT` line, each `REGION` block, then each `STYLE` block.
    public var webVTTHeader: String { webVTTHeader(adding: []) }

    /// The WebVTT file header, with a `STYLE` block for the colours of those of `cues` that
    /// have no WebVTT payload of their own (their colours become classes).
    func webVTTHeader(adding cues: [SubtitleCue]) -> String {
        var blocks = ["WEBVTT"] + regions.map { "REGION\n" + $0 } + styleSheets.map { "STYLE\n" + $0 }
        let colors = cues.filter {
            if case .webVTT = $0.markup { return false }
            return true
        }.flatMap { $0.styles.compactMap(\.color) }
        if !colors.isEmpty { blocks.append("STYLE\n" + CueClasses.styleSheet(for: colors)) }
        return blocks.joined(separator: "\n\n")
    }
}
