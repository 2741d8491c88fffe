import MediaCore

/// One `TrackEntry` of a Matroska file (the Matroska specification, `Segment\Tracks`), and its
/// frames once the clusters are read.
public struct MatroskaTrack: Sendable {
    /// `TrackNumber`: what the blocks name the track by.
    public var number: UInt64 = 0
    /// `TrackUID`.
    public var uid: UInt64 = 0
    /// `TrackType`: 1 video, 2 audio, 17 subtitle, …
    public var type: UInt64 = 0
    /// `CodecID` (`V_MPEG4/ISO/AVC`, `A_AAC`, …).
    public var codecID = ""
    /// `CodecPrivate`: the codec's configuration (an `avcC` record, an AudioSpecificConfig).
    public var codecPrivate: [UInt8] = []
    /// `Name`.
    public var name: String?
    /// `Language` (ISO 639-2; the specification's default is `eng`).
    public var language = "eng"
    /// `FlagEnabled`, `FlagDefault`, `FlagForced`.
    public var isEnabled = true, isDefault = true, isForced = false
    /// `FlagHearingImpaired`, `FlagVisualImpaired`.
    public var isHearingImpaired = false, isVisualImpaired = false
    /// `DefaultDuration`: nanoseconds per frame, when stated.
    public var defaultDuration: UInt64?
    /// `CodecDelay` in nanoseconds.
    public var codecDelay: UInt64 = 0
    /// `Video`: `PixelWidth`, `PixelHeight`, `DisplayWidth`, `DisplayHeight`, `DisplayUnit`.
    public var pixelWidth: UInt64 = 0, pixelHeight: UInt64 = 0
    public var displayWidth: UInt64?, displayHeight: UInt64?, displayUnit: UInt64 = 0
    /// `Video\Colour`: ISO/IEC 23091-2 code points (2: unspecified), and `Range` (0 unspecified,
    /// 1 limited, 2 full).
    public var matrixCoefficients: UInt64 = 2, transferCharacteristics: UInt64 = 2, primaries: UInt64 = 2, range: UInt64 = 0
    /// `Audio`: `SamplingFrequency` (default 8000), `Channels` (default 1), `BitDepth`.
    public var samplingFrequency = 8000.0, channels: UInt64 = 1, bitDepth: UInt64 = 0
    /// What of the track Splice does not read natively (libavformat reads such files); nil when
    /// nothing.
    public var unsupported: String?
    /// The track's frames in file order.
    public internal(set) var frames = MatroskaFrames()

    /// Fills the track from a `TrackEntry`'s children.
    mutating func read(_ entry: EBMLElement, with reader: inout EBMLReader) throws {
        for e in try reader.children(of: entry) {
            switch e.id {
            case 0xD7: number = try reader.unsigned(e)
            case 0x73C5: uid = try reader.unsigned(e)
            case 0x83: type = try reader.unsigned(e)
            case 0x86: codecID = try reader.string(e)
            case 0x63A2: codecPrivate = try reader.binary(e)
            case 0x536E: name = try reader.string(e)
            case 0x22B59C: language = try reader.string(e)
            case 0xB9: isEnabled = try reader.unsigned(e) != 0
            case 0x88: isDefault = try reader.unsigned(e) != 0
            case 0x55AA: isForced = try reader.unsigned(e) != 0
            case 0x55AB: isHearingImpaired = try reader.unsigned(e) != 0
            case 0x55AC: isVisualImpaired = try reader.unsigned(e) != 0
            case 0x23E383: defaultDuration = try reader.unsigned(e)
            case 0x56AA: codecDelay = try reader.unsigned(e)
            case 0xE0: try readVideo(e, with: &reader)
            case 0xE1: try readAudio(e, with: &reader)
            case 0x6D80: unsupported = "content encodings (compression or encryption)"
            case 0xE2: unsupported = "a track operation (3D planes, joined blocks)"
            case 0x41E4: unsupported = "block addition mappings (Dolby Vision, HDR10+)"
            default: break   // FlagLacing, MinCache, CodecName, SeekPreRoll, LanguageBCP47, …
            }
        }
    }

    private mutating func readVideo(_ video: EBMLElement, with reader: inout EBMLReader) throws {
        for e in try reader.children(of: video) {
            switch e.id {
            case 0xB0: pixelWidth = try reader.unsigned(e)
            case 0xBA: pixelHeight = try reader.unsigned(e)
            case 0x54B0: displayWidth = try reader.unsigned(e)
            case 0x54BA: displayHeight = try reader.unsigned(e)
            case 0x54B2: displayUnit = try reader.unsigned(e)
            case 0x55B0: try readColour(e, with: &reader)
            case 0x53B8: if try reader.unsigned(e) != 0 { unsupported = "stereo 3D video" }
            case 0x7670: unsupported = "a projection (360° video)"
            default: break
            }
        }
    }

    private mutating func readColour(_ colour: EBMLElement, with reader: inout EBMLReader) throws {
        for e in try reader.children(of: colour) {
            switch e.id {
            case 0x55B1: matrixCoefficients = try reader.unsigned(e)
            case 0x55B9: range = try reader.unsigned(e)
            case 0x55BA: transferCharacteristics = try reader.unsigned(e)
            case 0x55BB: primaries = try reader.unsigned(e)
            case 0x55BC, 0x55BD, 0x55D0: unsupported = "HDR static metadata"
            default: break
            }
        }
    }

    private mutating func readAudio(_ audio: EBMLElement, with reader: inout EBMLReader) throws {
        for e in try reader.children(of: audio) {
            switch e.id {
            case 0xB5: samplingFrequency = try reader.float(e)
            case 0x9F: channels = try reader.unsigned(e)
            case 0x6264: bitDepth = try reader.unsigned(e)
            case 0x78B5: unsupported = "an output sampling frequency (SBR)"
            default: break
            }
        }
    }
}

/// A track's frames, one entry per frame (a laced block holds several), in file order: where
/// each one's bytes are and its time in the segment's ticks (`TimestampScale`).
public struct MatroskaFrames: Sendable {
    /// Where each frame's bytes start in the file.
    public internal(set) var offsets: [UInt64] = []
    /// Each frame's length in bytes.
    public internal(set) var sizes: [UInt32] = []
    /// Each frame's presentation time, in ticks.
    public internal(set) var times: [Int64] = []
    /// Each frame's duration in ticks as the block says it (`BlockDuration`, or `DefaultDuration`
    /// spread over a lace); 0 when it says none.
    public internal(set) var durations: [Int64] = []
    /// Whether each frame is a key frame.
    public internal(set) var keyFrames: [Bool] = []
    /// `DiscardPadding` in nanoseconds, by frame index (the last frame of its block).
    public internal(set) var discardPadding: [Int: Int64] = [:]

    /// The number of frames.
    public var count: Int { offsets.count }

    mutating func append(offset: UInt64, size: UInt32, time: Int64, duration: Int64, isKey: Bool) {
        offsets.append(offset)
        sizes.append(size)
        times.append(time)
        durations.append(duration)
        keyFrames.append(isKey)
    }
}
