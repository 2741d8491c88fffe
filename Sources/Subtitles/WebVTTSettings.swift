/// A WebVTT cue's settings as the W3C parser reads them ("parse the WebVTT cue settings",
/// WebVTT §6.3): a setting whose value is not valid is skipped, and a later one wins.
public struct WebVTTCueSettings: Sendable, Hashable {
    /// `""` (horizontal), `"rl"` or `"lr"`.
    public var vertical = ""
    /// The line: a line number (`snapToLines`) or a percentage; nil for `auto`.
    public var line: Double?
    /// Whether `line` counts lines (true) or is a percentage.
    public var snapToLines = true
    /// `start`, `center` or `end`.
    public var lineAlign = "start"
    /// The position, a percentage; nil for `auto`.
    public var position: Double?
    /// `auto`, `line-left`, `center` or `line-right`.
    public var positionAlign = "auto"
    /// The size, a percentage.
    public var size = 100.0
    /// `start`, `center`, `end`, `left` or `right`.
    public var align = "center"
    /// The region the cue is in (nil when none, or when a line, size or vertical setting takes it out of one).
    public var region: WebVTTRegion?

    /// The settings of a timing line's remainder, with the file's `regions` (in file order).
    public init(_ settings: String, regions: [WebVTTRegion] = []) {
        for token in settings.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\u{0C}" }) {
            guard let colon = token.firstIndex(of: ":"), colon != token.startIndex, colon != token.index(before: token.endIndex) else { continue }
            let name = token[..<colon], value = String(token[token.index(after: colon)...])
            switch name {
            case "region": region = regions.last { $0.identifier == value }
            case "vertical" where value == "rl" || value == "lr": vertical = value
            case "line": setLine(value)
            case "position":
                let parts = value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                guard let p = Self.percentage(parts[0]) else { continue }
                position = p
                if parts.count == 2, ["line-left", "center", "line-right"].contains(parts[1]) { positionAlign = parts[1] }
            case "size": if let s = Self.percentage(value) { size = s }
            case "align" where ["start", "center", "end", "left", "right"].contains(value): align = value
            default: break
            }
        }
        if line != nil || size != 100 || !vertical.isEmpty { region = nil }
    }

    private mutating func setLine(_ value: String) {
        let parts = value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let linePosition = parts[0]
        guard linePosition.contains(where: { $0.isASCII && $0.isNumber }) else { return }
        if linePosition.hasSuffix("%") {
            guard let p = Self.percentage(linePosition) else { return }
            (line, snapToLines) = (p, false)
        } else {
            guard linePosition.allSatisfy({ ($0.isASCII && $0.isNumber) || $0 == "-" || $0 == "." }),
                  !linePosition.dropFirst().contains("-"), linePosition.filter({ $0 == "." }).count <= 1 else { return }
            if let dot = linePosition.firstIndex(of: ".") {
                guard dot != linePosition.startIndex, linePosition[linePosition.index(before: dot)].isNumber,
                      linePosition.index(after: dot) != linePosition.endIndex, linePosition[linePosition.index(after: dot)].isNumber else { return }
            }
            guard let n = Double(linePosition) else { return }   // lint: checked (parses text: nil when it is not a number)
            (line, snapToLines) = (n == 0 ? 0 : n, true)
        }
        if parts.count == 2, ["start", "center", "end"].contains(parts[1]) { lineAlign = parts[1] }
    }

    /// "Parse a percentage string": digits, optionally a fraction, then `%`, from 0 to 100.
    static func percentage(_ s: String) -> Double? {
        guard s.hasSuffix("%") else { return nil }
        let number = s.dropLast()
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let v = Double(number), v >= 0, v <= 100 else { return nil }   // lint: checked (parses text: nil when it is not a number)
        return v
    }
}

/// A WebVTT region as a `REGION` block defines it ("collect WebVTT region settings", WebVTT §6.2).
public struct WebVTTRegion: Sendable, Hashable {
    /// The region's id (empty: no cue can name it).
    public var identifier = ""
    /// Its width, a percentage of the video's.
    public var width = 100.0
    /// How many lines it shows.
    public var lines = 3.0
    /// The point of the region (percentages) that sits at `viewportAnchor`.
    public var regionAnchor = (x: 0.0, y: 100.0)
    /// The point of the video (percentages) the region is anchored at.
    public var viewportAnchor = (x: 0.0, y: 100.0)
    /// `""` or `"up"`.
    public var scroll = ""

    /// The region of a `REGION` block's settings (the lines after `REGION`).
    public init(_ settings: String) {
        for token in settings.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\u{0C}" || $0 == "\r" }) {
            guard let colon = token.firstIndex(of: ":"), colon != token.startIndex, colon != token.index(before: token.endIndex) else { continue }
            let name = token[..<colon], value = String(token[token.index(after: colon)...])
            switch name {
            case "id": identifier = value
            case "width": if let w = WebVTTCueSettings.percentage(value) { width = w }
            case "lines" where value.allSatisfy({ $0.isASCII && $0.isNumber }): if let n = Double(value) { lines = n }   // lint: checked (parses text: nil when it is not a number)
            case "regionanchor": if let a = Self.anchor(value) { regionAnchor = a }
            case "viewportanchor": if let a = Self.anchor(value) { viewportAnchor = a }
            case "scroll" where value == "up": scroll = value
            default: break
            }
        }
    }

    /// `x%,y%`, both percentages.
    static func anchor(_ value: String) -> (x: Double, y: Double)? {
        let parts = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, let x = WebVTTCueSettings.percentage(parts[0]), let y = WebVTTCueSettings.percentage(parts[1]) else { return nil }
        return (x, y)
    }

    /// Regions equal in every setting.
    public static func == (a: WebVTTRegion, b: WebVTTRegion) -> Bool {
        a.identifier == b.identifier && a.width == b.width && a.lines == b.lines && a.regionAnchor == b.regionAnchor
            && a.viewportAnchor == b.viewportAnchor && a.scroll == b.scroll
    }

    /// Hashes every setting.
    public func hash(into h: inout Hasher) {
        h.combine(identifier); h.combine(width); h.combine(lines); h.combine(regionAnchor.x); h.combine(regionAnchor.y)
        h.combine(viewportAnchor.x); h.combine(viewportAnchor.y); h.combine(scroll)
    }
}
