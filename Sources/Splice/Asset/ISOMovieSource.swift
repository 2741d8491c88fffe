import Foundation
import MediaCore
import ISOBMFF

/// An MP4/MOV/M4A/3GP file read natively: its `moov` parsed into tracks, its samples read
/// through the sample tables (`ISOSampleCursor`).
final class ISOMovieSource: AssetSource, ReadSession, Sendable {
    let movie: MovieFile
    let file: ReadOnlyFile
    var isoMovie: MovieFile? { movie }
    var structure: SourceStructure { .isoMovie }
    var timingNotes: [String] { movie.timingNotes }

    private init(movie: MovieFile, file: ReadOnlyFile) {
        self.movie = movie
        self.file = file
    }

    var movieMetadata: [MetadataItem] {
        MetadataItem.movieItems(userData: UserData.items(in: movie.otherMovieBoxes), creationTime: movie.movieHeader.creationTime)
    }

    /// Parses the movie in `file` and its tracks.
    static func load(_ file: ReadOnlyFile, salvage: Bool = false) throws -> LoadedAsset {
        let movie = try MovieFile(file: file, salvage: salvage)
        guard movie.movieHeader.timescale <= UInt32(clamping: Int32.max) else {
            throw MediaError(.unsupported, "timescale \(movie.movieHeader.timescale) is too large", location: "moov/mvhd")
        }
        let movieScale = Int32(truncatingIfNeeded: movie.movieHeader.timescale)
        let tracks = try movie.tracks.enumerated().map { i, t in
            try AssetTrack(properties(of: t, path: "moov/trak[\(i + 1)]", movieScale: movieScale), backing: ISOTrackBacking(track: t))
        }
        let end = tracks.map(\.timeRange.end).max() ?? .zero
        var duration = MediaTime(value: Int64(clamping: movie.movieHeader.duration), timescale: movieScale)
        if movie.movieHeader.duration == 0 || movie.movieHeader.duration == .max {
            if let fragmentDuration = movie.fragmentDuration, fragmentDuration > 0 {
                duration = MediaTime(value: Int64(clamping: fragmentDuration), timescale: movieScale)
            } else {
                duration = max(.zero, end)
            }
        }
        let brand = movie.fileType?.majorBrand.description ?? ""
        return LoadedAsset(format: brand.hasPrefix("3g") ? "3gp" : FileType(movie.fileType).rawValue, duration: duration,
                           startTime: .zero, tracks: tracks, source: ISOMovieSource(movie: movie, file: file),
                           salvageNotes: movie.salvageNotes)
    }

    private static func properties(of t: Track, path: String, movieScale: Int32) throws -> AssetTrack.Properties {
        guard t.mediaHeader.timescale <= UInt32(clamping: Int32.max) else {
            throw MediaError(.unsupported, "timescale \(t.mediaHeader.timescale) is too large", location: path + "/mdia/mdhd")
        }
        let mediaScale = Int32(truncatingIfNeeded: t.mediaHeader.timescale)
        let mediaDuration = MediaTime(value: Int64(clamping: t.mediaDuration), timescale: mediaScale)
        let segments = self.segments(of: t, movieScale: movieScale, mediaDuration: mediaDuration)
        let timeRange: TimeRange
        if let last = segments.last {
            let start = segments.first { !$0.isEmpty }?.target.start ?? last.target.end
            timeRange = TimeRange(start: start, end: last.target.end)
        } else {
            // No edit list: media times are the timeline's, and a fragmented track's start at
            // its first decode time (a CMAF segment's `tfdt`).
            let first = t.sampleTable.sampleCount == 0 ? (t.fragments.first?.baseMediaDecodeTime ?? 0) : 0
            timeRange = TimeRange(start: MediaTime(value: Int64(clamping: first), timescale: mediaScale), duration: mediaDuration)
        }
        var associations: [TrackAssociationType: [Int]] = [:]
        for ref in t.references {
            associations[TrackAssociationType(rawValue: ref.type), default: []] += ref.trackIDs.map { Int(widening: $0) }
        }
        var p = AssetTrack.Properties(
            trackID: Int(widening: t.trackID), mediaType: t.mediaType,
            formatDescriptions: t.sampleTable.sampleEntries.map { $0.formatDescription(mediaType: t.mediaType) },
            timeRange: timeRange, naturalTimeScale: mediaScale)
        p.languageCode = t.mediaHeader.language
        p.extendedLanguageTag = t.extendedLanguage
        p.isEnabled = t.header.isEnabled
        p.alternateGroup = Int(widening: t.header.alternateGroup)
        p.name = t.handler.name.isEmpty ? nil : t.handler.name
        p.segments = segments
        p.sampleCount = t.sampleCount
        p.isDefault = t.header.isEnabled
        p.associations = associations
        let table = t.sampleTable
        if t.mediaType == .video || t.mediaType.isLegible, t.header.width > 0 || t.header.height > 0 {
            p.naturalSize = Dimensions(width: (Double(t.header.width) / 65536).rounded(saturating: Int.self) ?? 0, height: (Double(t.header.height) / 65536).rounded(saturating: Int.self) ?? 0)
        } else if t.mediaType == .video {
            p.naturalSize = p.formatDescriptions.first?.dimensions
        }
        p.preferredTransform = AffineTransform2D(matrix: t.header.matrix)
        p.preferredVolume = Float(t.header.volume) / 256
        p.totalSampleDataLength = table.constantSampleSize != 0
            ? Int64(widening: table.constantSampleSize) * Int64(widening: table.sampleCount) : table.sampleSizes.reduce(0) { $0 + Int64(widening: $1) }
        // (a fragmented track's durations are in its fragments' runs)
        let fragmentDurations = t.fragments.lazy.flatMap(\.runs).flatMap(\.samples).map(\.duration).filter { $0 > 0 }
        if t.mediaType == .video, let shortest = (table.timeToSample.filter({ $0.count > 0 }).map(\.delta) + fragmentDurations).min() {
            p.minFrameDuration = MediaTime(value: Int64(widening: shortest), timescale: mediaScale)
        }
        p.commonMetadata = .common(title: p.name, language: p.languageCode)
        return p
    }

    /// The edit list as segments of the movie timeline.
    private static func segments(of t: Track, movieScale: Int32, mediaDuration: MediaTime) -> [TrackSegment] {
        let entries = t.editList?.entries ?? []
        let mediaScale = mediaDuration.timescale
        var segments: [TrackSegment] = []
        var cursor = MediaTime.zero
        for e in entries {
            var length = MediaTime(value: Int64(clamping: e.segmentDuration), timescale: movieScale)
            if e.segmentDuration == 0 && !e.isEmpty && entries.count == 1 {
                // Fragmented files leave the duration open: the edit runs to the end of the media.
                length = (mediaDuration - MediaTime(value: e.mediaTime, timescale: mediaScale)).convertScale(movieScale)
            }
            let source: TimeRange? = e.isEmpty ? nil : TimeRange(
                start: MediaTime(value: e.mediaTime, timescale: mediaScale),
                duration: e.rate == 0 ? .zero : length.convertScale(mediaScale))
            segments.append(TrackSegment(target: TimeRange(start: cursor, duration: length), source: source, rate: e.rate))
            cursor = cursor + length
        }
        return segments
    }

    // MARK: Reading

    var containerChapters: [Asset.Chapter]? { nil }

    func makeSession(reading tracks: [AssetTrack], timeRange: TimeRange) throws -> any ReadSession { self }

    func makeCursor(for track: AssetTrack, span: MediaSpan, copiesSampleData: Bool) throws -> any SampleCursor {
        guard let backing = track.backing as? ISOTrackBacking else {
            throw MediaError(.invalidOperation, "track \(track.trackID) is not a track of this movie")
        }
        return ISOSampleCursor(track: track, iso: backing.track, trackExtends: movie.trackExtends[backing.track.trackID],
                               file: file, span: span, copiesSampleData: copiesSampleData)
    }

    func warnings() -> [String] { [] }
}

/// An MP4/MOV track: the parsed `trak`.
struct ISOTrackBacking: TrackBacking {
    let track: Track
    var isoTrack: Track? { track }

    var isoStructure: TrackPassthrough? {
        TrackPassthrough(header: track.header, mediaHeader: track.mediaHeader, handler: track.handler,
                         mediaInformationBoxes: track.mediaInformationBoxes, otherTrackBoxes: track.otherTrackBoxes,
                         otherMediaBoxes: track.otherMediaBoxes, sampleTableBoxes: track.sampleTable.otherBoxes,
                         expectedSampleCount: track.sampleCount, encryption: track.encryption,
                         sampleEntries: track.sampleTable.sampleEntries.map { Data($0.bytes) })
    }
    var isoProblem: String? { nil }
    var isAttachment: Bool { false }
    var presentationLead: MediaTime {
        let table = track.sampleTable.compositionOffsets?.map(\.offset).min() ?? 0
        let fragments = track.fragments.lazy.flatMap(\.runs).flatMap(\.samples).map(\.compositionOffset).min() ?? 0
        let lead = -Int64(widening: min(0, table, fragments))
        guard lead > 0, track.mediaHeader.timescale > 0, track.mediaHeader.timescale <= UInt32(clamping: Int32.max) else { return .zero }
        return MediaTime(value: lead, timescale: Int32(truncatingIfNeeded: track.mediaHeader.timescale))
    }
    var encryption: TrackEncryption? {
        track.protection.map { p in
            TrackEncryption(scheme: p.scheme.description.trimmingCharacters(in: .whitespaces), originalFormat: p.originalFormat.description,
                            keyID: p.keyID.isEmpty ? nil : p.keyIDHex, samplesWithInformation: track.encryption?.sampleCount ?? 0,
                            problem: track.encryptionProblem, clearSamples: track.clearSampleCount)
        }
    }
    var mediaDuration: MediaTime? {
        guard track.mediaHeader.timescale > 0, track.mediaHeader.timescale <= UInt32(clamping: Int32.max) else { return nil }
        return MediaTime(value: Int64(clamping: track.mediaDuration), timescale: Int32(truncatingIfNeeded: track.mediaHeader.timescale))
    }

    /// Apple's tagged media characteristics (`udta/tagc`).
    var accessibility: Set<MediaCharacteristic> {
        guard let udta = track.otherTrackBoxes.first(where: { $0.type == "udta" }),
              let boxes = try? Box.parseAll(Array(udta.bytes.dropFirst(8))) else { return [] }
        let tags = boxes.filter { $0.type == "tagc" }.map { String(decoding: $0.payload.prefix { $0 != 0 }, as: UTF8.self) }
        return Set(MediaCharacteristic.taggedCharacteristics.filter { tags.contains($0.value) }.map(\.key))
    }
}

extension MediaCharacteristic {
    /// Apple's tagged characteristics (`udta/tagc` strings) of the accessibility characteristics.
    static let taggedCharacteristics: [MediaCharacteristic: String] = [
        .describesMusicAndSoundForAccessibility: "public.accessibility.describes-music-and-sound",
        .describesVideoForAccessibility: "public.accessibility.describes-video",
    ]
}
