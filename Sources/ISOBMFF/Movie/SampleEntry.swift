import MediaCore

/// One `stsd` entry: kept byte-exact, with the fields Splice needs parsed out.
public struct SampleEntry: Sendable, Hashable {
    /// The entry's type: `avc1`, `mp4a`, `tx3g`, …
    public var type: FourCC
    /// The whole entry box, header included.
    public var bytes: [UInt8]
    public var dataReferenceIndex: UInt16
    public var width: Int?
    public var height: Int?
    public var sampleRate: Double?
    public var channelCount: Int?

    public init(bytes: [UInt8], handler: FourCC) throws {
        var r = ByteReader(bytes, path: "stsd entry")
        let header = try BoxHeader.parse(&r, available: UInt64(clamping: bytes.count), allowToEnd: false)
        self.type = header.type
        self.bytes = bytes
        r.path = "stsd/\(header.type)"
        self.dataReferenceIndex = 0
        // Sample entries shorter than the common header exist in the wild; keep them raw.
        guard r.remaining >= 8 else { return }
        try r.skip(6)
        dataReferenceIndex = try r.u16("data reference index")
        switch MediaType(handlerType: handler) {
        case .video:
            guard r.remaining >= 70 else { return }
            try r.skip(16)
            width = Int(widening: try r.u16("width"))
            height = Int(widening: try r.u16("height"))
        case .audio:
            guard r.remaining >= 20 else { return }
            let soundVersion = try r.u16("sound version")
            try r.skip(6)
            var channels = Int(widening: try r.u16("channel count"))
            try r.skip(6)
            var rate = Double(try r.u32("sample rate")) / 65536
            if soundVersion == 2, r.remaining >= 20 {
                try r.skip(4)
                rate = Double(bitPattern: try r.u64("sample rate"))
                channels = Int(widening: try r.u32("channel count"))
            }
            // A version-2 rate is a float64 from the file: NaN, infinite or negative is no rate.
            sampleRate = rate.isFinite && rate >= 0 && rate <= Double(UInt32.max) ? rate : nil
            channelCount = channels
        default:
            break
        }
    }

    /// A format description of this entry for a track of `mediaType`: `codec` is the entry's
    /// type, `codecName` FFmpeg's name for the codec when Splice knows it.
    public func formatDescription(mediaType: MediaType) -> FormatDescription {
        if var p = CodecMapping.codecParameters(sampleEntry: bytes, mediaType: mediaType) {
            if p.sampleRate == 0, let rate = sampleRate { p.sampleRate = Int(exactly: rate.rounded()) ?? 0 }
            return FormatDescription(parameters: p, codec: type, sampleEntry: .init(bytes))
        }
        return FormatDescription(
            mediaType: mediaType, codec: type, codecName: SampleEntry.textCodecNames[type],
            dimensions: width.flatMap { w in height.map { Dimensions(width: w, height: $0) } },
            sampleRate: sampleRate, channelCount: channelCount,
            sampleEntry: .init(bytes))
    }

    /// FFmpeg's names of the text and data codecs of sample entries it reads.
    static let textCodecNames: [FourCC: String] = ["tx3g": "mov_text", "wvtt": "webvtt", "c608": "eia_608", "stpp": "ttml"]
}
