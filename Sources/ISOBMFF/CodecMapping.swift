import MediaCore

/// A codec as other containers describe it, in FFmpeg's terms: its name (`h264`, `aac`, `opus`,
/// …), its configuration bytes (`extradata`) and basic parameters.
public struct CodecParameters: Sendable, Hashable {
    public var mediaType: MediaType
    public var codecName: String
    public var extradata: [UInt8] = []
    public var width = 0
    public var height = 0
    public var sampleRate = 0
    public var channelCount = 0
    public var bitRate = 0
    /// Audio samples the decoder drops at the start (Opus pre-skip).
    public var initialPadding = 0
    /// ISO/IEC 23091-2 code points (2: unspecified) and range (nil: unknown).
    public var colorPrimaries = 2
    public var transferCharacteristics = 2
    public var matrixCoefficients = 2
    public var isFullRange: Bool?

    public init(mediaType: MediaType, codecName: String) {
        self.mediaType = mediaType
        self.codecName = codecName
    }
}

/// How a packet's bytes must change to become an ISO sample of its sample entry.
public enum PacketConversion: Sendable, Hashable {
    case none
    /// H.264/HEVC with start codes (MPEG-TS, raw streams) → 4-byte NAL unit lengths.
    case annexBToLengthPrefixed
    /// AAC with ADTS headers (MPEG-TS, raw `.aac`) → raw access units.
    case stripADTS

    public func apply(_ packet: [UInt8]) -> [UInt8] {
        switch self {
        case .none: packet
        case .annexBToLengthPrefixed: AnnexB.lengthPrefixed(packet)
        case .stripADTS: ADTSHeader(packet).map { Array(packet[$0.headerLength...]) } ?? packet
        }
    }
}

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
            if p.extradata.first == 1 { return (visual("avc1", p, box("avcC", p.extradata)), .none) }
            let source = p.extradata.isEmpty ? packet : p.extradata
            return (visual("avc1", p, box("avcC", try AVCConfiguration.record(fromAnnexB: source))), .annexBToLengthPrefixed)
        case "hevc":
            if p.extradata.first == 1 { return (visual("hvc1", p, box("hvcC", p.extradata)), .none) }
            let source = p.extradata.isEmpty ? packet : p.extradata
            return (visual("hvc1", p, box("hvcC", try HEVCConfiguration.record(fromAnnexB: source))), .annexBToLengthPrefixed)
        case "mpeg4":
            return (visual("mp4v", p, esds(objectType: 0x20, streamType: 4, p, specificInfo: p.extradata)), .none)
        case "mpeg2video":
            // ISO/IEC 13818-2 Main profile (0x61), the object type players read for any MPEG-2 video.
            return (visual("mp4v", p, esds(objectType: 0x61, streamType: 4, p, specificInfo: p.extradata)), .none)
        case "mpeg1video":
            return (visual("mp4v", p, esds(objectType: 0x6A, streamType: 4, p, specificInfo: p.extradata)), .none)
        case "vp9":
            return (visual("vp09", p, try vpcC(p, keyFrame: packet)), .none)
        case "av1":
            if p.extradata.first == 0x81 { return (visual("av01", p, box("av1C", p.extradata)), .none) }
            let source = p.extradata.isEmpty ? packet : p.extradata
            return (visual("av01", p, box("av1C", try AV1Configuration.record(fromOBUs: source))), .none)
        case "aac":
            if !p.extradata.isEmpty { return (audio("mp4a", p, esds(objectType: 0x40, streamType: 5, p, specificInfo: p.extradata)), .none) }
            guard let adts = ADTSHeader(packet) else {
                throw MediaError(.invalidData, "AAC stream has neither an AudioSpecificConfig nor ADTS headers")
            }
            var q = p
            if q.sampleRate == 0 { q.sampleRate = adts.sampleRate }
            if q.channelCount == 0 { q.channelCount = Int(adts.channelConfiguration) }
            return (audio("mp4a", q, esds(objectType: 0x40, streamType: 5, q, specificInfo: adts.audioSpecificConfig)), .stripADTS)
        case "mp3":
            return (audio("mp4a", p, esds(objectType: 0x6B, streamType: 5, p, specificInfo: [])), .none)
        case "mp2":
            return (audio("mp4a", p, esds(objectType: 0x69, streamType: 5, p, specificInfo: [])), .none)
        case "opus":
            var q = p
            q.sampleRate = 48000
            return (audio("Opus", q, try dOps(p)), .none)
        case "flac":
            return (audio("fLaC", p, try dfLa(p.extradata)), .none)
        case "alac":
            guard p.extradata.count >= 36 else { throw MediaError(.invalidData, "ALAC stream without its 36-byte configuration") }
            // FFmpeg keeps the whole `alac` atom (size, type, version/flags, config).
            return (audio("alac", p, Array(p.extradata.prefix(36))), .none)
        case "ac3":
            return (audio("ac-3", p, try AC3Header.dac3(packet)), .none)
        case "eac3":
            return (audio("ec-3", p, try AC3Header.dec3(packet)), .none)
        case "pcm_s16le", "pcm_s16be":
            var q = p
            q.bitRate = 0
            return (audio(p.codecName == "pcm_s16le" ? "sowt" : "twos", q, []), .none)
        default:
            throw MediaError(.unsupported, "\(p.codecName) cannot be stored in MP4/MOV (it holds \(isoCodecs.joined(separator: ", ")))")
        }
    }

    /// FFmpeg's description of the codec in an ISO sample entry, or nil when the entry is not one
    /// Splice can hand to another container (`tx3g` is converted separately, as text).
    public static func codecParameters(sampleEntry bytes: [UInt8], mediaType: MediaType) -> CodecParameters? {
        guard let entry = try? SampleEntry(bytes: bytes, handler: mediaType.handlerType) else { return nil }
        let headerLength = mediaType == .video ? 8 + 78 : mediaType == .audio ? 8 + 28 : 8
        guard bytes.count >= headerLength else { return nil }
        var boxes = (try? Box.parseAll(Array(bytes[headerLength...]))) ?? []
        if entry.type == "mp4a", let wave = boxes.first(where: { $0.type == "wave" }) {
            boxes += (try? Box.parseAll(wave.payload)) ?? []
        }
        func child(_ t: FourCC) -> [UInt8]? { boxes.first { $0.type == t }?.payload }
        var p = CodecParameters(mediaType: mediaType, codecName: "")
        p.width = entry.width ?? 0
        p.height = entry.height ?? 0
        p.sampleRate = Int(entry.sampleRate ?? 0)
        p.channelCount = entry.channelCount ?? 0
        switch entry.type {
        case "avc1", "avc3":
            p.codecName = "h264"
            p.extradata = child("avcC") ?? []
        case "hvc1", "hev1":
            p.codecName = "hevc"
            p.extradata = child("hvcC") ?? []
        case "vp09":
            p.codecName = "vp9"
        case "av01":
            p.codecName = "av1"
            p.extradata = child("av1C") ?? []
        case "mp4v", "mp4a":
            guard let esds = child("esds"), let d = ESDescriptor(esds) else { return nil }
            switch d.objectType {
            case 0x20: p.codecName = "mpeg4"
            case 0x60...0x65: p.codecName = "mpeg2video"
            case 0x6A: p.codecName = "mpeg1video"
            case 0x40, 0x66, 0x67, 0x68: p.codecName = "aac"
            case 0x69: p.codecName = "mp2"
            case 0x6B: p.codecName = "mp3"
            default: return nil
            }
            p.extradata = d.specificInfo
        case "Opus":
            guard let dops = child("dOps"), let head = opusHead(dOps: dops) else { return nil }
            p.codecName = "opus"
            p.extradata = head
            p.sampleRate = 48000
            p.initialPadding = Int(UInt16(dops[2]) << 8 | UInt16(dops[3]))
        case "fLaC":
            // dfLa: version/flags, then metadata blocks; the first is STREAMINFO.
            guard let dfla = child("dfLa"), dfla.count >= 8 + 34, dfla[4] & 0x7F == 0 else { return nil }
            p.codecName = "flac"
            p.extradata = Array(dfla[8..<(8 + 34)])
        case "alac":
            p.codecName = "alac"
            guard let alac = child("alac") else { return nil }
            var w = BoxWriter()
            w.box("alac") { $0.append(alac) }
            p.extradata = w.bytes
        case "ac-3": p.codecName = "ac3"
        case "ec-3": p.codecName = "eac3"
        case "sowt": p.codecName = "pcm_s16le"
        case "twos": p.codecName = "pcm_s16be"
        default: return nil
        }
        return p
    }

    // MARK: Entries

    static func box(_ type: FourCC, _ payload: [UInt8]) -> [UInt8] {
        var w = BoxWriter()
        w.box(type) { $0.append(payload) }
        return w.bytes
    }

    static func visual(_ type: FourCC, _ p: CodecParameters, _ children: [UInt8]) -> [UInt8] {
        var w = BoxWriter()
        w.box(type) { w in
            w.zeros(6); w.u16(1)                      // reserved, data_reference_index
            w.zeros(16)                               // pre_defined, reserved
            w.u16(UInt16(clamping: p.width)); w.u16(UInt16(clamping: p.height))
            w.u32(0x0048_0000); w.u32(0x0048_0000)   // 72 dpi
            w.u32(0); w.u16(1)                        // reserved, frame_count
            w.zeros(32)                               // compressorname
            w.u16(0x18); w.i16(-1)                    // depth, pre_defined
            w.append(children)
        }
        return w.bytes
    }

    static func audio(_ type: FourCC, _ p: CodecParameters, _ children: [UInt8]) -> [UInt8] {
        var w = BoxWriter()
        w.box(type) { w in
            w.zeros(6); w.u16(1)
            w.zeros(8)
            w.u16(UInt16(clamping: max(1, p.channelCount))); w.u16(16)
            w.u32(0)
            // 16.16 fixed point; rates above 65535 Hz do not fit and are written as 0.
            w.u32(p.sampleRate <= 0xFFFF ? UInt32(p.sampleRate) << 16 : 0)
            w.append(children)
        }
        return w.bytes
    }

    /// `esds` (ISO/IEC 14496-1 ES_Descriptor) with descriptor lengths in the 4-byte form.
    static func esds(objectType: UInt8, streamType: UInt8, _ p: CodecParameters, specificInfo: [UInt8]) -> [UInt8] {
        func descriptor(_ tag: UInt8, _ body: [UInt8]) -> [UInt8] {
            let n = body.count
            return [tag, UInt8(0x80 | (n >> 21) & 0x7F), UInt8(0x80 | (n >> 14) & 0x7F), UInt8(0x80 | (n >> 7) & 0x7F), UInt8(n & 0x7F)] + body
        }
        var config = BoxWriter()
        config.u8(objectType)
        config.u8(streamType << 2 | 1)
        config.u24(0)                                // bufferSizeDB
        config.u32(UInt32(clamping: p.bitRate)); config.u32(UInt32(clamping: p.bitRate))
        var configBytes = config.bytes
        if !specificInfo.isEmpty { configBytes += descriptor(5, specificInfo) }
        let es: [UInt8] = [0, 0, 0] + descriptor(4, configBytes) + descriptor(6, [2])
        var w = BoxWriter()
        w.fullBox("esds", version: 0, flags: 0) { $0.append(descriptor(3, es)) }
        return w.bytes
    }

    /// `dOps` from FFmpeg's `OpusHead` extradata (RFC 7845 §5.1; little-endian there, big-endian here).
    static func dOps(_ p: CodecParameters) throws -> [UInt8] {
        let h = p.extradata
        var w = BoxWriter()
        if h.count >= 19, h.starts(with: Array("OpusHead".utf8)) {
            let family = h[18]
            w.box("dOps") { w in
                w.u8(0); w.u8(h[9])
                w.u16(UInt16(h[10]) | UInt16(h[11]) << 8)
                w.u32(UInt32(h[12]) | UInt32(h[13]) << 8 | UInt32(h[14]) << 16 | UInt32(h[15]) << 24)
                w.u16(UInt16(h[16]) | UInt16(h[17]) << 8)
                w.u8(family)
                if family != 0 {
                    let n = 2 + Int(h[9])
                    if h.count >= 19 + n { w.append(h[19..<(19 + n)]) }
                }
            }
        } else {
            guard p.channelCount <= 2 else { throw MediaError(.invalidData, "Opus stream with \(p.channelCount) channels and no OpusHead") }
            w.box("dOps") { w in
                w.u8(0); w.u8(UInt8(max(1, p.channelCount)))
                w.u16(UInt16(clamping: p.initialPadding)); w.u32(48000); w.u16(0); w.u8(0)
            }
        }
        return w.bytes
    }

    /// `OpusHead` (what FFmpeg and Matroska keep) from a `dOps` payload.
    static func opusHead(dOps d: [UInt8]) -> [UInt8]? {
        guard d.count >= 11 else { return nil }
        var h = Array("OpusHead".utf8)
        h += [1, d[1], d[3], d[2], d[7], d[6], d[5], d[4], d[9], d[8], d[10]]
        if d[10] != 0 { h += d.dropFirst(11) }
        return h
    }

    /// `dfLa` from FFmpeg's FLAC extradata (STREAMINFO, alone or after `fLaC` and its block header).
    static func dfLa(_ extradata: [UInt8]) throws -> [UInt8] {
        var info = extradata
        if info.starts(with: Array("fLaC".utf8)), info.count >= 8 + 34 { info = Array(info[8..<(8 + 34)]) }
        guard info.count >= 34 else { throw MediaError(.invalidData, "FLAC stream without its STREAMINFO block") }
        var w = BoxWriter()
        w.fullBox("dfLa", version: 0, flags: 0) { w in
            w.u8(0x80)                               // last block, type 0 (STREAMINFO)
            w.u24(34)
            w.append(info.prefix(34))
        }
        return w.bytes
    }

    /// `vpcC` (VP Codec ISO Media File Format Binding, version 1), from the first key frame's
    /// uncompressed header and the stream's colour parameters.
    static func vpcC(_ p: CodecParameters, keyFrame: [UInt8]) throws -> [UInt8] {
        var r = BitReader(keyFrame)
        var profile: UInt32 = 0, bitDepth: UInt32 = 8, subsampling: UInt32 = 1  // 4:2:0 colocated with luma
        var fullRange = p.isFullRange ?? false
        if r.bits(2) == 2 {                         // frame_marker
            profile = r.bit() | r.bit() << 1
            if profile == 3 { r.skip(1) }
            if !r.flag(), !r.flag() {              // not show_existing_frame; key frame
                r.skip(2)                          // show_frame, error_resilient_mode
                if r.bits(24) == 0x498342 {
                    if profile >= 2 { bitDepth = r.flag() ? 12 : 10 }
                    let colorSpace = r.bits(3)
                    if colorSpace != 7 {
                        fullRange = r.flag()
                        if profile == 1 || profile == 3 {
                            let x = r.bit(), y = r.bit()
                            subsampling = x == 1 && y == 1 ? 1 : x == 1 ? 2 : 3
                        }
                    } else {
                        fullRange = true
                        subsampling = 3
                    }
                }
            }
        }
        let samples = p.width * p.height
        let levels: [(Int, UInt8)] = [(36864, 10), (73728, 11), (122880, 20), (245760, 21), (552960, 30), (983040, 31),
                                      (2228224, 40), (8912896, 50), (35651584, 60)]
        let level = levels.first { samples <= $0.0 }?.1 ?? 62
        var w = BoxWriter()
        w.fullBox("vpcC", version: 1, flags: 0) { w in
            w.u8(UInt8(profile)); w.u8(level)
            w.u8(UInt8(bitDepth << 4 | subsampling << 1 | (fullRange ? 1 : 0)))
            w.u8(UInt8(clamping: p.colorPrimaries)); w.u8(UInt8(clamping: p.transferCharacteristics))
            w.u8(UInt8(clamping: p.matrixCoefficients))
            w.u16(0)
        }
        return w.bytes
    }
}

/// The fields of an `esds` that matter for other containers.
struct ESDescriptor {
    var objectType: UInt8 = 0
    var specificInfo: [UInt8] = []

    /// Parses an `esds` payload (version/flags first).
    init?(_ payload: [UInt8]) {
        var i = 4
        func length() -> Int? {
            var n = 0
            for _ in 0..<4 {
                guard i < payload.count else { return nil }
                let b = payload[i]; i += 1
                n = n << 7 | Int(b & 0x7F)
                if b & 0x80 == 0 { return n }
            }
            return n
        }
        guard i < payload.count, payload[i] == 3 else { return nil }
        i += 1
        guard length() != nil, i + 3 <= payload.count else { return nil }
        let flags = payload[i + 2]
        i += 3
        if flags & 0x80 != 0 { i += 2 }
        if flags & 0x40 != 0 { guard i < payload.count else { return nil }; i += 1 + Int(payload[i]) }
        if flags & 0x20 != 0 { i += 2 }
        guard i < payload.count, payload[i] == 4 else { return nil }
        i += 1
        guard let configLength = length(), i + 13 <= payload.count else { return nil }
        let configEnd = min(payload.count, i + configLength)
        objectType = payload[i]
        i += 13
        if i < configEnd, payload[i] == 5 {
            i += 1
            if let n = length(), i + n <= payload.count { specificInfo = Array(payload[i..<(i + n)]) }
        }
    }
}

/// An ADTS header (ISO/IEC 13818-7 / 14496-3 §1.A.2).
struct ADTSHeader {
    var profile: UInt8
    var samplingIndex: UInt8
    var channelConfiguration: UInt8
    var headerLength: Int

    static let rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    init?(_ b: [UInt8]) {
        guard b.count >= 7, b[0] == 0xFF, b[1] & 0xF6 == 0xF0 else { return nil }
        profile = b[2] >> 6
        samplingIndex = (b[2] >> 2) & 0xF
        channelConfiguration = (b[2] & 1) << 2 | b[3] >> 6
        headerLength = b[1] & 1 == 1 ? 7 : 9
        guard samplingIndex < 13, b.count >= headerLength else { return nil }
    }

    var sampleRate: Int { ADTSHeader.rates[Int(samplingIndex)] }

    /// The two-byte AudioSpecificConfig: object type (profile + 1), sampling index, channels.
    var audioSpecificConfig: [UInt8] {
        let aot = profile + 1
        return [aot << 3 | samplingIndex >> 1, (samplingIndex & 1) << 7 | channelConfiguration << 3]
    }
}

/// Start-code framing (ITU-T H.264 Annex B) and NAL units.
public enum AnnexB {
    /// The NAL units between start codes (trailing zero bytes dropped).
    static func nalUnits(_ b: [UInt8]) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        var i = 0
        var start: Int?
        let n = b.count
        while i + 2 < n {
            if b[i] == 0 && b[i + 1] == 0 && b[i + 2] == 1 {
                if let s = start { units.append(trimmed(b[s..<i])) }
                i += 3
                start = i
            } else {
                i += 1
            }
        }
        if let s = start, s < n { units.append(trimmed(b[s..<n])) }
        return units.filter { !$0.isEmpty }
    }

    private static func trimmed(_ s: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var end = s.endIndex
        while end > s.startIndex && s[end - 1] == 0 { end -= 1 }
        return s[s.startIndex..<end]
    }

    /// Each NAL unit behind a 4-byte big-endian length. Data with no start code is returned as is.
    public static func lengthPrefixed(_ b: [UInt8]) -> [UInt8] {
        let units = nalUnits(b)
        guard !units.isEmpty else { return b }
        var out: [UInt8] = []
        out.reserveCapacity(b.count + 4 * units.count)
        for u in units {
            let n = UInt32(u.count)
            out += [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
            out += u
        }
        return out
    }
}

/// `AVCDecoderConfigurationRecord` (ISO/IEC 14496-15 §5.3.3).
enum AVCConfiguration {
    static func record(fromAnnexB b: [UInt8]) throws -> [UInt8] {
        let units = AnnexB.nalUnits(b)
        let sps = units.filter { $0.first.map { $0 & 0x1F == 7 } ?? false }
        let pps = units.filter { $0.first.map { $0 & 0x1F == 8 } ?? false }
        guard let first = sps.first, first.count >= 4, !pps.isEmpty else {
            throw MediaError(.invalidData, "H.264 stream without SPS and PPS before its first frame")
        }
        var w = BoxWriter()
        w.u8(1)
        w.append(first[(first.startIndex + 1)...(first.startIndex + 3)])   // profile, compatibility, level
        w.u8(0xFF)                                                          // 4-byte NAL lengths
        w.u8(0xE0 | UInt8(min(31, sps.count)))
        for s in sps.prefix(31) { w.u16(UInt16(clamping: s.count)); w.append(s) }
        w.u8(UInt8(min(255, pps.count)))
        for p in pps.prefix(255) { w.u16(UInt16(clamping: p.count)); w.append(p) }
        return w.bytes
    }
}

/// `HEVCDecoderConfigurationRecord` (ISO/IEC 14496-15 §8.3.3), from VPS, SPS and PPS NAL units.
enum HEVCConfiguration {
    static func record(fromAnnexB b: [UInt8]) throws -> [UInt8] {
        let units = AnnexB.nalUnits(b).filter { $0.count >= 2 }
        func ofType(_ t: UInt8) -> [ArraySlice<UInt8>] { units.filter { ($0.first! >> 1) & 0x3F == t } }
        let vps = ofType(32), sps = ofType(33), pps = ofType(34)
        guard let first = sps.first, !vps.isEmpty, !pps.isEmpty else {
            throw MediaError(.invalidData, "HEVC stream without VPS, SPS and PPS before its first frame")
        }
        var r = BitReader(rbsp: first.dropFirst(2))
        r.skip(4)                                   // sps_video_parameter_set_id
        let maxSubLayersMinus1 = Int(r.bits(3))
        let temporalIdNested = r.bit()
        // profile_tier_level(1, maxSubLayersMinus1): the general part is copied whole (12 bytes).
        var general: [UInt8] = []
        for _ in 0..<12 { general.append(UInt8(r.bits(8))) }
        var subProfile = [Bool](), subLevel = [Bool]()
        for _ in 0..<maxSubLayersMinus1 { subProfile.append(r.flag()); subLevel.append(r.flag()) }
        if maxSubLayersMinus1 > 0 { for _ in maxSubLayersMinus1..<8 { r.skip(2) } }
        for i in 0..<maxSubLayersMinus1 {
            if subProfile[i] { r.skip(88) }
            if subLevel[i] { r.skip(8) }
        }
        _ = r.ue()                                  // sps_seq_parameter_set_id
        let chromaFormat = r.ue()
        if chromaFormat == 3 { r.skip(1) }
        _ = r.ue(); _ = r.ue()                      // picture size
        if r.flag() { for _ in 0..<4 { _ = r.ue() } }
        // Exp-Golomb values from the file can be near 2^32: add in Int.
        let lumaDepth = Int(r.ue()) + 8, chromaDepth = Int(r.ue()) + 8
        guard !r.isOverrun, chromaFormat <= 3, lumaDepth <= 16, chromaDepth <= 16 else {
            throw MediaError(.invalidData, "HEVC sequence parameter set cannot be read")
        }
        var w = BoxWriter()
        w.u8(1)
        w.append(general)                           // profile space/tier/idc, compatibility, constraints, level
        w.u16(0xF000)                               // min_spatial_segmentation_idc 0
        w.u8(0xFC)                                  // parallelismType 0
        w.u8(0xFC | UInt8(chromaFormat))
        w.u8(0xF8 | UInt8(lumaDepth - 8))
        w.u8(0xF8 | UInt8(chromaDepth - 8))
        w.u16(0)                                    // avgFrameRate
        w.u8(UInt8((maxSubLayersMinus1 + 1) << 3) | UInt8(temporalIdNested << 2) | 3)
        let arrays: [(UInt8, [ArraySlice<UInt8>])] = [(32, vps), (33, sps), (34, pps)]
        w.u8(UInt8(arrays.count))
        for (type, list) in arrays {
            w.u8(0x80 | type)                       // array_completeness: all in the entry
            w.u16(UInt16(min(list.count, 0xFFFF)))
            for u in list { w.u16(UInt16(clamping: u.count)); w.append(u) }
        }
        return w.bytes
    }
}

/// `AV1CodecConfigurationRecord` (AV1 Codec ISO Media File Format Binding §2.3), from the
/// sequence header OBU.
enum AV1Configuration {
    static func record(fromOBUs b: [UInt8]) throws -> [UInt8] {
        // Find the sequence header OBU (type 1).
        var i = 0
        var header: ArraySlice<UInt8>?
        var obu: ArraySlice<UInt8>?
        while i < b.count {
            let start = i
            let h = b[i]
            let type = (h >> 3) & 0xF
            let hasExtension = h & 4 != 0, hasSize = h & 2 != 0
            i += hasExtension ? 2 : 1
            var size = b.count - i
            if hasSize {
                var v = 0, shift = 0
                while i < b.count, shift < 56 {
                    let byte = b[i]; i += 1
                    v |= Int(byte & 0x7F) << shift
                    shift += 7
                    if byte & 0x80 == 0 { break }
                }
                size = v
            }
            guard i <= b.count, size <= b.count - i else { break }
            if type == 1 { header = b[i..<(i + size)]; obu = b[start..<(i + size)]; break }
            i += size
        }
        guard let header, let obu else { throw MediaError(.invalidData, "AV1 stream without a sequence header") }
        var r = BitReader(Array(header))
        let profile = r.bits(3)
        r.skip(1)                                   // still_picture
        let reduced = r.flag()
        var level: UInt32 = 0, tier: UInt32 = 0
        if reduced {
            level = r.bits(5)
        } else {
            var bufferDelayLength = 0
            var decoderModel = false
            if r.flag() {                           // timing_info_present_flag
                r.skip(64)
                if r.flag() { _ = r.uvlc() }
                decoderModel = r.flag()
                if decoderModel {
                    bufferDelayLength = Int(r.bits(5)) + 1
                    r.skip(32 + 5 + 5)
                }
            }
            let initialDisplayDelay = r.flag()
            let points = Int(r.bits(5)) + 1
            for k in 0..<points {
                r.skip(12)
                let l = r.bits(5)
                let t = l > 7 ? r.bit() : 0
                if k == 0 { level = l; tier = t }
                if decoderModel, r.flag() { r.skip(2 * bufferDelayLength + 1) }
                if initialDisplayDelay, r.flag() { r.skip(4) }
            }
        }
        let widthBits = Int(r.bits(4)) + 1, heightBits = Int(r.bits(4)) + 1
        r.skip(widthBits + heightBits)
        if !reduced, r.flag() { r.skip(7) }         // frame ids
        r.skip(3)                                   // 128x128, filter intra, intra edge
        var orderHint = false
        if !reduced {
            r.skip(4)                               // interintra, masked, warped, dual filter
            orderHint = r.flag()
            if orderHint { r.skip(2) }
            var forceScreenContent: UInt32 = 2
            if !r.flag() { forceScreenContent = r.bit() }
            if forceScreenContent > 0, !r.flag() { r.skip(1) }
            if orderHint { r.skip(3) }
        }
        r.skip(3)                                   // superres, cdef, restoration
        let highBitDepth = r.bit()
        let twelveBit = profile == 2 && highBitDepth == 1 ? r.bit() : 0
        let mono: UInt32 = profile == 1 ? 0 : r.bit()
        var cp: UInt32 = 2, tc: UInt32 = 2, mc: UInt32 = 2
        if r.flag() { cp = r.bits(8); tc = r.bits(8); mc = r.bits(8) }
        var sx: UInt32 = 1, sy: UInt32 = 1, position: UInt32 = 0
        if mono == 1 {
            r.skip(1)
        } else if cp == 1 && tc == 13 && mc == 0 {
            sx = 0; sy = 0
        } else {
            r.skip(1)                               // color_range
            if profile == 0 { sx = 1; sy = 1 }
            else if profile == 1 { sx = 0; sy = 0 }
            else if twelveBit == 1 { sx = r.bit(); sy = sx == 1 ? r.bit() : 0 }
            else { sx = 1; sy = 0 }
            if sx == 1 && sy == 1 { position = r.bits(2) }
        }
        guard !r.isOverrun else { throw MediaError(.invalidData, "AV1 sequence header cannot be read") }
        var w = BoxWriter()
        w.u8(0x81)
        w.u8(UInt8(profile << 5 | level))
        w.u8(UInt8(tier << 7 | highBitDepth << 6 | twelveBit << 5 | mono << 4 | sx << 3 | sy << 2 | position))
        w.u8(0)
        w.append(obu)
        return w.bytes
    }
}

/// AC-3 and E-AC-3 frame headers (ETSI TS 102 366) and the boxes made from them.
enum AC3Header {
    static let rates: [UInt32] = [48000, 44100, 32000]
    static let bitRates: [UInt32] = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 576, 640]

    /// `dac3` from an AC-3 frame.
    static func dac3(_ frame: [UInt8]) throws -> [UInt8] {
        guard frame.count >= 7, frame[0] == 0x0B, frame[1] == 0x77 else {
            throw MediaError(.invalidData, "AC-3 stream does not start with a sync frame")
        }
        var r = BitReader(Array(frame[4...]))
        let fscod = r.bits(2), frmsizecod = r.bits(6)
        let bsid = r.bits(5), bsmod = r.bits(3), acmod = r.bits(3)
        if acmod & 1 != 0 && acmod != 1 { r.skip(2) }
        if acmod & 4 != 0 { r.skip(2) }
        if acmod == 2 { r.skip(2) }
        let lfeon = r.bit()
        guard fscod < 3, frmsizecod < 38, !r.isOverrun else { throw MediaError(.invalidData, "AC-3 frame header cannot be read") }
        var w = BoxWriter()
        w.box("dac3") { w in
            let v = fscod << 22 | bsid << 17 | bsmod << 14 | acmod << 11 | lfeon << 10 | (frmsizecod >> 1) << 5
            w.u24(v)
        }
        return w.bytes
    }

    /// `dec3` from the first E-AC-3 frame (one independent substream; dependent substreams are
    /// not described).
    static func dec3(_ frame: [UInt8]) throws -> [UInt8] {
        guard frame.count >= 6, frame[0] == 0x0B, frame[1] == 0x77 else {
            throw MediaError(.invalidData, "E-AC-3 stream does not start with a sync frame")
        }
        var r = BitReader(Array(frame[2...]))
        r.skip(2 + 3)                               // strmtyp, substreamid
        let frmsiz = r.bits(11)
        let fscod = r.bits(2)
        var rate: UInt32 = 48000, blocks: UInt32 = 6
        if fscod == 3 {
            let fscod2 = r.bits(2)
            guard fscod2 < 3 else { throw MediaError(.invalidData, "E-AC-3 frame header cannot be read") }
            rate = rates[Int(fscod2)] / 2
        } else {
            rate = rates[Int(fscod)]
            blocks = [1, 2, 3, 6][Int(r.bits(2))]
        }
        let acmod = r.bits(3), lfeon = r.bit(), bsid = r.bits(5)
        guard !r.isOverrun else { throw MediaError(.invalidData, "E-AC-3 frame header cannot be read") }
        let frameBytes = (frmsiz + 1) * 2
        let dataRate = frameBytes * 8 * rate / (256 * blocks) / 1000
        var w = BoxWriter()
        w.box("dec3") { w in
            w.u16(UInt16(min(dataRate, 0x1FFF)) << 3 | 0)  // data_rate, num_ind_sub - 1 = 0
            w.u8(UInt8((fscod == 3 ? 3 : fscod) << 6 | bsid << 1))  // fscod, bsid, reserved
            w.u8(UInt8(acmod << 1 | lfeon))                 // asvc 0, bsmod 0, acmod, lfeon
            w.u8(0)                                         // reserved, num_dep_sub 0, reserved
        }
        return w.bytes
    }
}
