import Foundation
import MediaCore
import ISOBMFF

extension AssetWriter {
    /// Seconds from 1904-01-01 (the ISO epoch) to now.
    static var isoNow: UInt64 { UInt64(max(0, Date().timeIntervalSince1970 + 2_082_844_800)) }

    /// `alternate_group` numbers and enabled flags: each group one unique non-zero number
    /// (its preferred one when free), its default input enabled and the rest disabled.
    func groupAssignments(_ groups: [AssetWriterInputGroup]) -> [ObjectIdentifier: (group: Int16, enabled: Bool)] {
        var numbers = [Int?](repeating: nil, count: groups.count)
        var used = Set<Int>()
        // Preferred numbers first (the first group asking for a number gets it), then the lowest free ones.
        for (i, g) in groups.enumerated() {
            if let n = g.preferredAlternateGroup, n > 0, n <= Int(Int16.max), used.insert(n).inserted { numbers[i] = n }
        }
        var next = 1
        for i in groups.indices where numbers[i] == nil {
            while used.contains(next) { next += 1 }
            numbers[i] = next
            used.insert(next)
        }
        var result: [ObjectIdentifier: (Int16, Bool)] = [:]
        for (g, n) in zip(groups, numbers) {
            for input in g.inputs { result[ObjectIdentifier(input)] = (Int16(n!), input === g.defaultInput) }
        }
        return result
    }

    /// The `moov` for what has been written, with every chunk offset moved by `chunkShift`.
    /// Called with the writer's lock held: everything it needs comes as arguments.
    func movieBox(chunkShift: UInt64, inputs: [AssetWriterInput], groups inputGroups: [AssetWriterInputGroup],
                  session: (start: MediaTime?, end: MediaTime?)) -> [UInt8] {
        let movieScale = movieTimeScale > 0 ? movieTimeScale : 1000
        let groups = groupAssignments(inputGroups)
        let now = AssetWriter.isoNow
        var tracks: [Track] = []
        var movieDuration: UInt64 = 0
        for (i, input) in inputs.enumerated() {
            let trackID = UInt32(i + 1)
            let pass = input.passthrough
            var table = input.builder.finished()
            if chunkShift > 0 { table.chunkOffsets = table.chunkOffsets.map { $0 + chunkShift } }
            if let pass, table.sampleCount == pass.expectedSampleCount { table.otherBoxes = pass.sampleTableBoxes }
            if table.sampleEntries.isEmpty, let entry = input.sourceFormatHint?.sampleEntry,
               let parsed = try? SampleEntry(bytes: [UInt8](entry), handler: input.mediaType.handlerType) {
                // An empty track still describes its format.
                table.sampleEntries = [parsed]
            }
            let mediaScale = input.timescale > 0 ? input.timescale : (input.mediaTimeScale > 0 ? input.mediaTimeScale : movieScale)
            let mediaDuration = input.builder.duration

            // Edit list: the input's segments, else one derived from the session and the first decode time.
            var edits: EditList?
            if let segments = input.segments {
                edits = EditList(entries: segments.map { s in
                    let rate = EditListEntry.rateFields(s.rate)
                    return EditListEntry(
                        segmentDuration: UInt64(clamping: s.target.duration.converted(to: movieScale).value),
                        mediaTime: s.source.map { $0.start.converted(to: mediaScale).value } ?? -1,
                        rateInteger: rate.integer, rateFraction: rate.fraction)
                })
            } else {
                edits = sessionEdits(input: input, session: session, mediaScale: mediaScale, movieScale: movieScale,
                                     mediaDuration: mediaDuration)
            }
            let trackDuration: UInt64
            if let edits {
                trackDuration = edits.entries.reduce(0) { $0 + $1.segmentDuration }
            } else {
                trackDuration = UInt64(clamping: MediaTime(value: Int64(clamping: mediaDuration), timescale: mediaScale)
                    .converted(to: movieScale, rounding: .up).value)
            }
            movieDuration = max(movieDuration, trackDuration)

            var header = pass?.header ?? TrackHeader(
                version: 0, flags: TrackHeader.inMovieFlag | TrackHeader.inPreviewFlag, creationTime: now,
                modificationTime: now, trackID: 0, duration: 0, layer: 0, alternateGroup: 0, volume: 0,
                matrix: identityMatrix, width: 0, height: 0)
            if pass == nil {
                header.volume = input.mediaType == .audio ? 0x100 : 0
                if let d = input.sourceFormatHint?.dimensions, input.mediaType == .video || input.mediaType.isLegible {
                    header.width = UInt32(d.width) << 16
                    header.height = UInt32(d.height) << 16
                }
            }
            if let size = input.naturalSize {
                header.width = UInt32(clamping: size.width) << 16
                header.height = UInt32(clamping: size.height) << 16
            }
            if let m = input.transform, m.count == 9 { header.matrix = m }
            if let v = input.preferredVolume { header.volume = Int16(clamping: Int((v * 256).rounded())) }
            header.trackID = trackID
            header.duration = trackDuration
            let (group, enabledInGroup) = groups[ObjectIdentifier(input)] ?? (0, input.marksOutputTrackAsEnabled)
            header.alternateGroup = group
            header.flags = enabledInGroup ? (header.flags | TrackHeader.enabledFlag) : (header.flags & ~TrackHeader.enabledFlag)

            var references: [TrackReference] = []
            for (type, target) in input.associations {
                guard let targetIndex = inputs.firstIndex(where: { $0 === target }) else { continue }
                let id = UInt32(targetIndex + 1)
                if let r = references.firstIndex(where: { $0.type == type.rawValue }) {
                    references[r].trackIDs.append(id)
                } else {
                    references.append(TrackReference(type: type.rawValue, trackIDs: [id]))
                }
            }

            let language = input.languageCode ?? "und"
            var languageCode: UInt16
            if let pass, Language.iso639(fromPacked: pass.mediaHeader.languageCode) == language {
                languageCode = pass.mediaHeader.languageCode
            } else if fileType.isQuickTime, let mac = Language.macintoshCode(language) {
                languageCode = mac
            } else {
                languageCode = Language.packed(language)
            }
            if language == "und" && fileType.isQuickTime && pass == nil { languageCode = 0x7FFF }
            let mediaHeader = MediaHeader(
                version: 0, creationTime: pass?.mediaHeader.creationTime ?? now,
                modificationTime: pass?.mediaHeader.modificationTime ?? now, timescale: UInt32(mediaScale),
                duration: mediaDuration, languageCode: languageCode, quality: pass?.mediaHeader.quality ?? 0)
            var handler = pass?.handler ?? HandlerBox(
                componentType: fileType.isQuickTime ? "mhlr" : FourCC(rawValue: 0),
                handlerType: input.mediaType.handlerType, name: "", isPascalName: fileType.isQuickTime)
            handler.name = input.name ?? pass?.handler.name ?? AssetWriter.defaultHandlerName(input.mediaType)

            var track = Track(header: header, mediaHeader: mediaHeader, handler: handler, sampleTable: table)
            track.references = references
            track.editList = edits
            track.extendedLanguage = input.extendedLanguageTag
            track.mediaInformationBoxes = pass?.mediaInformationBoxes ?? [AssetWriter.mediaHeaderBox(input.mediaType)]
            track.otherTrackBoxes = pass?.otherTrackBoxes ?? []
            // Accessibility characteristics as Apple's tagged characteristics, unless a copied udta has them.
            let tags = [(MediaCharacteristic.describesMusicAndSoundForAccessibility, AssetTrack.musicAndSoundTag),
                        (.describesVideoForAccessibility, AssetTrack.videoDescriptionTag)]
                .filter { input.mediaCharacteristics.contains($0.0) }.map(\.1)
            if !tags.isEmpty && !track.otherTrackBoxes.contains(where: { $0.type == "udta" }) {
                var w = BoxWriter()
                w.box("udta") { w in for t in tags { w.box("tagc") { $0.append(Array(t.utf8)) } } }
                track.otherTrackBoxes.append(RawBox(type: "udta", bytes: w.bytes))
            }
            track.otherMediaBoxes = pass?.otherMediaBoxes ?? []
            tracks.append(track)
        }
        var mvhd = passthroughMovieHeader ?? MovieHeader(
            version: 0, creationTime: now, modificationTime: now, timescale: 0, duration: 0, rate: 0x10000,
            volume: 0x100, matrix: identityMatrix, nextTrackID: 0)
        mvhd.timescale = UInt32(movieScale)
        mvhd.duration = movieDuration
        mvhd.nextTrackID = UInt32(tracks.count + 1)
        return MovieWriter.movieBox(header: mvhd, tracks: tracks, otherBoxes: passthroughMovieBoxes)
    }

    /// The edit list a session implies: none for a session from 0 whose samples start at 0.
    private func sessionEdits(input: AssetWriterInput, session: (start: MediaTime?, end: MediaTime?), mediaScale: Int32,
                              movieScale: Int32, mediaDuration: UInt64) -> EditList? {
        let (start, end) = session
        let first = input.firstDecodeTime ?? 0
        let sessionStart = (start ?? .zero).converted(to: mediaScale).value
        // Media time of the session start, in the stored (zero-based) timeline.
        let mediaStart = sessionStart - first
        // The samples are presented until the latest presentation end (after reordering, less
        // any trimmed end); an edit ends there when that is not the media's end.
        let presented = input.presentationEnd.map { $0 - first } ?? Int64(clamping: mediaDuration)
        // An edit starting between frames (a source whose first frame is shown after the session
        // starts) starts at the first frame after an empty edit instead, as readers expect.
        var shownStart = mediaStart
        if mediaStart > 0, let earliest = input.earliestPresentation { shownStart = max(mediaStart, earliest - first) }
        let empty = mediaStart < 0 ? -mediaStart : shownStart - mediaStart
        let mediaTime = max(0, shownStart)
        var length = presented - mediaTime
        if let end, end.isNumeric { length = min(length, end.converted(to: mediaScale).value - sessionStart - empty) }
        if empty == 0 && mediaTime == 0 && length >= Int64(clamping: mediaDuration) { return nil }
        var entries: [EditListEntry] = []
        if empty > 0 {
            // Samples are shown only after the session starts: an empty edit until they are.
            entries.append(EditListEntry(segmentDuration: UInt64(MediaTime(value: empty, timescale: mediaScale).converted(to: movieScale).value), mediaTime: -1))
        }
        let duration = MediaTime(value: max(0, length), timescale: mediaScale).converted(to: movieScale).value
        entries.append(EditListEntry(segmentDuration: UInt64(duration), mediaTime: mediaTime))
        return EditList(entries: entries)
    }

    static func defaultHandlerName(_ type: MediaType) -> String {
        switch type {
        case .video: "VideoHandler"
        case .audio: "SoundHandler"
        case .subtitle, .text, .closedCaption: "SubtitleHandler"
        case .timecode: "TimeCodeHandler"
        case .metadata: "MetadataHandler"
        case .data: "DataHandler"
        }
    }

    /// The media header box for a new track: `vmhd`, `smhd`, or `nmhd`.
    static func mediaHeaderBox(_ type: MediaType) -> RawBox {
        var w = BoxWriter()
        switch type {
        case .video: w.fullBox("vmhd", version: 0, flags: 1) { $0.zeros(8) }
        case .audio: w.fullBox("smhd", version: 0, flags: 0) { $0.zeros(4) }
        default: w.fullBox("nmhd", version: 0, flags: 0) { _ in }
        }
        return RawBox(type: FourCC(rawValue: UInt32(w.bytes[4]) << 24 | UInt32(w.bytes[5]) << 16 | UInt32(w.bytes[6]) << 8 | UInt32(w.bytes[7])), bytes: w.bytes)
    }
}
