// CoreMedia's Swift spellings over Splice's time types: `CMTime` is `MediaTime`, `CMTimeRange`
// is `TimeRange` (the same rational arithmetic, rounding and invalid/infinite values).
@_exported import Splice

/// CoreMedia's rational time: Splice's `MediaTime`.
public typealias CMTime = MediaTime
/// CoreMedia's time range: Splice's `TimeRange`.
public typealias CMTimeRange = TimeRange
/// A time's numerator.
public typealias CMTimeValue = Int64
/// A time's denominator (ticks per second).
public typealias CMTimeScale = Int32
/// A track ID. Splice's are `Int` (CoreMedia's `Int32`): the values are the same.
public typealias CMPersistentTrackID = Int
/// "No particular track ID": `addMutableTrack(withMediaType:preferredTrackID:)` takes the next free one.
public let kCMPersistentTrackID_Invalid: CMPersistentTrackID = 0

/// 0 s.
public let kCMTimeZero = CMTime.zero
/// A time that is no time (not numeric).
public let kCMTimeInvalid = CMTime.invalid
/// +∞.
public let kCMTimePositiveInfinity = CMTime.positiveInfinity
/// −∞.
public let kCMTimeNegativeInfinity = CMTime.negativeInfinity
/// An empty range at 0.
public let kCMTimeRangeZero = CMTimeRange.zero

/// `value / timescale` seconds.
public func CMTimeMake(value: CMTimeValue, timescale: CMTimeScale) -> CMTime { CMTime(value: value, timescale: timescale) }

/// `seconds` in `preferredTimescale` ticks, rounded to the nearest.
public func CMTimeMakeWithSeconds(_ seconds: Double, preferredTimescale: CMTimeScale) -> CMTime {
    CMTime(seconds: seconds, preferredTimescale: preferredTimescale)
}

/// The time in seconds (NaN for a time that is not numeric, ±∞ for the infinities).
public func CMTimeGetSeconds(_ time: CMTime) -> Double { time.seconds }

/// `lhs + rhs` (exact, in a common timescale).
public func CMTimeAdd(_ lhs: CMTime, _ rhs: CMTime) -> CMTime { lhs + rhs }

/// `lhs − rhs` (exact, in a common timescale).
public func CMTimeSubtract(_ lhs: CMTime, _ rhs: CMTime) -> CMTime { lhs - rhs }

/// `time × multiplier` (exact).
public func CMTimeMultiply(_ time: CMTime, multiplier: Int32) -> CMTime { time * Int64(multiplier) }

/// −1, 0 or 1 as `time1` is before, at or after `time2`.
public func CMTimeCompare(_ time1: CMTime, _ time2: CMTime) -> Int32 { time1 < time2 ? -1 : time1 == time2 ? 0 : 1 }

/// The earlier of two times.
public func CMTimeMinimum(_ time1: CMTime, _ time2: CMTime) -> CMTime { min(time1, time2) }

/// The later of two times.
public func CMTimeMaximum(_ time1: CMTime, _ time2: CMTime) -> CMTime { max(time1, time2) }

/// `time` in `newTimescale` ticks (CoreMedia's `CMTimeConvertScale`, rounding to the nearest).
public func CMTimeConvertScale(_ time: CMTime, timescale newTimescale: CMTimeScale) -> CMTime { time.convertScale(newTimescale) }

/// The range from `start` lasting `duration`.
public func CMTimeRangeMake(start: CMTime, duration: CMTime) -> CMTimeRange { CMTimeRange(start: start, duration: duration) }

/// The range from `start` to `end`.
public func CMTimeRangeFromTimeToTime(start: CMTime, end: CMTime) -> CMTimeRange { CMTimeRange(start: start, end: end) }

/// Where the range ends (`start + duration`).
public func CMTimeRangeGetEnd(_ range: CMTimeRange) -> CMTime { range.end }

extension MediaTime {
    /// CoreMedia's `CMTime.isIndefinite`: Splice has no indefinite times.
    public var isIndefinite: Bool { false }
    /// CoreMedia's `CMTime.isPositiveInfinity`.
    public var isPositiveInfinity: Bool { self == .positiveInfinity }
    /// CoreMedia's `CMTime.isNegativeInfinity`.
    public var isNegativeInfinity: Bool { self == .negativeInfinity }
}

// MARK: Format descriptions and sample buffers

/// CoreMedia's format description: Splice's `FormatDescription` (a value).
public typealias CMFormatDescription = FormatDescription
/// A format description of pictures.
public typealias CMVideoFormatDescription = FormatDescription
/// A format description of sound.
public typealias CMAudioFormatDescription = FormatDescription
/// CoreMedia's sample buffer: Splice's `SampleBuffer` (a value).
public typealias CMSampleBuffer = SampleBuffer
/// Core Video's decoded picture: Splice's `PixelBuffer`.
public typealias CVPixelBuffer = PixelBuffer
/// Core Video's image buffer: Splice's `PixelBuffer`.
public typealias CVImageBuffer = PixelBuffer
/// A four-character code as a number.
public typealias FourCharCode = UInt32
/// A kind of media as a four-character code (`kCMMediaType_Video`, …).
public typealias CMMediaType = FourCharCode
/// A codec as a four-character code (`avc1`, `mp4a`, …).
public typealias CMVideoCodecType = FourCharCode

/// Pictures (`vide`).
public let kCMMediaType_Video: CMMediaType = MediaType.video.handlerType.rawValue
/// Sound (`soun`).
public let kCMMediaType_Audio: CMMediaType = MediaType.audio.handlerType.rawValue
/// Subtitles (`sbtl`).
public let kCMMediaType_Subtitle: CMMediaType = MediaType.subtitle.handlerType.rawValue
/// QuickTime text (`text`).
public let kCMMediaType_Text: CMMediaType = MediaType.text.handlerType.rawValue
/// Closed captions (`clcp`).
public let kCMMediaType_ClosedCaption: CMMediaType = MediaType.closedCaption.handlerType.rawValue
/// Timecode (`tmcd`).
public let kCMMediaType_TimeCode: CMMediaType = MediaType.timecode.handlerType.rawValue
/// Timed metadata (`meta`).
public let kCMMediaType_Metadata: CMMediaType = MediaType.metadata.handlerType.rawValue
/// H.264 (`avc1`).
public let kCMVideoCodecType_H264: CMVideoCodecType = FourCC("avc1").rawValue
/// HEVC (`hvc1`).
public let kCMVideoCodecType_HEVC: CMVideoCodecType = FourCC("hvc1").rawValue

/// A picture's size in pixels (CoreMedia's `CMVideoDimensions`).
public struct CMVideoDimensions: Sendable, Hashable {
    /// Pixels across.
    public var width: Int32
    /// Pixels down.
    public var height: Int32
    /// A size.
    public init(width: Int32, height: Int32) { (self.width, self.height) = (width, height) }
}

/// Core Audio's description of a sound format (the fields Splice knows; the others 0).
public struct AudioStreamBasicDescription: Sendable, Hashable {
    /// Frames per second.
    public var mSampleRate: Double = 0
    /// The codec (`kAudioFormatMPEG4AAC`, …) as a four-character code.
    public var mFormatID: AudioFormatID = 0
    /// Codec-specific flags (0).
    public var mFormatFlags: UInt32 = 0
    /// Bytes per packet (0: varies).
    public var mBytesPerPacket: UInt32 = 0
    /// Frames per packet (0: varies or unknown).
    public var mFramesPerPacket: UInt32 = 0
    /// Bytes per frame (0: compressed).
    public var mBytesPerFrame: UInt32 = 0
    /// Channels.
    public var mChannelsPerFrame: UInt32 = 0
    /// Bits per sample (0: compressed).
    public var mBitsPerChannel: UInt32 = 0
    /// Unused.
    public var mReserved: UInt32 = 0
    /// A description with every field 0.
    public init() {}
}

/// The kind of media a format describes.
public func CMFormatDescriptionGetMediaType(_ desc: CMFormatDescription) -> CMMediaType { desc.mediaType.handlerType.rawValue }

/// The codec a format describes: the sample entry's code (`avc1`, `hvc1`, `tx3g`, …), and for
/// sound Core Audio's format ID where it has one (AAC: `kAudioFormatMPEG4AAC`, `aac `).
public func CMFormatDescriptionGetMediaSubType(_ desc: CMFormatDescription) -> FourCharCode { audioFormatID(desc) ?? desc.codec.rawValue }

/// Core Audio's format ID of a sound format, where it differs from the sample entry's code.
private func audioFormatID(_ desc: CMFormatDescription) -> AudioFormatID? {
    guard desc.mediaType == .audio else { return nil }
    switch desc.codecName {
    case "aac": return kAudioFormatMPEG4AAC
    case "alac": return kAudioFormatAppleLossless
    case "flac": return kAudioFormatFLAC
    case "opus": return kAudioFormatOpus
    case "mp3": return FourCC(".mp3").rawValue
    case "ac3": return FourCC("ac-3").rawValue
    case "eac3": return FourCC("ec-3").rawValue
    case let name? where name.hasPrefix("pcm_"): return kAudioFormatLinearPCM
    default: return nil
    }
}

/// The stored pictures' size; 0×0 for a format without pictures.
public func CMVideoFormatDescriptionGetDimensions(_ videoDesc: CMVideoFormatDescription) -> CMVideoDimensions {
    let d = videoDesc.dimensions
    return CMVideoDimensions(width: Int32(clamping: d?.width ?? 0), height: Int32(clamping: d?.height ?? 0))
}

/// The descriptions handed out, one per distinct format, kept for the process (as CoreMedia's
/// live as long as their format description).
private let streamDescriptions = Mutex<[FormatDescription: UnsafeMutablePointer<AudioStreamBasicDescription>]>([:])

/// A sound format's rate, channels and codec; nil for a format without sound.
public func CMAudioFormatDescriptionGetStreamBasicDescription(_ desc: CMAudioFormatDescription) -> UnsafePointer<AudioStreamBasicDescription>? {
    guard desc.mediaType == .audio else { return nil }
    return streamDescriptions.withLock { cache in
        if let p = cache[desc] { return UnsafePointer(p) }
        var asbd = AudioStreamBasicDescription()
        asbd.mSampleRate = desc.sampleRate ?? 0
        asbd.mChannelsPerFrame = UInt32(clamping: desc.channelCount ?? 0)
        asbd.mFormatID = CMFormatDescriptionGetMediaSubType(desc)
        let p = UnsafeMutablePointer<AudioStreamBasicDescription>.allocate(capacity: 1)
        p.initialize(to: asbd)
        cache[desc] = p
        return UnsafePointer(p)
    }
}

/// When the sample is shown.
public func CMSampleBufferGetPresentationTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.presentationTimeStamp }
/// When the sample is shown after its edits (Splice's samples carry none of their own).
public func CMSampleBufferGetOutputPresentationTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.presentationTimeStamp }
/// When the sample is decoded.
public func CMSampleBufferGetDecodeTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.decodeTimeStamp }
/// How long the sample lasts.
public func CMSampleBufferGetDuration(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.duration }
/// The sample's format.
public func CMSampleBufferGetFormatDescription(_ sbuf: CMSampleBuffer) -> CMFormatDescription? { sbuf.formatDescription }
/// The samples held: a decoded sound buffer's frames, else 1.
public func CMSampleBufferGetNumSamples(_ sbuf: CMSampleBuffer) -> Int { sbuf.pcmBuffer?.frameCount ?? 1 }
/// The bytes of the sample data.
public func CMSampleBufferGetTotalSampleSize(_ sbuf: CMSampleBuffer) -> Int { sbuf.totalSampleSize }
/// The decoded picture, for an output with video settings.
public func CMSampleBufferGetImageBuffer(_ sbuf: CMSampleBuffer) -> CVImageBuffer? { sbuf.imageBuffer }
/// Whether the sample buffer is usable: Splice's always are.
public func CMSampleBufferIsValid(_ sbuf: CMSampleBuffer) -> Bool { true }
/// Whether the sample's data is ready: Splice's always is.
public func CMSampleBufferDataIsReady(_ sbuf: CMSampleBuffer) -> Bool { true }
/// A picture's width.
public func CVPixelBufferGetWidth(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.width }
/// A picture's height.
public func CVPixelBufferGetHeight(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.height }

/// A result code of CoreMedia's C functions (0: no error).
public typealias OSStatus = Int32
/// No error.
public let kCMBlockBufferNoErr: OSStatus = 0
/// A range outside the block buffer's bytes.
public let kCMBlockBufferBadOffsetParameterErr: OSStatus = -12_703

/// The bytes of a sample (CoreMedia's `CMBlockBuffer`): a sample's stored bytes, or its decoded
/// sound as packed PCM.
public final class CMBlockBuffer: Sendable {
    /// The bytes.
    public let data: Data
    /// A block of `data`.
    public init(data: Data) { self.data = data }
}

/// The sample's bytes (decoded sound: its PCM, interleaved or plane after plane); nil for a
/// decoded picture (see `CMSampleBufferGetImageBuffer`) or a file that cannot be read.
public func CMSampleBufferGetDataBuffer(_ sbuf: CMSampleBuffer) -> CMBlockBuffer? {
    if sbuf.imageBuffer != nil { return nil }
    return (try? sbuf.loadData()).map(CMBlockBuffer.init)
}

/// How many bytes the block holds.
public func CMBlockBufferGetDataLength(_ theBuffer: CMBlockBuffer) -> Int { theBuffer.data.count }

/// Copies `dataLength` bytes from `offsetToData` into `destination`; `kCMBlockBufferBadOffsetParameterErr`
/// when the range is not within the block (nothing copied).
public func CMBlockBufferCopyDataBytes(_ theSourceBuffer: CMBlockBuffer, atOffset offsetToData: Int, dataLength: Int,
                                       destination: UnsafeMutableRawPointer) -> OSStatus {
    let data = theSourceBuffer.data
    guard offsetToData >= 0, dataLength >= 0, offsetToData <= data.count, dataLength <= data.count - offsetToData else {
        return kCMBlockBufferBadOffsetParameterErr
    }
    data.withUnsafeBytes { bytes in
        guard let base = bytes.baseAddress, dataLength > 0 else { return }
        destination.copyMemory(from: base + offsetToData, byteCount: dataLength)
    }
    return kCMBlockBufferNoErr
}

// MARK: More of CoreMedia's time functions

/// `time × multiplier`, in `time`'s timescale, rounded to the nearest tick.
public func CMTimeMultiplyByFloat64(_ time: CMTime, multiplier: Float64) -> CMTime {
    guard time.isNumeric, multiplier.isFinite else { return .invalid }
    return CMTime(seconds: time.seconds * multiplier, preferredTimescale: time.timescale)
}

/// `time × multiplier / divisor`, exact where the ticks allow (rounded to the nearest).
public func CMTimeMultiplyByRatio(_ time: CMTime, multiplier: Int32, divisor: Int32) -> CMTime {
    guard divisor != 0 else { return .invalid }
    return time.multiplied(by: CMTime(value: Int64(multiplier), timescale: 1), dividedBy: CMTime(value: Int64(divisor), timescale: 1),
                           timescale: time.timescale)
}

/// The time without its sign.
public func CMTimeAbsoluteValue(_ time: CMTime) -> CMTime { time < .zero ? .zero - time : time }

/// Whether `time` is a time (not invalid).
public func CMTIME_IS_VALID(_ time: CMTime) -> Bool { time.isValid }
/// Whether `time` is not a time.
public func CMTIME_IS_INVALID(_ time: CMTime) -> Bool { !time.isValid }
/// Whether `time` is a number of ticks (not invalid, not infinite).
public func CMTIME_IS_NUMERIC(_ time: CMTime) -> Bool { time.isNumeric }
/// Whether `time` is +∞.
public func CMTIME_IS_POSITIVE_INFINITY(_ time: CMTime) -> Bool { time == .positiveInfinity }

/// Whether `time` lies in `range` (`[start, end)`).
public func CMTimeRangeContainsTime(_ range: CMTimeRange, time: CMTime) -> Bool { range.contains(time) }
/// Whether `otherRange` lies wholly in `range`.
public func CMTimeRangeContainsTimeRange(_ range: CMTimeRange, otherRange: CMTimeRange) -> Bool { range.containsTimeRange(otherRange) }
/// The overlap of two ranges (empty at the later start when they do not meet).
public func CMTimeRangeGetIntersection(_ range: CMTimeRange, otherRange: CMTimeRange) -> CMTimeRange { range.intersection(otherRange) }
/// The smallest range holding both.
public func CMTimeRangeGetUnion(_ range: CMTimeRange, otherRange: CMTimeRange) -> CMTimeRange { range.union(otherRange) }
/// Whether two ranges are the same.
public func CMTimeRangeEqual(_ range1: CMTimeRange, _ range2: CMTimeRange) -> Bool { range1 == range2 }
/// Whether `range` is a range (its start and duration are numeric, the duration not negative).
public func CMTIMERANGE_IS_VALID(_ range: CMTimeRange) -> Bool { range.isValid }
/// Whether `range` lasts no time.
public func CMTIMERANGE_IS_EMPTY(_ range: CMTimeRange) -> Bool { range.isEmpty }

extension TimeRange {
    /// CoreMedia's `containsTime(_:)`: whether `time` lies in `[start, end)`.
    public func containsTime(_ time: CMTime) -> Bool { contains(time) }
    /// Whether `range` lies wholly in this range.
    public func containsTimeRange(_ range: CMTimeRange) -> Bool { range.start >= start && range.end <= end }
    /// The smallest range holding both.
    public func union(_ other: CMTimeRange) -> CMTimeRange { CMTimeRange(start: min(start, other.start), end: max(end, other.end)) }
    /// Whether the start and duration are times and the duration is not negative.
    public var isValid: Bool { start.isValid && duration.isValid && !(duration < .zero) }
    /// CoreMedia's indefinite ranges: Splice has none.
    public var isIndefinite: Bool { false }
}

/// How a segment maps its media onto the track's timeline (CoreMedia's `CMTimeMapping`).
public struct CMTimeMapping: Sendable, Hashable {
    /// The media shown (empty start invalid for an empty edit).
    public var source: CMTimeRange
    /// The span of the timeline.
    public var target: CMTimeRange
    /// A mapping.
    public init(source: CMTimeRange, target: CMTimeRange) { (self.source, self.target) = (source, target) }
}

extension TrackSegment {
    /// AVFoundation's `timeMapping`: the media shown (for an empty edit, an invalid start with
    /// the target's duration, as AVFoundation gives) and the span of the timeline.
    public var timeMapping: CMTimeMapping {
        CMTimeMapping(source: source ?? CMTimeRange(start: .invalid, duration: target.duration), target: target)
    }
}
