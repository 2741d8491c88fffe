import Foundation
import MediaCore
import FFmpegBridge

/// One reader's libavformat input: a demuxer shared by the reader's outputs (each stream queued
/// until its output asks), and what was wrong with the input but read anyway.
final class DemuxSession: ReadSession, Sendable {
    /// (It locks itself.)
    private let demuxer: PacketDemuxer
    private let cursors = Mutex<[(trackID: Int, cursor: DemuxedSampleCursor)]>([])

    /// - Parameter input: the file, opened and probed.
    /// - Parameter seconds: where to start reading (see `PacketDemuxer`).
    init(input: InputFormatContext, streams: Set<Int>, from seconds: Double? = nil) {
        demuxer = PacketDemuxer(input: input, streams: streams, from: seconds)
    }

    func makeCursor(for track: AssetTrack, span: MediaSpan, copiesSampleData: Bool) throws -> any SampleCursor {
        guard let backing = track.backing as? StreamBacking else {
            throw MediaError(.invalidOperation, "track \(track.trackID) is not a stream of this file")
        }
        var timeline = PacketTimeline(stream: backing.stream.index, timeBase: backing.stream.timeBase,
                                      conversion: backing.conversion, format: track.formatDescriptions[0])
        timeline.initialPadding = backing.stream.codec.initialPadding
        timeline.reordersFrames = backing.stream.codec.reorderDelay > 0
        let cursor = DemuxedSampleCursor(timeline: timeline, demuxer: demuxer)
        cursors.withLock { $0.append((track.trackID, cursor)) }
        return cursor
    }

    /// Packets left out, damaged packets copied as read, and what FFmpeg said while reading
    /// (repeated messages once, with a count; at most 20 in all).
    func warnings() -> [String] {
        var warnings: [String] = []
        for (trackID, cursor) in cursors.withLock({ $0 }) {
            let (n, largest) = cursor.repairs
            warnings += DemuxSession.timingWarnings(trackID: trackID, dropped: cursor.droppedPackets, repaired: n, largestRepair: largest)
        }
        let hdr10Plus = demuxer.hdr10PlusBlockAdditions
        for (trackID, cursor) in cursors.withLock({ $0 }) {
            guard let (moved, dropped) = hdr10Plus[cursor.stream] else { continue }
            if moved > 0 {
                warnings.append("track \(trackID): HDR10+ of \(moved) frame\(moved == 1 ? "" : "s") moved from Matroska block additions into the HEVC stream "
                                + "(prefix SEI, where players and MP4 carry it)")
            }
            if dropped > 0 {
                warnings.append("track \(trackID): HDR10+ of \(dropped) frame\(dropped == 1 ? "" : "s") in Matroska block additions was dropped: only HEVC carries it here")
            }
        }
        let damaged = demuxer.corruptPacketCount
        if damaged > 0 { warnings.append("\(damaged) damaged packet\(damaged == 1 ? " was" : "s were") copied as read") }
        return warnings + FFmpegLog.summary(demuxer.takeMessages())
    }
}

extension ReadSession {
    /// What reading changed of a track's times: packets left out because their decode time went
    /// back, and packets put in order, the largest moved by `largestRepair` seconds.
    static func timingWarnings(trackID: Int, dropped: Int, repaired: Int, largestRepair: Double) -> [String] {
        var warnings: [String] = []
        if dropped > 0 {
            warnings.append("track \(trackID): \(dropped) packet\(dropped == 1 ? "" : "s") whose decode time went back \(dropped == 1 ? "was" : "were") left out")
        }
        if repaired > 0 {
            let by = largestRepair < 0.001 ? "less than 1 ms" : "at most \(Int((largestRepair * 1000).rounded())) ms"
            warnings.append("track \(trackID): \(repaired) packet\(repaired == 1 ? " had its" : "s had their") times out of order (a repeated decode time, "
                            + "or presentation before decode); they were put in order, moved by \(by)")
        }
        return warnings
    }
}

/// One stream's samples from a shared demuxer.
final class DemuxedSampleCursor: SampleCursor, Sendable {
    private let timeline: Mutex<PacketTimeline>
    let stream: Int
    private let demuxer: PacketDemuxer

    init(timeline: sending PacketTimeline, demuxer: PacketDemuxer) {
        stream = timeline.stream
        self.timeline = Mutex(timeline)
        self.demuxer = demuxer
    }

    /// Packets left out because their decode time went back.
    var droppedPackets: Int { timeline.withLock { $0.droppedPackets } }
    /// Packets whose times were put in order, and the largest change in seconds.
    var repairs: (count: Int, largest: Double) { timeline.withLock { ($0.repairedPackets, $0.largestRepair) } }

    func next() throws -> SampleBuffer? {
        try timeline.withLock { try $0.next(from: demuxer) }
    }

    func close() { demuxer.close(stream: stream) }
}
