import Foundation
import MediaCore
import Testing

/// The HDR types' own rules, without media: tone-mapping arguments and peaks, Dolby Vision
/// records, and HDR10+ SEI written and found again (the media tests are python/tests/test_hdr.py).
@Suite("HDR metadata")
struct HDRMetadataTests {
    @Test("--tone-map's operator and parameter")
    func toneMappingArguments() throws {
        #expect(ToneMapping(argument: "mobius") == .standard)
        #expect(ToneMapping(argument: "mobius:0.8") == ToneMapping(toneOperator: .mobius, parameter: 0.8))
        #expect(ToneMapping(argument: "hable") == ToneMapping(toneOperator: .hable, parameter: nil))
        #expect(ToneMapping(argument: "reinhard:0.4")?.parameter == 0.4)
        for bad in ["sepia", "mobius:-1", "mobius:abc", "mobius:nan", "", ":0.5"] {
            #expect(ToneMapping(argument: bad) == nil, "\(bad)")
        }
    }

    @Test("the peak: MaxCLL, else the mastering display, else 1,000 cd/m², relative to reference white")
    func peaks() {
        let t = ToneMapping.standard
        #expect(t.relativePeak(maxCLL: 1015, masteringPeak: 4000) == 1015.0 / 203)
        #expect(t.relativePeak(maxCLL: nil, masteringPeak: 4000) == 4000.0 / 203)
        #expect(t.relativePeak(maxCLL: 0, masteringPeak: 0) == 1000.0 / 203)
        #expect(t.relativePeak(maxCLL: 100, masteringPeak: nil) == 1)           // never below reference white
        #expect(t.relativePeak(maxCLL: .infinity, masteringPeak: 1e9) == 10_000.0 / 203)
        #expect(ToneMapping(peakLuminance: 600).relativePeak(maxCLL: 1000, masteringPeak: nil) == 600.0 / 203)
    }

    @Test("a Dolby Vision record's fields, box and name")
    func dolbyVisionRecord() throws {
        let hlg = DolbyVisionConfiguration(profile: 8, level: 6, compatibilityID: 4)
        #expect(hlg.record.count == 24 && hlg.record[0] == 1)
        let read = try #require(DolbyVisionConfiguration(record: hlg.record + [0xFF]))
        #expect(read == hlg)
        #expect((read.profile, read.level, read.compatibilityID, read.rpuPresent, read.enhancementLayerPresent, read.baseLayerPresent)
                == (8, 6, 4, true, false, true))
        #expect(read.boxType == "dvvC" && read.summary == "Dolby Vision 8.4 (HLG-compatible)")
        let five = DolbyVisionConfiguration(profile: 5, level: 9, compatibilityID: 0)
        #expect(five.boxType == "dvcC" && five.compatibleBaseLayer == nil && five.summary == "Dolby Vision 5 (no compatible base layer)")
        #expect(DolbyVisionConfiguration(profile: 20, level: 1, compatibilityID: 2).boxType == "dvwC")
        #expect(DolbyVisionConfiguration(record: Array(hlg.record.prefix(23))) == nil)
        var zero = hlg.record
        zero[0] = 0
        #expect(DolbyVisionConfiguration(record: zero) == nil)
    }

    @Test("an HDR10+ SEI is written emulation-prevented and found again beside HDR10 SEI")
    func hdr10PlusSEI() throws {
        // A T.35 message with zero runs that need emulation prevention.
        let t35: [UInt8] = [0xB5, 0x00, 0x3C, 0x00, 0x01, 0x04, 0x01, 0x40, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x7F]
        let sei = try #require(HDR10Plus.hevcSEI(t35, lengthSize: 4))
        let nal = Array(sei.dropFirst(4))
        #expect(Int(sei[3]) == nal.count && nal[0] == 39 << 1)
        #expect(nal.count == 2 + 2 + t35.count + 1 + 2)   // header, type, size, payload, trailing bits, two 03s
        for i in 2..<(nal.count - 2) { #expect(!(nal[i] == 0 && nal[i + 1] == 0 && nal[i + 2] <= 3 && nal[i + 2] != 3), "\(i)") }
        // A mastering display and content light level SEI in one NAL before it.
        let mastering = MasteringDisplay.bt2020(maxNits: 1000, minNits: 0.0001)
        let light = ContentLightLevel(maxContentLightLevel: 1000, maxFrameAverageLightLevel: 400)
        let rbsp: [UInt8] = [137, 24] + mastering.mdcvPayload + [144, 4] + light.clliPayload + [0x80]
        let hdr10: [UInt8] = [0, 0, 0, UInt8(2 + rbsp.count), 39 << 1, 1] + rbsp
        let slice: [UInt8] = [0, 0, 0, 3, 0x02, 0x01, 0xD0]
        let found = HEVCSEIMetadata(sample: hdr10 + sei + slice, lengthSize: 4)
        #expect(found.hasHDR10Plus && found.masteringDisplay == mastering && found.contentLightLevel == light)
        #expect(!HEVCSEIMetadata(sample: hdr10 + slice, lengthSize: 4).hasHDR10Plus)
        // Not HDR10+: another T.35 provider.
        var other = t35
        other[2] = 0x3B
        #expect(!HEVCSEIMetadata(sample: try #require(HDR10Plus.hevcSEI(other, lengthSize: 2)), lengthSize: 2).hasHDR10Plus)
        // Lengths past the end, sizes past the NAL, 0xFF runs: read as far as they hold, no trap.
        #expect(!HEVCSEIMetadata(sample: [0xFF, 0xFF, 0xFF, 0xFF, 39 << 1, 1, 4], lengthSize: 4).hasHDR10Plus)
        #expect(!HEVCSEIMetadata(sample: [0, 0, 0, 6, 39 << 1, 1, 4, 0xFF, 0xFF, 0xFF], lengthSize: 4).hasHDR10Plus)
        #expect(!HEVCSEIMetadata(sample: [0, 0, 0, 5, 39 << 1, 1, 4, 200, 0xB5], lengthSize: 4).hasHDR10Plus)
        #expect(HDR10Plus.hevcSEI([UInt8](repeating: 1, count: 300), lengthSize: 1) == nil)
    }
}
