import MediaCore

/// Languages for subtitle tracks: ISO 639-1, ISO 639-2 (B or T) or a BCP 47 tag, turned into
/// the ISO 639-2/T code `mdhd` holds plus the full tag for `elng` when it says more.
public struct LanguageTag: Sendable, Hashable {
    /// ISO 639-2/T, for `mdhd`.
    public var iso639: String
    /// BCP 47 (`pt-BR`, `zh-Hant`), for `elng`, when a region or script is given.
    public var bcp47: String?

    /// A language of ISO 639-2/T code `iso639`, with the fuller BCP 47 tag `bcp47` when there is one.
    public init(iso639: String, bcp47: String?) {
        self.iso639 = iso639
        self.bcp47 = bcp47
    }

    /// ISO 639-1 → ISO 639-2/T.
    static let twoLetter: [String: String] = [
        "aa": "aar", "ab": "abk", "af": "afr", "ak": "aka", "am": "amh", "an": "arg", "ar": "ara", "as": "asm",
        "av": "ava", "ay": "aym", "az": "aze", "ba": "bak", "be": "bel", "bg": "bul", "bi": "bis", "bm": "bam",
        "bn": "ben", "bo": "bod", "br": "bre", "bs": "bos", "ca": "cat", "ce": "che", "ch": "cha", "co": "cos",
        "cr": "cre", "cs": "ces", "cu": "chu", "cv": "chv", "cy": "cym", "da": "dan", "de": "deu", "dv": "div",
        "dz": "dzo", "ee": "ewe", "el": "ell", "en": "eng", "eo": "epo", "es": "spa", "et": "est", "eu": "eus",
        "fa": "fas", "ff": "ful", "fi": "fin", "fj": "fij", "fo": "fao", "fr": "fra", "fy": "fry", "ga": "gle",
        "gd": "gla", "gl": "glg", "gn": "grn", "gu": "guj", "gv": "glv", "ha": "hau", "he": "heb", "hi": "hin",
        "ho": "hmo", "hr": "hrv", "ht": "hat", "hu": "hun", "hy": "hye", "hz": "her", "ia": "ina", "id": "ind",
        "ie": "ile", "ig": "ibo", "ii": "iii", "ik": "ipk", "io": "ido", "is": "isl", "it": "ita", "iu": "iku",
        "ja": "jpn", "jv": "jav", "ka": "kat", "kg": "kon", "ki": "kik", "kj": "kua", "kk": "kaz", "kl": "kal",
        "km": "khm", "kn": "kan", "ko": "kor", "kr": "kau", "ks": "kas", "ku": "kur", "kv": "kom", "kw": "cor",
        "ky": "kir", "la": "lat", "lb": "ltz", "lg": "lug", "li": "lim", "ln": "lin", "lo": "lao", "lt": "lit",
        "lu": "lub", "lv": "lav", "mg": "mlg", "mh": "mah", "mi": "mri", "mk": "mkd", "ml": "mal", "mn": "mon",
        "mr": "mar", "ms": "msa", "mt": "mlt", "my": "mya", "na": "nau", "nb": "nob", "nd": "nde", "ne": "nep",
        "ng": "ndo", "nl": "nld", "nn": "nno", "no": "nor", "nr": "nbl", "nv": "nav", "ny": "nya", "oc": "oci",
        "oj": "oji", "om": "orm", "or": "ori", "os": "oss", "pa": "pan", "pi": "pli", "pl": "pol", "ps": "pus",
        "pt": "por", "qu": "que", "rm": "roh", "rn": "run", "ro": "ron", "ru": "rus", "rw": "kin", "sa": "san",
        "sc": "srd", "sd": "snd", "se": "sme", "sg": "sag", "si": "sin", "sk": "slk", "sl": "slv", "sm": "smo",
        "sn": "sna", "so": "som", "sq": "sqi", "sr": "srp", "ss": "ssw", "st": "sot", "su": "sun", "sv": "swe",
        "sw": "swa", "ta": "tam", "te": "tel", "tg": "tgk", "th": "tha", "ti": "tir", "tk": "tuk", "tl": "tgl",
        "tn": "tsn", "to": "ton", "tr": "tur", "ts": "tso", "tt": "tat", "tw": "twi", "ty": "tah", "ug": "uig",
        "uk": "ukr", "ur": "urd", "uz": "uzb", "ve": "ven", "vi": "vie", "vo": "vol", "wa": "wln", "wo": "wol",
        "xh": "xho", "yi": "yid", "yo": "yor", "za": "zha", "zh": "zho", "zu": "zul",
    ]

    /// The shortest ISO 639 code of an ISO 639-2 code (`eng` → `en`, `fre` → `fr`), as BCP 47
    /// writes a language.
    public static func shortest(_ code: String) -> String {
        let terminology = ISO639.terminology(code.lowercased())
        return twoLetter.first { $0.value == terminology }?.key ?? code.lowercased()
    }

    static let known3: Set<String> = Set(twoLetter.values).union(ISO639.terminologyForBibliographic.keys).union(["und", "mul", "zxx", "yue", "cmn", "fil"])

    /// Parses `en`, `eng`, `fre`, `pt-BR`, `zh-Hant-TW`; `nil` for anything else.
    public init?(_ tag: String) {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard let primary = parts.first?.lowercased(), !primary.isEmpty, primary.allSatisfy({ $0.isASCII && $0.isLetter }),
              parts.dropFirst().allSatisfy({ (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
        else { return nil }
        let code: String
        switch primary.count {
        case 2:
            guard let c = LanguageTag.twoLetter[primary] else { return nil }
            code = c
        case 3:
            guard LanguageTag.known3.contains(primary) else { return nil }
            code = ISO639.terminology(primary)
        default:
            return nil
        }
        iso639 = code
        bcp47 = parts.count > 1 ? LanguageTag.canonical(parts) : nil
    }

    /// `pt-br` → `pt-BR`, `zh-hant` → `zh-Hant`.
    static func canonical(_ parts: [String]) -> String {
        parts.enumerated().map { i, p in
            if i == 0 { return p.lowercased() }
            if p.count == 2 && p.allSatisfy(\.isLetter) { return p.uppercased() }
            if p.count == 4 && p.allSatisfy(\.isLetter) { return p.prefix(1).uppercased() + p.dropFirst().lowercased() }
            return p.lowercased()
        }.joined(separator: "-")
    }

    /// The language a file name states before its extension: `movie.es.srt`, `movie.spa.srt`,
    /// `movie.pt-BR.srt`.
    public init?(fileName: String) {
        let parts = fileName.split(separator: ".").map(String.init)
        guard parts.count >= 3, let tag = LanguageTag(parts[parts.count - 2]) else { return nil }
        self = tag
    }
}
