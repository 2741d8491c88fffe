import CFFmpeg
import FFmpegLoader
import Foundation
import MediaCore

/// An `AVPacket` Splice owns: one compressed frame and its timing, freed on `deinit`.
public final class Packet: @unchecked Sendable {   // confined: used by one thread at a time (its owner's)
    let pointer: UnsafeMutablePointer<AVPacket>

    public init() {
        guard let p = av_packet_alloc() else { fatalError("out of memory allocating an AVPacket") }
        pointer = p
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
    }

    func unref() { av_packet_unref(pointer) }

    public var streamIndex: Int { Int(widening: pointer.pointee.stream_index) }
    /// In the stream's time base; nil when the container does not say.
    public var presentationTime: Int64? { pointer.pointee.pts == splice_av_nopts_value() ? nil : pointer.pointee.pts }
    public var decodeTime: Int64? { pointer.pointee.dts == splice_av_nopts_value() ? nil : pointer.pointee.dts }
    /// 0 when unknown.
    public var duration: Int64 { max(0, pointer.pointee.duration) }
    public var isKeyFrame: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    /// The demuxer found the packet damaged.
    public var isCorrupt: Bool { pointer.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 }
    /// The packet is to be decoded but not shown (Matroska/WebM).
    public var isDiscardable: Bool { pointer.pointee.flags & AV_PKT_FLAG_DISCARD != 0 }
    public var size: Int { Int(widening: pointer.pointee.size) }
    /// Audio samples the decoder drops from the start and the end of this packet (Matroska's
    /// codec delay and DiscardPadding), when the demuxer says.
    public var skippedSamples: (start: Int, end: Int)? {
        var size = 0
        guard let d = av_packet_get_side_data(pointer, AV_PKT_DATA_SKIP_SAMPLES, &size), size >= 8 else { return nil }
        func le32(_ i: Int) -> Int { Int(widening: UInt32(widening: d[i]) | UInt32(widening: d[i + 1]) << 8 | UInt32(widening: d[i + 2]) << 16 | UInt32(widening: d[i + 3]) << 24) }
        return (le32(0), le32(4))
    }
    /// A WebVTT cue as WebM blocks hold it: its identifier, a line feed, its settings, a line
    /// feed, its payload (libavformat hands the first two over as side data).
    public var webVTTCue: Data {
        func side(_ type: AVPacketSideDataType) -> Data {
            var size = 0
            guard let d = av_packet_get_side_data(pointer, type, &size), size > 0 else { return Data() }
            return Data(bytes: d, count: size)
        }
        return side(AV_PKT_DATA_WEBVTT_IDENTIFIER) + Data([0x0A]) + side(AV_PKT_DATA_WEBVTT_SETTINGS) + Data([0x0A]) + data
    }

    /// The HDR10+ message (ITU-T T.35) of a Matroska block addition, if the packet has one.
    /// libavformat hands block additions over as side data: the BlockAddID (8 bytes, big-endian),
    /// then the BlockAdditional.
    public var hdr10PlusBlockAddition: [UInt8]? {
        var size = 0
        guard let d = av_packet_get_side_data(pointer, AV_PKT_DATA_MATROSKA_BLOCKADDITIONAL, &size), size > 8 else { return nil }
        let t35 = Array(UnsafeBufferPointer(start: d + 8, count: size - 8))
        return HDR10Plus.isHDR10Plus(t35) ? t35 : nil
    }

    /// The packet's bytes without a copy: the `Data` holds a reference to the packet's buffer
    /// (released with the `Data`), so the demuxer's read is the only copy on the way to a
    /// muxer. A packet without a reference-counted buffer is copied.
    public var payload: Data {
        guard let d = pointer.pointee.data, pointer.pointee.size > 0 else { return Data() }
        guard let buffer = pointer.pointee.buf, let reference = av_buffer_ref(buffer) else { return data }
        let handle = BufferReference(reference)
        return Data(bytesNoCopy: d, count: Int(widening: pointer.pointee.size), deallocator: .custom { _, _ in handle.release() })
    }

    /// A copy of the packet's bytes.
    public var data: Data {
        guard let d = pointer.pointee.data, pointer.pointee.size > 0 else { return Data() }
        return Data(bytes: d, count: Int(widening: pointer.pointee.size))
    }
}

/// One reference to an `AVBuffer`, given up once by `release()`.
final class BufferReference: @unchecked Sendable {   // released once, by the `Data` that holds it
    private var reference: UnsafeMutablePointer<AVBufferRef>?

    init(_ reference: UnsafeMutablePointer<AVBufferRef>) { self.reference = reference }

    func release() { av_buffer_unref(&reference) }
}

/// A reference-counted packet buffer (`AVBuffer`, with FFmpeg's zeroed padding) to read a
/// sample into: handed to a muxer by reference, so that libavformat keeps it without a copy.
public final class PacketBuffer: @unchecked Sendable {   // filled by one thread, then handed over
    let reference: UnsafeMutablePointer<AVBufferRef>
    /// The sample's bytes (the padding after them is not included).
    public let bytes: UnsafeMutableRawBufferPointer

    /// A buffer of `count` bytes.
    /// - Throws: `.unsupported` past libavcodec's largest packet; `.io` when out of memory.
    public init(count: Int) throws {
        let padding = Int(widening: AV_INPUT_BUFFER_PADDING_SIZE)
        guard count >= 0, count <= Int(widening: Int32.max) - padding else {
            throw MediaError(.unsupported, "a sample of \(count) bytes is more than libavformat takes")
        }
        guard let reference = av_buffer_alloc(count + padding), let data = reference.pointee.data else {
            throw MediaError(.io, "out of memory for a sample of \(count) bytes")
        }
        (data + count).initialize(repeating: 0, count: padding)
        self.reference = reference
        bytes = UnsafeMutableRawBufferPointer(start: data, count: count)
    }

    deinit {
        var r: UnsafeMutablePointer<AVBufferRef>? = reference
        av_buffer_unref(&r)
    }
}
