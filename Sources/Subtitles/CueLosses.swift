/// What a subtitle format cannot hold of a document: each kind of markup, setting or block
/// named once, so that a conversion says in one warning what it dropped.
public enum CueLosses {
    /// Where cues are written.
    public enum Target: Sendable, Hashable {
        /// 3GPP timed text: text, bold, italic, underline, colour, nine places.
        case tx3g
        /// WebVTT: in MP4 (`wvtt`) and Matroska, with its header; in WebM without it.
        case webVTT(keepsHeader: Bool)
        /// SRT: text, `<b> <i> <u> <font>`, `{\an}` places.
        case srt
        /// ASS/SSA.
        case ass
    }

    /// The kinds of markup in `document` that `target` cannot hold, in a stable order.
    public static func kinds(in document: SubtitleDocument, to target: Target) -> [String] {
        var lost = Set<String>()
        if target == .webVTT(keepsHeader: false) || target == .tx3g || target == .srt || target == .ass {
            if !document.styleSheets.isEmpty { lost.insert("STYLE blocks") }
            if !document.regions.isEmpty { lost.insert("REGION blocks") }
        }
        if target != .ass, let header = document.assHeader {
            lost.formUnion(SubStationAlpha.losses(document.cues, header: header))
        }
        for cue in document.cues {
            switch cue.markup {
            case .webVTT(let payload) where target == .tx3g || target == .srt || target == .ass:
                lost.formUnion(webVTTKinds(payload))
                if cue.settings.split(separator: " ").contains(where: { !placementSetting($0) }) { lost.insert("cue settings other than the place") }
                if !cue.identifier.isEmpty { lost.insert("cue identifiers") }
            case .srt(let body) where target != .srt:
                if body.range(of: "<font", options: .caseInsensitive) != nil,
                   body.range(of: "face=", options: .caseInsensitive) != nil || body.range(of: "size=", options: .caseInsensitive) != nil {
                    lost.insert("font faces and sizes")
                }
            default: break
            }
        }
        return lost.sorted()
    }

    /// One warning naming what `target` (called `targetName`) cannot hold; nil when nothing is lost.
    public static func warning(for document: SubtitleDocument, to target: Target, targetName: String, file: String) -> String? {
        let lost = kinds(in: document, to: target)
        guard !lost.isEmpty else { return nil }
        return "\(file): \(targetName) cannot hold \(lost.joined(separator: ", ")); left out"
    }

    /// The kinds of WebVTT markup a payload uses beyond bold, italic, underline and colour.
    static func webVTTKinds(_ payload: String) -> Set<String> {
        var kinds = Set<String>()
        var rest = Substring(payload)
        while let open = rest.firstIndex(of: "<") {
            let tag = rest[rest.index(after: open)...].prefix { $0 != ">" && $0 != " " && $0 != "\n" }
            let name = tag.prefix { $0.isLetter || $0.isNumber || $0 == ":" || $0 == "." }
            switch name.split(separator: ".").first.map(String.init) ?? "" {
            case "v": kinds.insert("voices")
            case "lang": kinds.insert("language spans")
            case "ruby", "rt": kinds.insert("ruby")
            case "c":
                let classes = name.split(separator: ".").dropFirst()
                if classes.contains(where: { CueClasses.defaults[String($0)] == nil }) { kinds.insert("classes") }
            case let n where n.first?.isNumber == true: kinds.insert("timestamp tags")
            default: break
            }
            rest = rest[rest.index(after: open)...]
        }
        return kinds
    }

    /// Whether a WebVTT setting only says where the cue shows (kept as a place).
    static func placementSetting(_ setting: Substring) -> Bool {
        setting.hasPrefix("line:") || setting.hasPrefix("align:")
    }
}
