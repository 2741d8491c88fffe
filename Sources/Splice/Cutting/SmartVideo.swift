import Foundation
import MediaCore
import ISOBMFF

/// The video of a smart cut: for each span, the frames from its start to the first copied sync
/// sample and from the end of the copied run to its end are decoded and re-encoded (with the
/// source's codec, profile, level, size, pixel format and colour); the packets between are copied.
/// Every stored frame is shown, so the track needs one edit (the B-frames' delay).
///
/// Decode times are made afresh: the i-th packet in decode order is decoded at the i-th
/// presentation time less the largest reorder delay of any piece (`delay`), so composition
/// offsets are never negative (`ctts` version 0) and clips whose delays differ share one edit.
final class SmartVideoSource: SampleBufferSource, Sendable {
    /// What is written for one span, in decode order.
    enum Piece {
        /// Frames of `span.track` shown over `range` (source time), decoded and encoded; no track: black.
        case encode(TimeRange, CutSpan)
        /// These packets of the span's layout, as they are.
        case copy([SampleBuffer], CutSpan)
        /// The pictures `transitions` draws over this range (output time), encoded.
        case compose(TimeRange)
    }

    /// A concat's crossfades: pictures drawn from an asset's tracks by a video composition,
    /// over these ranges of the output.
    struct Transitions: Sendable {
        let asset: Asset
        let tracks: [AssetTrack]
        let composition: VideoComposition
        let ranges: [TimeRange]
    }
    let transitions: Transitions?

    /// How one span is cut: the packets read for it, and which are copied.
    struct Layout {
        var head: TimeRange?
        var copied: [SampleBuffer] = []
        var tail: TimeRange?

        /// The presented times of the copied run: from its sync sample to where the tail starts.
        var copiedRange: TimeRange?
        /// The longest time two frame steps take among the frames re-encoded (on the output's
        /// timeline, in the encoder's timescale): what an encoder's two-frame reorder delay needs.
        var twoSteps: MediaTime = .zero
    }

    let format: FormatDescription
    /// H.264/HEVC: the parameter sets' framing; nil for other codecs.
    let sets: InBandParameterSets?
    /// What re-encoded frames are encoded with; nil when nothing is (a keyframe cut).
    let settings: VideoEncodingSettings?
    let delay: MediaTime
    let frameDuration: MediaTime
    private let pieces: [Piece]
    private let failure: @Sendable (MediaError) -> Void

    /// The next piece, the re-encoded piece being made, the samples made not handed out yet,
    /// and what was encoded and copied so far.
    private struct Progress {
        var next = 0
        var encoding: Encoding?
        var ready: [SampleBuffer] = []
        /// Frames encoded and packets copied so far.
        var counts = (encoded: 0, copied: 0)
        /// Frames encoded so far of each piece (by its index).
        var encodedByPiece: [Int: Int] = [:]
    }

    private let progress = Mutex(Progress())

    /// Frames encoded and packets copied so far.
    var counts: (encoded: Int, copied: Int) { progress.withLock { $0.counts } }

    /// What was re-encoded and copied, for the cut's summary: "15 frames re-encoded (10 at the
    /// start, 5 at the end), 30 copied" for a cut of one clip; the totals for joins.
    var summary: String {
        progress.withLock { p in
            let (counts, encodedByPiece) = (p.counts, p.encodedByPiece)
            var where_ = ""
            if counts.encoded > 0, counts.copied > 0, let copy = pieces.firstIndex(where: { if case .copy = $0 { true } else { false } }),
               pieces.filter({ if case .copy = $0 { true } else { false } }).count == 1 {
                let start = encodedByPiece.filter { $0.key < copy }.values.reduce(0, +)
                let end = encodedByPiece.filter { $0.key > copy }.values.reduce(0, +)
                where_ = " (\(start) at the start, \(end) at the end)"
            }
            return "\(counted(counts.encoded, "frame")) re-encoded\(where_), \(counts.copied) copied"
        }
    }

    /// - Parameter inBand: one description for the track, every sync sample carrying its
    ///   parameter sets (`avc3`/`hev1`; in Matroska the first's record as codec private data).
    ///   Otherwise (MPEG-TS) each packet keeps the description it was coded with, and the muxer's
    ///   start-code filter for that description puts its parameter sets before each random
    ///   access point (HEVC's puts them after any in the packet, which they would override).
    /// - Parameter failure: called once with what stopped the source (it then ends).
    /// - Parameter transitions: ranges of the output between spans drawn by a video composition.
    init(spans: [CutSpan], reencodes: Bool, inBand: Bool = true, transitions: Transitions? = nil, failure: @escaping @Sendable (MediaError) -> Void) throws {
        guard let first = spans.first(where: { $0.track != nil })?.track, let source = first.formatDescriptions.first else {
            throw MediaError(.invalidOperation, "a smart cut of video without any")
        }
        sets = first.nalConfiguration.flatMap { InBandParameterSets(codec: first.codecName, stream: $0) }
        if ["h264", "hevc"].contains(first.codecName), sets == nil {
            throw MediaError(.unsupported, "smart cut copies H.264 and HEVC with their configuration record")
        }
        codec = first.codecName
        self.failure = failure
        self.transitions = transitions
        // (a keyframe cut encodes only black frames, for spans without video)
        settings = reencodes || transitions != nil || spans.contains { $0.track == nil } ? try SmartVideoSource.encodingSettings(for: first) : nil
        frameDuration = SmartVideoSource.frameDuration(of: first)
        var pieces: [Piece] = []
        var delay = MediaTime.zero, twoSteps = MediaTime.zero
        var between = (transitions?.ranges ?? []).sorted { $0.start < $1.start }[...]
        // (a stretch without picture shorter than a frame — a clip whose sound outlasts its
        // picture by a few milliseconds — is no black picture: the last one stays on screen)
        // (a smart cut shows whole frames: each span moved onto its track's frames)
        let spans = reencodes ? try spans.map { try $0.onFrames() } : spans
        for span in spans where !span.target.isEmpty && (span.track != nil || span.target.duration >= frameDuration) {
            while let t = between.first, t.start < span.target.start {
                pieces.append(.compose(t))
                between = between.dropFirst()
            }
            let layout = try SmartVideoSource.layout(of: span)
            twoSteps = max(twoSteps, layout.twoSteps)
            if !reencodes, span.track != nil, layout.head != nil || layout.tail != nil {
                throw MediaError(.invalidOperation, "a keyframe cut of \(span.track?.asset?.url.lastPathComponent ?? "a clip") falls between sync samples")
            }
            if let head = layout.head { pieces.append(.encode(head, span)) }
            if !layout.copied.isEmpty {
                pieces.append(.copy(layout.copied, span))
                delay = max(delay, SmartVideoSource.reorderDelay(layout.copied.map(\.presentationTimeStamp)))
            }
            if let tail = layout.tail { pieces.append(.encode(tail, span)) }
        }
        pieces += between.map { .compose($0) }
        let encodes = pieces.contains { if case .copy = $0 { false } else { true } }
        // x264 and x265 with B-frames and pyramids delay by two frames (libvpx and SVT-AV1
        // hand out frames in order: hidden ones travel inside the packet of a shown one).
        // (two frames of a source timed in milliseconds may take 67 ms at 30 fps, not 2 × 33)
        if encodes, sets != nil { delay = max(delay, frameDuration + frameDuration, twoSteps) }
        self.pieces = pieces
        self.delay = delay
        // Parameter sets go in-band only where they change: frames re-encoded, or clips of
        // different descriptions. A cut of whole GOPs of one file keeps its entry and bytes.
        let entries = Set(spans.compactMap { $0.track?.formatDescriptions.first?.sampleEntry })
        carriesParameterSets = sets != nil && inBand && (entries.count > 1 || encodes)
        keepsDescriptions = !inBand
        format = carriesParameterSets ? InBandParameterSets.inBandEntry(source) ?? source : source
    }

    /// The codec copied and encoded (`h264`, `hevc`, `vp9`, `av1`; any other is only copied).
    let codec: String

    /// How long a frame of `track` lasts: its shortest sample's duration, else one over its
    /// nominal rate (a 30th of a second when it has none).
    static func frameDuration(of track: AssetTrack) -> MediaTime {
        if track.minFrameDuration.isNumeric, track.minFrameDuration > .zero { return track.minFrameDuration }
        let rate = Double(track.nominalFrameRate)
        return rate > 0 ? MediaTime(seconds: 1 / rate, preferredTimescale: track.naturalTimeScale) : MediaTime(value: 1, timescale: 30)
    }

    /// Whether every sync sample carries its parameter sets (`avc3`/`hev1`).
    let carriesParameterSets: Bool
    /// Whether each packet keeps the description it was coded with (outputs without sample entries).
    let keepsDescriptions: Bool

    /// How far behind the presentation order decoding runs at most: the largest amount by which
    /// the i-th presentation time (sorted) exceeds the i-th packet's.
    static func reorderDelay(_ times: [MediaTime]) -> MediaTime {
        zip(times.sorted(), times).map { $0 - $1 }.max().map { max($0, .zero) } ?? .zero
    }

    /// The longest time two steps take among `times` (one step when there are two).
    static func twoSteps(_ times: [MediaTime]) -> MediaTime {
        let t = times.sorted()
        guard t.count > 2 else { return t.count == 2 ? t[1] - t[0] : .zero }
        return zip(t, t.dropFirst(2)).map { $1 - $0 }.max() ?? .zero
    }

    /// The cut of one span: the packets from the sync sample at or before its start; the first
    /// sync sample shown at or after the start begins the copied run (its leading pictures,
    /// which refer to what comes before it, left out); the run ends at the last point, in decode
    /// order, where what it presents is one stretch before the span's end. What the run does not
    /// show is re-encoded: the head before it, the tail after it, or the whole span.
    static func layout(of span: CutSpan) throws -> Layout {
        guard let track = span.track else { return Layout(head: span.source) }
        let packets = try track.packets(over: span.source)
        var layout = try copyRun(of: span, packets, config: track.nalConfiguration, codec: track.codecName)
        // (at the times the encoder is given them: the output's, in the track's timescale)
        let encoded = packets.map(\.presentationTimeStamp).filter { t in !(layout.copiedRange?.contains(t) ?? false) }
        let onOutput = { (ts: [MediaTime]) in ts.map { span.targetTime($0).convertScale(track.naturalTimeScale) } }
        let k1 = layout.copiedRange?.start ?? span.source.end
        layout.twoSteps = max(twoSteps(onOutput(encoded.filter { $0 < k1 })), twoSteps(onOutput(encoded.filter { $0 >= k1 })))
        return layout
    }

    private static func copyRun(of span: CutSpan, _ packets: [SampleBuffer], config: NALConfiguration?, codec: String) throws -> Layout {
        let sets = config.flatMap { InBandParameterSets(codec: codec, stream: $0) }
        let (s, e) = (span.source.start, span.source.end)
        let starts = { (p: SampleBuffer) throws -> Bool in
            guard let sets, let config else { return true }
            return sets.canStartCopy([UInt8](try p.loadData()), framedWith: config)
        }
        guard let d1 = try packets.indices.first(where: { i in
            let p = packets[i]
            guard p.isSync, p.presentationTimeStamp >= s, p.presentationTimeStamp < e else { return false }
            return try starts(p)
        }) else { return Layout(head: span.source) }
        let k1 = packets[d1].presentationTimeStamp
        var c0 = d1 + 1
        while c0 < packets.count, packets[c0].presentationTimeStamp < k1 { c0 += 1 }
        // The earliest presentation from each packet on (the span's end past the last).
        var later = Array(repeating: e, count: packets.count + 1)
        for i in stride(from: packets.count - 1, through: c0, by: -1) { later[i] = min(later[i + 1], packets[i].presentationTimeStamp) }
        var end: Int? = k1 < later[c0] ? c0 : nil
        var shown = k1
        for i in c0..<packets.count {
            let t = packets[i].presentationTimeStamp
            if t < k1 { break }
            shown = max(shown, t)
            if shown < later[i + 1] { end = i + 1 }
        }
        guard let dt = end else { return Layout(head: span.source) }
        let copied = [packets[d1]] + packets[c0..<dt]
        let stop = later[dt]
        return Layout(head: k1 > s ? TimeRange(start: s, end: k1) : nil, copied: copied, tail: stop < e ? TimeRange(start: stop, end: e) : nil,
                      copiedRange: TimeRange(start: k1, end: stop))
    }

    /// Where a keyframe cut of `range` shows `track`: the range's cut moved to sync samples
    /// (`TrackCut.atSyncSamples`), ending with the copied run that reaches the sync sample at or
    /// after its end (earlier with open GOPs: the leading pictures of that sample are not shown).
    static func keyframeRange(of track: AssetTrack, _ range: TimeRange) throws -> TimeRange {
        let moved = try TrackCut(track: track, range: range).atSyncSamples(of: track).shown
        let layout = try layout(of: CutSpan(track: track, source: moved, target: moved))
        return layout.copiedRange.map { TimeRange(start: moved.start, end: $0.end) } ?? moved
    }

    func copyNextSampleBuffer() -> SampleBuffer? {
        let (sample, error): (SampleBuffer?, MediaError?) = progress.withLock { p in
            while p.ready.isEmpty, p.next < pieces.count {
                do { try make(&p) } catch {
                    p.next = pieces.count
                    p.encoding = nil
                    return (nil, error as? MediaError ?? MediaError(.io, "\(error)"))
                }
            }
            return (p.ready.popLast(), nil)
        }
        if let error { failure(error) }
        return sample
    }

    /// Makes the next samples of piece `p.next`: all of a copied one, the next few of a
    /// re-encoded one (they stream: a clip without a sync sample may be long).
    private func make(_ p: inout Progress) throws {
        let next = p.next
        if case .copy(let packets, _) = pieces[next] {
            p.ready = try copied(next).reversed()
            p.counts.copied += packets.count
            p.next += 1
            return
        }
        let encoding = try p.encoding ?? Encoding(pieces[next], source: self)
        p.encoding = encoding
        let (made, done) = try encoding.step(self)
        p.ready = try framed(made, piece: next, first: encoding.handedOut == made.count).reversed()
        p.counts.encoded += made.count
        p.encodedByPiece[next, default: 0] += made.count
        if done {
            p.encoding = nil
            // The encoder's pictures go back to the system: the next piece's encoder
            // may run on another thread, whose allocator would not reuse them.
            SystemMemory.releaseFreeMemory()
            p.next += 1
        }
    }

    /// A packet of a codec without parameter sets, in the track's one description (or its
    /// own, into files that keep each): AV1 sync samples with their own sequence header.
    private func framedWhole(_ packet: SampleBuffer) throws -> SampleBuffer {
        var s = packet
        if codec == "av1", s.isSync {
            guard let header = AV1Framing.sequenceHeader(in: s.formatDescription.parameters.extradata) else {
                throw MediaError(.invalidData, "an AV1 description has no sequence header")
            }
            let bytes = [UInt8](try s.loadData())
            let framed = try AV1Framing.withSequenceHeader(bytes, header)
            if framed.count != bytes.count {
                s = SampleBuffer(data: Data(framed), decodeTimeStamp: s.decodeTimeStamp, presentationTimeStamp: s.presentationTimeStamp,
                                 duration: s.duration, isSync: true, dependency: s.dependency, formatDescription: s.formatDescription)
            }
        }
        if !keepsDescriptions { s.formatDescription = format }
        return s
    }

    /// The packets of copy piece `i`, retimed and framed.
    private func copied(_ i: Int) throws -> [SampleBuffer] {
        guard case .copy(let packets, let span) = pieces[i] else { return [] }
        let config = span.track?.nalConfiguration
        if sets != nil, config == nil { throw MediaError(.invalidData, "a clip's H.264/HEVC configuration record cannot be read") }
        let sorted = packets.map(\.presentationTimeStamp).sorted()
        let made = zip(packets, sorted).map { p, t in
            var q = p
            q.presentationTimeStamp = span.targetTime(p.presentationTimeStamp)
            q.decodeTimeStamp = span.targetTime(t) - delay
            return (q, config, true)
        }
        return try framed(made, piece: i, first: true)
    }

    /// Packets of piece `i` with their decode times, framed for the output: parameter sets in
    /// sync samples; a copied run's first picture (after other pictures) breaking the link.
    private func framed(_ made: [(SampleBuffer, NALConfiguration?, Bool)], piece i: Int, first: Bool) throws -> [SampleBuffer] {
        try made.enumerated().map { k, m in
            var (s, nal, copied) = m
            guard s.decodeTimeStamp <= s.presentationTimeStamp else {
                throw MediaError(.invalidData, "the frame shown at \(s.presentationTimeStamp.millisecondsText) ms of the output would be decoded "
                                 + "\((s.decodeTimeStamp - s.presentationTimeStamp).millisecondsText) ms later", file: clipPath(of: pieces[i]))
            }
            guard let sets, let config = nal else { return try framedWhole(s) }
            let breaks = copied && first && k == 0 && i > 0
            if keepsDescriptions {
                // (only a CRA after other pictures changes: it becomes a BLA, in its own framing)
                guard breaks, sets.codec == "hevc", let own = InBandParameterSets(codec: sets.codec, stream: config) else { return s }
                let bytes = try own.framed([UInt8](try s.loadData()), of: config, sync: false, breaksLink: true)
                return SampleBuffer(data: Data(bytes), decodeTimeStamp: s.decodeTimeStamp, presentationTimeStamp: s.presentationTimeStamp,
                                    duration: s.duration, isSync: s.isSync, dependency: s.dependency, formatDescription: s.formatDescription)
            }
            let sync = s.isSync && carriesParameterSets
            if !copied || sets.changes(sync: sync, breaksLink: breaks, config: config) {
                let bytes = try sets.framed([UInt8](try s.loadData()), of: config, sync: sync, breaksLink: breaks)
                s = SampleBuffer(data: Data(bytes), decodeTimeStamp: s.decodeTimeStamp, presentationTimeStamp: s.presentationTimeStamp,
                                 duration: s.duration, isSync: s.isSync, dependency: copied ? s.dependency : nil, formatDescription: format)
            } else {
                s.formatDescription = format
            }
            return s
        }
    }

    /// The file a piece is made from (nil for black pictures and transitions).
    private func clipPath(of piece: Piece) -> String? {
        switch piece {
        case .encode(_, let span), .copy(_, let span): span.track?.owningAsset.url.path
        case .compose: nil
        }
    }

    /// A black picture of the output's size and pixel format (video range).
    func blackFrame() throws -> PixelBuffer {
        guard let size = format.dimensions else { throw MediaError(.invalidData, "the video has no picture size") }
        return PixelBuffer.black(settings?.pixelFormat ?? .yuv420p, width: size.width, height: size.height)
    }
}

extension MediaTime {
    /// Milliseconds, as an error says them: `6033.3`, `0.3`, `40`.
    var millisecondsText: String {
        let ms = (seconds * 10_000).rounded() / 10
        return ms == ms.rounded() ? String(format: "%.0f", ms) : String(format: "%.1f", ms)
    }
}
