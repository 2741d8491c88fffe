import Foundation
import MediaCore

/// Sample entries for codecs that come from other containers, and the way back.
///
/// Each entry is built from what ISO/IEC 14496-15 (AVC, HEVC), 14496-14 (`esds`), ETSI TS 102 366
/// (`dac3`, `dec3`), the Opus, FLAC, VP9 and AV1 ISO-BMFF bindings say the configuration box holds.
public enum CodecMapping {
    /// The sample entry for `p`, and how its packets must change to fit it (its registry entry's).
    /// - Parameter firstPacket: the stream's first packet, for codecs whose configuration is read
    ///   from the bitstream (`CodecEntry.firstPacket`).
    /// - Throws: `.unsupported` naming the codec when MP4 cannot carry it; `.invalidData` when the
    ///   configuration cannot be read.
    public static func sampleEntry(for p: CodecParameters, firstPacket: [UInt8]?) throws -> (entry: [UInt8], conversion: PacketConversion) {
        guard let write = CodecRegistry.entry(named: p.codecName)?.write else {
            throw MediaError(.unsupported, "\(p.codecName) cannot be stored in MP4/MOV (it holds \(CodecRegistry.writtenToISO.joined(separator: ", ")))")
        }
        return try write(p, firstPacket ?? [])
    }

    /// A format description of `p` with its ISO sample entry (`codec` the entry's type), and how
    /// its packets must change to fit it.
    public static func formatDescription(for p: CodecParameters, firstPacket: [UInt8]?) throws -> (format: FormatDescription, conversion: PacketConversion) {
        let made = try sampleEntry(for: p, firstPacket: firstPacket)
        let type = try SampleEntry(bytes: made.entry, handler: p.mediaType.handlerType).type
        return (FormatDescription(parameters: p, codec: type, sampleEntry: Data(made.entry)), made.conversion)
    }

    /// The child boxes of a sample entry (`avcC`, `esds`, `wave`, `sinf`, …), after its fixed
    /// fields; nil when the entry is shorter than them.
    static func sampleEntryChildren(_ bytes: [UInt8], mediaType: MediaType) -> [Box]? {
        // QuickTime sound descriptions version 1 and 2 (every iPhone recording) have 16 and 36
        // more bytes of fields before their children than version 0 (QTFF, "Sound Sample Descriptions").
        let soundVersion = mediaType == .audio && bytes.count >= 18 ? Int(widening: bytes[16]) << 8 | Int(widening: bytes[17]) : 0
        // Other entries: `mp4s` (VobSub) and the like have SampleEntry's own 8 bytes of fields.
        let isMPEGEntry = bytes.count >= 8 && Array(bytes[4..<8]) == Array("mp4s".utf8)
        let headerLength = mediaType == .video ? 8 + 78 : mediaType == .audio ? 8 + 28 + [0, 16, 36][min(max(soundVersion, 0), 2)] : isMPEGEntry ? 16 : 8
        guard bytes.count >= headerLength else { return nil }
        return (try? Box.parseAll(Array(bytes[headerLength...]))) ?? []
    }

    /// FFmpeg's description of the codec in an ISO sample entry, or nil when the entry is not one
    /// Splice can hand to another container (`tx3g` is converted separately, as text).
    public static func codecParameters(sampleEntry bytes: [UInt8], mediaType: MediaType) -> CodecParameters? {
        guard let entry = try? SampleEntry(bytes: bytes, handler: mediaType.handlerType) else { return nil }
        guard var boxes = sampleEntryChildren(bytes, mediaType: mediaType) else { return nil }
        // QuickTime sound: the codec's boxes (`esds`, `enda`) inside `wave`.
        if mediaType == .audio, let wave = boxes.first(where: { $0.type == "wave" }) {
            boxes += (try? Box.parseAll(wave.payload)) ?? []
        }
        var p = CodecParameters(mediaType: mediaType, codecName: "")
        p.codecTag = entry.type
        p.width = entry.width ?? 0
        p.height = entry.height ?? 0
        p.sampleRate = entry.sampleRate.flatMap { Int(exactly: $0.rounded(.down)) } ?? 0
        p.channelCount = entry.channelCount ?? 0
        guard CodecRegistry.read(SampleEntryContents(type: entry.type, bytes: bytes, children: boxes), into: &p) else { return nil }
        // AC-3 and E-AC-3 entries say 2 channels whatever the stream holds (ETSI TS 102 366 F.3:
        // the field is not used); `dac3`/`dec3` say how many.
        if let dolby = CodecString.dolbyChannels(bytes) { p.channelCount = dolby.count }
        if let pasp = boxes.first(where: { $0.type == "pasp" })?.payload, pasp.count >= 8 {
            let h = pasp[0..<4].reduce(0) { $0 << 8 | Int(widening: $1) }, v = pasp[4..<8].reduce(0) { $0 << 8 | Int(widening: $1) }
            if h > 0, v > 0 { p.sampleAspectRatio = (h, v) }
        }
        if let colr = boxes.first(where: { $0.type == "colr" })?.payload, colr.count >= 11, Array(colr[0..<4]) == Array("nclx".utf8) {
            p.colorPrimaries = Int(widening: colr[4]) << 8 | Int(widening: colr[5])
            p.transferCharacteristics = Int(widening: colr[6]) << 8 | Int(widening: colr[7])
            p.matrixCoefficients = Int(widening: colr[8]) << 8 | Int(widening: colr[9])
            p.isFullRange = colr[10] & 0x80 != 0
        }
        p.masteringDisplay = boxes.first { $0.type == "mdcv" }.flatMap { MasteringDisplay(mdcvPayload: $0.payload) }
        p.contentLightLevel = boxes.first { $0.type == "clli" }.flatMap { ContentLightLevel(clliPayload: $0.payload) }
        p.dolbyVision = boxes.first { ["dvcC", "dvvC", "dvwC"].contains($0.type) }.flatMap { DolbyVisionConfiguration(record: $0.payload) }
        return p
    }

    /// Codings that some containers have no place for, so that a copy there would lose or
    /// misdescribe them.
    public enum ExtendedCoding: String, Sendable {
        /// Multiview HEVC: a second layer (view), configured in `lhvC` (ISO/IEC 14496-15, 9).
        case mvHEVC = "MV-HEVC (a second view, configured in 'lhvC')"
        /// xHE-AAC: MPEG-D USAC, audio object type 42, which ADTS headers cannot say.
        case usac = "xHE-AAC (USAC, audio object type 42)"
    }

    /// The extended coding of an ISO sample entry, if it has one.
    public static func extendedCoding(sampleEntry bytes: [UInt8], mediaType: MediaType) -> ExtendedCoding? {
        guard let boxes = sampleEntryChildren(bytes, mediaType: mediaType) else { return nil }
        if mediaType == .video, boxes.contains(where: { $0.type == "lhvC" }) {
            return .mvHEVC
        }
        if mediaType == .audio, let p = codecParameters(sampleEntry: bytes, mediaType: mediaType), p.codecName == "aac",
           let asc = p.extradata.first {
            // ISO/IEC 14496-3 1.6.2.1: 5 bits of object type; 31 escapes to 32 + the next 6 bits.
            var type = Int(widening: asc >> 3)
            if type == 31, p.extradata.count >= 2 { type = 32 + Int(widening: asc & 7) << 3 + Int(widening: p.extradata[1] >> 5) }
            if type == 42 { return .usac }
        }
        return nil
    }
}

extension FormatDescription {
    /// The codec parameters a decoder or a muxer is given for samples of this description: what
    /// its sample entry maps to, with the rate and channel count the entry cannot say (an ISO
    /// audio entry's 16.16 rate is 0 at 88.2 kHz and up) taken from the description's own
    /// parameters. Nil without a sample entry, or for one that maps to no codec Splice knows.
    /// - Parameter mediaType: the track's (how its entry is read); the description's by default.
    public func entryCodecParameters(mediaType: MediaType? = nil) -> CodecParameters? {
        guard let entry = sampleEntry,
              var p = CodecMapping.codecParameters(sampleEntry: [UInt8](entry), mediaType: mediaType ?? self.mediaType) else { return nil }
        if p.sampleRate == 0 { p.sampleRate = parameters.sampleRate }
        if p.channelCount == 0 { p.channelCount = parameters.channelCount }
        return p
    }
}
