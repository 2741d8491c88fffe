import MediaCore

/// Sample entries for codecs that come from other containers, and the way back.
///
/// Each entry is built from what ISO/IEC 14496-15 (AVC, HEVC), 14496-14 (`esds`), ETSI TS 102 366
/// (`dac3`, `dec3`), the Opus, FLAC, VP9 and AV1 ISO-BMFF bindings say the configuration box holds.
public enum CodecMapping {
    /// FFmpeg codec names MP4 can carry, for error messages.
    public static let isoCodecs = ["h264", "hevc", "mpeg4", "mpeg2video", "mpeg1video", "vp9", "av1", "aac", "mp3", "mp2", "opus", "ac3", "eac3", "flac", "alac", "pcm_s16le", "pcm_s16be", "mov_text"]

    /// The sample entry for `p`, and how its packets must change to fit it.
    /// - Parameter firstPacket: the stream's first packet, for codecs whose configuration is read
    ///   from the bitstream (AC-3, E-AC-3, AAC in ADTS, VP9, H.264/HEVC without `extradata`).
    /// - Throws: `.unsupported` naming the codec when MP4 cannot carry it; `.invalidData` when the
    ///   configuration cannot be read.
    public static func sampleEntry(for p: CodecParameters, firstPacket: [UInt8]?) throws -> (entry: [UInt8], conversion: PacketConversion) {
        let packet = firstPacket ?? []
        switch p.codecName {
        case "h264":
            if p.extradata.first == 1 { return (SampleEntryBuilder.visual("avc1", p, SampleEntryBuilder.box("avcC", p.extradata)), .none) }
            let source = p.extradata.isEmpty ? packet : p.extradata
            return (SampleEntryBuilder.visual("avc1", p, SampleEntryBuilder.box("avcC", try AVCConfiguration.record(fromAnnexB: source))), .annexBToLengthPrefixed)
        case "hevc":
            if p.extradata.first == 1 { return (SampleEntryBuilder.visual("hvc1", p, SampleEntryBuilder.box("hvcC", p.extradata)), .none) }
            let source = p.extradata.isEmpty ? packet : p.extradata
            return (SampleEntryBuilder.visual("hvc1", p, SampleEntryBuilder.box("hvcC", try HEVCConfiguration.record(fromAnnexB: source))), .annexBToLengthPrefixed)
        case "mpeg4":
            return (SampleEntryBuilder.visual("mp4v", p, ESDescriptor.box(objectType: 0x20, streamType: 4, p, specificInfo: p.extradata)), .none)
        case "mpeg2video":
            // ISO/IEC 13818-2 Main profile (0x61), the object type players read for any MPEG-2 video.
            return (SampleEntryBuilder.visual("mp4v", p, ESDescriptor.box(objectType: 0x61, streamType: 4, p, specificInfo: p.extradata)), .none)
        case "mpeg1video":
            return (SampleEntryBuilder.visual("mp4v", p, ESDescriptor.box(objectType: 0x6A, streamType: 4, p, specificInfo: p.extradata)), .none)
        case "vp9":
            return (SampleEntryBuilder.visual("vp09", p, try VPCodecConfiguration.box(p, keyFrame: packet)), .none)
        case "av1":
            if p.extradata.first == 0x81 { return (SampleEntryBuilder.visual("av01", p, SampleEntryBuilder.box("av1C", p.extradata)), .none) }
            let source = p.extradata.isEmpty ? packet : p.extradata
            return (SampleEntryBuilder.visual("av01", p, SampleEntryBuilder.box("av1C", try AV1Configuration.record(fromOBUs: source))), .none)
        case "aac":
            if !p.extradata.isEmpty { return (SampleEntryBuilder.audio("mp4a", p, ESDescriptor.box(objectType: 0x40, streamType: 5, p, specificInfo: p.extradata)), .none) }
            guard let adts = ADTSHeader(packet) else {
                throw MediaError(.invalidData, "AAC stream has neither an AudioSpecificConfig nor ADTS headers")
            }
            var q = p
            if q.sampleRate == 0 { q.sampleRate = adts.sampleRate }
            if q.channelCount == 0 { q.channelCount = Int(widening: adts.channelConfiguration) }
            return (SampleEntryBuilder.audio("mp4a", q, ESDescriptor.box(objectType: 0x40, streamType: 5, q, specificInfo: adts.audioSpecificConfig)), .stripADTS)
        case "mp3":
            return (SampleEntryBuilder.audio("mp4a", p, ESDescriptor.box(objectType: 0x6B, streamType: 5, p, specificInfo: [])), .none)
        case "mp2":
            return (SampleEntryBuilder.audio("mp4a", p, ESDescriptor.box(objectType: 0x69, streamType: 5, p, specificInfo: [])), .none)
        case "opus":
            var q = p
            q.sampleRate = 48000
            return (SampleEntryBuilder.audio("Opus", q, try OpusConfiguration.dOps(p)), .none)
        case "flac":
            return (SampleEntryBuilder.audio("fLaC", p, try FLACConfiguration.dfLa(p.extradata)), .none)
        case "alac":
            guard p.extradata.count >= 36 else { throw MediaError(.invalidData, "ALAC stream without its 36-byte configuration") }
            // FFmpeg keeps the whole `alac` atom (size, type, version/flags, config).
            return (SampleEntryBuilder.audio("alac", p, Array(p.extradata.prefix(36))), .none)
        case "ac3":
            return (SampleEntryBuilder.audio("ac-3", p, try AC3Header.dac3(packet)), .none)
        case "eac3":
            return (SampleEntryBuilder.audio("ec-3", p, try AC3Header.dec3(packet)), .none)
        case "pcm_s16le", "pcm_s16be":
            var q = p
            q.bitRate = 0
            return (SampleEntryBuilder.audio(p.codecName == "pcm_s16le" ? "sowt" : "twos", q, []), .none)
        default:
            throw MediaError(.unsupported, "\(p.codecName) cannot be stored in MP4/MOV (it holds \(isoCodecs.joined(separator: ", ")))")
        }
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
        if entry.type == "mp4a", let wave = boxes.first(where: { $0.type == "wave" }) {
            boxes += (try? Box.parseAll(wave.payload)) ?? []
        }
        var p = CodecParameters(mediaType: mediaType, codecName: "")
        p.codecTag = entry.type
        p.width = entry.width ?? 0
        p.height = entry.height ?? 0
        p.sampleRate = entry.sampleRate.flatMap { Int(exactly: $0.rounded(.down)) } ?? 0
        p.channelCount = entry.channelCount ?? 0
        guard describe(entry.type, children: boxes, into: &p) else { return nil }
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

    /// Fills in the codec name and configuration of a sample entry of `type` from its child boxes.
    private static func describe(_ type: FourCC, children boxes: [Box], into p: inout CodecParameters) -> Bool {
        func child(_ t: FourCC) -> [UInt8]? { boxes.first { $0.type == t }?.payload }
        switch type {
        case "avc1", "avc3": p.codecName = "h264"; p.extradata = child("avcC") ?? []
        case "hvc1", "hev1": p.codecName = "hevc"; p.extradata = child("hvcC") ?? []
        case "av01": p.codecName = "av1"; p.extradata = child("av1C") ?? []
        case "vp09": p.codecName = "vp9"
        case "mp4v", "mp4a", "mp4s":
            guard let esds = child("esds"), let d = ESDescriptor(esds), let name = d.codecName else { return false }
            p.codecName = name
            p.extradata = d.specificInfo
        case "Opus":
            guard let dops = child("dOps"), let opus = OpusConfiguration(dOps: dops) else { return false }
            p.codecName = "opus"
            p.extradata = opus.head
            p.sampleRate = 48000
            p.initialPadding = opus.preSkip
        case "fLaC":
            guard let dfla = child("dfLa"), let info = FLACConfiguration.streamInfo(dfLa: dfla) else { return false }
            p.codecName = "flac"
            p.extradata = info
        case "alac":
            // FFmpeg keeps the whole `alac` atom (size, type, version/flags, config).
            guard let alac = child("alac") else { return false }
            p.codecName = "alac"
            p.extradata = SampleEntryBuilder.box("alac", alac)
        case "ac-3": p.codecName = "ac3"
        case "ec-3": p.codecName = "eac3"
        case "sowt": p.codecName = "pcm_s16le"
        case "twos": p.codecName = "pcm_s16be"
        default: return false
        }
        return true
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
