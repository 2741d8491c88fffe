/// Language codes as ISO-BMFF and QuickTime store them.
public enum Language {
    /// QuickTime Macintosh language codes (index = code) as ISO 639-2/T; "" where none exists.
    static let macintosh: [String] = [
        "eng", "fra", "deu", "ita", "nld", "swe", "spa", "dan", "por", "nor", // 0-9
        "heb", "jpn", "ara", "fin", "ell", "isl", "mlt", "tur", "hrv", "zho", // 10-19
        "urd", "hin", "tha", "kor", "lit", "pol", "hun", "est", "lav", "sme", // 20-29
        "fao", "fas", "rus", "zho", "nld", "gle", "sqi", "ron", "ces", "slk", // 30-39
        "slv", "yid", "srp", "mkd", "bul", "ukr", "bel", "uzb", "kaz", "aze", // 40-49
        "aze", "hye", "kat", "ron", "kir", "tgk", "tuk", "mon", "mon", "pus", // 50-59
        "kur", "kas", "snd", "bod", "nep", "san", "mar", "ben", "asm", "guj", // 60-69
        "pan", "ori", "mal", "kan", "tam", "tel", "sin", "mya", "khm", "lao", // 70-79
        "vie", "ind", "tgl", "msa", "msa", "amh", "tir", "orm", "som", "swa", // 80-89
        "kin", "run", "nya", "mlg", "epo", "", "", "", "", "",                // 90-99
        "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", // 100-119
        "", "", "", "", "", "", "", "",                                       // 120-127
        "cym", "eus", "cat", "lat", "que", "grn", "aym", "tat", "uig", "dzo", // 128-137
        "jav", "sun", "glg", "afr", "bre", "iku", "gla", "glv", "gle", "ton", // 138-147
        "ell", "kal", "aze",                                                  // 148-150
    ]

    /// ISO 639-2 from the 16-bit `mdhd` language field: packed letters, or a Macintosh code below 0x400.
    public static func iso639(fromPacked code: UInt16) -> String {
        if code < 0x400 {
            let i = Int(widening: code)
            return i < macintosh.count && !macintosh[i].isEmpty ? macintosh[i] : "und"
        }
        if code == 0x7FFF { return "und" }
        let letters = [(code >> 10) & 0x1F, (code >> 5) & 0x1F, code & 0x1F]
        guard letters.allSatisfy({ $0 >= 1 && $0 <= 26 }) else { return "und" }
        return String(letters.map { Character(Unicode.Scalar(UInt8(truncatingIfNeeded: $0 + 0x60))) })
    }

    /// The packed ISO form of a three-letter code (`und` for anything else).
    public static func packed(_ iso639: String) -> UInt16 {
        let scalars = Array(iso639.lowercased().unicodeScalars)
        guard scalars.count == 3, scalars.allSatisfy({ $0.value >= 0x61 && $0.value <= 0x7A }) else {
            return packed("und")
        }
        return scalars.reduce(0) { ($0 << 5) | UInt16(truncatingIfNeeded: $1.value - 0x60) }
    }

    /// The Macintosh code of an ISO 639-2 language, for QuickTime files, if it has one.
    public static func macintoshCode(_ iso639: String) -> UInt16? {
        macintosh.firstIndex(of: iso639).map { UInt16(clamping: $0) }
    }
}
