import Foundation
import MediaCore

/// One libavformat input shared by a reader's track outputs: packets are read in file order
/// and queued per stream until the output of that stream asks for them.
public final class PacketDemuxer: @unchecked Sendable {   // state under `lock`
    /// One packet as read, in the stream's time base.
    public struct Entry: Sendable {
        public var data: Data
        public var presentationTime: Int64?
        public var decodeTime: Int64?
        public var duration: Int64
        public var isKeyFrame: Bool
        public var skippedAtEnd: Int
    }

    private let input: InputFormatContext
    private let packet = Packet()
    private let lock = NSLock()
    /// A first-in first-out queue: removing from the front is O(1) (amortised).
    struct Queue {
        private var items: [Entry] = []
        private var head = 0
        var isEmpty: Bool { head == items.count }
        var bytes: Int { items[head...].reduce(0) { $0 + $1.data.count } }
        mutating func append(_ e: Entry) { items.append(e) }
        mutating func removeFirst() -> Entry {
            let e = items[head]
            items[head].data = Data()
            head += 1
            if head >= 1024 && head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            return e
        }
    }

    private var queues: [Int: Queue] = [:]
    /// WebVTT streams, whose packets are handed out as WebM blocks hold cues (`Packet.webVTTCue`).
    private let webVTTStreams: Set<Int>
    /// HEVC streams (their NAL length sizes), into which HDR10+ block additions are moved as SEI.
    private let hevcLengthSizes: [Int: Int]
    /// Per stream: HDR10+ block additions moved into the stream, and those dropped (no HEVC to hold them).
    private var hdr10Plus: [Int: (moved: Int, dropped: Int)] = [:]
    private var queuedBytes = 0
    private var ended = false
    private var failure: MediaError?
    /// Packets the demuxer marked damaged, per stream.
    private(set) var corruptPackets: [Int: Int] = [:]
    /// Most bytes held for streams whose outputs lag behind the others.
    static let maximumQueuedBytes = 512 << 20

    /// Opens `path` for reading `streams` (stream indexes); the others are discarded by the demuxer.
    /// - Parameter seconds: where reading starts: a key frame at or before it (on the file's own
    ///   timestamps), when the demuxer can seek; nil reads from the start.
    public convenience init(path: String, streams: Set<Int>, from seconds: Double? = nil) throws {
        let input: InputFormatContext
        do { input = try InputFormatContext(path: path) } catch { throw error.mediaError }
        self.init(input: input, streams: streams, from: seconds)
    }

    /// Reads `streams` of `input`, opened and probed already (the asset's own input: one probe
    /// per file), from where it stands or from `seconds`.
    public init(input: InputFormatContext, streams: Set<Int>, from seconds: Double? = nil) {
        self.input = input
        // What probing said was already said when the asset was loaded: keep what reading says.
        _ = input.log.take()
        input.discardStreams(except: streams)
        if let seconds { Self.seek(input, toKeyFrameBefore: seconds, video: input.streams.first { streams.contains($0.index) && $0.mediaType == .video }?.index) }
        for s in streams { queues[s] = Queue() }
        webVTTStreams = Set(input.streams.filter { streams.contains($0.index) && $0.codec.codecName == "webvtt" }.map(\.index))
        var lengths: [Int: Int] = [:]
        for s in input.streams where streams.contains(s.index) && s.codec.codecName == "hevc" {
            let e = s.codec.extradata   // hvcC: lengthSizeMinusOne in byte 21's low bits
            if e.count >= 23, e[0] == 1 { lengths[s.index] = Int(widening: e[21] & 3) + 1 }
        }
        hevcLengthSizes = lengths
    }

    /// Per stream, the HDR10+ messages of Matroska block additions moved into the HEVC stream
    /// as prefix SEI (at the start of their frames), and those dropped (other codecs).
    public var hdr10PlusBlockAdditions: [Int: (moved: Int, dropped: Int)] { lock.withLock { hdr10Plus } }

    /// Seeks to `seconds`, or earlier until the first packet of `video` from there is a key
    /// frame. Demuxers that seek by timestamp search (MPEG-TS, MPEG-PS) land on any packet, whose
    /// pictures would not decode up to the next key frame; each retry goes back twice as far,
    /// and after eight the file is read from its start.
    private static func seek(_ input: InputFormatContext, toKeyFrameBefore seconds: Double, video: Int?) {
        guard let video else {
            input.seek(toSeconds: seconds)
            return
        }
        let packet = Packet()
        var (target, back) = (seconds, 2.0)
        for _ in 0..<8 {
            // (a demuxer that cannot seek reads on from where it stands)
            guard input.seek(toSeconds: target) else { return }
            var first: Bool?
            for _ in 0..<100_000 {
                guard (try? input.read(into: packet)) == true else { break }
                if packet.streamIndex == video { first = packet.isKeyFrame; break }
            }
            if first != false {
                input.seek(toSeconds: target)
                return
            }
            (target, back) = (seconds - back, back * 2)
        }
        input.rewind()
    }

    /// The next packet of `stream`, or nil at the end of the input.
    /// - Throws: the input's read error, or `.unsupported` when the streams are interleaved so far
    ///   apart that more than 512 MB would have to be held.
    public func next(stream: Int) throws -> Entry? {
        try lock.withLock { () throws -> Entry? in
            while queues[stream]?.isEmpty ?? true {
                if let failure { throw failure }
                if ended { return nil }
                do throws(FFmpegError) {
                    guard try input.read(into: packet) else { ended = true; continue }
                } catch {
                    failure = error.mediaError
                    continue
                }
                let index = packet.streamIndex
                guard queues[index] != nil else { continue }
                if packet.isCorrupt { corruptPackets[index, default: 0] += 1 }
                var data = webVTTStreams.contains(index) ? packet.webVTTCue : packet.payload
                if let t35 = packet.hdr10PlusBlockAddition {
                    if let n = hevcLengthSizes[index], let sei = HDR10Plus.hevcSEI(t35, lengthSize: n) {
                        data = Data(sei) + data
                        hdr10Plus[index, default: (0, 0)].moved += 1
                    } else {
                        hdr10Plus[index, default: (0, 0)].dropped += 1
                    }
                }
                queues[index]!.append(Entry(data: data, presentationTime: packet.presentationTime, decodeTime: packet.decodeTime,
                                            duration: packet.duration, isKeyFrame: packet.isKeyFrame,
                                            skippedAtEnd: packet.skippedSamples?.end ?? 0))
                queuedBytes += data.count
                if queuedBytes > PacketDemuxer.maximumQueuedBytes {
                    failure = MediaError(.unsupported, "tracks are interleaved too far apart: more than 512 MB of one track lies before the next packet of another")
                }
            }
            let entry = queues[stream]!.removeFirst()
            queuedBytes -= entry.data.count
            return entry
        }
    }

    /// Drops the queue of a stream whose output stopped.
    public func close(stream: Int) {
        lock.withLock {
            queuedBytes -= queues[stream]?.bytes ?? 0
            queues[stream] = nil
        }
    }

    /// Packets the demuxer marked damaged, in all streams.
    public var corruptPacketCount: Int { lock.withLock { corruptPackets.values.reduce(0, +) } }

    /// What libav said while reading, since the last call (this input's only).
    public func takeMessages() -> [String] { input.log.take() }
}

