import Foundation
import MediaCore

/// Turns a stream's packets into sample buffers: decode times filled in where the container
/// gives only presentation times, durations from the next decode time, bytes converted to the
/// form of the format description's sample entry.
public struct PacketTimeline: Sendable {
    public let stream: Int
    let timeBase: (num: Int32, den: Int32)
    let conversion: PacketConversion
    let format: FormatDescription
    private var pending: [PacketDemuxer.Entry] = []
    private var ended = false
    /// The order rules, and the previous sample's decode time and duration.
    private var order: TimestampOrder
    private var lastCompositionOffset: Int64 = 0

    /// Encoder delay in samples: a first timestamp that is this delay rounded to the time base
    /// (Matroska's milliseconds) is taken as exactly the delay.
    public var initialPadding = 0
    /// Video with B-frames: a stream without any timestamps cannot be put in order.
    public var reordersFrames = false
    private var first = true

    public init(stream: Int, timeBase: (num: Int32, den: Int32), conversion: PacketConversion, format: FormatDescription) {
        self.stream = stream
        self.timeBase = timeBase
        self.conversion = conversion
        self.format = format
        order = TimestampOrder(allowsRepeatedDecodeTimes: format.mediaType.isLegible)
    }

    /// Packets dropped because their decode time went back by a frame or more (damaged input).
    public var droppedPackets: Int { order.dropped }
    /// Packets whose times were put in order: a decode time repeated or a little behind the
    /// previous one, or a presentation time before the decode time (real HLS segments have both).
    public var repairedPackets: Int { order.repaired }
    /// The largest change made to a repaired packet's times, in seconds.
    public var largestRepair: Double { Double(order.largestRepair) * Double(timeBase.num) / Double(max(1, timeBase.den)) }

    /// The next sample of the stream, or nil at its end.
    public mutating func next(from demuxer: PacketDemuxer) throws -> SampleBuffer? {
        while true {
            guard let sample = try nextInOrder(from: demuxer) else { return nil }
            if let s = sample { return s }
        }
    }

    /// The next sample, `.some(nil)` for a packet whose decode time goes back (dropped), or nil at the end.
    private mutating func nextInOrder(from demuxer: PacketDemuxer) throws -> SampleBuffer?? {
        // A sample is complete when its decode time is known and so is the next one's (or the stream ended).
        while !ended && (pending.count < 2 || pending[0].decodeTime == nil || pending[1].decodeTime == nil) {
            if let e = try demuxer.next(stream: stream) {
                pending.append(e)
                if e.decodeTime != nil { fillDecodeTimes() }
                // A stream that never says its decode times takes its presentation times.
                if pending.count > 256 && pending[0].decodeTime == nil { try finishDecodeTimes() }
            } else {
                ended = true
                try finishDecodeTimes()
            }
        }
        guard !pending.isEmpty else { return nil }
        let e = pending.removeFirst()
        guard let (dts, pts) = inOrder(e) else { return .some(nil) }
        var duration = e.duration
        // Subtitle packets last as long as they say; other samples last until the next one.
        if format.mediaType.isLegible && duration > 0 {
        } else if let next = pending.first?.decodeTime, next > dts {
            duration = next.subtractingSaturating(dts)
        }
        // A subtitle without a duration lasts until the next one (Matroska's rule for a block
        // without BlockDuration); the last one keeps none rather than the one before it's.
        let isLastCue = format.mediaType.isLegible && pending.isEmpty
        if duration == 0 && !isLastCue { duration = order.lastDuration }
        order.lastDuration = duration
        lastCompositionOffset = pts.subtractingSaturating(dts)
        let data = conversion == .none ? e.data : Data(conversion.apply([UInt8](e.data)))
        var decodeTime = try time(dts), presentationTime = try time(pts), sampleDuration = try time(duration)
        if first, initialPadding > 0, dts == pts, let rate = format.sampleRate, rate >= 1, rate <= Double(Int32.max) {
            let delay = MediaTime(value: -Int64(widening: initialPadding), timescale: Int32(rate))   // lint: checked (1 ≤ rate ≤ Int32.max)
            let tick = MediaTime(value: Int64(widening: timeBase.num), timescale: timeBase.den)
            let gap = decodeTime - delay
            if decodeTime < .zero, gap <= tick, MediaTime.zero - gap <= tick {
                sampleDuration = sampleDuration + gap
                decodeTime = delay
                presentationTime = delay
            }
        }
        first = false
        var sample = SampleBuffer(data: data, decodeTimeStamp: decodeTime, presentationTimeStamp: presentationTime,
                                  duration: sampleDuration, isSync: e.isKeyFrame || format.mediaType != .video,
                                  formatDescription: format)
        if e.skippedAtEnd > 0, let rate = format.sampleRate, rate >= 1, rate <= Double(Int32.max) {
            sample.trimDurationAtEnd = MediaTime(value: Int64(widening: e.skippedAtEnd), timescale: Int32(rate))   // lint: checked (1 ≤ rate ≤ Int32.max)
        }
        return sample
    }

    /// The packet's decode and presentation times, put in order (`TimestampOrder`, `ffmpeg`'s
    /// rules when it writes); nil for a packet whose decode time goes back by a frame or more
    /// (dropped). Subtitle cues may start together (overlapping cues): theirs may repeat.
    private mutating func inOrder(_ e: PacketDemuxer.Entry) -> (dts: Int64, pts: Int64)? {
        let dts = e.decodeTime!
        // A packet without a presentation time (MPEG-PS writes one per PES packet, not per frame)
        // keeps the previous packet's distance between the two.
        let pts = e.presentationTime ?? dts.addingSaturating(lastCompositionOffset)
        return order.place(decodeTime: dts, presentationTime: pts, statedPresentationTime: e.presentationTime != nil)
            .map { ($0.decodeTime, $0.presentationTime) }
    }

    /// Packets before the first with a decode time get times counted back from it, one
    /// packet duration each (Matroska stores presentation times only).
    private mutating func fillDecodeTimes() {
        guard let k = pending.lastIndex(where: { $0.decodeTime != nil }) else { return }
        var t = pending[k].decodeTime!
        var step = max(1, pending[k].duration)
        for j in stride(from: k - 1, through: 0, by: -1) where pending[j].decodeTime == nil {
            if pending[j].duration > 0 { step = pending[j].duration }
            t = t.subtractingSaturating(step)
            pending[j].decodeTime = t
        }
    }

    /// At the end, packets still without a decode time take their presentation time (or
    /// follow the previous packet).
    private mutating func finishDecodeTimes() throws {
        if reordersFrames, order.lastDecodeTime == nil, !pending.isEmpty, pending.allSatisfy({ $0.decodeTime == nil && $0.presentationTime == nil }) {
            throw MediaError(.unsupported, "stream \(stream) has B-frames but no timestamps (a raw elementary stream): the order in which its frames are shown is unknown without decoding them")
        }
        var previous = order.lastDecodeTime.map { $0.addingSaturating(order.lastDuration) }
        for j in pending.indices {
            if pending[j].decodeTime == nil {
                pending[j].decodeTime = pending[j].presentationTime ?? previous ?? 0
            }
            previous = pending[j].decodeTime!.addingSaturating(pending[j].duration)
        }
    }

    private func time(_ value: Int64) throws -> MediaTime {
        let (v, overflow) = value.multipliedReportingOverflow(by: Int64(widening: timeBase.num))
        guard !overflow, timeBase.den > 0 else {
            throw MediaError(.invalidData, "timestamp \(value) does not fit", location: "stream \(stream)")
        }
        return MediaTime(value: v, timescale: timeBase.den)
    }
}
