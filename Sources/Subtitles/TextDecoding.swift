import Foundation

/// Subtitle files as text: UTF-8 with or without BOM, UTF-16 LE/BE with BOM, or a legacy
/// encoding named by the caller (Windows-1252, ISO-8859-x, CP1251, Shift-JIS, GB18030, …); a
/// file that is not UTF-8 is read as Windows-1252, with a warning. Line endings CRLF, LF or CR
/// become `\n`.
enum TextDecoding {
    /// The encoding of an IANA charset name (`windows-1252`, `iso-8859-2`, `cp1251`,
    /// `shift_jis`, `gb18030`, …), or nil for a name not in the table. Encodings Foundation has
    /// no constant for are its CoreFoundation ones (0x8000_0000 | the CFStringEncoding).
    static func encoding(named name: String) -> String.Encoding? {
        let n = name.lowercased().replacingOccurrences(of: "_", with: "-")
        let foundation: [String: String.Encoding] = [
            "utf-8": .utf8, "utf8": .utf8, "utf-16": .utf16, "utf-16le": .utf16LittleEndian, "utf-16be": .utf16BigEndian,
            "windows-1250": .windowsCP1250, "cp1250": .windowsCP1250, "windows-1251": .windowsCP1251, "cp1251": .windowsCP1251,
            "windows-1252": .windowsCP1252, "cp1252": .windowsCP1252, "windows-1253": .windowsCP1253, "cp1253": .windowsCP1253,
            "windows-1254": .windowsCP1254, "cp1254": .windowsCP1254, "iso-8859-1": .isoLatin1, "latin1": .isoLatin1,
            "iso-8859-2": .isoLatin2, "latin2": .isoLatin2, "shift-jis": .shiftJIS, "sjis": .shiftJIS, "euc-jp": .japaneseEUC,
            "iso-2022-jp": .iso2022JP, "macintosh": .macOSRoman, "macroman": .macOSRoman, "ascii": .ascii, "us-ascii": .ascii,
        ]
        if let e = foundation[n] { return e }
        let coreFoundation: [String: UInt] = [
            "windows-1255": 0x0505, "cp1255": 0x0505, "windows-1256": 0x0506, "cp1256": 0x0506, "windows-1257": 0x0507,
            "cp1257": 0x0507, "windows-1258": 0x0508, "cp1258": 0x0508, "cp932": 0x0421, "windows-31j": 0x0421,
            "gb18030": 0x0632, "gbk": 0x0631, "cp936": 0x0631, "gb2312": 0x0930, "euc-cn": 0x0930, "big5": 0x0A03,
            "euc-kr": 0x0940, "cp949": 0x0422, "koi8-r": 0x0A02, "koi8-u": 0x0A08,
        ]
        if let cf = coreFoundation[n] { return String.Encoding(rawValue: 0x8000_0000 | cf) }
        // ISO-8859-3 … -16 are CoreFoundation's 0x0203 … 0x0210.
        if n.hasPrefix("iso-8859-"), let part = Int(n.dropFirst(9)), (3...16).contains(part), part != 12 {   // lint: checked (parses text: nil when it is not a number)
            return String.Encoding(rawValue: 0x8000_0000 | UInt(0x0200 + part))
        }
        return nil
    }

    /// The text of `data`: in `encoding` when given, else UTF-8/UTF-16 by BOM, else (with a
    /// note in `fallback`) Windows-1252.
    static func decode(_ data: Data, file: String, encoding: (name: String, encoding: String.Encoding)? = nil,
                       fallback: ((String) -> Void)? = nil) throws(SubtitleError) -> String {
        if let encoding {
            guard var text = String(data: data, encoding: encoding.encoding) else {
                throw SubtitleError(file: file, line: nil, message: "is not valid \(encoding.name) text")
            }
            if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
            return lineFeeds(text)
        }
        do {
            return try decode(data, file: file)
        } catch let error where fallback != nil && error.message.hasPrefix("not UTF-8") {
            // Downloaded subtitles are very often Windows-1252; every byte means something there
            // but five, which Latin-1 reads.
            guard let text = String(data: data, encoding: .windowsCP1252) ?? String(data: data, encoding: .isoLatin1) else { throw error }
            fallback?("\(file): not UTF-8 (\(error.line.map { "line \($0)" } ?? "")); read as Windows-1252 — name another with --encoding")
            return lineFeeds(text)
        }
    }

    /// `text` with CRLF and CR line endings as LF.
    static func lineFeeds(_ text: String) -> String {
        guard text.contains("\r") else { return text }
        return text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }

    static func decode(_ data: Data, file: String) throws(SubtitleError) -> String {
        let bytes = [UInt8](data)
        var text: String
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            text = try utf8(Array(bytes.dropFirst(3)), file: file, offset: 3)
        } else if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            let little = bytes[0] == 0xFF
            guard bytes.count % 2 == 0 else {
                throw SubtitleError(file: file, line: nil, message: "UTF-16 text with an odd number of bytes")
            }
            var units: [UInt16] = []
            units.reserveCapacity(bytes.count / 2 - 1)
            var i = 2
            while i + 1 < bytes.count {
                units.append(little ? UInt16(widening: bytes[i]) | UInt16(widening: bytes[i + 1]) << 8 : UInt16(widening: bytes[i]) << 8 | UInt16(widening: bytes[i + 1]))
                i += 2
            }
            var out = String.UnicodeScalarView()
            var decoder = UTF16()
            var it = units.makeIterator()
            loop: while true {
                switch decoder.decode(&it) {
                case .scalarValue(let s): out.append(s)
                case .emptyInput: break loop
                case .error: throw SubtitleError(file: file, line: nil, message: "invalid UTF-16 (an unpaired surrogate)")
                }
            }
            text = String(out)
        } else {
            text = try utf8(bytes, file: file, offset: 0)
        }
        // A byte-order mark left after the one the branches above took off (a U+FEFF can only
        // start the text through one): the text was encoded twice.
        if text.hasPrefix("\u{FEFF}") {
            throw SubtitleError(file: file, line: 1, message: SubtitleFile.secondBOM)
        }
        return lineFeeds(text)
    }

    private static func utf8(_ bytes: [UInt8], file: String, offset: Int) throws(SubtitleError) -> String {
        if let s = String(validating: bytes, as: UTF8.self) { return s }
        // Find the first bad byte to say where.
        var line = 1
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            let n = b < 0x80 ? 1 : b >> 5 == 0b110 ? 2 : b >> 4 == 0b1110 ? 3 : b >> 3 == 0b11110 ? 4 : 0
            var ok = n > 0 && i + n <= bytes.count
            if ok { for k in 1..<max(n, 1) where bytes[i + k] >> 6 != 0b10 { ok = false } }
            if !ok || (n > 1 && String(validating: bytes[i..<(i + n)], as: UTF8.self) == nil) {
                throw SubtitleError(file: file, line: line, message: String(format: "not UTF-8 (byte 0x%02X); convert the file to UTF-8, e.g. iconv -f WINDOWS-1252 -t UTF-8", b))
            }
            if b == 0x0A { line += 1 }
            i += n
        }
        throw SubtitleError(file: file, line: nil, message: "not UTF-8")
    }
}
