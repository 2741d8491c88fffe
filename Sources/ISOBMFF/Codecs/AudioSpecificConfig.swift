import MediaCore

/// What an MPEG-4 audio decoder puts out, from its AudioSpecificConfig (ISO/IEC 14496-3
/// 1.6.2.1): the object type, the core's rate and channels, a program config element's channel
/// count, and SBR (the output rate doubled) and parametric stereo (mono coded, stereo out),
/// signalled either way. An MP4 sample entry's channel count is 2 for mono too: this decides.
public struct AudioSpecificConfig: Sendable, Hashable {
    /// The audio object type (2: AAC LC, 5: SBR, 29: PS).
    public var objectType: Int
    /// The core decoder's sampling rate.
    public var sampleRate: Int
    /// The channels coded (the channel configuration, or the program config element's count).
    public var codedChannels: Int
    /// Whether SBR is signalled: the output runs at `outputSampleRate`.
    public var hasSBR = false
    /// Whether parametric stereo is signalled: one channel coded, two put out.
    public var hasParametricStereo = false
    /// SBR's output rate (the core's doubled unless the config gives it).
    public var extensionSampleRate: Int?

    /// The rate the decoder puts out.
    public var outputSampleRate: Int { hasSBR ? extensionSampleRate ?? sampleRate * 2 : sampleRate }
    /// The channels the decoder puts out.
    public var outputChannels: Int { hasParametricStereo && codedChannels == 1 ? 2 : codedChannels }

    private static let rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    /// Parses `bytes`; nil when they are too short or say no channels Splice can count.
    public init?(_ bytes: [UInt8]) {
        var r = BitReader(bytes)
        func objectType() -> Int {
            let t = Int(widening: r.bits(5))
            return t == 31 ? 32 + Int(widening: r.bits(6)) : t
        }
        func rate() -> Int? {
            let index = Int(widening: r.bits(4))
            if index == 15 { return Int(widening: r.bits(24)) }
            return index < Self.rates.count ? Self.rates[index] : nil
        }
        var type = objectType()
        guard let core = rate() else { return nil }
        let configuration = Int(widening: r.bits(4))
        self.objectType = type
        sampleRate = core
        codedChannels = 0
        if type == 5 || type == 29 {
            hasSBR = true
            hasParametricStereo = type == 29
            extensionSampleRate = rate()
            type = objectType()
            if type == 22 { _ = r.bits(4) }
        }
        // GASpecificConfig: the object types of the general audio coder.
        let generalAudio: Set<Int> = [1, 2, 3, 4, 6, 7, 17, 19, 20, 21, 22, 23]
        if generalAudio.contains(type) {
            _ = r.bit()                             // frameLengthFlag
            if r.flag() { r.skip(14) }              // dependsOnCoreCoder: coreCoderDelay
            let extensionFlag = r.flag()
            if configuration == 0 { codedChannels = Self.programConfigChannels(&r) }
            if type == 6 || type == 20 { r.skip(3) }
            if extensionFlag {
                if type == 22 { r.skip(16) }
                if [17, 19, 20, 23].contains(type) { r.skip(3) }
                r.skip(1)
            }
        }
        switch configuration {
        case 1...6: codedChannels = configuration
        case 7: codedChannels = 8
        default: break
        }
        // Backward-compatible signalling of SBR and PS after the core's config.
        if !hasSBR, !r.isOverrun, bytes.count * 8 - r.position >= 16, r.bits(11) == 0x2B7 {
            if objectType() == 5, r.flag() {
                hasSBR = true
                extensionSampleRate = rate()
                if bytes.count * 8 - r.position >= 12, r.bits(11) == 0x548 { hasParametricStereo = r.flag() }
            }
        }
        guard codedChannels > 0 else { return nil }
    }

    /// The channels of a program_config_element (14496-3 4.4.1.1): front, side and back
    /// elements (a pair counts two) and the LFE channels.
    private static func programConfigChannels(_ r: inout BitReader) -> Int {
        r.skip(4 + 2 + 4)                           // element_instance_tag, object_type, sampling_frequency_index
        let front = Int(widening: r.bits(4)), side = Int(widening: r.bits(4)), back = Int(widening: r.bits(4))
        let lfe = Int(widening: r.bits(2))
        let data = Int(widening: r.bits(3)), coupling = Int(widening: r.bits(4))
        if r.flag() { r.skip(4) }                   // mono_mixdown
        if r.flag() { r.skip(4) }                   // stereo_mixdown
        if r.flag() { r.skip(3) }                   // matrix_mixdown
        var channels = lfe
        for _ in 0..<(front + side + back) {
            channels += r.flag() ? 2 : 1
            r.skip(4)
        }
        r.skip(4 * lfe + 4 * data + 5 * coupling)
        return channels
    }
}
