import Foundation
import MediaCore
import ISOBMFF

/// Builds the `moov` of a written movie: for each input a `trak` from its sample table, its
/// public properties (language, name, flags, size, matrix, volume, group, associations, edit
/// list) and what a copied track carries over (`TrackPassthrough`).
struct MovieBoxBuilder {
    let inputs: [AssetWriterInput]
    /// What the writer kept of each input, in the same order.
    let states: [InputState]
    let tables: [TrackTable]
    let groups: [AssetWriterInputGroup]
    let session: WriterSession
    let movieTimeScale: Int32
    let fileType: FileType
    let template: MovieTemplate
    /// A fragmented movie's: each track's media duration (its samples are in the fragments, its
    /// sample table empty); the `moov` gets `mvex`. nil: a plain movie.
    var fragmentedDurations: [UInt64]? = nil
    /// A fragmented movie's: how far each track's composition times were moved — its offsets
    /// raised so that none is negative (FFmpeg shows a fragmented track's negative offsets
    /// late), its decode times started at `initialSegmentStartTime` — which its edit's media
    /// times move with.
    var mediaTimeShifts: [Int64]? = nil
    /// A leading empty edit is left out: the track's delay is in its decode times (`tfdt`).
    var dropsLeadingEmptyEdits = false

    /// The `moov`, with every chunk offset moved by `chunkShift`.
    func movieBox(chunkShift: UInt64) -> [UInt8] {
        let assignments = AssetWriterInputGroup.assignments(groups)
        var tracks: [Track] = []
        var movieDuration: UInt64 = 0
        for (i, input) in inputs.enumerated() {
            var track = self.track(i, chunkShift: chunkShift)
            let (group, enabled) = assignments[ObjectIdentifier(input)] ?? (0, input.marksOutputTrackAsEnabled)
            track.header.trackID = UInt32(clamping: i + 1)
            track.header.alternateGroup = group
            track.header.flags = enabled ? (track.header.flags | TrackHeader.enabledFlag) : (track.header.flags & ~TrackHeader.enabledFlag)
            track.references = references(of: input)
            movieDuration = max(movieDuration, track.header.duration)
            tracks.append(track)
        }
        var mvhd = template.header ?? MovieHeader(
            version: 0, creationTime: template.stamp.creation, modificationTime: template.stamp.modification, timescale: 0, duration: 0, rate: 0x10000,
            volume: 0x100, matrix: identityMatrix, nextTrackID: 0)
        mvhd.timescale = UInt32(clamping: movieTimeScale)
        mvhd.duration = movieDuration
        mvhd.nextTrackID = UInt32(clamping: tracks.count + 1)
        guard fragmentedDurations != nil else { return MovieWriter.movieBox(header: mvhd, tracks: tracks, otherBoxes: template.boxes) }
        // The whole presentation's duration is `mehd`'s: the movie box's own samples last none.
        mvhd.duration = 0
        let mvex = FragmentWriter.movieExtends(duration: movieDuration, trackIDs: tracks.map(\.header.trackID))
        return MovieWriter.movieBox(header: mvhd, tracks: tracks,
                                    otherBoxes: template.boxes.filter { $0.type != "mvex" } + [RawBox(type: "mvex", bytes: mvex)])
    }

    private func track(_ i: Int, chunkShift: UInt64) -> Track {
        let (input, state, table) = (inputs[i], states[i], tables[i])
        let pass = input.passthrough
        var sampleTable = table.builder.finished()
        if fragmentedDurations != nil {
            // (the samples are in the fragments: only the descriptions stay)
            var descriptions = SampleTable()
            descriptions.sampleEntries = sampleTable.sampleEntries
            sampleTable = descriptions
        }
        if chunkShift > 0 { sampleTable.chunkOffsets = sampleTable.chunkOffsets.map { $0 + chunkShift } }
        if let pass, sampleTable.sampleCount == pass.expectedSampleCount, fragmentedDurations == nil {
            sampleTable.otherBoxes = pass.sampleTableBoxes
            sampleTable.encryption = pass.encryption
        }
        if sampleTable.sampleEntries.isEmpty, let entry = input.sourceFormatHint?.sampleEntry,
           let parsed = try? SampleEntry(bytes: [UInt8](entry), handler: input.mediaType.handlerType) {
            // An empty track still describes its format.
            sampleTable.sampleEntries = [parsed]
        }
        let mediaScale = state.writtenTimescale(input, fallback: movieTimeScale)
        let mediaDuration = fragmentedDurations?[i] ?? table.builder.duration
        if input.outputSettings != nil, fragmentedDurations == nil {
            // An encoded track: its sample entries say its bit rates (`btrt`, §8.5.2.2).
            let btrt = MovieBoxBuilder.bitRateBox(sampleTable, timescale: mediaScale)
            sampleTable.sampleEntries = sampleTable.sampleEntries.map { entry in
                var e = entry
                e.bytes = SampleEntryBuilder.appending(btrt, to: e.bytes) ?? e.bytes
                return e
            }
        }
        var edits = editList(input, state: state, mediaScale: mediaScale, mediaDuration: mediaDuration)
        let shift = mediaTimeShifts?[i] ?? 0
        if shift > 0 { edits = shifting(edits, by: shift, state, mediaScale: mediaScale, mediaDuration: mediaDuration) }
        var header = trackHeader(input, firstFormat: state.firstFormat)
        if let list = edits {
            header.duration = list.entries.reduce(0) { $0 + $1.segmentDuration }
            if fragmentedDurations != nil, list.entries.count == 1,
               reachesTheEnd(list.entries[0], state, shift: shift, mediaScale: mediaScale, mediaDuration: mediaDuration) {
                // One edit from an offset to the end: duration 0, "to the end of the media", as
                // CMAF writes it (GStreamer drops a fragmented track's last frame otherwise).
                edits?.entries[0].segmentDuration = 0
            }
        } else {
            header.duration = UInt64(clamping: MediaTime(value: Int64(clamping: mediaDuration), timescale: mediaScale)
                .convertScale(movieTimeScale, method: .up).value)
        }
        let mediaHeader = MediaHeader(
            version: 0, creationTime: pass?.mediaHeader.creationTime ?? template.stamp.creation,
            modificationTime: pass?.mediaHeader.modificationTime ?? template.stamp.modification, timescale: UInt32(clamping: mediaScale),
            duration: fragmentedDurations == nil ? mediaDuration : 0, languageCode: languageCode(input), quality: pass?.mediaHeader.quality ?? 0)
        var track = Track(header: header, mediaHeader: mediaHeader, handler: handler(input), sampleTable: sampleTable)
        track.editList = edits
        track.extendedLanguage = input.extendedLanguageTag
        track.mediaInformationBoxes = pass?.mediaInformationBoxes ?? [MovieBoxBuilder.mediaHeaderBox(input.mediaType)]
        track.otherTrackBoxes = (pass?.otherTrackBoxes ?? []) + accessibilityBoxes(input, copied: pass?.otherTrackBoxes ?? [])
        track.otherMediaBoxes = pass?.otherMediaBoxes ?? []
        return track
    }

    /// Whether `entry` shows the media from its start to the last frame's end: its duration is
    /// that span rounded to the movie timescale, what a reader makes of an open-ended edit.
    private func reachesTheEnd(_ entry: EditListEntry, _ state: InputState, shift: Int64, mediaScale: Int32, mediaDuration: UInt64) -> Bool {
        guard !entry.isEmpty, entry.rate == 1 else { return false }
        // (wrapping: times from a file never trap; only a well-formed file's reach the end)
        let presented = MovieBoxBuilder.presented(state, mediaDuration).addingReportingOverflow(shift).partialValue
        let rest = MediaTime(value: presented.subtractingReportingOverflow(entry.mediaTime).partialValue, timescale: mediaScale).convertScale(movieTimeScale)
        return rest.value > 0 && UInt64(exactly: rest.value) == entry.segmentDuration
    }

    /// The end of the track's last frame shown, from its first decode time.
    static func presented(_ state: InputState, _ mediaDuration: UInt64) -> Int64 {
        state.presentationEnd.map { $0.subtractingReportingOverflow(state.firstDecodeTime ?? 0).partialValue } ?? Int64(clamping: mediaDuration)
    }

    /// `edits` for media whose composition times were all raised by `shift`: each edit's media
    /// time raised as much; no edit list becomes one edit showing the whole track from `shift`.
    private func shifting(_ edits: EditList?, by shift: Int64, _ state: InputState, mediaScale: Int32, mediaDuration: UInt64) -> EditList {
        guard var list = edits else {
            let length = MediaTime(value: MovieBoxBuilder.presented(state, mediaDuration), timescale: mediaScale).convertScale(movieTimeScale)
            return EditList(entries: [EditListEntry(segmentDuration: UInt64(clamping: length.value), mediaTime: shift)])
        }
        for k in list.entries.indices where !list.entries[k].isEmpty {
            list.entries[k].mediaTime = list.entries[k].mediaTime.addingReportingOverflow(shift).partialValue
        }
        return list
    }

    /// Each track's edit list, as `movieBox` writes it.
    func editLists() -> [EditList?] {
        inputs.indices.map { i in
            editList(inputs[i], state: states[i], mediaScale: states[i].writtenTimescale(inputs[i], fallback: movieTimeScale),
                     mediaDuration: fragmentedDurations?[i] ?? tables[i].builder.duration)
        }
    }

    /// `tkhd` without ID, group, enabled flag and duration: the copied header, or a new one sized
    /// from the format; then the input's size, matrix and volume where it sets them.
    private func trackHeader(_ input: AssetWriterInput, firstFormat: FormatDescription?) -> TrackHeader {
        var header = input.passthrough?.header ?? TrackHeader(
            version: 0, flags: TrackHeader.inMovieFlag | TrackHeader.inPreviewFlag, creationTime: template.stamp.creation,
            modificationTime: template.stamp.modification, trackID: 0, duration: 0, layer: 0, alternateGroup: 0, volume: 0,
            matrix: identityMatrix, width: 0, height: 0)
        if input.passthrough == nil {
            header.volume = input.mediaType == .audio ? 0x100 : 0
            // The hint's size, else (an encoded input) the size of what was written.
            if let d = (input.sourceFormatHint ?? firstFormat)?.dimensions, input.mediaType == .video || input.mediaType.isLegible {
                header.width = UInt32(clamping: min(d.width, 0xFFFF)) << 16
                header.height = UInt32(clamping: min(d.height, 0xFFFF)) << 16
            }
        }
        if let size = input.naturalSize {
            header.width = UInt32(clamping: size.width) << 16
            header.height = UInt32(clamping: size.height) << 16
        }
        if let t = input.transform { header.matrix = t.matrix }
        if let v = input.preferredVolume { header.volume = (v * 256).rounded(saturating: Int16.self) ?? 256 }
        return header
    }

    /// The input's edit list, less a leading empty edit when its delay is in the decode times
    /// (`dropsLeadingEmptyEdits`: a package's CMAF track).
    private func editList(_ input: AssetWriterInput, state: InputState, mediaScale: Int32, mediaDuration: UInt64) -> EditList? {
        var list = sourceEditList(input, state: state, mediaScale: mediaScale, mediaDuration: mediaDuration)
        if dropsLeadingEmptyEdits, let entries = list?.entries, entries.count > 1, entries[0].isEmpty { list?.entries.removeFirst() }
        return list
    }

    /// The input's segments as an edit list, else the one its session implies.
    private func sourceEditList(_ input: AssetWriterInput, state: InputState, mediaScale: Int32, mediaDuration: UInt64) -> EditList? {
        guard let segments = input.segments else {
            return SessionEdits(state: state, session: session, shownEnd: input.cut?.shown.end, mediaScale: mediaScale,
                                movieScale: movieTimeScale, mediaDuration: mediaDuration).editList
        }
        return EditList(entries: TrackSegment.coalesced(segments).map { s in
            let rate = EditListEntry.rateFields(s.rate)
            return EditListEntry(
                segmentDuration: UInt64(clamping: s.target.duration.convertScale(movieTimeScale).value),
                mediaTime: s.source.map { $0.start.convertScale(mediaScale).value } ?? -1,
                rateInteger: rate.integer, rateFraction: rate.fraction)
        })
    }

    /// `tref`: the input's associations, one entry per type, targets as track IDs.
    private func references(of input: AssetWriterInput) -> [TrackReference] {
        var references: [TrackReference] = []
        for (type, target) in input.associations {
            guard let targetIndex = inputs.firstIndex(where: { $0 === target }) else { continue }
            let id = UInt32(clamping: targetIndex + 1)
            if let r = references.firstIndex(where: { $0.type == type.rawValue }) {
                references[r].trackIDs.append(id)
            } else {
                references.append(TrackReference(type: type.rawValue, trackIDs: [id]))
            }
        }
        return references
    }

    /// The `mdhd` language: the copied code when it says the same (Macintosh codes in MOV stay),
    /// a Macintosh code in new QuickTime tracks, else the packed ISO code.
    private func languageCode(_ input: AssetWriterInput) -> UInt16 {
        let language = input.languageCode ?? "und"
        if let pass = input.passthrough, Language.iso639(fromPacked: pass.mediaHeader.languageCode) == language {
            return pass.mediaHeader.languageCode
        }
        if fileType.usesQuickTimeConventions, input.passthrough == nil, language == "und" { return 0x7FFF }
        if fileType.usesQuickTimeConventions, let mac = Language.macintoshCode(language) { return mac }
        return Language.packed(language)
    }

    private func handler(_ input: AssetWriterInput) -> HandlerBox {
        // A copy into the same family (ISO → ISO, QuickTime → QuickTime) with its name kept keeps
        // the box byte for byte, whatever string form its name has.
        if let copied = input.passthrough?.handler, input.name == nil || input.name == copied.name,
           (copied.componentType.rawValue == 0) == !fileType.usesQuickTimeConventions, copied.payloadIsCurrent {
            return copied
        }
        var handler = input.passthrough?.handler ?? HandlerBox(
            componentType: fileType.usesQuickTimeConventions ? "mhlr" : FourCC(rawValue: 0),
            handlerType: input.mediaType.handlerType, name: "", isPascalName: fileType.usesQuickTimeConventions)
        handler.name = input.name ?? input.passthrough?.handler.name ?? input.mediaType.defaultHandlerName
        // The name in the target's string form: a Pascal string in QuickTime, a C string in ISO
        // files (a copied QuickTime name would otherwise show its length byte).
        handler.isPascalName = fileType.usesQuickTimeConventions
        if !fileType.usesQuickTimeConventions { handler.componentType = FourCC(rawValue: 0) }
        else if handler.componentType.rawValue == 0 { handler.componentType = "mhlr" }
        handler.payload = nil
        return handler
    }

    /// Accessibility characteristics as Apple's tagged characteristics (`udta/tagc`), unless a
    /// copied `udta` has them.
    private func accessibilityBoxes(_ input: AssetWriterInput, copied: [RawBox]) -> [RawBox] {
        let tags = MediaCharacteristic.taggedCharacteristics.sorted { $0.value < $1.value }
            .filter { input.mediaCharacteristics.contains($0.key) }.map(\.value)
        guard !tags.isEmpty, !copied.contains(where: { $0.type == "udta" }) else { return [] }
        var w = BoxWriter()
        w.box("udta") { w in for t in tags { w.box("tagc") { $0.append(Array(t.utf8)) } } }
        return [RawBox(type: "udta", bytes: w.bytes)]
    }

    /// The media header box for a new track: `vmhd`, `smhd`, or `nmhd`.
    static func mediaHeaderBox(_ type: MediaType) -> RawBox {
        var w = BoxWriter()
        switch type {
        case .video: w.fullBox("vmhd", version: 0, flags: 1) { $0.zeros(8) }
        case .audio: w.fullBox("smhd", version: 0, flags: 0) { $0.zeros(4) }
        default: w.fullBox("nmhd", version: 0, flags: 0) { _ in }
        }
        return RawBox(type: FourCC(rawValue: UInt32(widening: w.bytes[4]) << 24 | UInt32(widening: w.bytes[5]) << 16 | UInt32(widening: w.bytes[6]) << 8 | UInt32(widening: w.bytes[7])), bytes: w.bytes)
    }

    /// `btrt` of a sample table: the largest sample, the most bits in any one second, and the
    /// average bit rate.
    static func bitRateBox(_ table: SampleTable, timescale: Int32) -> [UInt8] {
        let sizes = (0..<table.sampleCount).map { Int(widening: table.size(ofSample: $0)) }
        var times: [Int64] = []
        times.reserveCapacity(sizes.count)
        var t: Int64 = 0
        for entry in table.timeToSample { for _ in 0..<entry.count { times.append(t); t += Int64(widening: entry.delta) } }
        let seconds = Double(t) / Double(max(1, timescale))
        let total = sizes.reduce(0, +)
        var windowBits = 0, maxBits = 0, first = 0
        for (i, size) in sizes.enumerated() where i < times.count {
            windowBits += size * 8
            while first < i, times[i] - times[first] >= Int64(widening: timescale) { windowBits -= sizes[first] * 8; first += 1 }
            maxBits = max(maxBits, windowBits)
        }
        var w = BoxWriter()
        w.box("btrt") { w in
            w.u32(UInt32(clamping: sizes.max() ?? 0))
            w.u32(UInt32(clamping: maxBits))
            w.u32(UInt32(clamping: seconds > 0 ? (Double(total * 8) / seconds).rounded(saturating: Int.self) ?? 0 : 0))
        }
        return w.bytes
    }
}
