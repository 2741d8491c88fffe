import Foundation
import MediaCore
import Matroska
import Testing
import TestSupport

/// `MatroskaFile` on files built here byte by byte: each kind of lacing, block groups, and
/// damaged or unusual structure, which it must refuse with a clear error (never a trap).
@Suite("Matroska structure")
struct MatroskaFileTests {
    static func element(_ id: UInt32, _ payload: [UInt8]) -> [UInt8] { EBMLBuilder.element(id, payload) }
    static func uint(_ id: UInt32, _ v: UInt64) -> [UInt8] { EBMLBuilder.uint(id, v) }
    static func cluster(_ time: UInt64, _ blocks: [UInt8]...) -> [UInt8] { EBMLBuilder.element(0x1F43_B675, EBMLBuilder.uint(0xE7, time) + blocks.joined()) }
    static func blockBody(_ relative: Int16, flags: UInt8, _ body: [UInt8]) -> [UInt8] { EBMLBuilder.blockBody(relative, flags: flags, body) }

    /// A file of one audio track (number 1, 1 ms ticks, 20 ms frames by default) and `clusters`.
    static func file(trackExtras: [UInt8] = [], clusters: [[UInt8]], segmentExtras: [UInt8] = []) -> [UInt8] {
        EBMLBuilder.file(trackExtras: uint(0x23E383, 20_000_000) + trackExtras, clusters: clusters, segmentExtras: segmentExtras)
    }

    static func frames(_ bytes: [UInt8]) throws -> MatroskaFrames {
        try #require(try MatroskaFile(file: InMemoryBytes(bytes)).tracks.first).frames
    }

    @Test("each kind of lacing splits a block into its frames, timed a default duration apart")
    func lacing() throws {
        let a = [UInt8](repeating: 1, count: 300), b = [UInt8](repeating: 2, count: 5), c = [UInt8](repeating: 3, count: 7)
        // Xiph: sizes 300 (255 + 45) and 5, the last the rest.
        let xiph = Self.element(0xA3, Self.blockBody(0, flags: 0x82, [2, 255, 45, 5] + a + b + c))
        // EBML: 300 as a 2-byte size (0x412C), then 5 - 300 = -295 as a 2-byte signed difference (−295 + 8191 = 7896 = 0x5ED8).
        let ebml = Self.element(0xA3, Self.blockBody(60, flags: 0x86, [2, 0x41, 0x2C, 0x5E, 0xD8] + a + b + c))
        // Fixed: three frames of 4 bytes.
        let fixed = Self.element(0xA3, Self.blockBody(120, flags: 0x84, [2] + [UInt8](repeating: 9, count: 12)))
        let plain = Self.element(0xA3, Self.blockBody(180, flags: 0x00, [7, 7]))
        let bytes = Self.file(clusters: [Self.cluster(1000, xiph, ebml), Self.cluster(1120, fixed, plain)])
        let f = try Self.frames(bytes)
        #expect(f.sizes == [300, 5, 7, 300, 5, 7, 4, 4, 4, 2])
        #expect(f.times == [1000, 1020, 1040, 1060, 1080, 1100, 1240, 1260, 1280, 1300])
        #expect(f.durations == [20, 20, 20, 20, 20, 20, 20, 20, 20, 20])
        #expect(f.keyFrames == [true, true, true, true, true, true, true, true, true, false])
        // Each frame's bytes are where the index says.
        let expected: [[UInt8]] = [a, b, c, a, b, c] + Array(repeating: [9, 9, 9, 9], count: 3) + [[7, 7]]
        for i in 0..<f.count {
            let at = Int(f.offsets[i])
            #expect(Array(bytes[at..<(at + Int(f.sizes[i]))]) == expected[i], "frame \(i)")
        }
    }

    @Test("a block group: its duration, references and discard padding")
    func blockGroups() throws {
        let key = Self.element(0xA0, Self.element(0xA1, Self.blockBody(0, flags: 0, [1, 2, 3])) + Self.uint(0x9B, 25))
        let referring = Self.element(0xA0, Self.element(0xA1, Self.blockBody(25, flags: 0, [4])) + Self.uint(0xFB, 0xFF)
                                     + Self.uint(0x75A2, 5_000_000))
        let f = try Self.frames(Self.file(clusters: [Self.cluster(0, key, referring)]))
        #expect(f.times == [0, 25] && f.durations == [25, 20] && f.keyFrames == [true, false])
        #expect(f.discardPadding == [1: 5_000_000])
    }

    @Test("what is read by libavformat instead is refused as unsupported, naming it")
    func unsupported() throws {
        let block = Self.element(0xA3, Self.blockBody(0, flags: 0x80, [1]))
        let cases: [(String, [UInt8])] = [
            ("chapters", Self.file(clusters: [Self.cluster(0, block)], segmentExtras: Self.element(0x1043_A770, []))),
            ("content encodings", Self.file(trackExtras: Self.element(0x6D80, []), clusters: [Self.cluster(0, block)])),
            ("laced frames without a duration", Self.file(
                trackExtras: [], clusters: [Self.cluster(0, Self.element(0xA0, Self.element(0xA1, Self.blockBody(0, flags: 0x04, [1, 5, 5])) + Self.uint(0x9B, 0)))])),
        ]
        for (what, bytes) in cases {
            do {
                let file = try MatroskaFile(file: InMemoryBytes(bytes))
                #expect(file.tracks.first?.unsupported?.contains(what) == true, "\(what) read")
            } catch let e as MediaError {
                #expect(e.code == .unsupported && e.message.contains(what), "\(what): \(e)")
            }
        }
    }

    @Test("damaged files are refused with the offset, at every length they could be cut to")
    func damaged() throws {
        let block = Self.element(0xA3, Self.blockBody(0, flags: 0x82, [1, 200, 1, 2, 3]))   // Xiph size past the block
        #expect(throws: MediaError.self) { try MatroskaFile(file: InMemoryBytes(Self.file(clusters: [Self.cluster(0, block)]))) }
        var overlong = Self.file(clusters: [Self.cluster(0, Self.element(0xA3, Self.blockBody(0, flags: 0x80, [1])))])
        overlong[overlong.count - 6] = 0x7F   // the block's size now runs past its cluster
        #expect(throws: MediaError.self) { try MatroskaFile(file: InMemoryBytes(overlong)) }
        let good = Self.file(clusters: [Self.cluster(0, Self.element(0xA3, Self.blockBody(0, flags: 0x86, [1, 0x81, 1, 2, 3])))])
        _ = try MatroskaFile(file: InMemoryBytes(good))
        for n in 0..<good.count {
            #expect(throws: MediaError.self) { try MatroskaFile(file: InMemoryBytes(Array(good.prefix(n)))) }
        }
    }

    @Test("tags nested thousands deep are read to a depth and no further")
    func deepTags() throws {
        var simple = Self.element(0x45A3, Array("X".utf8)) + Self.element(0x4487, Array("v".utf8))
        for _ in 0..<5_000 { simple = Self.element(0x67C8, Self.element(0x45A3, Array("N".utf8)) + simple) }
        let tags = Self.element(0x1254_C367, Self.element(0x7373, simple))
        let block = Self.element(0xA3, Self.blockBody(0, flags: 0x80, [1]))
        let file = try MatroskaFile(file: InMemoryBytes(Self.file(clusters: [Self.cluster(0, block)], segmentExtras: tags)))
        #expect(file.tags.isEmpty)
    }
}
