import Testing
import ISOBMFF

/// AAC's output channels and rate from its AudioSpecificConfig (ISO/IEC 14496-3 1.6.2.1), for
/// configs written bit by bit: the channel configuration, a program config element, SBR and
/// parametric stereo signalled both ways.
@Suite("AudioSpecificConfig")
struct AudioSpecificConfigTests {
    @Test func lowComplexityMono() throws {
        let c = try #require(AudioSpecificConfig([0x11, 0x88]))   // AAC LC, 48 kHz, 1 channel
        #expect((c.objectType, c.sampleRate, c.codedChannels, c.outputChannels, c.outputSampleRate) == (2, 48000, 1, 1, 48000))
        #expect(!c.hasSBR && !c.hasParametricStereo)
    }

    @Test func hierarchicalSBR() throws {
        let c = try #require(AudioSpecificConfig([0x2B, 0x92, 0x08, 0x00]))   // SBR (5): 22.05 kHz core, 44.1 kHz out, stereo
        #expect(c.hasSBR && !c.hasParametricStereo)
        #expect((c.sampleRate, c.outputSampleRate, c.outputChannels) == (22050, 44100, 2))
    }

    @Test func hierarchicalParametricStereo() throws {
        let c = try #require(AudioSpecificConfig([0xEB, 0x09, 0x88, 0x00]))   // PS (29): mono coded at 24 kHz, 48 kHz stereo out
        #expect(c.hasSBR && c.hasParametricStereo)
        #expect((c.codedChannels, c.outputChannels, c.outputSampleRate) == (1, 2, 48000))
    }

    @Test func backwardCompatibleSignalling() throws {
        // LC mono at 22.05 kHz, then sync extension 0x2B7 (SBR, 44.1 kHz) and 0x548 (PS).
        let c = try #require(AudioSpecificConfig([0x13, 0x88, 0x56, 0xE5, 0xA5, 0x48, 0x80]))
        #expect(c.objectType == 2 && c.hasSBR && c.hasParametricStereo)
        #expect((c.outputChannels, c.outputSampleRate) == (2, 44100))
    }

    @Test func programConfigElement() throws {
        // Channel configuration 0: a PCE with a front mono element, a front pair and an LFE.
        let c = try #require(AudioSpecificConfig([0x11, 0x80, 0x04, 0xC8, 0x01, 0x00, 0x01, 0x00]))
        #expect(c.codedChannels == 4 && c.outputChannels == 4)
    }

    @Test func damagedConfigs() {
        #expect(AudioSpecificConfig([]) == nil)
        #expect(AudioSpecificConfig([0x10]) == nil)
        #expect(AudioSpecificConfig([0x17, 0x80]) == nil)   // an escaped sampling rate cut short
        #expect(AudioSpecificConfig([0xF8, 0x00]) == nil)   // escape to object type 32+, then nothing
    }
}
