import MediaCore

/// What a damaged movie keeps when it is salvaged: the samples wholly present in the file, the
/// tracks that can still be read, and a movie header where the file lost its own.
extension SampleTable {
    /// The table of the first `count` samples: sizes, times, sync samples, dependencies and
    /// chunks cut where the samples end (the last chunk keeps the samples it still has).
    /// Per-sample boxes kept byte-exact (`sbgp`, `subs`, …) cannot be cut and are left out;
    /// their types are returned.
    public mutating func keepFirst(_ count: Int) -> [FourCC] {
        guard count < sampleCount else { return [] }
        var chunks: [UInt64] = []
        var stsc: [SampleToChunk] = []
        forEachChunk { chunk in
            guard chunk.firstSample < count, chunk.sampleCount > 0 else { return }
            let n = UInt32(clamping: min(chunk.sampleCount, count - chunk.firstSample))
            chunks.append(chunk.offset)
            if stsc.last?.samplesPerChunk != n || stsc.last?.sampleDescriptionIndex != chunk.sampleDescriptionIndex {
                stsc.append(SampleToChunk(firstChunk: UInt32(clamping: chunks.count), samplesPerChunk: n, sampleDescriptionIndex: chunk.sampleDescriptionIndex))
            }
        }
        chunkOffsets = chunks
        sampleToChunk = stsc
        timeToSample = Self.prefix(timeToSample, count, \.count) { e, n in TimeToSample(count: n, delta: e.delta) }
        compositionOffsets = compositionOffsets.map { Self.prefix($0, count, \.count) { e, n in CompositionOffset(count: n, offset: e.offset) } }
        syncSamples = syncSamples?.filter { Int(widening: $0) <= count }
        dependencies = dependencies.map { Array($0.prefix(count)) }
        if constantSampleSize == 0 { sampleSizes = Array(sampleSizes.prefix(count)) }
        sampleCount = count
        encryption = nil
        otherBoxes = otherBoxes.map { box in box.type == "sbgp" ? Self.sampleToGroup(box, keepingFirst: count) ?? box : box }
        let perSample: Set<FourCC> = ["subs", "saiz", "saio", "senc", "stsh", "stdp", "padb", "sdtp"]
        let dropped = otherBoxes.filter { perSample.contains($0.type) }.map(\.type)
        otherBoxes.removeAll { perSample.contains($0.type) }
        return dropped
    }

    /// An `sbgp` (ISO/IEC 14496-12, 8.9.2) whose runs are cut to cover `count` samples; nil when
    /// it cannot be read (it is then left out).
    static func sampleToGroup(_ box: RawBox, keepingFirst count: Int) -> RawBox? {
        var r = ByteReader(Array(box.payload))
        guard let version = try? r.u8(), (try? r.skip(3)) != nil, let type = try? r.u32(),
              let parameter = version == 1 ? try? r.u32() : 0, let n = try? r.count(entrySize: 8) else { return nil }
        var runs: [(count: UInt32, index: UInt32)] = []
        for _ in 0..<n {
            guard let c = try? r.u32(), let i = try? r.u32() else { return nil }
            runs.append((c, i))
        }
        let cut = prefix(runs, count, \.count) { e, k in (k, e.index) }
        var w = BoxWriter()
        w.box("sbgp") { w in
            w.u8(version); w.zeros(3); w.u32(type)
            if version == 1 { w.u32(parameter) }
            w.u32(UInt32(clamping: cut.count))
            for e in cut { w.u32(e.count); w.u32(e.index) }
        }
        return RawBox(type: "sbgp", bytes: w.bytes)
    }

    /// Runs of a run-length table cut to cover `count` samples.
    private static func prefix<E>(_ runs: [E], _ count: Int, _ length: KeyPath<E, UInt32>, _ make: (E, UInt32) -> E) -> [E] {
        var out: [E] = []
        var left = count
        for e in runs where left > 0 {
            let n = min(Int(widening: e[keyPath: length]), left)
            out.append(make(e, UInt32(clamping: n)))
            left -= n
        }
        return out
    }
}

extension EditList {
    /// The edits cut to media that ends at `mediaDuration` (media timescale): an edit past the
    /// end is dropped and one that runs over it is shortened. Empty edits before media stay.
    public func clipped(toMediaDuration mediaDuration: UInt64, mediaTimescale: UInt32, movieTimescale: UInt32) -> EditList {
        guard mediaTimescale > 0, movieTimescale > 0 else { return self }
        var out: [EditListEntry] = []
        for e in entries {
            if e.isEmpty { out.append(e); continue }
            guard e.mediaTime >= 0, UInt64(clamping: e.mediaTime) < mediaDuration, e.rate > 0 else { continue }
            if e.segmentDuration == 0 { out.append(e); continue }   // (open-ended: to the end of the media)
            let left = Double(mediaDuration - UInt64(clamping: e.mediaTime)) / Double(mediaTimescale) / e.rate
            let most = (left * Double(movieTimescale)).rounded(saturating: UInt64.self, .down) ?? 0
            var cut = e
            cut.segmentDuration = min(e.segmentDuration, most)
            if cut.segmentDuration > 0 { out.append(cut) }
        }
        while out.last?.isEmpty == true { out.removeLast() }
        return EditList(version: version, entries: out)
    }
}

extension Track {
    /// How many of the track's samples, from the first (sample tables, then fragments), lie
    /// wholly inside a file of `fileSize` bytes: a track has no holes, so the count stops at the
    /// first sample that does not.
    func samplesPresent(fileSize: UInt64, trackExtends: TrackExtends?) -> Int {
        var samples = SampleIterator(track: self, trackExtends: trackExtends)
        var present = 0
        while let s = samples.next() {
            let (end, overflow) = s.offset.addingReportingOverflow(UInt64(widening: s.size))
            guard !overflow, end <= fileSize else { break }
            present += 1
        }
        return present
    }

    /// The edit list cut to the media that is left (none when nothing of it is).
    private mutating func clipEditsToMedia(movieTimescale: UInt32) {
        editList = editList?.clipped(toMediaDuration: mediaDuration, mediaTimescale: mediaHeader.timescale, movieTimescale: movieTimescale)
        if editList?.entries.isEmpty == true { editList = nil }
    }

    /// Keeps the samples wholly inside a file of `fileSize` bytes; returns what was left out, for
    /// a warning, or nil when every sample is there.
    mutating func keepSamplesPresent(fileSize: UInt64, movieTimescale: UInt32) -> String? {
        let total = sampleTable.sampleCount
        let present = samplesPresent(fileSize: fileSize, trackExtends: nil)
        guard present < total else { return nil }
        let dropped = sampleTable.keepFirst(present)
        clipEditsToMedia(movieTimescale: movieTimescale)
        mediaHeader.duration = sampleTable.totalDuration
        let seconds = mediaHeader.timescale > 0 ? Double(sampleTable.totalDuration) / Double(mediaHeader.timescale) : 0
        var note = "track \(trackID): \(total - present) of \(total) samples run past the end of the file and are left out "
            + "(\(present) kept, \(String(format: "%.3f", seconds)) s)"
        if !dropped.isEmpty { note += "; its \(dropped.map { "'\($0)'" }.joined(separator: ", ")) could not be cut and \(dropped.count == 1 ? "is" : "are") left out too" }
        return note
    }

    /// A fragmented track's samples cut to those wholly inside a file of `fileSize` bytes (the
    /// first one that is not ends the track); returns what was left out, or nil when nothing was.
    mutating func keepFragmentSamplesPresent(fileSize: UInt64, trackExtends: TrackExtends?, movieTimescale: UInt32) -> String? {
        guard !fragments.isEmpty else { return nil }
        let total = sampleCount
        let present = samplesPresent(fileSize: fileSize, trackExtends: trackExtends)
        guard present < total else { return nil }
        var left = max(0, present - sampleTable.sampleCount)
        for f in fragments.indices {
            for r in fragments[f].runs.indices {
                let n = min(left, fragments[f].runs[r].samples.count)
                fragments[f].runs[r].samples.removeLast(fragments[f].runs[r].samples.count - n)
                left -= n
            }
            fragments[f].runs.removeAll { $0.samples.isEmpty }
        }
        fragments.removeAll { $0.runs.isEmpty }
        clipEditsToMedia(movieTimescale: movieTimescale)
        return "track \(trackID): \(total - present) of \(total) samples of its fragments run past the end of the file and are left out (\(present) kept)"
    }
}

extension Track {
    /// The track ID in a `trak`'s `tkhd`, read on its own (for naming a track that cannot be parsed).
    static func trackID(in trak: ByteReader) -> UInt32? {
        var it = BoxIterator(trak)
        while let (h, child) = try? it.next() {
            var r = child
            if h.type == "tkhd" { return (try? TrackHeader.parse(&r))?.trackID }
        }
        return nil
    }
}
