import MediaCore

/// Decoded output of a track whose edit list shows media more than once or out of order (several
/// media edits, empty edits between them): each edit decoded on its own — its timeline cursor
/// from the sync sample before its media, a decoder of its own, frames cut to the edit's span
/// of the timeline — one after the other. Decode times of one read could not go back where an
/// edit starts between sync samples after another; an empty edit hands out nothing.
final class EditsDecodingCursor: DecodedSampleCursor {
    /// Each edit's span of the timeline (within the range read), in timeline order.
    private var spans: [TimeRange]
    private let make: (TimeRange) throws -> any DecodedSampleCursor
    private var current: (any DecodedSampleCursor)?
    private var damagedBefore = 0
    private var messages: [String] = []

    /// - Parameter make: the decoded cursor of one edit's span of the timeline.
    init(spans: [TimeRange], make: @escaping (TimeRange) throws -> any DecodedSampleCursor) {
        self.spans = spans
        self.make = make
    }

    /// The spans of the timeline that `track`'s media edits show within `range`, when there is
    /// more than one (nil: one cursor reads the track, as for any other).
    static func spans(of track: AssetTrack, in range: TimeRange) -> [TimeRange]? {
        let spans = track.segments.filter { !$0.isEmpty && $0.rate != 0 }.compactMap { segment -> TimeRange? in
            let shown = range == .everything ? segment.target : segment.target.intersection(range)
            return shown.duration > .zero ? shown : nil
        }
        return spans.count > 1 && track.segments.allSatisfy({ $0.rate == 0 || $0.rate == 1 || $0.isEmpty }) ? spans : nil
    }

    var damagedPackets: Int { damagedBefore + (current?.damagedPackets ?? 0) }
    var timelineOrigin: MediaTime? { nil }

    func takeDecoderMessages() -> [String] {
        defer { messages = [] }
        return messages + (current?.takeDecoderMessages() ?? [])
    }

    func next() throws -> SampleBuffer? {
        while true {
            if let c = current {
                if let sample = try c.next() { return sample }
                finish(c)
            }
            guard !spans.isEmpty else { return nil }
            current = try make(spans.removeFirst())
        }
    }

    private func finish(_ c: any DecodedSampleCursor) {
        damagedBefore += c.damagedPackets
        messages += c.takeDecoderMessages()
        c.close()
        current = nil
    }

    func close() {
        current?.close()
        current = nil
        spans = []
    }
}
