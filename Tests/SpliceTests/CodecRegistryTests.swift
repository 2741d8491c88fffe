import Foundation
import ISOBMFF
import Splice
import Testing

/// The codec registry against the encoder choices.
@Suite("Codec registry")
struct CodecRegistryTests {
    /// Every codec an export can encode to has a registry entry naming its libavcodec encoder,
    /// and MP4/MOV gets a sample entry written for it.
    @Test func everyEncoderChoiceHasAnEntry() {
        let names = VideoEncodingSettings.Codec.allCases.map(\.rawValue) + AudioEncodingSettings.Codec.allCases.map(\.rawValue)
        for name in names {
            let entry = CodecRegistry.entry(named: name)
            #expect(entry?.encoder != nil && entry?.writesSampleEntries == true, "\(name)")
        }
        #expect(CodecRegistry.entry(named: "prores")?.encoder == nil && CodecRegistry.entry(named: "prores")?.writesSampleEntries == false)
        // One entry per FFmpeg name for written codecs: no name is claimed twice by writers.
        let written = CodecRegistry.entries.filter(\.writesSampleEntries).flatMap(\.names)
        #expect(Set(written).count == written.count, "\(written)")
    }
}
