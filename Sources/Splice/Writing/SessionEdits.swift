import MediaCore
import ISOBMFF

/// The edit list a writer session implies for a track that sets no `segments`: none for a
/// session from 0 whose samples start at 0; otherwise the media from the session start (after
/// an empty edit when the first frame is shown later) to the session end or the last
/// presentation end.
struct SessionEdits {
    let state: InputState
    let session: WriterSession
    /// Where the input's cut stops showing (`TrackCut.shown`), when it has one.
    let shownEnd: MediaTime?
    let mediaScale: Int32
    let movieScale: Int32
    let mediaDuration: UInt64

    var editList: EditList? {
        let first = state.firstDecodeTime ?? 0
        let sessionStart = session.start.convertScale(mediaScale).value
        // Media time of the session start, in the stored (zero-based) timeline.
        let mediaStart = sessionStart - first
        // The samples are presented until the latest presentation end (after reordering, less
        // any trimmed end); an edit ends there when that is not the media's end.
        let presented = state.presentationEnd.map { $0 - first } ?? Int64(clamping: mediaDuration)
        // An edit starting between frames (a source whose first frame is shown after the session
        // starts) starts at the first frame after an empty edit instead, as readers expect.
        var shownStart = mediaStart
        if mediaStart > 0, let earliest = state.earliestPresentation { shownStart = max(mediaStart, earliest - first) }
        let empty = mediaStart < 0 ? -mediaStart : shownStart - mediaStart
        let mediaTime = max(0, shownStart)
        var length = presented - mediaTime
        for end in [session.end, shownEnd] {
            if let end, end.isNumeric { length = min(length, end.convertScale(mediaScale).value - sessionStart - empty) }
        }
        if empty == 0 && mediaTime == 0 && length >= Int64(clamping: mediaDuration) { return nil }
        var entries: [EditListEntry] = []
        if empty > 0 {
            // Samples are shown only after the session starts: an empty edit until they are.
            entries.append(EditListEntry(segmentDuration: UInt64(clamping: movieTime(empty)), mediaTime: -1))
        }
        entries.append(EditListEntry(segmentDuration: UInt64(clamping: movieTime(max(0, length))), mediaTime: mediaTime))
        return EditList(entries: entries)
    }

    private func movieTime(_ mediaValue: Int64) -> Int64 {
        MediaTime(value: mediaValue, timescale: mediaScale).convertScale(movieScale).value
    }
}
