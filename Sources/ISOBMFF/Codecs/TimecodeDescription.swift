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
        // Box header, SampleEntry's reserved bytes and data reference index, 4 reserved bytes.
        var r = ByteReader(bytes, range: 20..<bytes.count)
        guard let flags = try? r.u32(), let timescale = try? r.u32(), let frameDuration = try? r.u32(), let frames = try? r.u8(),
              timescale > 0, frameDuration > 0 else { return nil }
        self.flags = flags
        self.timescale = timescale
        self.frameDuration = frameDuration
        framesPerSecond = frames
    }
}
