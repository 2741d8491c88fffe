/// Cue markup: SRT's `<i> <b> <u> <font color>`, WebVTT's `<i> <b> <u> <c> <v>` and entities.
/// Parsed into plain text plus style runs; markup that cannot be mapped is dropped, never shown.
enum Markup {
    enum Dialect { case srt, webVTT }

    /// Plain text and style runs of `source`; in WebVTT, tags whose classes `classColors` names
    /// (`<c.red>`) colour their text.
    static func parse(_ source: String, _ dialect: Dialect, classColors: [String: UInt32] = CueClasses.colors(in: [])) -> (text: String, styles: [TextStyle]) {
        var out = String.UnicodeScalarView()
        var styleOfScalar: [TextStyle] = []
        var bold = 0, italic = 0, underline = 0
        var colors: [UInt32?] = []
        var classed: [(name: String, colored: Bool)] = []   // WebVTT's open tags
        let scalars = Array(source.unicodeScalars)
        var i = 0
        func emit(_ s: Unicode.Scalar) {
            out.append(s)
            styleOfScalar.append(TextStyle(start: 0, end: 0, bold: bold > 0, italic: italic > 0, underline: underline > 0,
                                           color: colors.last ?? nil))
        }
        while i < scalars.count {
            let c = scalars[i]
            if c == "<", let close = scalars[(i + 1)...].firstIndex(where: { $0 == ">" || $0 == "\n" || $0 == "<" }),
               scalars[close] == ">", close > i + 1 {
                let tag = String(String.UnicodeScalarView(scalars[(i + 1)..<close]))
                let closing = tag.hasPrefix("/")
                let body = closing ? String(tag.dropFirst()) : tag
                let name = body.prefix { $0.isLetter }.lowercased()
                if !name.isEmpty || body.first?.isNumber == true {
                    switch name {
                    case "b": bold = max(0, bold + (closing ? -1 : 1))
                    case "i": italic = max(0, italic + (closing ? -1 : 1))
                    case "u": underline = max(0, underline + (closing ? -1 : 1))
                    case "font" where dialect == .srt:
                        if closing { if !colors.isEmpty { colors.removeLast() } } else { colors.append(fontColor(body)) }
                    default: break  // c, v, lang, ruby, rt, timestamps, unknown: dropped
                    }
                    if dialect == .webVTT, !name.isEmpty { classColor(name, body, closing, classColors, &classed, &colors) }
                    i = close + 1
                    continue
                }
            }
            if c == "{" && dialect == .srt, let close = scalars[(i + 1)...].firstIndex(where: { $0 == "}" || $0 == "\n" }),
               scalars[close] == "}", i + 1 < scalars.count, scalars[i + 1] == "\\" {
                i = close + 1  // ASS override block such as {\an8}
                continue
            }
            // Character references: WebVTT's, and the HTML ones SRT files carry (`&amp;`, `&#39;`).
            if c == "&", let semi = scalars[(i + 1)...].prefix(10).firstIndex(of: ";"),
               let s = entity(String(String.UnicodeScalarView(scalars[(i + 1)..<semi]))) {
                emit(s)
                i = semi + 1
                continue
            }
            emit(c)
            i += 1
        }
        return (String(out), runs(styleOfScalar))
    }

    /// A WebVTT tag's classes: an opening tag whose class `classColors` names pushes its colour,
    /// its closing tag (and those of tags left open inside it) pops it.
    private static func classColor(_ name: String, _ body: String, _ closing: Bool, _ classColors: [String: UInt32],
                                   _ classed: inout [(name: String, colored: Bool)], _ colors: inout [UInt32?]) {
        if !closing {
            let classes = body.prefix { $0 != " " && $0 != "\t" }.split(separator: ".").dropFirst()
            let color = classes.lazy.compactMap { classColors[String($0)] }.first
            if let color { colors.append(color) }
            classed.append((name, color != nil))
        } else if let open = classed.lastIndex(where: { $0.name == name }) {
            for tag in classed[open...] where tag.colored && !colors.isEmpty { colors.removeLast() }
            classed.removeSubrange(open...)
        }
    }

    /// The place an ASS override at the start of an SRT cue gives (`{\an8}`, SSA's `{\a6}`); nil without one.
    static func placementTag(in source: String) -> CuePlacement? {
        guard source.hasPrefix("{\\"), let close = source.firstIndex(of: "}") else { return nil }
        for tag in source[source.index(after: source.startIndex)..<close].split(separator: "\\") {
            if tag.hasPrefix("an"), let n = Int(tag.dropFirst(2)), let p = CuePlacement(numpad: n) { return p }   // lint: checked (parses text: nil when it is not a number)
            if tag.hasPrefix("a"), let n = Int(tag.dropFirst()), let p = CuePlacement(legacy: n) { return p }   // lint: checked (parses text: nil when it is not a number)
        }
        return nil
    }

    /// The character `name` refers to (`amp`, `lt`, `nbsp`, `#39`, `#x27`); nil for others.
    static func entity(_ name: String) -> Unicode.Scalar? {
        let named: [String: Unicode.Scalar] = ["amp": "&", "lt": "<", "gt": ">", "nbsp": "\u{A0}", "lrm": "\u{200E}",
                                               "rlm": "\u{200F}", "quot": "\"", "apos": "'"]
        if let s = named[name] { return s }
        guard name.hasPrefix("#") else { return nil }
        let digits = name.dropFirst()
        let value = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)   // lint: checked (parses text: nil when it is not a number)
        guard let value, value != 0, let s = Unicode.Scalar(value) else { return nil }
        return s
    }

    /// Runs of equal style, from the style of each scalar.
    static func runs(_ styleOfScalar: [TextStyle]) -> [TextStyle] {
        var styles: [TextStyle] = []
        var start = 0
        while start < styleOfScalar.count {
            var end = start + 1
            let s = styleOfScalar[start]
            while end < styleOfScalar.count && sameStyle(styleOfScalar[end], s) { end += 1 }
            if s.hasStyle {
                styles.append(TextStyle(start: start, end: end, bold: s.bold, italic: s.italic, underline: s.underline, color: s.color))
            }
            start = end
        }
        return styles
    }

    static func sameStyle(_ a: TextStyle, _ b: TextStyle) -> Bool {
        a.bold == b.bold && a.italic == b.italic && a.underline == b.underline && a.color == b.color
    }

    /// `color="#ff0000"`, `color=red`, `color="#f00"` → RGBA.
    static func fontColor(_ tag: String) -> UInt32? {
        guard let r = tag.range(of: "color", options: .caseInsensitive) else { return nil }
        var value = tag[r.upperBound...].drop { $0 == " " || $0 == "=" }
        if value.first == "\"" || value.first == "'" { value = value.dropFirst() }
        let token = value.prefix { $0.isLetter || $0.isNumber || $0 == "#" }.lowercased()
        let named: [String: UInt32] = [
            "white": 0xFFFFFF, "black": 0x000000, "red": 0xFF0000, "green": 0x008000, "lime": 0x00FF00, "blue": 0x0000FF,
            "yellow": 0xFFFF00, "cyan": 0x00FFFF, "aqua": 0x00FFFF, "magenta": 0xFF00FF, "fuchsia": 0xFF00FF,
            "gray": 0x808080, "grey": 0x808080, "silver": 0xC0C0C0, "orange": 0xFFA500, "purple": 0x800080,
        ]
        var rgb: UInt32?
        if token.hasPrefix("#") {
            let hex = token.dropFirst()
            if hex.count == 6 { rgb = UInt32(hex, radix: 16) }   // lint: checked (parses text: nil when it is not a number)
            if hex.count == 3, let v = UInt32(hex, radix: 16) {   // lint: checked (parses text: nil when it is not a number)
                rgb = ((v >> 8) & 0xF) * 0x110000 + ((v >> 4) & 0xF) * 0x1100 + (v & 0xF) * 0x11
            }
        } else {
            rgb = named[token] ?? (token.count == 6 ? UInt32(token, radix: 16) : nil)   // lint: checked (parses text: nil when it is not a number)
        }
        return rgb.map { $0 << 8 | 0xFF }
    }

    /// Text and styles back to markup: `<b><i><u><font color>` (SRT) or `<b><i><u><c.class>`
    /// (WebVTT, where a class gives the colour: `CueClasses.name(of:)`).
    static func render(_ text: String, _ styles: [TextStyle], _ dialect: Dialect) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = ""
        var i = 0
        func escape(_ s: Unicode.Scalar) -> String {
            guard dialect == .webVTT else { return String(s) }
            switch s {
            case "&": return "&amp;"
            case "<": return "&lt;"
            case ">": return "&gt;"
            default: return String(s)
            }
        }
        for style in styles.sorted(by: { $0.start < $1.start }) where style.start >= i && style.end <= scalars.count && style.start < style.end {
            for s in scalars[i..<style.start] { out += escape(s) }
            var open = "", close = ""
            if style.bold { open += "<b>"; close = "</b>" + close }
            if style.italic { open += "<i>"; close = "</i>" + close }
            if style.underline { open += "<u>"; close = "</u>" + close }
            if let color = style.color {
                if dialect == .srt {
                    open += "<font color=\"#" + CueClasses.hexRGB(color >> 8) + "\">"
                    close = "</font>" + close
                } else {
                    open += "<c.\(CueClasses.name(of: color))>"
                    close = "</c>" + close
                }
            }
            out += open
            for s in scalars[style.start..<style.end] { out += escape(s) }
            out += close
            i = style.end
        }
        for s in scalars[i...] { out += escape(s) }
        return out
    }
}
