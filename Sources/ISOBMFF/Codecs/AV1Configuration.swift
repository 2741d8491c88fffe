import MediaCore

/// `AV1CodecConfigurationRecord` (AV1 Codec ISO Media File Format Binding §2.3), built from the
/// sequence header OBU (AV1 bitstream specification §5.5).
public struct AV1Configuration: Sendable {
    /// The record's bytes.
    public let record: [UInt8]

    /// `AV1CodecConfigurationRecord`: marker and version (0x81), profile and level, then tier,
    /// high_bitdepth, twelve_bit, monochrome, subsampling; config OBUs after 4 bytes.
    public init?(record: [UInt8]) {
        guard record.count >= 4, record[0] == 0x81 else { return nil }
        self.record = record
    }

    /// The record's configOBUs (after its 4 bytes): the sequence header, and metadata OBUs.
    public var configOBUs: [UInt8] { Array(record.dropFirst(4)) }

    /// The record for a stream whose first OBUs (Matroska's CodecPrivate, or the first packet)
    /// include a sequence header.
    static func record(fromOBUs b: [UInt8]) throws -> [UInt8] {
        guard let (header, obu) = sequenceHeader(in: b) else { throw MediaError(.invalidData, "AV1 stream without a sequence header") }
        let s = try SequenceHeader(header)
        var w = BoxWriter()
        w.u8(0x81)                                  // marker, version 1
        w.u8(UInt8(truncatingIfNeeded: s.profile << 5 | s.level))
        w.u8(UInt8(truncatingIfNeeded: s.tier << 7 | s.highBitDepth << 6 | s.twelveBit << 5 | s.monochrome << 4
                   | s.subsamplingX << 3 | s.subsamplingY << 2 | s.samplePosition))
        w.u8(0)                                     // no initial presentation delay
        w.append(obu)
        return w.bytes
    }

    /// The payload of the first sequence header OBU (type 1), and the whole OBU.
    private static func sequenceHeader(in b: [UInt8]) -> (payload: ArraySlice<UInt8>, obu: ArraySlice<UInt8>)? {
        var i = 0
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
                    v |= Int(widening: byte & 0x7F) << shift
                    shift += 7
                    if byte & 0x80 == 0 { break }
                }
                size = v
            }
            guard i <= b.count, size <= b.count - i else { return nil }
            if type == 1 { return (b[i..<(i + size)], b[start..<(i + size)]) }
            i += size
        }
        return nil
    }

    /// The fields of a sequence header the record repeats.
    private struct SequenceHeader {
        var profile: UInt32 = 0, level: UInt32 = 0, tier: UInt32 = 0
        var highBitDepth: UInt32 = 0, twelveBit: UInt32 = 0, monochrome: UInt32 = 0
        var subsamplingX: UInt32 = 1, subsamplingY: UInt32 = 1, samplePosition: UInt32 = 0

        init(_ payload: ArraySlice<UInt8>) throws {
            var r = BitReader(Array(payload))
            profile = r.bits(3)
            r.skip(1)                               // still_picture
            let reduced = r.flag()
            if reduced { level = r.bits(5) } else { readOperatingPoints(&r) }
            let widthBits = Int(widening: r.bits(4)) + 1, heightBits = Int(widening: r.bits(4)) + 1
            r.skip(widthBits + heightBits)
            if !reduced, r.flag() { r.skip(7) }     // frame ids
            r.skip(3)                               // 128x128, filter intra, intra edge
            if !reduced { SequenceHeader.skipToolFlags(&r) }
            r.skip(3)                               // superres, cdef, restoration
            readColorConfig(&r)
            guard !r.isOverrun else { throw MediaError(.invalidData, "AV1 sequence header cannot be read") }
        }

        /// Timing and decoder model info, then the operating points: the first one's level and tier.
        private mutating func readOperatingPoints(_ r: inout BitReader) {
            var bufferDelayLength = 0
            var decoderModel = false
            if r.flag() {                           // timing_info_present_flag
                r.skip(64)
                if r.flag() { _ = r.uvlc() }
                decoderModel = r.flag()
                if decoderModel {
                    bufferDelayLength = Int(widening: r.bits(5)) + 1
                    r.skip(32 + 5 + 5)
                }
            }
            let initialDisplayDelay = r.flag()
            let points = Int(widening: r.bits(5)) + 1
            for k in 0..<points {
                r.skip(12)
                let l = r.bits(5)
                let t = l > 7 ? r.bit() : 0
                if k == 0 { level = l; tier = t }
                if decoderModel, r.flag() { r.skip(2 * bufferDelayLength + 1) }
                if initialDisplayDelay, r.flag() { r.skip(4) }
            }
        }

        /// interintra … order hint bits, screen content tools and integer motion vectors.
        private static func skipToolFlags(_ r: inout BitReader) {
            r.skip(4)                               // interintra, masked, warped, dual filter
            let orderHint = r.flag()
            if orderHint { r.skip(2) }
            var forceScreenContent: UInt32 = 2
            if !r.flag() { forceScreenContent = r.bit() }
            if forceScreenContent > 0, !r.flag() { r.skip(1) }
            if orderHint { r.skip(3) }
        }

        /// color_config(): bit depth, monochrome, chroma subsampling and sample position.
        private mutating func readColorConfig(_ r: inout BitReader) {
            highBitDepth = r.bit()
            twelveBit = profile == 2 && highBitDepth == 1 ? r.bit() : 0
            monochrome = profile == 1 ? 0 : r.bit()
            var cp: UInt32 = 2, tc: UInt32 = 2, mc: UInt32 = 2
            if r.flag() { cp = r.bits(8); tc = r.bits(8); mc = r.bits(8) }
            if monochrome == 1 {
                r.skip(1)
            } else if cp == 1 && tc == 13 && mc == 0 {
                subsamplingX = 0; subsamplingY = 0
            } else {
                r.skip(1)                           // color_range
                if profile == 0 { subsamplingX = 1; subsamplingY = 1 }
                else if profile == 1 { subsamplingX = 0; subsamplingY = 0 }
                else if twelveBit == 1 { subsamplingX = r.bit(); subsamplingY = subsamplingX == 1 ? r.bit() : 0 }
                else { subsamplingX = 1; subsamplingY = 0 }
                if subsamplingX == 1 && subsamplingY == 1 { samplePosition = r.bits(2) }
            }
        }
    }
}
