import MediaCore

/// Writes the `moov` of a movie from the same models the reader produces, so that
/// read → write → read gives back equal structures. Box versions are chosen by
/// the values: 64-bit fields only where a value needs them, `co64` only when an
/// offset does, `ctts` version 1 only when an offset is negative.
public enum MovieWriter {
    /// The `moov` box for `header`, `tracks` (in order) and the movie's other boxes (`udta`, `meta`, …).
    public static func movieBox(header: MovieHeader, tracks: [Track], otherBoxes: [RawBox] = []) -> [UInt8] {
        var w = BoxWriter()
        w.box("moov") { w in
            write(header, to: &w)
            for t in tracks { write(t, to: &w) }
            for b in otherBoxes { w.append(b.bytes) }
        }
        return w.bytes
    }

    /// Whether a header needs version 1: a creation or modification time that does not fit 32
    /// bits (all ones included: a version-1 time stays 64-bit), or a duration that does not, but
    /// for all ones ("unknown"), which version 0 writes as its own all ones.
    static func needs64(creation: UInt64, modification: UInt64, duration: UInt64) -> Bool {
        creation > UInt64(widening: UInt32.max) || modification > UInt64(widening: UInt32.max) || (duration > UInt64(widening: UInt32.max) && duration != .max)
    }

    /// A version-0 field: `value` when it fits 32 bits (what `needs64` said), else all ones.
    static func u32(_ value: UInt64) -> UInt32 { UInt32(exactly: value) ?? .max }

    public static func write(_ h: MovieHeader, to w: inout BoxWriter) {
        let v1 = needs64(creation: h.creationTime, modification: h.modificationTime, duration: h.duration)
        w.fullBox("mvhd", version: v1 ? 1 : 0, flags: 0) { w in
            if v1 { w.u64(h.creationTime); w.u64(h.modificationTime); w.u32(h.timescale); w.u64(h.duration) }
            else { w.u32(u32(h.creationTime)); w.u32(u32(h.modificationTime)); w.u32(h.timescale); w.u32(u32(h.duration)) }
            w.i32(h.rate); w.i16(h.volume); w.zeros(10)
            for v in h.matrix { w.i32(v) }
            w.zeros(24)
            w.u32(h.nextTrackID)
        }
    }

    public static func write(_ t: Track, to w: inout BoxWriter) {
        w.box("trak") { w in
            write(t.header, to: &w)
            if !t.references.isEmpty {
                w.box("tref") { w in
                    for r in t.references {
                        w.box(r.type) { w in for id in r.trackIDs { w.u32(id) } }
                    }
                }
            }
            if let edits = t.editList {
                w.box("edts") { w in write(edits, to: &w) }
            }
            w.box("mdia") { w in
                write(t.mediaHeader, to: &w)
                write(t.handler, to: &w)
                if let elng = t.extendedLanguage {
                    w.fullBox("elng", version: 0, flags: 0) { w in w.append(Array(elng.utf8)); w.u8(0) }
                }
                w.box("minf") { w in
                    var boxes = t.mediaInformationBoxes
                    if !boxes.contains(where: { $0.type == "dinf" }) { boxes.append(dataInformation) }
                    for b in boxes { w.append(b.bytes) }
                    write(t.sampleTable, to: &w)
                }
                for b in t.otherMediaBoxes { w.append(b.bytes) }
            }
            for b in t.otherTrackBoxes { w.append(b.bytes) }
        }
    }

    /// `dinf/dref` with one self-contained `url ` entry.
    public static let dataInformation: RawBox = {
        var w = BoxWriter()
        w.box("dinf") { w in
            w.fullBox("dref", version: 0, flags: 0) { w in
                w.u32(1)
                w.fullBox("url ", version: 0, flags: 1) { _ in }
            }
        }
        return RawBox(type: "dinf", bytes: w.bytes)
    }()

    public static func write(_ h: TrackHeader, to w: inout BoxWriter) {
        let v1 = needs64(creation: h.creationTime, modification: h.modificationTime, duration: h.duration)
        w.fullBox("tkhd", version: v1 ? 1 : 0, flags: h.flags) { w in
            if v1 { w.u64(h.creationTime); w.u64(h.modificationTime); w.u32(h.trackID); w.u32(0); w.u64(h.duration) }
            else { w.u32(u32(h.creationTime)); w.u32(u32(h.modificationTime)); w.u32(h.trackID); w.u32(0); w.u32(u32(h.duration)) }
            w.zeros(8)
            w.i16(h.layer); w.i16(h.alternateGroup); w.i16(h.volume); w.zeros(2)
            for v in h.matrix { w.i32(v) }
            w.u32(h.width); w.u32(h.height)
        }
    }

    public static func write(_ e: EditList, to w: inout BoxWriter) {
        let v1 = e.entries.contains { $0.segmentDuration > UInt64(widening: UInt32.max) || $0.mediaTime > Int64(widening: Int32.max) || $0.mediaTime < Int64(widening: Int32.min) }
        w.fullBox("elst", version: v1 ? 1 : 0, flags: 0) { w in
            w.u32(UInt32(clamping: e.entries.count))
            for x in e.entries {
                if v1 { w.u64(x.segmentDuration); w.i64(x.mediaTime) }
                else { w.u32(UInt32(truncatingIfNeeded: x.segmentDuration)); w.i32(Int32(truncatingIfNeeded: x.mediaTime)) }
                w.i16(x.rateInteger); w.i16(x.rateFraction)
            }
        }
    }

    public static func write(_ h: MediaHeader, to w: inout BoxWriter) {
        let v1 = needs64(creation: h.creationTime, modification: h.modificationTime, duration: h.duration)
        w.fullBox("mdhd", version: v1 ? 1 : 0, flags: 0) { w in
            if v1 { w.u64(h.creationTime); w.u64(h.modificationTime); w.u32(h.timescale); w.u64(h.duration) }
            else { w.u32(u32(h.creationTime)); w.u32(u32(h.modificationTime)); w.u32(h.timescale); w.u32(u32(h.duration)) }
            w.u16(h.languageCode); w.u16(h.quality)
        }
    }

    public static func write(_ h: HandlerBox, to w: inout BoxWriter) {
        w.fullBox("hdlr", version: 0, flags: 0) { w in
            if let payload = h.payload, h.payloadIsCurrent { w.append(payload); return }
            w.fourCC(h.componentType); w.fourCC(h.handlerType); w.zeros(12)
            let name = Array(h.name.utf8)
            if h.isPascalName {
                w.u8(UInt8(truncatingIfNeeded: min(name.count, 255))); w.append(name.prefix(255))
            } else {
                w.append(name); w.u8(0)
            }
        }
    }

    public static func write(_ t: SampleTable, to w: inout BoxWriter) {
        w.box("stbl") { w in
            w.fullBox("stsd", version: 0, flags: 0) { w in
                w.u32(UInt32(clamping: t.sampleEntries.count))
                for e in t.sampleEntries { w.append(e.bytes) }
            }
            w.fullBox("stts", version: 0, flags: 0) { w in
                w.u32(UInt32(clamping: t.timeToSample.count))
                for e in t.timeToSample { w.u32(e.count); w.u32(e.delta) }
            }
            if let ctts = t.compositionOffsets {
                let v1 = t.compositionOffsetsVersion == 1 || ctts.contains { $0.offset < 0 }
                w.fullBox("ctts", version: v1 ? 1 : 0, flags: 0) { w in
                    w.u32(UInt32(clamping: ctts.count))
                    for e in ctts { w.u32(e.count); w.i32(e.offset) }
                }
            }
            if let stss = t.syncSamples {
                w.fullBox("stss", version: 0, flags: 0) { w in
                    w.u32(UInt32(clamping: stss.count))
                    for s in stss { w.u32(s) }
                }
            }
            if let sdtp = t.dependencies {
                w.fullBox("sdtp", version: 0, flags: 0) { w in w.append(sdtp) }
            }
            w.fullBox("stsc", version: 0, flags: 0) { w in
                w.u32(UInt32(clamping: t.sampleToChunk.count))
                for e in t.sampleToChunk { w.u32(e.firstChunk); w.u32(e.samplesPerChunk); w.u32(e.sampleDescriptionIndex) }
            }
            w.fullBox("stsz", version: 0, flags: 0) { w in
                w.u32(t.constantSampleSize)
                w.u32(UInt32(clamping: t.sampleCount))
                if t.constantSampleSize == 0 { for s in t.sampleSizes { w.u32(s) } }
            }
            let wide = t.chunkOffsets.contains { $0 > UInt64(widening: UInt32.max) }
            w.fullBox(wide ? "co64" : "stco", version: 0, flags: 0) { w in
                w.u32(UInt32(clamping: t.chunkOffsets.count))
                for o in t.chunkOffsets { if wide { w.u64(o) } else { w.u32(UInt32(truncatingIfNeeded: o)) } }
            }
            for b in t.otherBoxes { w.append(b.bytes) }
            t.encryption?.write(to: &w)
        }
    }
}

/// Builds a `SampleTable` one sample and one chunk at a time, keeping runs as runs.
public struct SampleTableBuilder: Sendable {
    public private(set) var table = SampleTable()
    private var previousDecodeTime: Int64?
    private var sawNonSync = false
    private var sawDependency = false
    private var pendingDependencies: [UInt8] = []
    private var lastChunkCount: UInt32 = 0
    private var lastChunkDescription: UInt32 = 0

    public init(sampleEntries: [SampleEntry] = []) {
        table.sampleEntries = sampleEntries
    }

    public mutating func addSampleEntry(_ entry: SampleEntry) { table.sampleEntries.append(entry) }

    /// Adds a sample in decode order. The previous sample's `stts` delta is the distance
    /// between the two decode times; the last sample keeps `duration`.
    /// - Throws: `.invalidData` when decode times go backwards or an offset does not fit 32 bits.
    public mutating func addSample(size: UInt32, decodeTime: Int64, compositionOffset: Int64, duration: Int64,
                                   isSync: Bool, dependency: UInt8?) throws {
        if let previous = previousDecodeTime {
            let delta = decodeTime - previous
            guard delta >= 0, delta <= Int64(widening: UInt32.max) else {
                throw MediaError(.invalidData, "decode time \(decodeTime) after \(previous): decode times must increase")
            }
            appendDelta(UInt32(truncatingIfNeeded: delta))
        }
        previousDecodeTime = decodeTime
        pendingDuration = duration
        guard let cto = Int32(exactly: compositionOffset) else {
            throw MediaError(.invalidData, "composition offset \(compositionOffset) does not fit in 32 bits")
        }
        if cto != 0 && table.compositionOffsets == nil {
            table.compositionOffsets = table.sampleCount > 0 ? [.init(count: UInt32(clamping: table.sampleCount), offset: 0)] : []
        }
        if table.compositionOffsets != nil {
            if let last = table.compositionOffsets!.last, last.offset == cto {
                table.compositionOffsets![table.compositionOffsets!.count - 1].count += 1
            } else {
                table.compositionOffsets!.append(.init(count: 1, offset: cto))
            }
            if cto < 0 { table.compositionOffsetsVersion = 1 }
        }
        table.sampleSizes.append(size)
        table.sampleCount += 1
        if isSync {
            if sawNonSync { table.syncSamples!.append(UInt32(clamping: table.sampleCount)) }
        } else if !sawNonSync {
            sawNonSync = true
            table.syncSamples = (1..<UInt32(clamping: table.sampleCount)).map { $0 }
        }
        if dependency != nil { sawDependency = true }
        pendingDependencies.append(dependency ?? 0)
    }

    private var pendingDuration: Int64 = 0

    private mutating func appendDelta(_ delta: UInt32) {
        if let last = table.timeToSample.last, last.delta == delta {
            table.timeToSample[table.timeToSample.count - 1].count += 1
        } else {
            table.timeToSample.append(.init(count: 1, delta: delta))
        }
    }

    /// Records a chunk of the last `sampleCount` samples added, at `offset`.
    public mutating func addChunk(offset: UInt64, sampleCount: Int, descriptionIndex: UInt32) {
        table.chunkOffsets.append(offset)
        let n = UInt32(clamping: sampleCount)
        if n != lastChunkCount || descriptionIndex != lastChunkDescription {
            table.sampleToChunk.append(.init(firstChunk: UInt32(clamping: table.chunkOffsets.count), samplesPerChunk: n,
                                             sampleDescriptionIndex: descriptionIndex))
            lastChunkCount = n
            lastChunkDescription = descriptionIndex
        }
    }

    /// The finished table: the last sample's duration added, sizes made constant where they are.
    public func finished() -> SampleTable {
        var copy = self
        if copy.previousDecodeTime != nil {
            copy.appendDelta(UInt32(clamping: max(0, copy.pendingDuration)))
        }
        var t = copy.table
        if let first = t.sampleSizes.first, t.sampleSizes.allSatisfy({ $0 == first }), first != 0 {
            t.constantSampleSize = first
            t.sampleSizes = []
        }
        if copy.sawDependency { t.dependencies = copy.pendingDependencies }
        return t
    }

    /// Sum of durations so far, the last sample's included.
    public var duration: UInt64 {
        table.totalDuration + (previousDecodeTime == nil ? 0 : UInt64(clamping: max(0, pendingDuration)))
    }
}

extension FileTypeBox {
    /// `ftyp` (ISO/IEC 14496-12 §4.3).
    public func write(to w: inout BoxWriter) {
        w.box("ftyp") { w in
            w.fourCC(majorBrand)
            w.u32(minorVersion)
            for b in compatibleBrands { w.fourCC(b) }
        }
    }
}
