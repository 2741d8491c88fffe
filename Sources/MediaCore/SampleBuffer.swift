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

    public var data: Data
    public var decodeTime: MediaTime
    public var presentationTime: MediaTime
    public var duration: MediaTime
    /// A sync sample (key frame): decoding can start here.
    public var isSync: Bool
    /// The `sdtp` flags when the source has them.
    public var dependency: Dependency?
    public var formatDescription: FormatDescription

    public init(data: Data, decodeTime: MediaTime, presentationTime: MediaTime, duration: MediaTime,
                isSync: Bool, dependency: Dependency? = nil, formatDescription: FormatDescription) {
        self.data = data
        self.decodeTime = decodeTime
        self.presentationTime = presentationTime
        self.duration = duration
        self.isSync = isSync
        self.dependency = dependency
        self.formatDescription = formatDescription
    }
}
