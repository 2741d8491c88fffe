import Foundation

/// Matroska files built byte by byte, for tests of what muxers do not write: each element with
/// an 8-byte size, so that any payload fits.
public enum EBMLBuilder {
    /// An element: its ID's bytes, an 8-byte size, its payload.
    public static func element(_ id: UInt32, _ payload: [UInt8]) -> [UInt8] {
        let idBytes = withUnsafeBytes(of: id.bigEndian) { Array($0) }.drop { $0 == 0 }
        let size = UInt64(payload.count) | (1 << 56)
        return Array(idBytes) + withUnsafeBytes(of: size.bigEndian) { Array($0) } + payload
    }

    /// An unsigned integer element, 8 bytes wide.
    public static func uint(_ id: UInt32, _ v: UInt64) -> [UInt8] { element(id, withUnsafeBytes(of: v.bigEndian) { Array($0) }) }

    /// A file of one track (number 1 of `type`, `codec`, 1 ms ticks) and `clusters`.
    public static func file(type: UInt64 = 2, codec: String = "A_AAC", codecPrivate: [UInt8] = [0x11, 0x90], trackExtras: [UInt8] = [],
                            clusters: [[UInt8]], segmentExtras: [UInt8] = []) -> [UInt8] {
        let header = element(0x1A45_DFA3, element(0x4282, Array("matroska".utf8)))
        let track = element(0xAE, uint(0xD7, 1) + uint(0x83, type) + element(0x86, Array(codec.utf8))
                            + element(0x63A2, codecPrivate) + trackExtras)
        let info = element(0x1549_A966, uint(0x2A_D7B1, 1_000_000))
        return header + element(0x1853_8067, info + element(0x1654_AE6B, track) + segmentExtras + clusters.joined())
    }

    /// A cluster at `time` holding `blocks`.
    public static func cluster(_ time: UInt64, _ blocks: [UInt8]...) -> [UInt8] {
        element(0x1F43_B675, uint(0xE7, time) + blocks.joined())
    }

    /// A block of track 1 at `relative` ticks: the track number, time and flags, then `body`.
    public static func blockBody(_ relative: Int16, flags: UInt8, _ body: [UInt8]) -> [UInt8] {
        [0x81, UInt8(truncatingIfNeeded: relative >> 8), UInt8(truncatingIfNeeded: relative), flags] + body
    }
}
