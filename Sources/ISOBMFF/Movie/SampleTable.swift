import MediaCore

/// The sample tables of a track (`stbl`), kept compact: runs stay runs.
public struct SampleTable: Sendable, Hashable {
    public struct TimeToSample: Sendable, Hashable {
        public var count: UInt32
        public var delta: UInt32
        public init(count: UInt32, delta: UInt32) { self.count = count; self.delta = delta }
    }
    public struct CompositionOffset: Sendable, Hashable {
        public var count: UInt32
        /// Signed: version 1 allows negative offsets, and many version-0 files use them too.
        public var offset: Int32
        public init(count: UInt32, offset: Int32) { self.count = count; self.offset = offset }
    }
    public struct SampleToChunk: Sendable, Hashable {
        public var firstChunk: UInt32
        public var samplesPerChunk: UInt32
        public var sampleDescriptionIndex: UInt32
        public init(firstChunk: UInt32, samplesPerChunk: UInt32, sampleDescriptionIndex: UInt32) {
            self.firstChunk = firstChunk
            self.samplesPerChunk = samplesPerChunk
            self.sampleDescriptionIndex = sampleDescriptionIndex
        }
    }

    public var sampleEntries: [SampleEntry] = []
    public var timeToSample: [TimeToSample] = []
    public var compositionOffsets: [CompositionOffset]? = nil
    public var compositionOffsetsVersion: UInt8 = 0
    /// 1-based sync sample numbers; `nil` when every sample is a sync sample.
    public var syncSamples: [UInt32]? = nil
    public var sampleToChunk: [SampleToChunk] = []
    /// Non-zero when every sample has this size.
    public var constantSampleSize: UInt32 = 0
    public var sampleSizes: [UInt32] = []
    public var sampleCount: Int = 0
    public var chunkOffsets: [UInt64] = []
    /// `sdtp`, one byte per sample.
    public var dependencies: [UInt8]? = nil
    /// Other `stbl` children (`sgpd`, `sbgp`, `subs`, …), byte-exact.
    public var otherBoxes: [RawBox] = []
    /// Auxiliary encryption information to write (`senc`, `saiz`, `saio`), for a protected copy.
    public var encryption: SampleEncryption?

    public init() {}

    /// How many samples refer to each sample description (1-based), from `stsc` and the chunk
    /// count; never more than `sampleCount` in all.
    public func sampleCountsByDescription() -> [UInt32: Int] {
        var counts: [UInt32: Int] = [:]
        var left = sampleCount
        for (k, run) in sampleToChunk.enumerated() where left > 0 {
            let end = k + 1 < sampleToChunk.count ? UInt64(widening: sampleToChunk[k + 1].firstChunk) : UInt64(clamping: chunkOffsets.count) + 1
            let chunks = end > UInt64(widening: run.firstChunk) ? end - UInt64(widening: run.firstChunk) : 0
            let n = min(UInt64(clamping: left), chunks.multipliedReportingOverflow(by: UInt64(widening: run.samplesPerChunk)).partialValue)
            counts[run.sampleDescriptionIndex, default: 0] += Int(clamping: n)
            left -= Int(clamping: n)
        }
        return counts
    }

    public func size(ofSample index: Int) -> UInt32 {
        constantSampleSize != 0 ? constantSampleSize : sampleSizes[index]
    }

    /// Sum of all sample durations, in the media timescale.
    public var totalDuration: UInt64 {
        timeToSample.reduce(0) { $0 &+ UInt64(widening: $1.count) * UInt64(widening: $1.delta) }
    }

    static func parse(_ payload: ByteReader, handler: FourCC) throws -> SampleTable {
        var t = SampleTable()
        var it = BoxIterator(payload)
        var sdtp: ByteReader?
        while let (header, child) = try it.next() {
            var r = child
            switch header.type {
            case "stsd":
                t.sampleEntries = try parseSampleDescriptions(&r, handler: handler)
            case "stts":
                try r.skip(4, "version and flags")
                let n = try r.count(entrySize: 8)
                t.timeToSample.reserveCapacity(n)
                for _ in 0..<n { t.timeToSample.append(TimeToSample(count: try r.u32(), delta: try r.u32())) }
            case "ctts":
                t.compositionOffsetsVersion = try r.u8("version")
                try r.skip(3, "flags")
                let n = try r.count(entrySize: 8)
                var entries: [CompositionOffset] = []
                entries.reserveCapacity(n)
                for _ in 0..<n { entries.append(CompositionOffset(count: try r.u32(), offset: try r.i32())) }
                t.compositionOffsets = entries
            case "stss":
                try r.skip(4, "version and flags")
                let n = try r.count(entrySize: 4)
                var entries: [UInt32] = []
                entries.reserveCapacity(n)
                for _ in 0..<n { entries.append(try r.u32("sample number")) }
                t.syncSamples = entries
            case "stsc":
                try r.skip(4, "version and flags")
                let n = try r.count(entrySize: 12)
                t.sampleToChunk.reserveCapacity(n)
                for _ in 0..<n {
                    t.sampleToChunk.append(SampleToChunk(firstChunk: try r.u32(), samplesPerChunk: try r.u32(),
                                                         sampleDescriptionIndex: try r.u32()))
                }
            case "stsz":
                try t.parseSampleSizes(&r)
            case "stz2":
                try t.parseCompactSampleSizes(&r)
            case "stco", "co64":
                try t.parseChunkOffsets(&r, wide: header.type == "co64")
            case "sdtp":
                sdtp = r
            default:
                t.otherBoxes.append(RawBox(header: header, payload: child))
            }
        }
        if var r = sdtp {
            try r.skip(4, "version and flags")
            // One byte per sample; the count comes from stsz.
            t.dependencies = Array(r.rest().prefix(t.sampleCount))
        }
        try t.validate(path: payload.path)
        return t
    }

    /// `stsd`: the sample entries, each parsed for what Splice reads of it and kept byte-exact.
    private static func parseSampleDescriptions(_ r: inout ByteReader, handler: FourCC) throws -> [SampleEntry] {
        try r.skip(4, "version and flags")
        let n = try r.count(entrySize: 8)
        var entries = BoxIterator(r)
        var result: [SampleEntry] = []
        for _ in 0..<n {
            guard let (eh, e) = try entries.next() else {
                throw r.fail("entry count \(n) but fewer entries")
            }
            result.append(try SampleEntry(bytes: RawBox(header: eh, payload: e).bytes, handler: handler))
        }
        return result
    }

    /// `stco` (32-bit) or `co64` (64-bit) chunk offsets.
    private mutating func parseChunkOffsets(_ r: inout ByteReader, wide: Bool) throws {
        try r.skip(4, "version and flags")
        let n = try r.count(entrySize: wide ? 8 : 4)
        chunkOffsets.reserveCapacity(n)
        for _ in 0..<n { chunkOffsets.append(wide ? try r.u64("chunk offset") : UInt64(widening: try r.u32("chunk offset"))) }
    }

    /// `stsz`: one constant size, or a size per sample.
    private mutating func parseSampleSizes(_ r: inout ByteReader) throws {
        try r.skip(4, "version and flags")
        constantSampleSize = try r.u32("sample size")
        if constantSampleSize == 0 {
            let n = try r.count(entrySize: 4, "sample count")
            sampleSizes.reserveCapacity(n)
            for _ in 0..<n { sampleSizes.append(try r.u32("sample size")) }
            sampleCount = n
        } else {
            sampleCount = Int(widening: try r.u32("sample count"))
        }
    }

    /// `stz2`: sizes packed in 4, 8 or 16 bits.
    private mutating func parseCompactSampleSizes(_ r: inout ByteReader) throws {
        try r.skip(4, "version and flags")
        try r.skip(3)
        let field = try r.u8("field size")
        guard field == 4 || field == 8 || field == 16 else { throw r.fail("field size \(field) is not 4, 8 or 16") }
        let n = Int(widening: try r.u32("sample count"))
        let bytesNeeded = (UInt64(clamping: n) * UInt64(clamping: field) + 7) / 8
        if bytesNeeded > UInt64(clamping: r.remaining) {
            throw r.fail("sample count \(n) needs \(bytesNeeded) bytes, box has \(r.remaining)")
        }
        sampleSizes.reserveCapacity(n)
        var i = 0
        while i < n {
            switch field {
            case 4:
                let b = try r.u8()
                sampleSizes.append(UInt32(widening: b >> 4))
                if i + 1 < n { sampleSizes.append(UInt32(widening: b & 0xF)) }
                i += 2
            case 8: sampleSizes.append(UInt32(widening: try r.u8())); i += 1
            default: sampleSizes.append(UInt32(widening: try r.u16())); i += 1
            }
        }
        sampleCount = n
    }

    /// One chunk: where it is and which samples it holds.
    public struct Chunk: Sendable, Hashable {
        public var offset: UInt64
        /// Index (0-based) of the chunk's first sample.
        public var firstSample: Int
        public var sampleCount: Int
        /// 1-based `stsd` entry index.
        public var sampleDescriptionIndex: UInt32
    }

    /// Calls `body` for each chunk that holds samples, in chunk order. The tables must have been validated.
    public func forEachChunk(_ body: (Chunk) throws -> Void) rethrows {
        var sample = 0
        for (i, e) in sampleToChunk.enumerated() where sample < sampleCount {
            let next = i + 1 < sampleToChunk.count ? Int(widening: sampleToChunk[i + 1].firstChunk) : chunkOffsets.count + 1
            for chunk in Int(widening: e.firstChunk)..<next where sample < sampleCount {
                let n = min(Int(widening: e.samplesPerChunk), sampleCount - sample)
                try body(Chunk(offset: chunkOffsets[chunk - 1], firstSample: sample, sampleCount: n,
                               sampleDescriptionIndex: e.sampleDescriptionIndex))
                sample += n
            }
        }
    }

    /// Checks that every sample lies inside a file of `fileSize` bytes.
    public func checkSampleData(fileSize: UInt64, path: String) throws {
        if constantSampleSize > 0 {
            // Every sample has the same size: the total must fit in the file, whatever the chunks say.
            let total = UInt64(clamping: sampleCount).multipliedReportingOverflow(by: UInt64(clamping: constantSampleSize))
            if total.overflow || total.partialValue > fileSize {
                throw MediaError(.invalidData, "\(sampleCount) samples of \(constantSampleSize) bytes do not fit in a file of \(fileSize) bytes", location: path + "/stsz")
            }
        }
        try forEachChunk { chunk in
            guard chunk.sampleCount > 0 else { return }   // (an empty chunk's offset points at nothing)
            var end = chunk.offset
            if constantSampleSize > 0 {
                end &+= UInt64(clamping: chunk.sampleCount) &* UInt64(clamping: constantSampleSize)
            } else {
                for i in chunk.firstSample..<(chunk.firstSample + chunk.sampleCount) { end &+= UInt64(widening: sampleSizes[i]) }
            }
            if end > fileSize || end < chunk.offset {
                throw MediaError(.invalidData, "chunk at offset \(chunk.offset) with samples \(chunk.firstSample + 1)–\(chunk.firstSample + chunk.sampleCount) ends at \(end), past the end of the file (\(fileSize) bytes)", location: path + "/stco")
            }
        }
    }

    /// Checks that the tables agree with each other, so that walking them cannot go out of bounds.
    func validate(path: String) throws {
        func fail(_ box: String, _ message: String) -> MediaError {
            MediaError(.invalidData, message, location: path + "/" + box)
        }
        let sttsCount = timeToSample.reduce(UInt64(0)) { $0 + UInt64(widening: $1.count) }
        if sttsCount != UInt64(clamping: sampleCount) {
            throw fail("stts", "covers \(sttsCount) samples, stsz has \(sampleCount)")
        }
        if let ctts = compositionOffsets {
            let n = ctts.reduce(UInt64(0)) { $0 + UInt64(widening: $1.count) }
            if n != UInt64(clamping: sampleCount) { throw fail("ctts", "covers \(n) samples, stsz has \(sampleCount)") }
        }
        if let stss = syncSamples {
            var previous: UInt32 = 0
            for s in stss {
                if s == 0 || s > UInt32(clamping: sampleCount) || s <= previous {
                    throw fail("stss", "sync sample \(s) is out of order or outside 1...\(sampleCount)")
                }
                previous = s
            }
        }
        if sampleCount == 0 { return }
        // The fault where it is: a table that is empty, not the one that refers to it.
        if sampleEntries.isEmpty { throw fail("stsd", "has no sample description, but the track has \(sampleCount) samples") }
        if chunkOffsets.isEmpty { throw fail("stco", "has no chunk offsets, but the track has \(sampleCount) samples") }
        if sampleToChunk.isEmpty { throw fail("stsc", "has no entries, but the track has \(sampleCount) samples") }
        guard let first = sampleToChunk.first, first.firstChunk == 1 else {
            throw fail("stsc", "must start at chunk 1")
        }
        var samples: UInt64 = 0
        for (i, e) in sampleToChunk.enumerated() {
            if e.sampleDescriptionIndex == 0 || Int(widening: e.sampleDescriptionIndex) > sampleEntries.count {
                throw fail("stsc", "sample description index \(e.sampleDescriptionIndex) does not exist (stsd has \(sampleEntries.count))")
            }
            let next = i + 1 < sampleToChunk.count ? sampleToChunk[i + 1].firstChunk : UInt32(clamping: chunkOffsets.count) + 1
            if next <= e.firstChunk || Int(widening: e.firstChunk) > chunkOffsets.count {
                throw fail("stsc", "entry \(i + 1) references chunk \(e.firstChunk), stco has \(chunkOffsets.count) chunks")
            }
            // Entries of 0 samples per chunk (empty chunks) are written by some muxers; players skip them.
            samples += UInt64(widening: next - e.firstChunk) * UInt64(widening: e.samplesPerChunk)
        }
        if samples < UInt64(clamping: sampleCount) {
            let empty = sampleToChunk.filter { $0.samplesPerChunk == 0 }.count
            throw fail("stsc", "its \(chunkOffsets.count) chunks hold \(samples) samples, stsz has \(sampleCount)"
                       + (empty > 0 ? " (\(empty) of its \(sampleToChunk.count) entries give chunks 0 samples)" : ""))
        }
    }
}
