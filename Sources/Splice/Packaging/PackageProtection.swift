import Foundation
import ISOBMFF
import MediaCore

/// What the manifests say of a track's encryption and sound channels.
enum PackageProtection {
    /// The W3C common system (`pssh` with key IDs only), signalled when a source has no `pssh`.
    static let commonSystem: [UInt8] = [0x10, 0x77, 0xEF, 0xEC, 0xC0, 0xB2, 0x4D, 0x02, 0xAC, 0xE3, 0x3C, 0x1E, 0x52, 0xE2, 0xFB, 0x4B]

    /// `1077efec-c0b2-4d02-ace3-3c1e52e2fb4b`.
    static func uuid(_ b: [UInt8]) -> String {
        let hex = b.map { CodecString.hex($0) }.joined()
        var s = ""
        for (n, ch) in hex.enumerated() {
            if [8, 12, 16, 20].contains(n) { s += "-" }
            s.append(ch)
        }
        return s
    }

    /// The track's `pssh` boxes: the source's, else one of the common system naming its key.
    static func systems(_ media: PackageMedia) -> [(system: [UInt8], box: [UInt8])] {
        let boxes = media.protectionHeaders.filter { $0.count >= 28 }
        if !boxes.isEmpty { return boxes.map { (Array($0[12..<28]), $0) } }
        guard let kid = media.encryption?.keyID, kid.count == 16 else { return [] }
        var w = BoxWriter()
        w.u32(32 + 4 + 16 + 4); w.fourCC("pssh")
        w.u32(0x0100_0000)   // version 1: key IDs listed
        w.append(commonSystem)
        w.u32(1); w.append(kid)
        w.u32(0)
        return [(commonSystem, w.bytes)]
    }

    /// The protection of a track that is encrypted, or nil.
    static func scheme(_ media: PackageMedia) -> ProtectionScheme? {
        guard let p = media.encryption, p.isProtected else { return nil }
        return p
    }

    /// HLS `EXT-X-KEY` lines (one per key system): `SAMPLE-AES` for the CBC schemes (`cbcs`,
    /// `cbc1`), `SAMPLE-AES-CTR` for the counter ones (`cenc`, `cens`), the system's `pssh` as
    /// the key's URI (RFC 8216bis §4.4.4.4).
    static func hlsKeys(_ media: PackageMedia) -> [String] {
        guard let p = scheme(media) else { return [] }
        let method = ["cbcs", "cbc1"].contains(p.scheme.description) ? "SAMPLE-AES" : "SAMPLE-AES-CTR"
        return systems(media).map { s in
            "#EXT-X-KEY:METHOD=\(method),URI=\"data:text/plain;base64,\(Data(s.box).base64EncodedString())\","
                + "KEYFORMAT=\"urn:uuid:\(uuid(s.system))\",KEYFORMATVERSIONS=\"1\""
        }
    }

    /// DASH `ContentProtection` elements: the MP4 protection scheme with `cenc:default_KID`,
    /// then one per key system with its `cenc:pssh` (ISO/IEC 23009-1 §5.8.5.2, ISO/IEC 23001-7 §11.2).
    static func dashElements(_ media: PackageMedia, indent: String) -> [String] {
        guard let p = scheme(media) else { return [] }
        var lines = ["\(indent)<ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"\(p.scheme.description)\" "
                     + "cenc:default_KID=\"\(uuid(p.keyID))\"/>"]
        for s in systems(media) {
            lines.append("\(indent)<ContentProtection schemeIdUri=\"urn:uuid:\(uuid(s.system))\">"
                         + "<cenc:pssh>\(Data(s.box).base64EncodedString())</cenc:pssh></ContentProtection>")
        }
        return lines
    }

    /// A sound track's channels, and DASH's `AudioChannelConfiguration` scheme and value for
    /// them (Dolby's mask for AC-3 and E-AC-3, the channel count otherwise); nil for other tracks.
    static func channels(_ t: PackageTrack) -> (count: Int, scheme: String, value: String)? {
        guard t.kind == .audio else { return nil }
        if let entry = t.media?.entry, let dolby = CodecString.dolbyChannels(entry) {
            return (dolby.count, "tag:dolby.com,2014:dash:audio_channel_configuration:2011", String(format: "%04X", dolby.mask))
        }
        guard let n = t.source.formatDescriptions.first?.channelCount, n > 0 else { return nil }
        return (n, "urn:mpeg:dash:23003:3:audio_channel_configuration:2011", "\(n)")
    }
}
