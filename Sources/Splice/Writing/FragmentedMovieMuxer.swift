import Foundation
import MediaCore
import ISOBMFF

/// How a fragmented movie is cut and indexed (`AssetWriter.movieFragmentInterval`,
/// `outputFileTypeProfile` and the index settings).
struct FragmentPlan {
    /// A fragment starts at the first sync sample of the lead track at least this long after the
    /// fragment before started.
    var interval: MediaTime
    /// CMAF (`mpeg4CMAFCompliant`): one track per fragment, every fragment starting with a sync
    /// sample, `cmfc`/`cmf2` brands, one sample description and at most an offset edit per track.
    var cmaf: Bool
    /// Added to every track's decode times (`initialSegmentStartTime`).
    var startTime: MediaTime
    var segmentIndex: Bool
    var randomAccess: Bool
    /// Where fragments start instead (a package's segments): decode times from each track's
    /// first; a fragment starts at the lead's first sample at or after each.
    var starts: [MediaTime]?
}

/// Writes fragmented MP4 (ISO/IEC 14496-12 §8.8): the samples in `moof`/`mdat` pairs as they
/// come, each fragment starting at a sync sample of the lead track (the first video track, else
/// the first track) and holding every track's samples decoded before the next; at the end
/// `ftyp`, `moov` (`mvex`, empty sample tables) and `sidx` are put in front (`OutputFile.prepend`:
/// no second pass over the media) and `mfra` appended. A fragment's data offsets count from its
/// `moof`, so the fragments do not move when the header goes in front. Memory holds one
/// fragment's sample references, whatever the file's size.
final class FragmentedMovieMuxer: Muxer {
    private let file: OutputFile
    private let fileType: FileType
    private let ftyp: FileTypeBox
    private let template: MovieTemplate
    private let groups: [AssetWriterInputGroup]
    private let movieTimeScale: Int32
    private let plan: FragmentPlan
    private var tables: [TrackTable]
    /// The most bytes of samples in memory a fragment gathers before it ends at the next sync sample.
    static let maximumHeldBytes = 64 << 20
    /// Each input's samples not yet in a fragment.
    private var held: [[PendingSample]]
    /// Each input's media duration so far, and how many of its samples were written.
    private var durations: [UInt64], counts: [Int]
    /// What each track's composition offsets are raised by, fixed by its first fragment (none
    /// negative: FFmpeg shows a fragmented track's negative offsets late, as a later start).
    private var shifts: [Int64?]
    private var sequence: UInt32 = 0
    private var out: ChunkWriter
    /// The fragments written (offsets before the header goes in front), for `sidx` and `mfra`.
    private var index = FragmentIndex()

    init(file: OutputFile, fileType: FileType, ftyp: FileTypeBox, template: MovieTemplate, groups: [AssetWriterInputGroup],
         inputCount: Int, movieTimeScale: Int32, plan: FragmentPlan) throws {
        if plan.cmaf, !fileType.isCMAFContainer {
            throw MediaError(.unsupported, "CMAF is written into .mp4, .m4v and .m4a files, not .\(fileType.rawValue)")
        }
        self.file = file
        self.fileType = fileType
        self.ftyp = FragmentedMovieMuxer.brands(ftyp, cmaf: plan.cmaf)
        self.template = template
        self.groups = groups
        self.movieTimeScale = movieTimeScale > 0 ? movieTimeScale : 1000
        self.plan = plan
        tables = (0..<inputCount).map { _ in TrackTable(quickTimeSound: fileType.usesQuickTimeConventions) }
        held = Array(repeating: [], count: inputCount)
        durations = Array(repeating: 0, count: inputCount)
        counts = Array(repeating: 0, count: inputCount)
        shifts = Array(repeating: nil, count: inputCount)
        out = ChunkWriter(file: file)
        // Room for the header at the start: a `free` box the header is written over at the end.
        var w = BoxWriter()
        w.u32(UInt32(clamping: FragmentedMovieMuxer.headerRoom)); w.fourCC("free")
        w.zeros(FragmentedMovieMuxer.headerRoom - 8)
        try file.write(w.bytes)
    }

    /// The bytes kept at the start for `ftyp`, `moov` and `sidx` (a fragmented `moov` has no
    /// sample tables: a few kilobytes; `sidx` 12 bytes a fragment). Writing the header there
    /// spares inserting it in front — which makes the kernel write the whole file to disk
    /// first, on the job's own time (the remux took 1.4× the CPU of a plain one); a header that
    /// does not fit is inserted after all.
    static let headerRoom = 64 << 10

    /// The file type box of a fragmented movie: `iso6` among its brands (`default-base-is-moof`
    /// and `tfdt` need `iso5` or later), and for CMAF `cmf2` first with `cmfc`.
    static func brands(_ ftyp: FileTypeBox, cmaf: Bool) -> FileTypeBox {
        var box = ftyp
        if cmaf { box = FileTypeBox(majorBrand: "cmf2", minorVersion: 0, compatibleBrands: ["cmf2", "cmfc"] + ftyp.compatibleBrands) }
        if !box.compatibleBrands.contains("iso6") { box.compatibleBrands.append("iso6") }
        var seen = Set<FourCC>()
        box.compatibleBrands = box.compatibleBrands.filter { seen.insert($0).inserted }
        return box
    }

    func descriptionIndex(for sample: SampleBuffer, input: AssetWriterInput, index: Int, label: String) throws -> UInt32 {
        let codec = sample.formatDescription.codec.description
        if plan.cmaf, input.mediaType.isLegible, !["wvtt", "stpp"].contains(codec) {
            throw MediaError(.unsupported, "\(label) is \(codec) text, which CMAF does not carry (its subtitles are WebVTT or IMSC1): "
                             + "add subtitles as WebVTT (subtitles add --format wvtt), leave the track out (--exclude-tracks), or write the file plain")
        }
        let i = try tables[index].descriptionIndex(for: sample, input: input, label: label)
        if plan.cmaf, i > 1 {
            throw MediaError(.unsupported, "\(label) changes its sample description, which a CMAF track cannot (one sample entry a track)")
        }
        return i
    }

    func write(_ counts: [Int], of inputs: [AssetWriterInput], states: inout [InputState], session: WriterSession) throws {
        for i in inputs.indices where counts[i] > 0 { held[i] += states[i].pending[0..<counts[i]] }
        try writeFragments(inputs, states, final: false)
    }

    func finish(_ inputs: [AssetWriterInput], states: [InputState], session: WriterSession) throws {
        try writeFragments(inputs, states, final: true)
        try out.finish()
        for (i, input) in inputs.enumerated() {
            if let e = input.passthrough?.encryption, counts[i] != e.sampleCount {
                throw MediaError(.unsupported, "\(states[i].label) is encrypted: it is fragmented only whole (\(counts[i]) of its \(e.sampleCount) samples are written)")
            }
        }
        var builder = MovieBoxBuilder(inputs: inputs, states: states, tables: tables, groups: groups, session: session,
                                      movieTimeScale: movieTimeScale, fileType: fileType, template: template, fragmentedDurations: durations,
                                      mediaTimeShifts: zip(shifts, states).map { ($0 ?? 0) + startTicks($1) })
        if plan.cmaf {
            try moveDelays(builder.editLists(), states, lead: lead(inputs))
            builder.dropsLeadingEmptyEdits = true
            try FragmentedMovieMuxer.checkCMAFEdits(builder.editLists(), states)
        }
        var moov = builder.movieBox(chunkShift: 0)
        MovieWriter.patchAuxiliaryInformationOffsets(&moov, moovOffset: 0)
        // An encrypted track gets a segment index whether asked or not: FFmpeg 5.1 finds the
        // auxiliary information of a fragment after the first only through one.
        let encrypted = inputs.contains { $0.passthrough?.encryption != nil }
        let segmentIndex = plan.segmentIndex || encrypted
        var shift: UInt64 = 0
        if let header = try self.header(moov, lead: lead(inputs), states: states, segmentIndex: segmentIndex, fill: FragmentedMovieMuxer.headerRoom) {
            try file.write(header, at: 0)
        } else {
            let header = try self.header(moov, lead: lead(inputs), states: states, segmentIndex: segmentIndex, fill: nil)!
            try file.prepend(header)
            shift = UInt64(clamping: header.count)
        }
        if plan.randomAccess {
            // (at the end by offset: the file position does not follow an inserted range)
            try file.write(FragmentWriter.randomAccess(index.randomAccessEntries(shift: shift)), at: file.size)
        }
    }

    /// `ftyp`, `moov`, `sidx` when asked for, and a `free` box: to `fill` bytes (the room kept at
    /// the start; nil when they do not fit), or, with `fill` nil, to whole blocks of the file
    /// system (inserted in front of the room, which the `sidx` then also skips).
    private func header(_ moov: [UInt8], lead: Int?, states: [InputState], segmentIndex: Bool, fill: Int?) throws -> [UInt8]? {
        var w = BoxWriter()
        ftyp.write(to: &w)
        w.append(moov)
        var sidx: (Int) throws -> [UInt8] = { _ in [] }
        if segmentIndex, let lead {
            let scale = UInt32(clamping: states[lead].timescale)
            let references = index.segments
            sidx = { free in
                try FragmentWriter.segmentIndex(trackID: UInt32(clamping: lead + 1), timescale: scale,
                                                firstOffset: UInt64(clamping: free), references: references)
            }
        }
        let length = w.count + (try sidx(0)).count
        let block = Int(clamping: file.blockSize)
        let padded = fill ?? (length + 8 + block - 1) / block * block
        guard length + 8 <= padded else { return nil }
        let free = padded - length
        w.append(try sidx(free + (fill == nil ? FragmentedMovieMuxer.headerRoom : 0)))
        w.u32(UInt32(clamping: free)); w.fourCC("free")
        w.zeros(free - 8)
        return w.bytes
    }

    /// The track fragments start at: the first video track's sync samples (the first video track
    /// enabled), else the first track's samples.
    private func lead(_ inputs: [AssetWriterInput]) -> Int? {
        inputs.firstIndex { $0.mediaType == .video && $0.marksOutputTrackAsEnabled }
            ?? inputs.firstIndex { $0.mediaType == .video } ?? (inputs.isEmpty ? nil : 0)
    }

    // MARK: Fragments

    /// Writes every fragment whose end is known (all that is held, when `final`).
    private func writeFragments(_ inputs: [AssetWriterInput], _ states: [InputState], final: Bool) throws {
        guard let lead = lead(inputs) else { return }
        while let cut = nextCut(lead: lead, states, final: final) {
            try writeFragment(cut, inputs, states, lead: lead)
            for i in held.indices { held[i].removeFirst(cut[i]) }
        }
    }

    /// How many held samples of each input the next fragment takes, or nil until that is known:
    /// the lead's samples up to its first sync sample at least `interval` after its first, and
    /// every other input's samples decoded before that one. The writer hands over whole windows
    /// of decode time that every input has passed, so when the lead's sample is here, the
    /// others' before it are too.
    private func nextCut(lead: Int, _ states: [InputState], final: Bool) -> [Int]? {
        guard held.contains(where: { !$0.isEmpty }) else { return nil }
        let leadSamples = held[lead]
        var boundary: MediaTime?
        if let starts = plan.starts, let first = leadSamples.first {
            let start = time(first, states[lead])
            if let planned = starts.first(where: { $0 > start }) {
                boundary = leadSamples.lazy.map { self.time($0, states[lead]) }.first { $0 >= planned }
            }
        } else if let first = leadSamples.first {
            // (at the interval, or sooner at a sync sample once the fragment holds 64 MiB of
            // encoded samples in memory: a long interval must not hold an encode's output)
            let start = time(first, states[lead])
            var inMemory = 0
            for s in leadSamples.dropFirst() {
                if s.isSync, time(s, states[lead]) - start >= plan.interval || inMemory >= FragmentedMovieMuxer.maximumHeldBytes {
                    boundary = time(s, states[lead])
                    break
                }
                if case .bytes = s.storage { inMemory += s.length }
            }
        }
        guard let boundary else { return final ? held.map(\.count) : nil }
        var cut: [Int] = []
        for (i, samples) in held.enumerated() { cut.append(samples.firstIndex { time($0, states[i]) >= boundary } ?? samples.count) }
        return cut
    }

    /// A sample's decode time on the output's timeline.
    private func time(_ s: PendingSample, _ state: InputState) -> MediaTime {
        MediaTime(value: s.decodeTime - (state.firstDecodeTime ?? 0), timescale: max(1, state.timescale))
    }

    /// Writes the first `cut[i]` held samples of each input: one `moof` and `mdat`, or for CMAF
    /// one pair per track and sample description.
    private func writeFragment(_ cut: [Int], _ inputs: [AssetWriterInput], _ states: [InputState], lead: Int) throws {
        var parts: [(input: Int, part: FragmentWriter.TrackPart, samples: ArraySlice<PendingSample>)] = []
        for i in cut.indices where cut[i] > 0 {
            let samples = held[i][0..<cut[i]]
            if plan.cmaf, inputs[i].mediaType == .video, let first = samples.first, !first.isSync {
                throw MediaError(.unsupported, "\(states[i].label): a CMAF fragment starts with a sync sample; its sample at "
                                 + "\(String(format: "%.3f", time(first, states[i]).seconds)) s, where track \(lead + 1)'s fragment starts, is not one")
            }
            parts += try trackParts(samples, input: i, inputs[i], states[i]).map { (i, $0.0, $0.1) }
        }
        try out.finish()
        let start = file.size
        let groups = plan.cmaf ? parts.map { [$0] } : [parts]
        var size: UInt64 = 0
        for group in groups {
            sequence += 1
            let moofOffset = file.size
            try file.write(try FragmentWriter.fragmentHeader(sequence: sequence, parts: group.map(\.part)))
            for p in group { try out.samples(p.samples) }
            try out.finish()
            index.addTrackFragments(group.map { (trackID: $0.part.trackID, time: $0.part.baseDecodeTime) }, moofOffset: moofOffset)
            size = file.size - start
        }
        let leadSamples = held[lead][0..<cut[lead]]
        if let first = leadSamples.first {
            let earliest = (leadSamples.map { $0.decodeTime.addingReportingOverflow($0.compositionOffset).partialValue }.min() ?? first.decodeTime)
                .addingReportingOverflow(shifts[lead] ?? 0).partialValue
            index.addSegment(size: size, duration: UInt64(clamping: leadSamples.reduce(0) { $0 + $1.duration }),
                             earliest: UInt64(clamping: max(0, earliest.subtractingReportingOverflow(states[lead].firstDecodeTime ?? 0).partialValue
                                .addingReportingOverflow(startTicks(states[lead])).partialValue)),
                             startsWithSync: first.isSync)
        }
    }

    /// `samples` of input `i` as track parts, one per run of a sample description.
    private func trackParts(_ samples: ArraySlice<PendingSample>, input i: Int, _ input: AssetWriterInput,
                            _ state: InputState) throws -> [(FragmentWriter.TrackPart, ArraySlice<PendingSample>)] {
        var parts: [(FragmentWriter.TrackPart, ArraySlice<PendingSample>)] = []
        if shifts[i] == nil { shifts[i] = max(0, -(samples.map(\.compositionOffset).min() ?? 0)) }
        let shift = shifts[i] ?? 0
        var start = samples.startIndex
        while start < samples.endIndex {
            var end = start + 1
            while end < samples.endIndex && samples[end].descriptionIndex == samples[start].descriptionIndex { end += 1 }
            let run = samples[start..<end]
            let base = run.first!.decodeTime.subtractingReportingOverflow(state.firstDecodeTime ?? 0).partialValue
                .addingReportingOverflow(startTicks(state)).partialValue
            var part = FragmentWriter.TrackPart(trackID: UInt32(clamping: i + 1), descriptionIndex: run.first!.descriptionIndex,
                                                baseDecodeTime: UInt64(clamping: max(0, base)), samples: try run.map { try entry($0, state, shift: shift) })
            part.encryption = input.passthrough?.encryption?.samples(counts[i]..<(counts[i] + run.count))
            counts[i] += run.count
            durations[i] += UInt64(clamping: run.reduce(0) { $0 + $1.duration })
            parts.append((part, run))
            start = end
        }
        return parts
    }

    /// `initialSegmentStartTime` in `state`'s timescale.
    private func startTicks(_ state: InputState) -> Int64 {
        plan.startTime.isNumeric ? plan.startTime.convertScale(max(1, state.timescale)).value : 0
    }

    /// A sample's `trun` entry.
    private func entry(_ s: PendingSample, _ state: InputState, shift: Int64) throws -> TrackRun.Sample {
        guard let size = UInt32(exactly: s.length), let duration = UInt32(exactly: max(0, s.duration)),
              let offset = Int32(exactly: s.compositionOffset.addingReportingOverflow(shift).partialValue) else {
            throw MediaError(.unsupported, "\(state.label): a sample of \(s.length) bytes, \(s.duration) ticks long, shown \(s.compositionOffset) "
                             + "ticks after it is decoded, does not fit a fragment's sample fields")
        }
        var flags = s.isSync ? FragmentWriter.syncSampleFlags : FragmentWriter.nonSyncSampleFlags
        if let d = s.dependency { flags = UInt32(widening: d) << 20 | (s.isSync ? 0 : 0x1_0000) }
        return TrackRun.Sample(duration: duration, size: size, flags: flags, compositionOffset: offset)
    }

    /// CMAF has no empty edit: a track shown after the movie's start (an empty edit, then one of
    /// media: a source track that starts late) gets the delay in its decode times instead —
    /// every `tfdt` of it moved (one track per CMAF fragment: each its `moof`'s first) — and
    /// the empty edit is left out.
    private func moveDelays(_ edits: [EditList?], _ states: [InputState], lead: Int?) throws {
        for (i, list) in edits.enumerated() {
            guard let entries = list?.entries, entries.count == 2, entries[0].isEmpty, !entries[1].isEmpty else { continue }
            let ticks = UInt64(clamping: MediaTime(value: Int64(clamping: entries[0].segmentDuration), timescale: movieTimeScale)
                .convertScale(max(1, states[i].timescale)).value)
            let id = UInt32(clamping: i + 1)
            for f in index.fragments(of: id) {
                var w = BoxWriter()
                w.u64(f.time &+ ticks)
                try file.write(w.bytes, at: f.moofOffset + UInt64(clamping: FragmentWriter.firstDecodeTimeOffset))
            }
            index.delay(id, by: ticks, isLead: i == lead)
        }
    }

    /// CMAF tracks have at most one edit, showing the media from an offset (the first frame's
    /// composition time): a track cut into several segments, or with an empty edit that is not
    /// a leading delay (`moveDelays`), is refused by name.
    static func checkCMAFEdits(_ edits: [EditList?], _ states: [InputState]) throws {
        for (list, state) in zip(edits, states) {
            let entries = list?.entries ?? []
            if entries.count > 1 || entries.contains(where: \.isEmpty) {
                throw MediaError(.unsupported, "\(state.label) has \(entries.count) edits (an empty one or several segments), which CMAF cannot "
                                 + "express (at most one edit, from an offset): write it plain, or trim it smart")
            }
        }
    }
}

/// What `sidx` and `mfra` need of the fragments written.
struct FragmentIndex {
    var segments: [FragmentWriter.Reference] = []
    private var fragments: [(trackID: UInt32, time: UInt64, moofOffset: UInt64)] = []

    mutating func addSegment(size: UInt64, duration: UInt64, earliest: UInt64, startsWithSync: Bool) {
        segments.append(.init(size: size, duration: duration, earliestPresentationTime: earliest, startsWithSync: startsWithSync))
    }

    mutating func addTrackFragments(_ parts: [(trackID: UInt32, time: UInt64)], moofOffset: UInt64) {
        for p in parts where !fragments.contains(where: { $0.trackID == p.trackID && $0.moofOffset == moofOffset }) {
            fragments.append((p.trackID, p.time, moofOffset))
        }
    }

    /// Track `trackID`'s fragments: their first decode time and `moof` offset.
    func fragments(of trackID: UInt32) -> [(time: UInt64, moofOffset: UInt64)] {
        fragments.filter { $0.trackID == trackID }.map { ($0.time, $0.moofOffset) }
    }

    /// Moves track `trackID`'s decode times (and the segments', when it is the indexed track) by `ticks`.
    mutating func delay(_ trackID: UInt32, by ticks: UInt64, isLead: Bool) {
        for k in fragments.indices where fragments[k].trackID == trackID { fragments[k].time &+= ticks }
        if isLead { for k in segments.indices { segments[k].earliestPresentationTime &+= ticks } }
    }

    /// `tfra` entries per track: each fragment's first sample, its `moof` moved by `shift`.
    func randomAccessEntries(shift: UInt64) -> [(trackID: UInt32, entries: [(time: UInt64, moofOffset: UInt64)])] {
        let ids = Array(Set(fragments.map(\.trackID))).sorted()
        return ids.map { id in (id, fragments.filter { $0.trackID == id }.map { ($0.time, $0.moofOffset + shift) }) }
    }
}
