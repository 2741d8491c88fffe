/// ISO 639-2 three-letter language codes in their two forms: terminology (`deu`, `fra`; what
/// MP4/MOV store) and bibliographic (`ger`, `fre`; what Matroska and many subtitle files use).
public enum ISO639 {
    /// Bibliographic → terminology, for the twenty codes that differ.
    public static let terminologyForBibliographic: [String: String] = [
        "alb": "sqi", "arm": "hye", "baq": "eus", "bur": "mya", "chi": "zho", "cze": "ces", "dut": "nld",
        "fre": "fra", "geo": "kat", "ger": "deu", "gre": "ell", "ice": "isl", "mac": "mkd", "mao": "mri",
        "may": "msa", "per": "fas", "rum": "ron", "slo": "slk", "tib": "bod", "wel": "cym",
    ]
    /// Terminology → bibliographic, for the same codes.
    public static let bibliographicForTerminology: [String: String] =
        Dictionary(uniqueKeysWithValues: terminologyForBibliographic.map { ($1, $0) })

    /// The terminology form of `code` (itself when the two forms agree).
    public static func terminology(_ code: String) -> String { terminologyForBibliographic[code] ?? code }
    /// The bibliographic form of `code` (itself when the two forms agree).
    public static func bibliographic(_ code: String) -> String { bibliographicForTerminology[code] ?? code }
}
