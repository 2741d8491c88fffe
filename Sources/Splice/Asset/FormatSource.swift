import Foundation
import MediaCore
import ISOBMFF
import Subtitles
import FFmpegBridge

/// A file of any other container (MKV, WebM, MPEG-TS, AVI, …) read through libavformat: its
/// streams become tracks whose samples are in ISO form (see `DemuxSession`).
final class FormatSource: AssetSource, Sendable {
    let path: String
    /// libavformat's demuxer name.
    let format: String
    let containerChapters: [Asset.Chapter]?
    let movieMetadata: [MetadataItem]
    var structure: SourceStructure { .container }

    /// The input opened to describe the file, still at its start: the first reader (or count)
    /// takes it, so that a file is probed once, not once more per job.
    private let opened: Locked<InputFormatContext?>

    private init(path: String, format: String, chapters: [Asset.Chapter], metadata: [MetadataItem], opened: InputFormatContext?) {
        self.path = path
        self.format = format
        self.containerChapters = chapters
        self.movieMetadata = metadata
        self.opened = Locked(opened)
    }

    /// Opens `path` with libavformat and describes its streams.
    /// - Parameter format: the demuxer to read it with (`InputFormatContext.probe(path:)`'s
    ///   answer); when nil, libavformat probes the file.
    static func load(_ path: String, format: String? = nil) throws -> LoadedAsset {
        let input: InputFormatContext
        do { input = try InputFormatContext(path: path, format: format) } catch { throw error.mediaError }
        var streams = input.streams
        let first = firstPackets(of: input, for: streams.filter(needsFirstPacket).map(\.index))
        var consumed = !first.isEmpty
        if first.isEmpty, input.durationSeconds == nil, !streams.isEmpty, streams.allSatisfy({ $0.mediaType == .subtitle && $0.duration == nil }) {
            // A subtitle file (SRT, WebVTT, ASS): it lasts until its last cue ends.
            let ends = cueEnds(of: input)
            for i in streams.indices { streams[i].duration = ends[streams[i].index] }
            consumed = true
        }
        var start: MediaTime?
        var end = MediaTime.zero
        var tracks: [AssetTrack] = []
        for s in streams {
            if let t = s.startTime, s.timeBase.den > 0, s.mediaType != .data {
                let time = MediaTime(value: t, timescale: s.timeBase.den) * Int64(widening: s.timeBase.num)
                start = min(start ?? time, time)
            }
            var s = s
            // AVI's count is of index entries, dropped frames (zero-size entries) included; the
            // packets are counted when asked (see `Asset.countSamples`).
            if input.formatName == "avi" { s.frameCount = nil }
            let track = makeTrack(s, firstPacket: first[s.index], inputDuration: input.durationSeconds)
            end = max(end, track.timeRange.end)
            tracks.append(track)
        }
        let chapters = input.chapters.compactMap { c -> Asset.Chapter? in
            guard c.timeBase.den > 0, c.end >= c.start else { return nil }
            let start = MediaTime(value: c.start, timescale: c.timeBase.den) * Int64(widening: c.timeBase.num)
            let end = MediaTime(value: c.end, timescale: c.timeBase.den) * Int64(widening: c.timeBase.num)
            return Asset.Chapter(title: c.title, timeRange: TimeRange(start: start, duration: end - start))
        }
        let duration = input.durationSeconds.map { MediaTime(seconds: $0, preferredTimescale: 1_000_000) } ?? end
        // Negative timestamps are encoder delay (Opus and AAC priming in Matroska), to be skipped
        // on a timeline that starts at 0; positive ones (MPEG-TS) are where the timeline starts.
        return LoadedAsset(format: input.formatName, duration: duration, startTime: max(.zero, start ?? .zero),
                           tracks: tracks, source: FormatSource(path: path, format: input.formatName, chapters: chapters,
                                                              metadata: MetadataItem.movieItems(tags: input.formatTags),
                                                              opened: consumed ? nil : input))
    }

    private static func makeTrack(_ s: StreamInfo, firstPacket: [UInt8]?, inputDuration: Double?) -> AssetTrack {
        let duration: MediaTime
        if let d = s.duration, s.timeBase.den > 0 {
            duration = MediaTime(value: d, timescale: s.timeBase.den) * Int64(widening: s.timeBase.num)
        } else if let total = inputDuration {
            duration = MediaTime(seconds: total, preferredTimescale: 1_000_000)
        } else {
            duration = .zero
        }
        var format = FormatDescription(parameters: s.codec, codec: s.codec.codecTag)
        var backing = StreamBacking(stream: s)
        if SubtitlePacketFormat(codecName: s.codec.codecName) == nil {
            do {
                let made = try CodecMapping.formatDescription(for: s.codec, firstPacket: firstPacket)
                format.sampleEntry = made.format.sampleEntry
                format.codec = made.format.codec
                backing.conversion = made.conversion
            } catch {
                backing.isoProblem = (error as? MediaError)?.message ?? "\(error)"
            }
        }
        var p = AssetTrack.Properties(trackID: s.index + 1, mediaType: s.mediaType, formatDescriptions: [format],
                                      timeRange: TimeRange(start: .zero, duration: duration),
                                      naturalTimeScale: s.timeBase.den > 0 ? s.timeBase.den : 1_000_000)
        p.languageCode = s.metadata.language.map { ISO639.terminology(primaryLanguage($0)) } ?? "und"
        p.name = s.metadata.title
        p.sampleCount = s.frameCount
        p.isDefault = s.metadata.isDefault
        p.isForced = s.metadata.isForced
        if s.mediaType == .video { p.naturalSize = s.codec.dimensions }
        if s.mediaType == .audio { p.preferredVolume = 1 }
        if s.codec.bitRate > 0, duration.isNumeric { p.totalSampleDataLength = (Double(s.codec.bitRate) * duration.seconds / 8).rounded(saturating: Int64.self, .down) ?? 0 }
        p.commonMetadata = .common(title: p.name, language: p.languageCode)
        return AssetTrack(p, backing: backing)
    }

    /// The packets of each track's stream, counted in one pass over the file (no decoding).
    func countPackets(of tracks: [AssetTrack]) throws -> [Int: Int] {
        let input = try openInput()
        var counts: [Int: Int] = [:]
        let packet = Packet()
        while try input.read(into: packet) { counts[packet.streamIndex, default: 0] += 1 }
        return Dictionary(uniqueKeysWithValues: tracks.compactMap { t in (t.backing as? StreamBacking).map { (t.trackID, counts[$0.stream.index] ?? 0) } })
    }

    /// Whether a stream's ISO sample entry is read from its first packet (its registry entry says).
    private static func needsFirstPacket(_ s: StreamInfo) -> Bool {
        switch CodecRegistry.entry(named: s.codec.codecName)?.firstPacket {
        case .always?: true
        case .withoutExtradata?: s.codec.extradata.isEmpty
        case .never?, nil: false
        }
    }

    /// The first packet of each of `streams`, reading at most 64 MB or 10,000 packets.
    private static func firstPackets(of input: InputFormatContext, for streams: [Int]) -> [Int: [UInt8]] {
        guard !streams.isEmpty else { return [:] }
        var found: [Int: [UInt8]] = [:]
        let packet = Packet()
        var bytes = 0
        for _ in 0..<10_000 {
            guard found.count < streams.count, bytes < 64 << 20, (try? input.read(into: packet)) == true else { break }
            bytes += packet.size
            if streams.contains(packet.streamIndex), found[packet.streamIndex] == nil {
                found[packet.streamIndex] = [UInt8](packet.data)
            }
        }
        return found
    }

    /// Where the last packet of each stream ends, in its time base: a subtitle file's packets,
    /// which libavformat's subtitle demuxers hold in memory, read to the end.
    private static func cueEnds(of input: InputFormatContext) -> [Int: Int64] {
        var ends: [Int: Int64] = [:]
        let packet = Packet()
        for _ in 0..<1_000_000 {
            guard (try? input.read(into: packet)) == true else { break }
            guard let pts = packet.presentationTime else { continue }
            let end = pts.addingReportingOverflow(packet.duration)
            if !end.overflow { ends[packet.streamIndex] = max(ends[packet.streamIndex] ?? 0, end.partialValue) }
        }
        return ends
    }

    /// Container languages are ISO 639-2 already (Matroska allows B forms and BCP 47 too; keep the primary subtag).
    static func primaryLanguage(_ language: String) -> String {
        let primary = language.split(separator: "-").first.map(String.init) ?? language
        return primary.isEmpty ? "und" : primary.lowercased()
    }

    // MARK: Reading

    func makeSession(reading tracks: [AssetTrack], timeRange: TimeRange) throws -> any ReadSession {
        // A range that starts late: seek (to a key frame some way before the start, as some
        // demuxers seek by estimate); the timeline cursors cut exactly from there.
        var from: Double?
        if timeRange != .everything, timeRange.start.seconds > 2, let origin = tracks.first?.asset?.startTime {
            from = (timeRange.start + origin).seconds - 1
        }
        return DemuxSession(input: try openInput(), streams: Set(tracks.compactMap { ($0.backing as? StreamBacking)?.stream.index }), from: from)
    }

    /// The input the asset was described from, the first time (a seek moves it where a reader
    /// starts); the file opened again after that.
    private func openInput() throws -> InputFormatContext {
        if let input = opened.withLock({ (input: inout InputFormatContext?) in defer { input = nil }; return input }) { return input }
        do { return try InputFormatContext(path: path, format: format) } catch { throw error.mediaError }
    }
}

/// A libavformat stream: what it is, and how its packets become ISO samples.
struct StreamBacking: TrackBacking {
    let stream: StreamInfo
    /// How packets become ISO samples (the format description's sample entry).
    var conversion = PacketConversion.none
    var isoProblem: String?

    init(stream: StreamInfo) { self.stream = stream }

    var isoStructure: TrackPassthrough? { nil }
    var isAttachment: Bool { stream.mediaType == .data }
    var frameRate: (num: Int32, den: Int32)? { stream.frameRate }
    var encryption: TrackEncryption? {
        stream.metadata.encryptionKeyID.map { key in
            TrackEncryption(scheme: "ContentEncryption", originalFormat: nil,
                            keyID: Data(base64Encoded: key).map { $0.map { String(format: "%02x", $0) }.joined() } ?? key,
                            samplesWithInformation: 0,
                            problem: "Matroska's ContentEncryption cannot be carried (libavformat's Matroska muxer does not write it), "
                                + "and the still-encrypted frames would be written as a clear track")
        }
    }
    var mediaDuration: MediaTime? { nil }
    var accessibility: Set<MediaCharacteristic> {
        var c: Set<MediaCharacteristic> = []
        if stream.metadata.isHearingImpaired { c.insert(.describesMusicAndSoundForAccessibility) }
        if stream.metadata.isVisualImpaired { c.insert(.describesVideoForAccessibility) }
        return c
    }
}
