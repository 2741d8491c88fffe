import Foundation

/// One media sample — a video frame, a packet of audio, a subtitle cue — with
/// its timing and how it depends on other samples.
public struct SampleBuffer: Sendable {
    /// How a sample depends on others (the `sdtp` byte of ISO-BMFF, split up).
    public struct Dependency: Sendable, Hashable {
        /// `sdtp` value, 2 bits each: is_leading, sample_depends_on, sample_is_depended_on, sample_has_redundancy.
        public var rawValue: UInt8
        /// Flags from an `sdtp` byte.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// 1 = a leading sample that depends on samples before the sync sample, 3 = a leading sample that does not, 2 = not a leading sample, 0 = unknown.
        public var isLeading: UInt8 { (rawValue >> 6) & 3 }
        /// 1 = depends on others (not an I-picture), 2 = does not depend on others.
        public var dependsOnOthers: UInt8 { (rawValue >> 4) & 3 }
        /// 1 = others depend on it, 2 = disposable.
        public var isDependedOn: UInt8 { (rawValue >> 2) & 3 }
        /// 1 = the sample has redundant coding, 2 = it has none, 0 = unknown.
        public var hasRedundancy: UInt8 { rawValue & 3 }
    }

    /// Where a sample's bytes are: in memory, or in a region of a file (not read until needed).
    public enum Storage: Sendable {
        /// Compressed bytes in memory.
        case bytes(Data)
        /// Compressed bytes left in a file.
        case file(FileRange)
        /// Decoded audio (boxed: compressed samples, the common case, stay small to copy).
        indirect case pcm(PCMBuffer)
        /// A decoded picture (boxed, likewise).
        indirect case pixels(PixelBuffer)
    }

    /// A region of a file holding a sample's bytes.
    public struct FileRange: Sendable {
        /// The file.
        public let file: ReadOnlyFile
        /// The byte offset of the sample in the file.
        public let offset: UInt64
        /// The sample's length in bytes.
        public let length: Int
        /// The `length` bytes of `file` from `offset`.
        public init(file: ReadOnlyFile, offset: UInt64, length: Int) {
            self.file = file
            self.offset = offset
            self.length = length
        }
    }

    /// Where the sample's bytes, or its decoded audio or picture, are.
    public var storage: Storage

    /// The sample's bytes (`loadData()`). For a file-backed sample each access reads the file.
    /// - Throws: the file's read error.
    public var data: Data {
        get throws { try loadData() }
    }

    /// The sample's bytes, reading them from the file for a file-backed sample.
    public func loadData() throws -> Data {
        switch storage {
        case .bytes(let d): return d
        case .file(let r): return try r.file.readData(at: r.offset, count: r.length)
        case .pcm(let b): return Data(b.bytes)
        case .pixels(let p): return Data(p.packedBytes)
        }
    }

    /// The decoded audio, when the sample holds some (AVFoundation's audio buffer list).
    public var pcmBuffer: PCMBuffer? {
        if case .pcm(let b) = storage { return b }
        return nil
    }

    /// The decoded picture, when the sample holds one (AVFoundation's image buffer).
    public var imageBuffer: PixelBuffer? {
        if case .pixels(let p) = storage { return p }
        return nil
    }

    /// Whether the sample holds decoded media rather than compressed bytes.
    public var isDecoded: Bool { pcmBuffer != nil || imageBuffer != nil }

    /// Makes a sample of decoded audio: `pcm.frameCount` frames from `presentationTimeStamp`.
    public init(pcm: PCMBuffer, presentationTimeStamp: MediaTime, formatDescription: FormatDescription) {
        let duration = MediaTime(value: Int64(widening: pcm.frameCount), timescale: Int32(clamping: max(1, pcm.format.sampleRate)))
        self.init(data: Data(), decodeTimeStamp: presentationTimeStamp, presentationTimeStamp: presentationTimeStamp,
                  duration: duration, isSync: true, formatDescription: formatDescription)
        storage = .pcm(pcm)
    }

    /// Makes a sample of one decoded picture, shown at `presentationTimeStamp` for `duration`.
    public init(pixels: PixelBuffer, presentationTimeStamp: MediaTime, duration: MediaTime, formatDescription: FormatDescription) {
        self.init(data: Data(), decodeTimeStamp: presentationTimeStamp, presentationTimeStamp: presentationTimeStamp,
                  duration: duration, isSync: true, formatDescription: formatDescription)
        storage = .pixels(pixels)
    }

    /// The number of bytes, without reading them.
    public var totalSampleSize: Int {
        switch storage {
        case .bytes(let d): d.count
        case .file(let r): r.length
        case .pcm(let b): b.frameCount * b.format.bytesPerFrame
        case .pixels(let p): (0..<p.pixelFormat.planeCount).reduce(0) {
            let size = p.pixelFormat.planeSize($1, width: p.width, height: p.height)
            return $0 + size.rowBytes * size.rows
        }
        }
    }

    /// When the sample is decoded.
    public var decodeTimeStamp: MediaTime
    /// When the sample is shown (after reordering).
    public var presentationTimeStamp: MediaTime
    /// How long the sample is shown or heard.
    public var duration: MediaTime
    /// A sync sample (key frame): decoding can start here.
    public var isSync: Bool
    /// The `sdtp` flags when the source has them.
    public var dependency: Dependency?
    /// The codec and its configuration that the sample's bytes are in.
    public var formatDescription: FormatDescription
    /// Media at the start of the sample that is decoded but not presented (audio encoder delay:
    /// an MP4 edit list's trimmed start, Opus pre-skip).
    public var trimDurationAtStart = MediaTime.zero
    /// Media at the end of the sample that is decoded but not presented (an MP4 edit list's trimmed end, Matroska's DiscardPadding).
    public var trimDurationAtEnd = MediaTime.zero

    /// Makes a sample whose bytes stay in a file until they are needed.
    public init(fileRange: FileRange, decodeTimeStamp: MediaTime, presentationTimeStamp: MediaTime, duration: MediaTime,
                isSync: Bool, dependency: Dependency? = nil, formatDescription: FormatDescription) {
        self.init(storage: .file(fileRange), decodeTimeStamp: decodeTimeStamp, presentationTimeStamp: presentationTimeStamp,
                  duration: duration, isSync: isSync, dependency: dependency, formatDescription: formatDescription)
    }

    /// Makes a sample of compressed bytes held in memory.
    public init(data: Data, decodeTimeStamp: MediaTime, presentationTimeStamp: MediaTime, duration: MediaTime,
                isSync: Bool, dependency: Dependency? = nil, formatDescription: FormatDescription) {
        self.init(storage: .bytes(data), decodeTimeStamp: decodeTimeStamp, presentationTimeStamp: presentationTimeStamp,
                  duration: duration, isSync: isSync, dependency: dependency, formatDescription: formatDescription)
    }

    /// Makes a sample whose bytes, or decoded media, are `storage`.
    public init(storage: Storage, decodeTimeStamp: MediaTime, presentationTimeStamp: MediaTime, duration: MediaTime,
                isSync: Bool, dependency: Dependency? = nil, formatDescription: FormatDescription) {
        self.storage = storage
        self.decodeTimeStamp = decodeTimeStamp
        self.presentationTimeStamp = presentationTimeStamp
        self.duration = duration
        self.isSync = isSync
        self.dependency = dependency
        self.formatDescription = formatDescription
    }
}
