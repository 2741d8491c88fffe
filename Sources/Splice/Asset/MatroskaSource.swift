import Foundation
import MediaCore
import ISOBMFF
import Matroska

/// A Matroska or WebM file read natively (`MatroskaFile`): its frames stay in the file, as an
/// MP4's samples do, so that a copy into MP4 moves them file to file without FFmpeg. Files with
/// anything it does not read — other codecs, subtitles, chapters, attachments, content
/// encodings — are read by libavformat (`FormatSource`) instead; `load` says which by throwing
/// `.unsupported`.
///
/// The tracks it makes are those `FormatSource` makes of the same file: track IDs in `Tracks`
/// order, times in the segment's ticks, frames laced in a block timed as libavformat times them,
/// and decode times of reordered video as libavformat derives them (the presentation times in
/// order, a reorder delay behind).
final class MatroskaSource: AssetSource, Sendable {
    private let file: ReadOnlyFile
    let movieMetadata: [MetadataItem]
    var containerChapters: [Asset.Chapter]? { [] }
    var structure: SourceStructure { .container }

    private init(file: ReadOnlyFile, metadata: [MetadataItem]) {
        self.file = file
        movieMetadata = metadata
    }

    /// Codecs read natively, by Matroska codec ID: FFmpeg's names. Their frames are the very
    /// bytes an MP4 sample holds, and their sample entries are libavformat's. (Not MP3: its
    /// `esds` states the bit rate, which libavformat reads from the frames.)
    static let codecs: [String: String] = ["V_MPEG4/ISO/AVC": "h264", "V_MPEGH/ISO/HEVC": "hevc", "V_AV1": "av1", "V_VP9": "vp9",
                                           "A_AAC": "aac", "A_AC3": "ac3", "A_EAC3": "eac3"]

    /// Reads the structure of the Matroska file `file`.
    /// - Throws: `.unsupported` when the file holds what only libavformat reads; the reader's
    ///   errors for a damaged file.
    static func load(_ file: ReadOnlyFile) throws -> LoadedAsset {
        let mkv = try MatroskaFile(file: file)
        // A tick is TimestampScale ns: num/den seconds in lowest terms (mkvmerge gives sound-only
        // files a tick of one sample, 22,674 ns at 44.1 kHz), as libavformat's time base.
        let g = gcd(mkv.timestampScale, 1_000_000_000)
        let timescale = Int32(truncatingIfNeeded: 1_000_000_000 / g)   // lint: checked (≤ 10⁹)
        guard let tick = Int64(exactly: mkv.timestampScale / g) else {
            throw MediaError(.unsupported, "a timestamp scale of \(mkv.timestampScale) ns")
        }
        var stated: MediaTime?
        if let d = mkv.duration, d.isFinite, d > 0, d * Double(mkv.timestampScale) / 1e9 < 1e9 {
            stated = MediaTime(seconds: d * Double(mkv.timestampScale) / 1e9, preferredTimescale: 1_000_000)
        }
        let tracks = try mkv.tracks.enumerated().map { i, t in
            try makeTrack(t, id: i + 1, timescale: timescale, tick: tick, duration: stated, file: file)
        }
        let duration = stated ?? tracks.map(\.timeRange.end).max() ?? .zero
        let starts = tracks.compactMap { ($0.backing as? MatroskaTrackBacking)?.timeline.firstPresentation }
        let start = starts.min().map { MediaTime(value: $0, timescale: timescale) } ?? .zero
        return LoadedAsset(format: "matroska,webm", duration: duration, startTime: max(.zero, start), tracks: tracks,
                           source: MatroskaSource(file: file, metadata: MetadataItem.movieItems(tags: tags(of: mkv))))
    }

    /// The movie's tags under the keys libavformat gives them (`title`, `encoder`,
    /// `creation_time`, the global tags' names), lower-cased: the segment's information first,
    /// then each tag in file order over any of the same name, as libavformat's dictionary takes them.
    private static func tags(of mkv: MatroskaFile) -> [String: String] {
        var tags: [String: String] = [:]
        if let title = mkv.title { tags["title"] = title }
        if let app = mkv.muxingApp { tags["encoder"] = app }
        if let date = mkv.dateUTC {
            // DateUTC counts nanoseconds from 2001-01-01T00:00:00 UTC; libavformat writes microseconds.
            let micro = date / 1000 + 978_307_200_000_000
            var (seconds, fraction) = micro.quotientAndRemainder(dividingBy: 1_000_000)
            if fraction < 0 { (seconds, fraction) = (seconds - 1, fraction + 1_000_000) }
            var t = time_t(seconds)
            var parts = tm()
            gmtime_r(&t, &parts)
            tags["creation_time"] = String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                                           parts.tm_hour, parts.tm_min, parts.tm_sec, Int32(truncatingIfNeeded: fraction))   // lint: checked (0 ≤ fraction < 10⁶)
        }
        for t in mkv.tags { tags[t.name.lowercased()] = t.value }
        return tags
    }

    /// The track of `t`, lasting the segment's `duration` when it states one (as libavformat's
    /// streams do), else until its last frame ends; its times in units of 1/`timescale` s, `tick`
    /// of them a tick.
    private static func makeTrack(_ t: MatroskaTrack, id: Int, timescale: Int32, tick: Int64, duration stated: MediaTime?,
                                  file: ReadOnlyFile) throws -> AssetTrack {
        if let what = t.unsupported { throw MediaError(.unsupported, "track \(t.number): \(what)") }
        let mediaType: MediaType
        switch t.type {
        case 1: mediaType = .video
        case 2: mediaType = .audio
        default: throw MediaError(.unsupported, "track \(t.number) of type \(t.type)")
        }
        guard let codecName = codecs[t.codecID] else { throw MediaError(.unsupported, "track \(t.number): codec \(t.codecID)") }
        guard t.frames.count > 0 else { throw MediaError(.unsupported, "track \(t.number) has no frames") }
        let timeline = try MatroskaTimeline(frames: t.frames, reorders: mediaType == .video, tick: tick)
        var p = try parameters(of: t, mediaType: mediaType, codecName: codecName)
        p.reorderDelay = timeline.reorderDelay
        let needsFirst = CodecRegistry.entry(named: codecName)?.firstPacket
        let first = needsFirst == .always || (needsFirst == .withoutExtradata && p.extradata.isEmpty)
            ? try file.read(at: t.frames.offsets[0], count: Int(widening: t.frames.sizes[0])) : nil
        let made = try CodecMapping.formatDescription(for: p, firstPacket: first)
        guard made.conversion == .none else { throw MediaError(.unsupported, "track \(t.number): frames that need converting") }
        let duration = stated ?? MediaTime(value: timeline.end, timescale: timescale)
        var props = AssetTrack.Properties(trackID: id, mediaType: mediaType, formatDescriptions: [made.format],
                                          timeRange: TimeRange(start: .zero, duration: duration), naturalTimeScale: timescale)
        props.languageCode = ISO639.terminology(FormatSource.primaryLanguage(t.language))
        props.name = t.name
        props.sampleCount = t.frames.count
        props.isEnabled = t.isEnabled
        props.isDefault = t.isDefault
        props.isForced = t.isForced
        if mediaType == .video { props.naturalSize = p.dimensions }
        if mediaType == .audio { props.preferredVolume = 1 }
        props.totalSampleDataLength = t.frames.sizes.reduce(0) { $0 + Int64(widening: $1) }
        props.commonMetadata = .common(title: props.name, language: props.languageCode)
        var accessibility: Set<MediaCharacteristic> = []
        if t.isHearingImpaired { accessibility.insert(.describesMusicAndSoundForAccessibility) }
        if t.isVisualImpaired { accessibility.insert(.describesVideoForAccessibility) }
        let backing = MatroskaTrackBacking(timeline: timeline, timescale: timescale, accessibility: accessibility,
                                           frameRate: frameRate(defaultDuration: t.defaultDuration, mediaType: mediaType),
                                           sampleRate: p.sampleRate)
        return AssetTrack(props, backing: backing)
    }

    /// The codec parameters libavformat gives a track of the same `TrackEntry`.
    private static func parameters(of t: MatroskaTrack, mediaType: MediaType, codecName: String) throws -> CodecParameters {
        var p = CodecParameters(mediaType: mediaType, codecName: codecName)
        p.extradata = t.codecPrivate
        if mediaType == .video {
            guard let w = Int(exactly: t.pixelWidth), let h = Int(exactly: t.pixelHeight), w <= 65535, h <= 65535 else {
                throw MediaError(.unsupported, "track \(t.number): a picture of \(t.pixelWidth)x\(t.pixelHeight)")
            }
            (p.width, p.height) = (w, h)
            // DisplayWidth/Height (in pixels, centimetres, inches or as a ratio) give the pixel
            // shape, as libavformat derives it.
            if t.displayUnit < 4, let dw = t.displayWidth, let dh = t.displayHeight, dw > 0, dh > 0, dw <= 65535, dh <= 65535, w > 0, h > 0 {
                let (num, den) = (h * Int(widening: UInt32(truncatingIfNeeded: dw)), w * Int(widening: UInt32(truncatingIfNeeded: dh)))   // lint: checked (≤ 65535)
                let g = gcd(num, den)
                p.sampleAspectRatio = (num / g, den / g)
            }
            p.matrixCoefficients = Int(clamping: t.matrixCoefficients)
            p.transferCharacteristics = Int(clamping: t.transferCharacteristics)
            p.colorPrimaries = Int(clamping: t.primaries)
            p.isFullRange = t.range == 2 ? true : t.range == 1 ? false : nil
        } else {
            guard t.samplingFrequency.isFinite, t.samplingFrequency >= 1, t.samplingFrequency <= 1_000_000,
                  t.channels >= 1, t.channels <= 64 else {
                throw MediaError(.unsupported, "track \(t.number): \(t.channels) channels at \(t.samplingFrequency) Hz")
            }
            p.sampleRate = t.samplingFrequency.rounded(saturating: Int.self) ?? 0
            p.channelCount = Int(clamping: t.channels)
        }
        return p
    }

    private static func gcd<T: BinaryInteger>(_ a: T, _ b: T) -> T { b == 0 ? max(a, 1) : gcd(b, a % b) }

    /// Frames per second from `DefaultDuration`: over 1 or 1001 when that is exact to a
    /// hundredth of a frame (25, 30000/1001), else over 1000.
    private static func frameRate(defaultDuration: UInt64?, mediaType: MediaType) -> (num: Int32, den: Int32)? {
        guard mediaType == .video, let d = defaultDuration, d > 0 else { return nil }
        let fps = 1e9 / Double(d)
        for den in [1.0, 1001.0] where abs(fps * den - (fps * den).rounded()) < den / 100 {
            if let num = (fps * den).rounded(saturating: Int32.self), num > 0 { return (num, Int32(den)) }   // lint: checked (1 or 1001)
        }
        return (fps * 1000).rounded(saturating: Int32.self).flatMap { $0 > 0 ? ($0, 1000) : nil }
    }

    // MARK: Reading

    func makeSession(reading tracks: [AssetTrack], timeRange: TimeRange) throws -> any ReadSession {
        MatroskaReadSession(file: file, tracks: tracks)
    }
}

/// What one reader reads of a Matroska file: a cursor per track, and what was put in order.
final class MatroskaReadSession: ReadSession, Sendable {
    private let file: ReadOnlyFile
    private let tracks: [AssetTrack]

    init(file: ReadOnlyFile, tracks: [AssetTrack]) {
        self.file = file
        self.tracks = tracks
    }

    func makeCursor(for track: AssetTrack, span: MediaSpan, copiesSampleData: Bool) throws -> any SampleCursor {
        guard let backing = track.backing as? MatroskaTrackBacking else {
            throw MediaError(.invalidOperation, "track \(track.trackID) is not a track of this file")
        }
        return MatroskaSampleCursor(track: track, backing: backing, file: file, span: span, copiesSampleData: copiesSampleData)
    }

    /// Frames left out or put in order, said as libavformat's reading says them.
    func warnings() -> [String] {
        var warnings: [String] = []
        for track in tracks {
            guard let t = (track.backing as? MatroskaTrackBacking)?.timeline else { continue }
            let largest = Double(t.largestRepair) / Double(max(1, track.naturalTimeScale))
            warnings += Self.timingWarnings(trackID: track.trackID, dropped: t.droppedFrames, repaired: t.repairedFrames, largestRepair: largest)
        }
        return warnings
    }
}

/// A Matroska track read natively: its frames' timeline.
struct MatroskaTrackBacking: TrackBacking {
    let timeline: MatroskaTimeline
    let timescale: Int32
    let accessibility: Set<MediaCharacteristic>
    let frameRate: (num: Int32, den: Int32)?
    /// Audio: samples per second (DiscardPadding is counted in them).
    let sampleRate: Int

    var isoStructure: TrackPassthrough? { nil }
    var isoProblem: String? { nil }
    var isAttachment: Bool { false }
    var mediaDuration: MediaTime? { MediaTime(value: timeline.end - timeline.decodeTimes[0], timescale: timescale) }
}
