import MediaCore

/// A QuickTime timecode sample description (`tmcd`; QTFF, "Timecode Sample Description"): how
/// the track's samples, each a 32-bit frame number, count frames.
public struct TimecodeDescription: Sendable, Hashable {
    /// Flag bits: 1 drop frame, 2 wraps at 24 hours, 4 negative times allowed, 8 counter.
    public var flags: UInt32
    public var timescale: UInt32
    public var frameDuration: UInt32
    /// Frames per second, rounded (30 for 29.97).
    public var framesPerSecond: UInt8

    public var isDropFrame: Bool { flags & 1 != 0 }
    public var wrapsAt24Hours: Bool { flags & 2 != 0 }

    /// Reads a `tmcd` sample entry (the whole box); nil for another entry or one too short.
    public init?(sampleEntry bytes: [UInt8]) {
        guard bytes.count >= 34, Array(bytes[4..<8]) == Array("tmcd".utf8) else { return nil }
        func u32(_ o: Int) -> UInt32 { bytes[o..<(o + 4)].reduce(0) { $0 << 8 | UInt32($1) } }
        flags = u32(20)
        timescale = u32(24)
        frameDuration = u32(28)
        framesPerSecond = bytes[32]
        guard timescale > 0, frameDuration > 0 else { return nil }
    }
}
