import Foundation
import MediaCore
import ISOBMFF

/// The parameter sets of a smart cut's track, carried in every sync sample (`avc3`/`hev1`).
///
/// Re-encoded frames have other SPS/PPS (and VPS) than the copied ones. A second sample
/// description plays in ffmpeg, GStreamer and mpv but is a decode error at the switch in
/// Chromium and Firefox; parameter sets in-band only where they change fail on seeking. With
/// each sync sample carrying its own, all five players decode every frame (docs/smart-cut.md).
struct InBandParameterSets {
    /// `h264` or `hevc`.
    let codec: String
    /// The output's framing: the first clip's NAL length size.
    let stream: NALConfiguration

    init?(codec: String, stream: NALConfiguration) {
        guard codec == "h264" || codec == "hevc" else { return nil }
        self.codec = codec
        self.stream = stream
    }

    /// The sample entry with in-band parameter sets allowed: `avc1`→`avc3`, `hvc1`→`hev1`
    /// (the record stays: a decoder starts from it, and every sync sample brings its own).
    static func inBandEntry(_ format: FormatDescription) -> FormatDescription? {
        guard let entry = format.sampleEntry, entry.count >= 8 else { return nil }
        var bytes = [UInt8](entry)
        let type = String(decoding: bytes[4..<8], as: UTF8.self)
        let renamed: String
        switch type {
        case "avc1", "avc3": renamed = "avc3"
        case "hvc1", "hev1": renamed = "hev1"
        default: return nil
        }
        bytes.replaceSubrange(4..<8, with: Array(renamed.utf8))
        return FormatDescription(parameters: format.parameters, codec: FourCC(renamed), sampleEntry: Data(bytes))
    }

    /// A NAL unit's type.
    func type(of unit: ArraySlice<UInt8>) -> Int {
        guard let first = unit.first else { return -1 }
        return codec == "h264" ? Int(widening: first & 0x1F) : Int(widening: (first >> 1) & 0x3F)
    }

    private func isParameterSet(_ t: Int) -> Bool { codec == "h264" ? (t == 7 || t == 8 || t == 13) : (t >= 32 && t <= 34) }
    private func isDelimiter(_ t: Int) -> Bool { codec == "h264" ? t == 9 : t == 35 }
    /// A picture that starts a coded video sequence by itself (IDR; HEVC's BLA too): what comes
    /// before it does not matter to it. A CRA or an open-GOP I picture does not.
    private func startsSequence(_ t: Int) -> Bool { codec == "h264" ? t == 5 : (t >= 16 && t <= 20) }
    private func isPicture(_ t: Int) -> Bool { codec == "h264" ? (t >= 1 && t <= 5) : t <= 31 }

    /// Whether `sample`, a sync sample framed with `config`, starts a sequence whatever came
    /// before it (IDR); false for a CRA or an open-GOP I picture, and when it cannot be read.
    func startsSequence(_ sample: [UInt8], framedWith config: NALConfiguration) -> Bool {
        guard let units = config.units(of: sample) else { return false }
        return units.map { type(of: $0) }.first(where: isPicture).map(startsSequence) ?? false
    }

    /// `sample` (framed with `config`) framed for the stream: a sync sample with `config`'s
    /// parameter sets after its access unit delimiter (unless it carries its own); with
    /// `breaksLink`, an HEVC CRA picture made a BLA one (`BLA_N_LP`: its leading pictures, which
    /// refer to what is no longer before it, are not there). After other frames than its own
    /// GOP's, a CRA would start a sequence that drops the pictures still waiting to be shown
    /// (H.265 C.5.2.2); a BLA shows them first, and counts its picture order afresh.
    /// - Throws: `.invalidData` when the sample's NAL lengths do not add up.
    func framed(_ sample: [UInt8], of config: NALConfiguration, sync: Bool, breaksLink: Bool) throws -> [UInt8] {
        guard let units = config.units(of: sample) else {
            throw MediaError(.invalidData, "a sample's NAL unit lengths run past its \(sample.count) bytes")
        }
        var out: [ArraySlice<UInt8>] = units
        if sync, !units.contains(where: { isParameterSet(type(of: $0)) }) {
            let at = units.first.map { isDelimiter(type(of: $0)) } == true ? 1 : 0
            // (only VPS/SPS/PPS: a record's arrays may also hold SEI — x265 stores its 2 KB banner there)
            out.insert(contentsOf: config.parameterSets.map { $0[...] }.filter { isParameterSet(type(of: $0)) }, at: at)
        }
        if breaksLink, codec == "hevc" {
            out = out.map { unit in
                guard type(of: unit) == 21, let first = unit.first else { return unit }
                var u = unit
                u[u.startIndex] = (first & 0x81) | (18 << 1)
                return u
            }
        }
        return try Self.joined(out, lengthSize: stream.lengthSize)
    }

    /// Whether `framed(…)` would change `sample` (a copied non-sync sample of the stream's
    /// framing stays as it is, in its file).
    func changes(sync: Bool, breaksLink: Bool, config: NALConfiguration) -> Bool {
        sync || breaksLink || config.lengthSize != stream.lengthSize
    }

    /// Whether a copied run can start at `sample` (a sync sample framed with `config`): any
    /// HEVC random access point (a CRA becomes a BLA), an H.264 IDR picture only (an open-GOP I
    /// picture has no such form: what follows it would count its order from what came before).
    func canStartCopy(_ sample: [UInt8], framedWith config: NALConfiguration) -> Bool {
        codec == "hevc" || startsSequence(sample, framedWith: config)
    }

    private static func joined(_ units: [ArraySlice<UInt8>], lengthSize: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(units.reduce(0) { $0 + $1.count + 4 })
        for unit in units {
            guard lengthSize == 4 || unit.count < 1 << (8 * lengthSize) else {
                throw MediaError(.unsupported, "a NAL unit of \(unit.count) bytes does not fit the stream's \(lengthSize)-byte lengths")
            }
            for k in stride(from: lengthSize - 1, through: 0, by: -1) { out.append(UInt8(truncatingIfNeeded: unit.count >> (8 * k))) }
            out += unit
        }
        return out
    }
}

extension InBandParameterSets {
    /// Whether an H.264 SPS codes fields (`frame_mbs_only_flag` 0: interlaced or MBAFF), read
    /// through its fields up to that flag (ITU-T H.264 7.3.2.1.1); nil when it cannot be read.
    /// A smart cut would re-encode such pictures as frames, unlike the copied ones.
    static func codesFields(sps unit: [UInt8]) -> Bool? {
        var r = BitReader(rbsp: unit.dropFirst())
        guard let profile = r.bits(8), r.bits(16) != nil, r.ue() != nil else { return nil }
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            guard let chroma = r.ue() else { return nil }
            if chroma == 3 { guard r.bits(1) != nil else { return nil } }
            guard r.ue() != nil, r.ue() != nil, r.bits(1) != nil, let scaling = r.bits(1) else { return nil }
            if scaling == 1 {
                for i in 0..<(chroma == 3 ? 12 : 8) {
                    guard let present = r.bits(1) else { return nil }
                    guard present == 1 else { continue }
                    var (last, next) = (8, 8)
                    for _ in 0..<(i < 6 ? 16 : 64) {
                        if next != 0 {
                            guard let delta = r.se() else { return nil }
                            next = ((last + delta) % 256 + 256) % 256
                        }
                        if next != 0 { last = next }
                    }
                }
            }
        }
        guard r.ue() != nil, let pocType = r.ue() else { return nil }
        if pocType == 0 {
            guard r.ue() != nil else { return nil }
        } else if pocType == 1 {
            guard r.bits(1) != nil, r.se() != nil, r.se() != nil, let cycle = r.ue(), cycle <= 255 else { return nil }
            for _ in 0..<cycle { guard r.se() != nil else { return nil } }
        }
        guard r.ue() != nil, r.bits(1) != nil, r.ue() != nil, r.ue() != nil, let frameOnly = r.bits(1) else { return nil }
        return frameOnly == 0
    }
}

/// Bits of a NAL unit's payload, emulation-prevention bytes removed (or of raw bytes), every read bounds-checked.
struct BitReader {
    private var bytes: [UInt8] = []
    private var position = 0

    init<C: Collection>(rbsp: C) where C.Element == UInt8 {
        var zeros = 0
        for b in rbsp {
            if zeros >= 2, b == 3 { zeros = 0; continue }
            zeros = b == 0 ? zeros + 1 : 0
            bytes.append(b)
        }
    }

    /// Bits of bytes as they are (VP9's headers have no emulation prevention).
    init<C: Collection>(raw: C) where C.Element == UInt8 { bytes = Array(raw) }

    /// The next `n` bits (n ≤ 32) as a number; nil past the end.
    mutating func bits(_ n: Int) -> Int? {
        guard n >= 0, n <= 32, position + n <= bytes.count * 8 else { return nil }
        var v = 0
        for _ in 0..<n {
            v = v << 1 | Int(widening: (bytes[position >> 3] >> (7 - UInt8(truncatingIfNeeded: position & 7))) & 1)
            position += 1
        }
        return v
    }

    /// An unsigned Exp-Golomb number (at most 31 leading zeros); nil past the end.
    mutating func ue() -> Int? {
        var zeros = 0
        while true {
            guard let bit = bits(1) else { return nil }
            if bit == 1 { break }
            zeros += 1
            guard zeros < 32 else { return nil }
        }
        guard let rest = bits(zeros) else { return nil }
        return (1 << zeros) - 1 + rest
    }

    /// A signed Exp-Golomb number.
    mutating func se() -> Int? {
        guard let k = ue() else { return nil }
        return k % 2 == 1 ? (k + 1) / 2 : -(k / 2)
    }
}
