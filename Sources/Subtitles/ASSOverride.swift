/// ASS override tags (`{\i1}`, `{\c&H0000FF&}`, `{\an8}`, …) read into text, style runs and a
/// place, naming what cannot be kept; and written from them. Tags are read one by one, so that
/// a tag's parenthesised arguments (`\t(\fs20)`, `\clip(…)`) stay with it.
enum Override {
    /// The text, style runs and place of an event's Text field over its style `base`, and the
    /// kinds of override that were dropped.
    static func parse(_ source: String, base: SubStationAlpha.Style) -> (text: String, styles: [TextStyle], placement: CuePlacement?, dropped: Set<String>) {
        let s = Array(source.unicodeScalars)
        var out = String.UnicodeScalarView()
        var perScalar: [TextStyle] = []
        var current = base.style
        var placement: CuePlacement?
        var dropped = Set<String>()
        var drawing = false
        var i = 0
        while i < s.count {
            if s[i] == "{", let close = s[(i + 1)...].firstIndex(of: "}") {
                var j = i + 1
                while j < close {
                    guard s[j] == "\\" else { j += 1; continue }   // text in braces without a tag: a comment
                    j += 1
                    var name = String.UnicodeScalarView()
                    while j < close, s[j] != "\\", s[j] != "(" { name.append(s[j]); j += 1 }
                    if j < close, s[j] == "(" {   // the tag's arguments, which may hold tags of their own
                        var depth = 0
                        while j < close { if s[j] == "(" { depth += 1 } else if s[j] == ")" { depth -= 1; if depth == 0 { break } }; j += 1 }
                        if j < close { j += 1 }
                    }
                    apply(String(name).trimmingTrailingWhitespace(), &current, base: base, &placement, &dropped, &drawing)
                }
                i = close + 1
                continue
            }
            if s[i] == "\\", i + 1 < s.count, ["N", "n", "h"].contains(s[i + 1]) {
                if !drawing {
                    out.append(s[i + 1] == "h" ? "\u{A0}" : "\n")
                    perScalar.append(current)
                }
                i += 2
                continue
            }
            if !drawing {
                out.append(s[i])
                perScalar.append(current)
            }
            i += 1
        }
        return (String(out), Markup.runs(perScalar), placement, dropped)
    }

    /// One tag, by its name with any value it carries (`i1`, `an8`, `c&H0000FF&`).
    private static func apply(_ tag: String, _ style: inout TextStyle, base: SubStationAlpha.Style,
                              _ placement: inout CuePlacement?, _ dropped: inout Set<String>, _ drawing: inout Bool) {
        func number(after prefix: String) -> Int? { Int(tag.dropFirst(prefix.count)) }   // lint: checked (parses text: nil when it is not a number)
        let prefixes: [(String, String)] = [
            ("fscx", "transforms"), ("fscy", "transforms"), ("fsp", "letter spacing"), ("frx", "transforms"), ("fry", "transforms"),
            ("frz", "transforms"), ("fr", "transforms"), ("fax", "transforms"), ("fay", "transforms"), ("fn", "fonts"),
            ("fs", "font sizes"), ("fe", ""), ("xbord", "borders and shadows"), ("ybord", "borders and shadows"),
            ("bord", "borders and shadows"), ("xshad", "borders and shadows"), ("yshad", "borders and shadows"),
            ("shad", "borders and shadows"), ("blur", "borders and shadows"), ("be", "borders and shadows"),
            ("alpha", "transparency"), ("1a", "transparency"), ("2a", "transparency"), ("3a", "transparency"), ("4a", "transparency"),
            ("2c", "outline and shadow colours"), ("3c", "outline and shadow colours"), ("4c", "outline and shadow colours"),
            ("pos", "positions"), ("move", "positions"), ("org", "transforms"), ("fade", "fades"), ("fad", "fades"),
            ("iclip", "clips"), ("clip", "clips"), ("kf", "karaoke"), ("ko", "karaoke"), ("k", "karaoke"), ("K", "karaoke"),
            ("t", "transforms"), ("q", ""),
        ]
        if tag.hasPrefix("1c") || tag.hasPrefix("c") && !tag.hasPrefix("clip") {
            let value = tag.hasPrefix("1c") ? String(tag.dropFirst(2)) : String(tag.dropFirst())
            style.color = value.isEmpty ? base.style.color : color(value).flatMap { $0 == 0xFFFF_FFFF ? nil : $0 }
        } else if tag.hasPrefix("an"), let n = number(after: "an") {
            if placement == nil { placement = CuePlacement(numpad: n) }
        } else if tag.hasPrefix("a"), !tag.hasPrefix("alpha"), let n = number(after: "a") {
            if placement == nil { placement = CuePlacement(legacy: n) }
        } else if tag.hasPrefix("b"), !tag.hasPrefix("bord"), !tag.hasPrefix("blur"), !tag.hasPrefix("be"), let n = number(after: "b") {
            style.bold = n == 1 || n >= 600
        } else if tag.hasPrefix("i"), !tag.hasPrefix("iclip"), let n = number(after: "i") {
            style.italic = n != 0
        } else if tag.hasPrefix("u"), let n = number(after: "u") {
            style.underline = n != 0
        } else if tag.hasPrefix("s"), !tag.hasPrefix("shad"), let n = number(after: "s") {
            if n != 0 { dropped.insert("strikeout") }
        } else if tag.hasPrefix("p"), !tag.hasPrefix("pos"), let n = number(after: "p") {
            drawing = n > 0
            if drawing { dropped.insert("drawings") }
        } else if tag.hasPrefix("r") {
            style = base.style
        } else if let kind = prefixes.first(where: { tag.hasPrefix($0.0) })?.1 {
            if !kind.isEmpty { dropped.insert(kind) }
        }
    }

    /// An ASS colour — `&HBBGGRR&`, `&HAABBGGRR`, or SSA's decimal BGR — as RGBA.
    static func color(_ value: String) -> UInt32? {
        var v = Substring(value.trimmingTrailingWhitespace())
        while v.last == "&" { v = v.dropLast() }
        let parsed: UInt32?
        if v.hasPrefix("&H") || v.hasPrefix("&h") {
            parsed = UInt32(v.dropFirst(2).prefix(8), radix: 16)   // lint: checked (parses text: nil when it is not a number)
        } else if v.hasPrefix("H") || v.hasPrefix("h") {
            parsed = UInt32(v.dropFirst().prefix(8), radix: 16)   // lint: checked (parses text: nil when it is not a number)
        } else {
            parsed = Int64(v).flatMap { UInt32(exactly: $0 & 0xFFFF_FFFF) }   // lint: checked (parses text: nil when it is not a number)
        }
        guard let abgr = parsed else { return nil }
        let r = abgr & 0xFF, g = abgr >> 8 & 0xFF, b = abgr >> 16 & 0xFF, a = 0xFF - (abgr >> 24 & 0xFF)
        return r << 24 | g << 16 | b << 8 | a
    }

    /// An ASS colour for RGBA: `&HBBGGRR&`.
    static func assColor(_ rgba: UInt32) -> String {
        "&H" + CueClasses.hexRGB((rgba >> 8 & 0xFF) << 16 | (rgba >> 16 & 0xFF) << 8 | rgba >> 24).uppercased() + "&"
    }

    /// A cue's text with override tags for its place and styles (over the `Default` style).
    static func render(_ cue: SubtitleCue) -> String {
        var out = cue.placement == .bottomCenter ? "" : "{\\an\(cue.placement.numpad)}"
        let scalars = Array(cue.text.unicodeScalars)
        var i = 0
        func text(_ range: Range<Int>) -> String {
            scalars[range].map { $0 == "\n" ? "\\N" : String($0) }.joined()
        }
        for style in cue.styles.sorted(by: { $0.start < $1.start }) where style.start >= i && style.end <= scalars.count && style.start < style.end {
            out += text(i..<style.start)
            var open = "", close = ""
            if style.bold { open += "\\b1"; close += "\\b0" }
            if style.italic { open += "\\i1"; close += "\\i0" }
            if style.underline { open += "\\u1"; close += "\\u0" }
            if let c = style.color { open += "\\c" + assColor(c); close += "\\c" }
            out += (open.isEmpty ? "" : "{\(open)}") + text(style.start..<style.end) + (close.isEmpty ? "" : "{\(close)}")
            i = style.end
        }
        return out + text(i..<scalars.count)
    }
}
