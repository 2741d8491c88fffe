import MediaCore

/// Where one sample is and how it is timed, in the track's media timescale.
public struct SampleInfo: Sendable, Hashable {
    public var offset: UInt64
    public var size: UInt32
    public var decodeTime: Int64
    public var compositionOffset: Int32
    public var duration: UInt32
    public var isSync: Bool
    /// The `sdtp`-style byte, when the file has one for this sample.
    public var dependency: UInt8?
    /// 1-based `stsd` entry index.
    public var descriptionIndex: UInt32
    /// Bytes from this sample's start to the end of its chunk (or run): what one read can fetch.
    public var contiguousBytes: UInt64

    public var presentationTime: Int64 { decodeTime + Int64(widening: compositionOffset) }
}

/// Walks a track's samples in decode order — the `stbl` tables, then its fragments —
/// without expanding the tables. Tables must have passed `SampleTable.validate`.
public struct SampleIterator: IteratorProtocol, Sendable {
    private let table: SampleTable
    private let fragments: [TrackFragment]
    private let trackExtends: TrackExtends?

    // stbl cursor
    private var index = 0
    private var sttsEntry = 0, sttsLeft: UInt32 = 0
    private var cttsEntry = 0, cttsLeft: UInt32 = 0
    private var stssNext = 0
    private var stscEntry = 0
    private var chunk = 0            // 0-based chunk index
    private var leftInChunk = 0
    private var offsetInChunk: UInt64 = 0
    private var chunkEnd: UInt64 = 0
    private var decodeTime: Int64 = 0

    // fragment cursor
    private var fragment = 0, run = 0, sampleInRun = 0
    private var runOffset: UInt64 = 0
    private var nextDataOffset: UInt64 = 0
    private var runEnd: UInt64 = 0

    public init(track: Track, trackExtends: TrackExtends?) {
        self.table = track.sampleTable
        self.fragments = track.fragments
        self.trackExtends = trackExtends
        self.sttsLeft = table.timeToSample.first?.count ?? 0
        self.cttsLeft = table.compositionOffsets?.first?.count ?? 0
        startChunk()
    }

    private mutating func startChunk() {
        while true {
            guard index < table.sampleCount, chunk < table.chunkOffsets.count else { return }
            while stscEntry + 1 < table.sampleToChunk.count && Int(widening: table.sampleToChunk[stscEntry + 1].firstChunk) - 1 <= chunk {
                stscEntry += 1
            }
            leftInChunk = min(Int(widening: table.sampleToChunk[stscEntry].samplesPerChunk), table.sampleCount - index)
            if leftInChunk > 0 { break }
            chunk += 1   // an empty chunk
        }
        offsetInChunk = table.chunkOffsets[chunk]
        chunkEnd = offsetInChunk
        for i in index..<(index + leftInChunk) { chunkEnd &+= UInt64(widening: table.size(ofSample: i)) }
    }

    public mutating func next() -> SampleInfo? {
        if index < table.sampleCount { return nextFromTable() }
        return nextFromFragments()
    }

    private mutating func nextFromTable() -> SampleInfo? {
        while sttsLeft == 0 && sttsEntry + 1 < table.timeToSample.count {
            sttsEntry += 1
            sttsLeft = table.timeToSample[sttsEntry].count
        }
        let duration = table.timeToSample.isEmpty ? 0 : table.timeToSample[sttsEntry].delta
        sttsLeft &-= 1
        var cto: Int32 = 0
        if let ctts = table.compositionOffsets, !ctts.isEmpty {
            while cttsLeft == 0 && cttsEntry + 1 < ctts.count {
                cttsEntry += 1
                cttsLeft = ctts[cttsEntry].count
            }
            cto = ctts[cttsEntry].offset
            cttsLeft &-= 1
        }
        var sync = true
        if let stss = table.syncSamples {
            sync = stssNext < stss.count && Int(widening: stss[stssNext]) == index + 1
            if sync { stssNext += 1 }
        }
        let size = table.size(ofSample: index)
        let info = SampleInfo(
            offset: offsetInChunk, size: size, decodeTime: decodeTime, compositionOffset: cto, duration: duration,
            isSync: sync, dependency: table.dependencies.flatMap { index < $0.count ? $0[index] : nil },
            descriptionIndex: table.sampleToChunk[stscEntry].sampleDescriptionIndex,
            contiguousBytes: chunkEnd &- offsetInChunk)
        decodeTime &+= Int64(widening: duration)
        offsetInChunk &+= UInt64(widening: size)
        index += 1
        leftInChunk -= 1
        if leftInChunk == 0 {
            chunk += 1
            startChunk()
        }
        return info
    }

    private mutating func nextFromFragments() -> SampleInfo? {
        while fragment < fragments.count {
            let traf = fragments[fragment]
            if run >= traf.runs.count {
                fragment += 1
                run = 0
                sampleInRun = 0
                continue
            }
            let r = traf.runs[run]
            if sampleInRun == 0 {
                if run == 0 {
                    if let t = traf.baseMediaDecodeTime { decodeTime = Int64(clamping: t) }
                    nextDataOffset = traf.baseDataOffset ?? traf.moofOffset
                }
                let base = traf.baseDataOffset ?? traf.moofOffset
                if let d = r.dataOffset {
                    runOffset = UInt64(bitPattern: Int64(bitPattern: base) &+ Int64(widening: d))
                } else {
                    runOffset = nextDataOffset
                }
                runEnd = r.samples.reduce(runOffset) { $0 &+ UInt64(widening: $1.size) }
            }
            guard sampleInRun < r.samples.count else {
                run += 1
                sampleInRun = 0
                continue
            }
            let s = r.samples[sampleInRun]
            let dependency = SampleFlags.dependencyByte(s.flags)
            let info = SampleInfo(
                offset: runOffset, size: s.size, decodeTime: decodeTime, compositionOffset: s.compositionOffset,
                duration: s.duration, isSync: !SampleFlags.isNonSync(s.flags),
                dependency: dependency == 0 ? nil : dependency,
                descriptionIndex: traf.sampleDescriptionIndex ?? trackExtends?.sampleDescriptionIndex ?? 1,
                contiguousBytes: runEnd &- runOffset)
            runOffset &+= UInt64(widening: s.size)
            nextDataOffset = runOffset
            decodeTime &+= Int64(widening: s.duration)
            sampleInRun += 1
            return info
        }
        return nil
    }
}
