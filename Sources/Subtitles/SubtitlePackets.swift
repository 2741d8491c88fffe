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

    /// The cue text and its styles in a packet.
    public func decode(_ data: Data) -> (text: String, styles: [TextStyle]) {
        var source = String(decoding: data, as: UTF8.self)
        while source.hasSuffix("\0") { source.removeLast() }
        switch self {
        case .subrip: return Markup.parse(source.replacingOccurrences(of: "\r\n", with: "\n"), .srt)
        case .webvtt: return Markup.parse(source.replacingOccurrences(of: "\r\n", with: "\n"), .webVTT)
        case .text: return (source.trimmingCharacters(in: .newlines), [])
        case .ass: return Markup.parse(SubtitlePacketFormat.assToSRT(source), .srt)
        }
    }

    /// A packet for `text` with `styles`.
    public func encode(_ text: String, styles: [TextStyle]) -> Data {
        switch self {
        case .subrip, .text: Data(Markup.render(text, self == .text ? [] : styles, .srt).utf8)
        case .webvtt: Data(Markup.render(text, styles, .webVTT).utf8)
        case .ass: Data(("0,0,Default,,0,0,0,," + Markup.render(text, styles, .srt)
            .replacingOccurrences(of: "<i>", with: "{\\i1}").replacingOccurrences(of: "</i>", with: "{\\i0}")
            .replacingOccurrences(of: "<b>", with: "{\\b1}").replacingOccurrences(of: "</b>", with: "{\\b0}")
            .replacingOccurrences(of: "<u>", with: "{\\u1}").replacingOccurrences(of: "</u>", with: "{\\u0}")
            .replacingOccurrences(of: "\n", with: "\\N")).utf8)
        }
    }

    /// The Text field of an ASS dialogue line with `{\i1}`-style overrides as SRT tags, other
    /// overrides dropped, `\N` as a line break and `\h` as a space.
    static func assToSRT(_ line: String) -> String {
        var fields = 0
        var index = line.startIndex
        while fields < 8, let comma = line[index...].firstIndex(of: ",") {
            index = line.index(after: comma)
            fields += 1
        }
        let text = fields == 8 ? String(line[index...]) : line
        var out = ""
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if c == "{", let close = text[i...].firstIndex(of: "}") {
                let block = text[text.index(after: i)..<close]
                for tag in block.split(separator: "\\") {
                    switch tag {
                    case "i1": out += "<i>"
                    case "i0": out += "</i>"
                    case "b1": out += "<b>"
                    case "b0": out += "</b>"
                    case "u1": out += "<u>"
                    case "u0": out += "</u>"
                    default: break
                    }
                }
                i = text.index(after: close)
            } else if c == "\\", let n = text.index(i, offsetBy: 1, limitedBy: text.endIndex), n < text.endIndex,
                      text[n] == "N" || text[n] == "n" || text[n] == "h" {
                out += text[n] == "h" ? " " : "\n"
                i = text.index(after: n)
            } else {
                out.append(c)
                i = text.index(after: i)
            }
        }
        return out
    }
}
