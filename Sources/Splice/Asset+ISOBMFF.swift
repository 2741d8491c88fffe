import MediaCore
import ISOBMFF

extension Asset {
    static func formatName(_ movie: MovieFile) -> String {
        guard let ftyp = movie.fileType else { return "mov" }
        let brand = ftyp.majorBrand.description
        switch brand {
        case "qt  ": return "mov"
        case "M4A ", "M4B ": return "m4a"
        case "M4V ", "M4VH", "M4VP": return "m4v"
        default: return brand.hasPrefix("3g") ? "3gp" : "mp4"
        }
    }

    static func tracks(of movie: MovieFile) throws -> (tracks: [AssetTrack], duration: MediaTime) {
        guard movie.movieHeader.timescale <= UInt32(Int32.max) else {
            throw MediaError(.unsupported, "timescale \(movie.movieHeader.timescale) is too large", location: "moov/mvhd")
        }
        let movieScale = Int32(movie.movieHeader.timescale)
        var tracks: [AssetTrack] = []
        var end = MediaTime.zero
        for (i, t) in movie.tracks.enumerated() {
            let path = "moov/trak[\(i + 1)]"
            guard t.mediaHeader.timescale <= UInt32(Int32.max) else {
                throw MediaError(.unsupported, "timescale \(t.mediaHeader.timescale) is too large", location: path + "/mdia/mdhd")
            }
            let mediaScale = Int32(t.mediaHeader.timescale)
            let mediaType = t.mediaType
            let mediaDuration = MediaTime(value: Int64(clamping: t.mediaDuration), timescale: mediaScale)
            var segments: [TrackSegment] = []
            var cursor = MediaTime.zero
            for e in t.editList?.entries ?? [] {
                var length = MediaTime(value: Int64(clamping: e.segmentDuration), timescale: movieScale)
                if e.segmentDuration == 0 && !e.isEmpty && (t.editList?.entries.count ?? 0) == 1 {
                    // Fragmented files leave the duration open: the edit runs to the end of the media.
                    length = (mediaDuration - MediaTime(value: e.mediaTime, timescale: mediaScale)).converted(to: movieScale)
                }
                let target = TimeRange(start: cursor, duration: length)
                let source: TimeRange? = e.isEmpty ? nil : TimeRange(
                    start: MediaTime(value: e.mediaTime, timescale: mediaScale),
                    duration: e.rate == 0 ? .zero : length.converted(to: mediaScale))
                segments.append(TrackSegment(target: target, source: source, rate: e.rate))
                cursor = cursor + length
            }
            let timeRange: TimeRange
            if segments.isEmpty {
                timeRange = TimeRange(start: .zero, duration: mediaDuration)
            } else {
                let start = segments.first { !$0.isEmpty }?.target.start ?? cursor
                timeRange = TimeRange(start: start, end: cursor)
            }
            end = max(end, timeRange.end)
            var associations: [TrackAssociationType: [Int]] = [:]
            for ref in t.references {
                associations[TrackAssociationType(rawValue: ref.type), default: []] += ref.trackIDs.map { Int($0) }
            }
            let formats = t.sampleTable.sampleEntries.map { $0.formatDescription(mediaType: mediaType) }
            tracks.append(AssetTrack(
                trackID: Int(t.trackID), mediaType: mediaType, formatDescriptions: formats,
                languageCode: t.mediaHeader.language, extendedLanguageTag: t.extendedLanguage,
                isEnabled: t.header.isEnabled, alternateGroup: Int(t.header.alternateGroup),
                name: t.handler.name.isEmpty ? nil : t.handler.name, timeRange: timeRange,
                naturalTimeScale: mediaScale, segments: segments, sampleCount: t.sampleCount,
                isDefault: t.header.isEnabled, isForced: false, associations: associations,
                isoTrack: t, streamIndex: nil))
        }
        var duration = MediaTime(value: Int64(clamping: movie.movieHeader.duration), timescale: movieScale)
        if movie.movieHeader.duration == 0 || movie.movieHeader.duration == .max {
            if let fragmentDuration = movie.fragmentDuration, fragmentDuration > 0 {
                duration = MediaTime(value: Int64(clamping: fragmentDuration), timescale: movieScale)
            } else {
                duration = end
            }
        }
        return (tracks, duration)
    }
}
