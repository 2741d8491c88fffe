/// Audio samples, decoded: a sample format, a channel layout, a rate and a number of frames
/// (one sample per channel), in one interleaved plane or one plane per channel.
public struct PCMBuffer: Sendable {
    /// How one sample is stored.
    public enum SampleFormat: String, Sendable, Hashable, CaseIterable {
        /// Signed 16-bit integers.
        case s16
        /// Signed 32-bit integers.
        case s32
        /// 32-bit floats in −1…1.
        case f32

        /// Bytes of one sample: 2 or 4.
        public var bytesPerSample: Int { self == .s16 ? 2 : 4 }
    }

    /// The format of a PCM stream: what `AudioOutputSettings` ask for and buffers carry.
    public struct Format: Sendable, Hashable, CustomStringConvertible {
        /// How each sample is stored.
        public var sampleFormat: SampleFormat
        /// Whether each channel has a plane of its own (else the channels are interleaved in one).
        public var isPlanar: Bool
        /// Frames per second.
        public var sampleRate: Int
        /// The number of channels.
        public var channelCount: Int
        /// FFmpeg's channel mask (`AV_CH_*` bits); 0 for the default layout of `channelCount`.
        public var channelLayoutMask: UInt64

        /// A format from its parts; `channelLayoutMask` 0 takes the default layout of `channelCount`.
        public init(sampleFormat: SampleFormat, isPlanar: Bool, sampleRate: Int, channelCount: Int, channelLayoutMask: UInt64 = 0) {
            self.sampleFormat = sampleFormat
            self.isPlanar = isPlanar
            self.sampleRate = sampleRate
            self.channelCount = channelCount
            self.channelLayoutMask = channelLayoutMask
        }

        /// The number of planes: one per channel when planar, else one.
        public var planeCount: Int { isPlanar ? channelCount : 1 }
        /// Bytes of one frame (a sample of every channel).
        public var bytesPerFrame: Int { sampleFormat.bytesPerSample * channelCount }

        public var description: String {
            "\(sampleFormat)\(isPlanar ? "p" : "") \(sampleRate) Hz \(channelCount) ch"
        }
    }

    /// The samples' format.
    public let format: Format
    /// The number of frames (one sample of each channel).
    public let frameCount: Int
    /// The memory the planes are in.
    public let storage: any DecodedStorage

    /// A buffer of `frameCount` frames of `format` in `storage`.
    public init(format: Format, frameCount: Int, storage: any DecodedStorage) {
        self.format = format
        self.frameCount = frameCount
        self.storage = storage
    }

    /// The bytes of plane `index` (one per channel when planar, else one).
    public func withPlane<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        precondition(index >= 0 && index < format.planeCount, "plane \(index) of \(format.planeCount)")
        let bytes = frameCount * format.sampleFormat.bytesPerSample * (format.isPlanar ? 1 : format.channelCount)
        return try body(UnsafeRawBufferPointer(start: storage.plane(index).base, count: bytes))
    }

    /// The samples as bytes, planes one after the other (what `-f s16le`/`-f f32le` and friends
    /// write for interleaved formats).
    public var bytes: [UInt8] {
        (0..<format.planeCount).flatMap { withPlane($0) { Array($0) } }
    }

    /// Channel `channel`'s samples as floats in −1…1, whatever the sample format.
    public func samples(ofChannel channel: Int) -> [Float] {
        precondition(channel >= 0 && channel < format.channelCount, "channel \(channel) of \(format.channelCount)")
        let plane = format.isPlanar ? channel : 0
        let step = format.isPlanar ? 1 : format.channelCount
        let first = format.isPlanar ? 0 : channel
        return withPlane(plane) { raw in
            (0..<frameCount).map { i in
                let k = first + i * step
                switch format.sampleFormat {
                case .s16: return Float(raw.loadUnaligned(fromByteOffset: k * 2, as: Int16.self)) / 32768
                case .s32: return Float(raw.loadUnaligned(fromByteOffset: k * 4, as: Int32.self)) / 2_147_483_648
                case .f32: return raw.loadUnaligned(fromByteOffset: k * 4, as: Float.self)
                }
            }
        }
    }
}
