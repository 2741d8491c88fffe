import MediaCore
import ISOBMFF

/// Where decoding must start for a picture to come out whole. An H.264 sync sample is not
/// always an IDR: x264's periodic intra refresh, and broadcast streams, mark recovery points
/// (ITU-T H.264 D.2.8) as key frames — pictures from which the picture `recovery_frame_cnt`
/// reference frames later, and every one shown after it, decode right. A decoder started there
/// drops the pictures before (libavcodec does), so a read that starts at such a sync sample
/// loses the frames up to its recovery.
extension AssetTrack {
    /// The most sync samples walked back from `time` before decoding from the track's start.
    private static let recoveryWalkLimit = 64

    /// The time to read a track's samples from for the pictures shown from `time` on to decode:
    /// `time` (the reader goes back to the sync sample before it), or for H.264 whose sync
    /// sample before it recovers only after it, the sync sample that recovers in time (the
    /// track's start when none does).
    func decodingStart(showing time: MediaTime) throws -> MediaTime {
        guard mediaType == .video, codecName == "h264", time.isNumeric, time > timeRange.start else { return time }
        guard let (start, walked) = try recoveryWalk(atOrBefore: time) else { return timeRange.start }
        return walked ? start : time
    }

    /// The presentation time of the latest sync sample shown at or before `time` from which the
    /// pictures shown from `time` on decode (`time` when that sample is shown later, as
    /// `syncSampleTime(atOrBefore:)` says); nil when there is none. For H.264 that is an IDR, a
    /// recovery point with a count of 0, or one whose recovery picture is shown by `time`.
    func recoveredSyncSampleTime(atOrBefore time: MediaTime) throws -> MediaTime? {
        try recoveryWalk(atOrBefore: time)?.time
    }

    /// The recovered sync sample's time, and whether it is before the sync sample before `time`.
    private func recoveryWalk(atOrBefore time: MediaTime) throws -> (time: MediaTime, walked: Bool)? {
        let h264 = mediaType == .video && codecName == "h264"
        let config = h264 ? nalConfiguration : nil
        var at = time
        for step in 0..<Self.recoveryWalkLimit {
            let cursor = try CompositionSource.cursor(self, TimeRange(start: at, duration: .positiveInfinity), copies: false)
            defer { cursor.close() }
            guard let sync = try cursor.next(), sync.isSync else { return nil }
            guard h264, try !Self.recovers(sync, cursor, config, by: time) else {
                return (min(sync.presentationTimeStamp, at), step > 0)
            }
            guard sync.presentationTimeStamp > timeRange.start else { return nil }
            // Before the sync sample and the pictures decoded after it but shown before it.
            let before = min(sync.presentationTimeStamp, sync.decodeTimeStamp, at - SmartVideoSource.frameDuration(of: self))
            at = before - MediaTime(value: 1, timescale: before.timescale)
        }
        return nil
    }

    /// Whether decoding from `sync` (the cursor after it) shows every picture from `time` on.
    private static func recovers(_ sync: SampleBuffer, _ cursor: any SampleCursor, _ config: NALConfiguration?, by time: MediaTime) throws -> Bool {
        let units = try Self.units(of: sync, config)
        guard !units.contains(where: { $0.first.map { $0 & 0x1F == 5 } ?? false }),
              let count = units.lazy.compactMap(Self.recoveryFrameCount).first, count > 0 else { return true }
        // The recovery picture: the first after `count` reference pictures (frame_num counts them).
        var references = Self.isReference(units) ? 1 : 0
        while references < count, let p = try cursor.next(), p.decodeTimeStamp <= time {
            if Self.isReference(try Self.units(of: p, config)) { references += 1 }
        }
        guard references >= count, let recovery = try cursor.next() else { return false }
        return recovery.presentationTimeStamp <= time
    }

    private static func units(of sample: SampleBuffer, _ config: NALConfiguration?) throws -> [ArraySlice<UInt8>] {
        let bytes = [UInt8](try sample.loadData())
        return config?.units(of: bytes) ?? AnnexB.nalUnits(bytes)
    }

    /// Whether an access unit's picture is a reference picture (its slices' `nal_ref_idc`).
    private static func isReference(_ units: [ArraySlice<UInt8>]) -> Bool {
        units.first { $0.first.map { (1...5).contains($0 & 0x1F) } ?? false }.map { ($0.first! >> 5) & 3 != 0 } ?? false
    }

    /// The `recovery_frame_cnt` of a recovery point SEI message in an SEI NAL unit, or nil.
    static func recoveryFrameCount(_ unit: ArraySlice<UInt8>) -> Int? {
        guard let header = unit.first, header & 0x1F == 6 else { return nil }
        var r = BitReader(rbsp: unit.dropFirst())
        while true {
            var type = 0, size = 0
            while let b = r.bits(8) { type += b; if b != 0xFF { break } }
            while let b = r.bits(8) { size += b; if b != 0xFF { break } }
            guard size > 0 || type != 0 else { return nil }
            if type == 6 { return r.ue() }
            for _ in 0..<size { guard r.bits(8) != nil else { return nil } }
        }
    }
}
