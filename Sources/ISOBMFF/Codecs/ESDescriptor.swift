import MediaCore

/// The `esds` box (ISO/IEC 14496-14 §5.6; the ES_Descriptor of ISO/IEC 14496-1 §7.2.6.5): the
/// object type of MPEG-4 audio and video and its decoder-specific configuration.
struct ESDescriptor {
    var objectType: UInt8 = 0
    var specificInfo: [UInt8] = []

    /// Parses an `esds` payload (version/flags first); nil when it is not a readable one.
    init?(_ payload: [UInt8]) {
        var r = ByteReader(payload, path: "esds")
        guard let d = try? ESDescriptor.parse(&r) else { return nil }
        self = d
    }

    private init() {}

    private static func parse(_ r: inout ByteReader) throws -> ESDescriptor {
        try r.skip(4, "version and flags")
        guard try r.u8("ES_Descriptor tag") == 3 else { throw r.fail("no ES_Descriptor") }
        _ = try length(&r)
        try r.skip(2, "ES_ID")
        let flags = try r.u8("ES flags")
        if flags & 0x80 != 0 { try r.skip(2, "dependsOn_ES_ID") }
        if flags & 0x40 != 0 { try r.skip(Int(widening: try r.u8("URL length")), "URL") }
        if flags & 0x20 != 0 { try r.skip(2, "OCR_ES_ID") }
        guard try r.u8("DecoderConfigDescriptor tag") == 4 else { throw r.fail("no DecoderConfigDescriptor") }
        let configEnd = r.position + (try length(&r))
        var d = ESDescriptor()
        d.objectType = try r.u8("objectTypeIndication")
        try r.skip(12, "stream type, buffer size and bit rates")
        if r.position < configEnd, !r.isAtEnd, try r.u8("DecoderSpecificInfo tag") == 5 {
            let n = try length(&r)
            if n <= r.remaining { d.specificInfo = try r.bytes(n, "DecoderSpecificInfo") }
        }
        return d
    }

    /// A descriptor length: up to four bytes of 7 bits, high bit set on all but the last.
    private static func length(_ r: inout ByteReader) throws -> Int {
        var n = 0
        for _ in 0..<4 {
            let b = try r.u8("descriptor length")
            n = n << 7 | Int(widening: b & 0x7F)
            if b & 0x80 == 0 { break }
        }
        return n
    }

    /// FFmpeg's codec name for the object type, when Splice maps it.
    var codecName: String? {
        switch objectType {
        case 0x20: "mpeg4"
        case 0x60...0x65: "mpeg2video"
        case 0x6A: "mpeg1video"
        case 0x40, 0x66, 0x67, 0x68: "aac"
        case 0x69: "mp2"
        case 0x6B: "mp3"
        case 0xE0: "dvd_subtitle"   // (VobSub in `mp4s`, as Nero and FFmpeg write it)
        default: nil
        }
    }

    /// An `esds` box, with descriptor lengths in the 4-byte form.
    static func box(objectType: UInt8, streamType: UInt8, _ p: CodecParameters, specificInfo: [UInt8]) -> [UInt8] {
        func descriptor(_ tag: UInt8, _ body: [UInt8]) -> [UInt8] {
            let n = body.count
            return [tag, UInt8(0x80 | (n >> 21) & 0x7F), UInt8(0x80 | (n >> 14) & 0x7F), UInt8(0x80 | (n >> 7) & 0x7F), UInt8(truncatingIfNeeded: n & 0x7F)] + body
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
}
