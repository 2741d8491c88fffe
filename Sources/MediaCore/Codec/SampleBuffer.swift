import Foundation

/// One media sample — a video frame, a packet of audio, a subtitle cue — with
/// its timing and how it depends on other samples.
public struct SampleBuffer: Sendable {
    /// How a sample depends on others (the `sdtp` byte of ISO-BMFF, split up).
    public struct Dependency: Sendable, Hashable {
        /// `sdtp` value, 2 bits each: is_leading, sample_depends_on, sample_is_depended_on, sample_has_redundancy.
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public var isLeading: UInt8 { (rawValue >> 6) & 3 }
        /// 1 = depends on others (not an I-picture), 2 = does not depend on others.
        public var dependsOnOthers: UInt8 { (rawValue >> 4) & 3 }
        /// 1 = others depend on it, 2 = disposable.
        public var isDependedOn: UInt8 { (rawValue >> 2) & 3 }
        public var hasRedundancy: UInt8 { rawValue & 3 }
    }

    /// Where a sample's bytes are: in memory, or in a region of a file (not read until needed).
    public enum Storage: Sendable {
        case bytes(Data)
        case file(FileRange)
    }

    /// A region of a file holding a sample's bytes.
    public struct FileRange: Sendable {
        public let file: ReadOnlyFile
        public let offset: UInt64
        public let length: Int
        public init(file: ReadOnlyFile, offset: UInt64, length: Int) {
            self.file = file
            self.offset = offset
            self.length = length
        }
    }

    public var storage: Storage

    /// The sample's bytes. For a file-backed sample each access reads the file (an I/O error
    /// gives empty data; `loadData()` reports it). Setting it makes the sample in-memory.
    public var data: Data {
        get { (try? loadData()) ?? Data() }
        set { storage = .bytes(newValue) }
    }

    /// The sample's bytes, reading them from the file for a file-backed sample.
    public func loadData() throws -> Data {
        switch storage {
        case .bytes(let d): return d
        case .file(let r): return try r.file.readData(at: r.offset, count: r.length)
        }
    }

    /// The number of bytes, without reading them.
    public var dataLength: Int {
        switch storage {
        case .bytes(let d): d.count
        case .file(let r): r.length
        }
    }

    public var decodeTime: MediaTime
    public var presentationTime: MediaTime
    public var duration: MediaTime
    /// A sync sample (key frame): decoding can start here.
    public var isSync: Bool
    /// The `sdtp` flags when the source has them.
    public var dependency: Dependency?
    public var formatDescription: FormatDescription
    /// Media at the start and the end of the sample that is decoded but not presented (audio
    /// encoder delay and padding: Matroska's DiscardPadding, an MP4 edit list's trimmed end).
    public var trimDurationAtStart = MediaTime.zero
    public var trimDurationAtEnd = MediaTime.zero

    /// Makes a sample whose bytes stay in a file until they are needed.
    public init(fileRange: FileRange, decodeTime: MediaTime, presentationTime: MediaTime, duration: MediaTime,
                isSync: Bool, dependency: Dependency? = nil, formatDescription: FormatDescription) {
        self.init(data: Data(), decodeTime: decodeTime, presentationTime: presentationTime, duration: duration,
                  isSync: isSync, dependency: dependency, formatDescription: formatDescription)
        self.storage = .file(fileRange)
    }

    public init(data: Data, decodeTime: MediaTime, presentationTime: MediaTime, duration: MediaTime,
                isSync: Bool, dependency: Dependency? = nil, formatDescription: FormatDescription) {
        self.storage = .bytes(data)
        self.decodeTime = decodeTime
        self.presentationTime = presentationTime
        self.duration = duration
        self.isSync = isSync
        self.dependency = dependency
        self.formatDescription = formatDescription
    }
}
