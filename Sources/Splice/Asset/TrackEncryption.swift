import Foundation

/// How a track's samples are encrypted: MP4's Common Encryption (`cenc`, `cbcs`, `cens`,
/// `cbc1`) or PIFF, or Matroska's ContentEncryption. A copy into MP4/MOV carries Common
/// Encryption and PIFF whole — the protection scheme in the sample entry, `pssh`, and every
/// sample's IV and subsample map in the output's own `senc`/`saiz`/`saio` — and refuses what
/// it cannot carry.
public struct TrackEncryption: Sendable, Hashable, CustomStringConvertible {
    /// `cenc`, `cbcs`, `cens`, `cbc1`, `piff`; `ContentEncryption` for Matroska.
    public var scheme: String
    /// The codec under the encryption (`frma`: `avc1`, `mp4a`), when the container says.
    public var originalFormat: String?
    /// The default key ID, 32 hex digits.
    public var keyID: String?
    /// Samples whose auxiliary information (IV, subsample map) Splice read.
    public var samplesWithInformation: Int
    /// Why a copy cannot carry the encryption, when it cannot.
    public var problem: String?
    /// Samples that are not encrypted: those of a clear sample entry (a clear lead).
    public var clearSamples = 0

    public var description: String {
        [scheme, originalFormat.map { "of \($0)" }, keyID.map { "key ID \($0)" },
         clearSamples > 0 ? "\(clearSamples) samples clear (of a clear sample entry)" : nil].compactMap { $0 }.joined(separator: ", ")
    }
}

extension AssetTrack {
    /// How the track's samples are encrypted; nil for clear tracks.
    public var encryption: TrackEncryption? { backing.encryption }
}
