import Foundation

/// WebVTT cue settings (`line`, `position`, `align`) read as one of nine places, and written
/// back from one (WebVTT §4.4). The mapping keeps what every format can hold: top, middle or
/// bottom, and left, centre or right.
enum CueSettings {
    /// The place `settings` put a cue, read as the W3C parser reads them: a line number from
    /// the top (`line:0`, `line:2`) is the top, one from the bottom (`line:-1`) the bottom, a
    /// percentage by the third it falls in; `align` start/left or end/right, or with a centred
    /// cue a `position` in the left or right third, puts it left or right.
    static func placement(of settings: String, regions: [WebVTTRegion] = []) -> CuePlacement {
        let s = WebVTTCueSettings(settings, regions: regions)
        var placement = CuePlacement.bottomCenter
        if let line = s.line {
            if s.snapToLines {
                placement.vertical = line >= 0 ? .top : .bottom
            } else {
                placement.vertical = line < 100.0 / 3 ? .top : line <= 200.0 / 3 ? .middle : .bottom
            }
        }
        switch s.align {
        case "start", "left": placement.horizontal = .left
        case "end", "right": placement.horizontal = .right
        default:
            if let p = s.position { placement.horizontal = p < 100.0 / 3 ? .left : p <= 200.0 / 3 ? .center : .right }
        }
        return placement
    }

    /// Settings that show a cue at `placement` (empty for bottom centre).
    static func settings(for placement: CuePlacement) -> String {
        var parts: [String] = []
        switch placement.vertical {
        case .top: parts.append("line:0")
        case .middle: parts.append("line:50%")
        case .bottom: break
        }
        switch placement.horizontal {
        case .left: parts.append("align:left")
        case .right: parts.append("align:right")
        case .center: break
        }
        return parts.joined(separator: " ")
    }
}

/// Colours as WebVTT classes: the spec's eight colour classes (`<c.red>`), and classes that a
/// `STYLE` block colours (`::cue(.warm) { color: #ff8000 }`).
enum CueClasses {
    /// The colour classes every WebVTT renderer knows (WebVTT §6.4, "default text colour"), RGB.
    static let defaults: [String: UInt32] = ["white": 0xFFFFFF, "lime": 0x00FF00, "cyan": 0x00FFFF, "red": 0xFF0000,
                                             "yellow": 0xFFFF00, "magenta": 0xFF00FF, "blue": 0x0000FF, "black": 0x000000]

    /// The class for an RGBA colour: a default class's name when it is one, else `c` and its hex.
    static func name(of rgba: UInt32) -> String {
        let rgb = rgba >> 8
        return defaults.first { $0.value == rgb }?.key ?? "c" + hexRGB(rgb)
    }

    /// Six lower-case hex digits.
    static func hexRGB(_ rgb: UInt32) -> String {
        let digits = Array("0123456789abcdef")
        return String((0..<6).map { digits[Int(truncatingIfNeeded: (rgb >> (20 - 4 * UInt32(truncatingIfNeeded: $0))) & 0xF)] })
    }

    /// A `STYLE` block's CSS giving each class its colour.
    static func styleSheet(for colors: [UInt32]) -> String {
        Set(colors).sorted().map { "::cue(.\(name(of: $0))) { color: #\(hexRGB($0 >> 8)); }" }.joined(separator: "\n")
    }

    /// The classes coloured by `::cue(.name) { … color: … }` rules in `styleSheets`, over the
    /// default classes; RGBA.
    static func colors(in styleSheets: [String]) -> [String: UInt32] {
        var colors = defaults.mapValues { $0 << 8 | 0xFF }
        for sheet in styleSheets {
            var rest = Substring(sheet)
            while let open = rest.range(of: "::cue(.") {
                let afterOpen = rest[open.upperBound...]
                guard let close = afterOpen.firstIndex(of: ")"), let brace = afterOpen.firstIndex(of: "{"),
                      let end = afterOpen[brace...].firstIndex(of: "}") else { break }
                let name = String(afterOpen[..<close])
                let body = afterOpen[afterOpen.index(after: brace)..<end]
                for declaration in body.split(separator: ";") {
                    let parts = declaration.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == "color" else { continue }
                    if let c = Markup.fontColor("color=" + parts[1].trimmingCharacters(in: .whitespaces)) { colors[name] = c }
                }
                rest = afterOpen[end...]
            }
        }
        return colors
    }
}
