import Foundation
import MediaCore
import Testing
@testable import ISOBMFF

/// Codec configuration parsed from other containers' bytes: what FuzzCodecs found, kept as
/// fixtures named after the bug (the input format is FuzzCodecs': codec index, split byte, bytes).
@Suite("Codec mapping")
struct CodecMappingTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Regressions")

    /// An HEVC SPS whose bit depths are Exp-Golomb values near 2^32 overflowed when 8 was added.
    @Test func hevcBitDepthOverflow() throws {
        let bytes = [UInt8](try Data(contentsOf: CodecMappingTests.directory.appendingPathComponent("hevc-sps-bit-depth-overflow.bin")))
        var p = CodecParameters(mediaType: .video, codecName: "hevc")
        let split = min(bytes.count - 2, Int(bytes[1]) * (bytes.count - 2) / 255)
        p.extradata = Array(bytes[2..<(2 + split)])
        #expect(throws: MediaError.self) { _ = try CodecMapping.sampleEntry(for: p, firstPacket: Array(bytes[(2 + split)...])) }
    }

    /// Annex B and avcC: an `avcC` built from start-code SPS/PPS names the SPS's profile and level,
    /// and packets get 4-byte lengths.
    @Test func annexBToAVCC() throws {
        let sps: [UInt8] = [0x67, 0x64, 0x00, 0x1F, 0xAC], pps: [UInt8] = [0x68, 0xEE, 0x3C, 0x80]
        let stream = [0, 0, 0, 1] + sps + [0, 0, 1] + pps + [0, 0, 1, 0x65, 0x88, 0x84]
        var p = CodecParameters(mediaType: .video, codecName: "h264")
        p.extradata = [0, 0, 0, 1] + sps + [0, 0, 0, 1] + pps
        let made = try CodecMapping.sampleEntry(for: p, firstPacket: stream)
        #expect(made.conversion == .annexBToLengthPrefixed)
        let back = try #require(CodecMapping.codecParameters(sampleEntry: made.entry, mediaType: .video))
        #expect(back.codecName == "h264")
        #expect(back.extradata == [1, 0x64, 0x00, 0x1F, 0xFF, 0xE1, 0, 5] + sps + [1, 0, 4] + pps)
        #expect(made.conversion.apply(stream) == [0, 0, 0, 5] + sps + [0, 0, 0, 4] + pps + [0, 0, 0, 3, 0x65, 0x88, 0x84])
    }

    /// An ADTS header gives the AudioSpecificConfig (AAC LC, 48 kHz, stereo) and is stripped.
    @Test func adts() throws {
        let frame: [UInt8] = [0xFF, 0xF1, 0x4C, 0x80, 0x01, 0x3F, 0xFC, 0xDE, 0xAD]
        let p = CodecParameters(mediaType: .audio, codecName: "aac")
        let made = try CodecMapping.sampleEntry(for: p, firstPacket: frame)
        #expect(made.conversion.apply(frame) == [0xDE, 0xAD])
        let back = try #require(CodecMapping.codecParameters(sampleEntry: made.entry, mediaType: .audio))
        #expect(back.codecName == "aac")
        #expect(back.extradata == [0x11, 0x90])
        #expect(back.sampleRate == 48000 && back.channelCount == 2)
    }

    /// OpusHead → dOps → OpusHead.
    @Test func opusHeadRoundTrip() throws {
        var p = CodecParameters(mediaType: .audio, codecName: "opus")
        p.extradata = Array("OpusHead".utf8) + [1, 2, 0x38, 0x01, 0x80, 0xBB, 0, 0, 0, 0, 0]
        p.channelCount = 2
        let made = try CodecMapping.sampleEntry(for: p, firstPacket: nil)
        let back = try #require(CodecMapping.codecParameters(sampleEntry: made.entry, mediaType: .audio))
        #expect(back.extradata == p.extradata)
        #expect(back.initialPadding == 312)
    }
}
