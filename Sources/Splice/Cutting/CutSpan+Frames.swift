import MediaCore

/// A smart cut's spans on whole frames.
extension CutSpan {
    /// The span moved onto its track's frames, for a smart cut: it starts at the start of the
    /// frame nearest its start, lasts as long, and ends before a last frame it would show for
    /// less than half its time. No frame is then shown for a sliver — which players that count
    /// frames at the stream's rate (ffmpeg converting, encoders) drop or put on the time of the
    /// frame before — and the pictures of a source on a frame grid stay on it; the video moves
    /// against the sound by at most half a frame. A span without a track is as it is.
    func onFrames() throws -> CutSpan {
        guard let track, !source.isEmpty, source.start.isNumeric, source.end.isNumeric else { return self }
        let frame = SmartVideoSource.frameDuration(of: track)
        // The frames' times about `t`: those shown before it, and those from it on.
        func around(_ t: MediaTime) throws -> (before: MediaTime?, after: MediaTime?) {
            let times = try track.packets(over: TimeRange(start: t - frame - frame, end: t + frame + frame)).map(\.presentationTimeStamp)
            return (times.filter { $0 <= t }.max(), times.filter { $0 > t }.min())
        }
        var start = source.start
        let first = try around(source.start)
        if let p0 = first.before, let p1 = first.after, p1 - source.start < source.start - p0, p1 < source.end { start = p1 }
        else if let p0 = first.before { start = p0 }
        var end = source.end + (start - source.start)
        let last = try around(end)
        // (`before` here is the frame shown at the end; shown for less than half its time: left out)
        if let tL = last.before, tL < end, let tN = last.after, end - tL < tN - end, tL > start { end = tL }
        return CutSpan(track: track, source: TimeRange(start: start, end: end), target: TimeRange(start: target.start, duration: end - start))
    }
}
