import MediaCore

/// What a stream's first packet must carry before its ISO sample entry can be built.
public enum FirstPacketNeed: Sendable {
    /// Nothing: the codec parameters say all.
    case never
    /// Always (AC-3 and E-AC-3 headers, VP9's key frame header).
    case always
    /// When `extradata` is empty (AAC in ADTS, H.264/HEVC in Annex B, AV1 OBUs).
    case withoutExtradata
}

/// One codec as Splice knows it: FFmpeg's names, the ISO sample entries that hold it, the
/// record type that reads and writes its configuration, how its entry is written and read, and
/// what its first packet must carry. Adding a codec is adding an entry to
/// `CodecRegistry.entries` (and a fixture to the codec tests); containers ask
/// `FileType.canHold(_:)`, decoders and encoders are libavcodec's.
public struct CodecEntry: Sendable {
    /// FFmpeg's codec names this entry reads and writes.
    public let names: [String]
    public let mediaType: MediaType
    /// The ISO sample-entry types this entry reads (QuickTime's and ISO's spellings).
    public let sampleEntryTypes: [FourCC]
    /// The type that reads and writes the codec's decoder configuration record, if it has one.
    public let configuration: (any DecoderConfiguration.Type)?
    public let firstPacket: FirstPacketNeed
    /// Whether the entry `write` builds belongs in QuickTime files only (PCM).
    public let quickTimeOnly: Bool
    /// The libavcodec encoder Splice encodes the codec with (nil: Splice does not encode it).
    public let encoder: String?
    /// Builds the sample entry for codec parameters (and the first packet), and says how packets
    /// change to fit it; nil for codecs Splice reads from MP4/MOV but does not write there.
    let write: (@Sendable (CodecParameters, _ firstPacket: [UInt8]) throws -> (entry: [UInt8], conversion: PacketConversion))?
    /// Sets FFmpeg's codec name and configuration from a sample entry of one of
    /// `sampleEntryTypes`; false when the entry is not one this entry reads.
    let read: @Sendable (SampleEntryContents, inout CodecParameters) -> Bool

    /// Whether MP4/MOV files get a sample entry of this codec written.
    public var writesSampleEntries: Bool { write != nil }

    init(_ names: [String], _ mediaType: MediaType, types: [FourCC], configuration: (any DecoderConfiguration.Type)? = nil,
         firstPacket: FirstPacketNeed = .never, quickTimeOnly: Bool = false, encoder: String? = nil,
         write: (@Sendable (CodecParameters, [UInt8]) throws -> (entry: [UInt8], conversion: PacketConversion))?,
         read: @escaping @Sendable (SampleEntryContents, inout CodecParameters) -> Bool) {
        self.names = names
        self.mediaType = mediaType
        sampleEntryTypes = types
        self.configuration = configuration
        self.firstPacket = firstPacket
        self.quickTimeOnly = quickTimeOnly
        self.encoder = encoder
        self.write = write
        self.read = read
    }
}

/// A sample entry as a reader sees it: its type, bytes, and child boxes (a QuickTime `wave`'s
/// children among them).
struct SampleEntryContents {
    let type: FourCC
    let bytes: [UInt8]
    let children: [Box]
    func child(_ t: FourCC) -> [UInt8]? { children.first { $0.type == t }?.payload }

    /// A big-endian field of `count` bytes at `offset` of the entry (nil past its end).
    func field(at offset: Int, _ count: Int) -> UInt64? {
        guard offset >= 0, offset + count <= bytes.count else { return nil }
        return bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | UInt64(widening: $1) }
    }

    /// QuickTime's `enda` (in `wave`): PCM samples are little-endian.
    var isLittleEndian: Bool { child("enda").map { $0.count >= 2 && $0[1] != 0 } ?? false }

    /// The sound description's version (0, 1 or 2; QTFF "Sound Sample Descriptions").
    var soundVersion: UInt64 { field(at: 16, 2) ?? 0 }
}

/// Every codec Splice knows, in one table.
public enum CodecRegistry {
    /// The entry of FFmpeg's codec `name`.
    public static func entry(named name: String) -> CodecEntry? {
        byName[name]
    }

    /// FFmpeg's names of the codecs MP4/MOV files are written with (for messages).
    public static var writtenToISO: [String] {
        entries.filter(\.writesSampleEntries).flatMap(\.names)
    }

    /// Reads a sample entry: the first entry listing its type whose reader takes it and names
    /// one of its own codecs.
    static func read(_ contents: SampleEntryContents, into p: inout CodecParameters) -> Bool {
        for e in entries where e.sampleEntryTypes.contains(contents.type) {
            var q = p
            if e.read(contents, &q), e.names.contains(q.codecName) {
                p = q
                return true
            }
        }
        return false
    }

    private static let byName: [String: CodecEntry] = {
        var d: [String: CodecEntry] = [:]
        for e in entries { for n in e.names where d[n] == nil { d[n] = e } }
        return d
    }()

    /// An MPEG-4 systems entry (`mp4v`, `mp4a`, `mp4s`): the codec is the `esds` object type's.
    private static func esds(_ c: SampleEntryContents, _ p: inout CodecParameters) -> Bool {
        guard let esds = c.child("esds"), let d = ESDescriptor(esds), let name = d.codecName else { return false }
        p.codecName = name
        p.extradata = d.specificInfo
        // AAC: the decoder's output channels, not the entry's fixed field (2 for mono too); the
        // rate of signalled SBR (the entry's rate stays otherwise: SBR can go unsignalled).
        if name == "aac", let asc = AudioSpecificConfig(d.specificInfo) {
            p.channelCount = asc.outputChannels
            if asc.hasSBR, asc.outputSampleRate > 0 { p.sampleRate = asc.outputSampleRate } else if p.sampleRate == 0 { p.sampleRate = asc.sampleRate }
        }
        return true
    }

    /// H.264/HEVC: an entry of `type` around its record box — FFmpeg's record as it is, else one
    /// built from the parameter sets in Annex B extradata or the first packet, whose packets
    /// then become length-prefixed.
    private static func nalVideo(_ type: FourCC, _ box: FourCC, _ record: @escaping @Sendable ([UInt8]) throws -> [UInt8])
        -> @Sendable (CodecParameters, [UInt8]) throws -> (entry: [UInt8], conversion: PacketConversion) {
        { p, packet in
            if p.extradata.first == 1 { return (SampleEntryBuilder.visual(type, p, SampleEntryBuilder.box(box, p.extradata)), .none) }
            let built = try record(p.extradata.isEmpty ? packet : p.extradata)
            return (SampleEntryBuilder.visual(type, p, SampleEntryBuilder.box(box, built)), .annexBToLengthPrefixed)
        }
    }

    /// `mp4v` with an `esds` of `objectType`.
    private static func mpegVideo(_ objectType: UInt8) -> @Sendable (CodecParameters, [UInt8]) throws -> (entry: [UInt8], conversion: PacketConversion) {
        { p, _ in (SampleEntryBuilder.visual("mp4v", p, ESDescriptor.box(objectType: objectType, streamType: 4, p, specificInfo: p.extradata)), .none) }
    }

    /// `mp4a` with an `esds` of `objectType` and no decoder-specific information.
    private static func mpegAudio(_ objectType: UInt8) -> @Sendable (CodecParameters, [UInt8]) throws -> (entry: [UInt8], conversion: PacketConversion) {
        { p, _ in (SampleEntryBuilder.audio("mp4a", p, ESDescriptor.box(objectType: objectType, streamType: 5, p, specificInfo: [])), .none) }
    }

    /// QuickTime PCM of a fixed sample format, big-endian unless `enda` says otherwise.
    private static func pcm(_ bigEndian: String, _ littleEndian: String) -> @Sendable (SampleEntryContents, inout CodecParameters) -> Bool {
        { c, p in p.codecName = c.isLittleEndian ? littleEndian : bigEndian; return true }
    }

    /// The table (order matters only where two entries read one sample-entry type: the first
    /// whose reader names one of its codecs wins).
    public static let entries: [CodecEntry] = [
        CodecEntry(["h264"], .video, types: ["avc1", "avc3"], configuration: AVCConfiguration.self, firstPacket: .withoutExtradata, encoder: "libx264",
                   write: nalVideo("avc1", "avcC", AVCConfiguration.record(fromAnnexB:)),
                   read: { c, p in p.codecName = "h264"; p.extradata = c.child("avcC") ?? []; return true }),
        CodecEntry(["hevc"], .video, types: ["hvc1", "hev1", "dvh1", "dvhe"], configuration: HEVCConfiguration.self, firstPacket: .withoutExtradata, encoder: "libx265",
                   write: nalVideo("hvc1", "hvcC", HEVCConfiguration.record(fromAnnexB:)),
                   read: { c, p in p.codecName = "hevc"; p.extradata = c.child("hvcC") ?? []; return true }),
        CodecEntry(["av1"], .video, types: ["av01"], configuration: AV1Configuration.self, firstPacket: .withoutExtradata, encoder: "libsvtav1",
                   write: { p, packet in
                       let record = p.extradata.first == 0x81 ? p.extradata : try AV1Configuration.record(fromOBUs: p.extradata.isEmpty ? packet : p.extradata)
                       return (SampleEntryBuilder.visual("av01", p, SampleEntryBuilder.box("av1C", record)), .none)
                   },
                   read: { c, p in p.codecName = "av1"; p.extradata = c.child("av1C") ?? []; return true }),
        CodecEntry(["vp9"], .video, types: ["vp09"], firstPacket: .always, encoder: "libvpx-vp9",
                   write: { p, packet in (SampleEntryBuilder.visual("vp09", p, try VPCodecConfiguration.box(p, keyFrame: packet)), .none) },
                   read: { _, p in p.codecName = "vp9"; return true }),
        CodecEntry(["mpeg4"], .video, types: ["mp4v"], write: mpegVideo(0x20), read: esds),
        // ISO/IEC 13818-2 Main profile (0x61), the object type players read for any MPEG-2 video.
        CodecEntry(["mpeg2video"], .video, types: ["mp4v"], write: mpegVideo(0x61), read: esds),
        CodecEntry(["mpeg1video"], .video, types: ["mp4v"], write: mpegVideo(0x6A), read: esds),
        // Apple ProRes (422 HQ, 422, LT, Proxy, 4444, 4444 XQ): decoded by libavcodec, copied as it is.
        CodecEntry(["prores"], .video, types: ["apch", "apcn", "apcs", "apco", "ap4h", "ap4x"], write: nil,
                   read: { _, p in p.codecName = "prores"; return true }),
        CodecEntry(["aac"], .audio, types: ["mp4a"], firstPacket: .withoutExtradata, encoder: "aac",
                   write: { p, packet in
                       if !p.extradata.isEmpty {
                           return (SampleEntryBuilder.audio("mp4a", p, ESDescriptor.box(objectType: 0x40, streamType: 5, p, specificInfo: p.extradata)), .none)
                       }
                       guard let adts = ADTSHeader(packet) else {
                           throw MediaError(.invalidData, "AAC stream has neither an AudioSpecificConfig nor ADTS headers")
                       }
                       var q = p
                       if q.sampleRate == 0 { q.sampleRate = adts.sampleRate }
                       if q.channelCount == 0 { q.channelCount = Int(widening: adts.channelConfiguration) }
                       let esds = ESDescriptor.box(objectType: 0x40, streamType: 5, q, specificInfo: adts.audioSpecificConfig)
                       return (SampleEntryBuilder.audio("mp4a", q, esds), .stripADTS)
                   },
                   read: esds),
        CodecEntry(["mp3"], .audio, types: ["mp4a"], encoder: "libmp3lame", write: mpegAudio(0x6B), read: esds),
        CodecEntry(["mp2"], .audio, types: ["mp4a"], write: mpegAudio(0x69), read: esds),
        CodecEntry(["opus"], .audio, types: ["Opus"], encoder: "libopus",
                   write: { p, _ in
                       var q = p
                       q.sampleRate = CodecFacts.of("opus")?.sampleRate ?? 48000
                       return (SampleEntryBuilder.audio("Opus", q, try OpusConfiguration.dOps(p)), .none)
                   },
                   read: { c, p in
                       guard let dops = c.child("dOps"), let opus = OpusConfiguration(dOps: dops) else { return false }
                       p.codecName = "opus"
                       p.extradata = opus.head
                       p.sampleRate = CodecFacts.of("opus")?.sampleRate ?? 48000
                       p.initialPadding = opus.preSkip
                       return true
                   }),
        CodecEntry(["flac"], .audio, types: ["fLaC"], encoder: "flac",
                   write: { p, _ in (SampleEntryBuilder.audio("fLaC", p, try FLACConfiguration.dfLa(p.extradata)), .none) },
                   read: { c, p in
                       guard let dfla = c.child("dfLa"), let info = FLACConfiguration.streamInfo(dfLa: dfla) else { return false }
                       p.codecName = "flac"
                       p.extradata = info
                       return true
                   }),
        // FFmpeg's ALAC extradata is the whole `alac` atom (size, type, version/flags, config).
        CodecEntry(["alac"], .audio, types: ["alac"], encoder: "alac",
                   write: { p, _ in
                       guard p.extradata.count >= 36 else { throw MediaError(.invalidData, "ALAC stream without its 36-byte configuration") }
                       return (SampleEntryBuilder.audio("alac", p, Array(p.extradata.prefix(36))), .none)
                   },
                   read: { c, p in
                       guard let alac = c.child("alac") else { return false }
                       p.codecName = "alac"
                       p.extradata = SampleEntryBuilder.box("alac", alac)
                       return true
                   }),
        CodecEntry(["ac3"], .audio, types: ["ac-3"], firstPacket: .always,
                   write: { p, packet in (SampleEntryBuilder.audio("ac-3", p, try AC3Header.dac3(packet)), .none) },
                   read: { _, p in p.codecName = "ac3"; return true }),
        CodecEntry(["eac3"], .audio, types: ["ec-3"], firstPacket: .always,
                   write: { p, packet in (SampleEntryBuilder.audio("ec-3", p, try AC3Header.dec3(packet)), .none) },
                   read: { _, p in p.codecName = "eac3"; return true }),
        // QuickTime PCM (QTFF, "Sound Sample Description"): 16-bit written as `sowt`/`twos`;
        // the others read for decoding, their sample format said by the entry's type and `enda`.
        CodecEntry(["pcm_s16le", "pcm_s16be"], .audio, types: ["sowt", "twos"], quickTimeOnly: true,
                   write: { p, _ in
                       var q = p
                       q.bitRate = 0
                       return (SampleEntryBuilder.audio(p.codecName == "pcm_s16le" ? "sowt" : "twos", q, []), .none)
                   },
                   read: { c, p in
                       // (an 8-bit sample size is signed 8-bit PCM, the next entry's)
                       p.codecName = c.field(at: 26, 2) == 8 ? "pcm_s8" : c.type == "sowt" ? "pcm_s16le" : "pcm_s16be"
                       return true
                   }),
        CodecEntry(["pcm_s8"], .audio, types: ["sowt", "twos"], write: nil, read: { _, p in p.codecName = "pcm_s8"; return true }),
        CodecEntry(["pcm_u8"], .audio, types: ["raw "], write: nil, read: { _, p in p.codecName = "pcm_u8"; return true }),
        CodecEntry(["pcm_s24be", "pcm_s24le"], .audio, types: ["in24"], write: nil, read: pcm("pcm_s24be", "pcm_s24le")),
        CodecEntry(["pcm_s32be", "pcm_s32le"], .audio, types: ["in32"], write: nil, read: pcm("pcm_s32be", "pcm_s32le")),
        CodecEntry(["pcm_f32be", "pcm_f32le"], .audio, types: ["fl32"], write: nil, read: pcm("pcm_f32be", "pcm_f32le")),
        CodecEntry(["pcm_f64be", "pcm_f64le"], .audio, types: ["fl64"], write: nil, read: pcm("pcm_f64be", "pcm_f64le")),
        // `lpcm`: a version 2 sound description says the format in constBitsPerChannel (byte
        // 56) and formatSpecificFlags (byte 60): float 1, big-endian 2, signed integer 4.
        CodecEntry(["pcm_s16le", "pcm_s16be", "pcm_s24le", "pcm_s24be", "pcm_s32le", "pcm_s32be", "pcm_f32le", "pcm_f32be",
                    "pcm_f64le", "pcm_f64be", "pcm_s8", "pcm_u8"], .audio, types: ["lpcm"], write: nil,
                   read: { c, p in
                       guard c.soundVersion == 2, let bits = c.field(at: 56, 4), let flags = c.field(at: 60, 4) else { return false }
                       let endian = flags & 2 != 0 ? "be" : "le"
                       switch (flags & 1 != 0, bits) {
                       case (true, 32), (true, 64): p.codecName = "pcm_f\(bits)\(endian)"
                       case (false, 8): p.codecName = flags & 4 != 0 ? "pcm_s8" : "pcm_u8"
                       case (false, 16), (false, 24), (false, 32): p.codecName = "pcm_s\(bits)\(endian)"
                       default: return false
                       }
                       return true
                   }),
        // tx3g: MP4/MOV hold it; its samples and entry are made by the text stage from cues, so
        // it is neither described to decoders here nor built from codec parameters.
        CodecEntry(["mov_text"], .subtitle, types: ["tx3g"],
                   write: { _, _ in throw MediaError(.unsupported, "tx3g entries are made from cues by the text stage, not from codec parameters") },
                   read: { _, _ in false }),
        // VobSub in `mp4s` (as Nero and FFmpeg write it): read, not written.
        CodecEntry(["dvd_subtitle"], .subtitle, types: ["mp4s"], write: nil, read: esds),
    ]
}
