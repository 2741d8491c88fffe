import MediaCore

/// Where lossless cuts can fall: a track's sync samples.
extension AssetTrack {
    /// Where a lossless cut can start: the presentation time (on the asset's timeline) of the
    /// sync sample shown at or before `time`; nil when there is none.
    public func syncSampleTime(atOrBefore time: MediaTime) throws -> MediaTime? {
        let cursor = try CompositionSource.cursor(self, TimeRange(start: time, duration: .positiveInfinity), copies: false)
        defer { cursor.close() }
        guard let first = try cursor.next(), first.isSync else { return nil }
        return min(first.presentationTimeStamp, time)
    }

    /// Where a lossless cut can end (and the next start): the presentation time of the first sync
    /// sample shown at or after `time`; nil when none follows (the track's end).
    public func syncSampleTime(atOrAfter time: MediaTime) throws -> MediaTime? {
        let cursor = try CompositionSource.cursor(self, TimeRange(start: time, duration: .positiveInfinity), copies: false)
        defer { cursor.close() }
        while let s = try cursor.next() {
            if s.isSync, s.presentationTimeStamp >= time { return s.presentationTimeStamp }
        }
        return nil
    }
}
