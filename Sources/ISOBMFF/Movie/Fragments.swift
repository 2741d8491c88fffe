import MediaCore

/// `trex`: a track's defaults for movie fragments.
public struct TrackExtends: Sendable, Hashable {
    public var trackID: UInt32
    public var sampleDescriptionIndex: UInt32
    public var sampleDuration: UInt32
    public var sampleSize: UInt32
    public var sampleFlags: UInt32

    static func parse(_ r: inout ByteReader) throws -> TrackExtends {
        try r.skip(4, "version and flags")
        return TrackExtends(trackID: try r.u32("track ID"), sampleDescriptionIndex: try r.u32(),
                            sampleDuration: try r.u32(), sampleSize: try r.u32(), sampleFlags: try r.u32())
    }
}

/// Sample flags of fragments (ISO/IEC 14496-12 8.8.3.1).
public enum SampleFlags {
    public static func isNonSync(_ flags: UInt32) -> Bool { flags & 0x0001_0000 != 0 }
    /// The `sdtp`-style byte (is_leading, depends_on, is_depended_on, has_redundancy).
    public static func dependencyByte(_ flags: UInt32) -> UInt8 { UInt8(truncatingIfNeeded: (flags >> 20) & 0xFF) }
}

/// One `trun`: a run of contiguous samples.
public struct TrackRun: Sendable, Hashable {
    public struct Sample: Sendable, Hashable {
        public var duration: UInt32
        public var size: UInt32
        public var flags: UInt32
        public var compositionOffset: Int32

        public init(duration: UInt32, size: UInt32, flags: UInt32, compositionOffset: Int32) {
            self.duration = duration
            self.size = size
            self.flags = flags
            self.compositionOffset = compositionOffset
        }
    }
    public var version: UInt8
    public var flags: UInt32
    public var dataOffset: Int32?
    public var samples: [Sample]
}

/// One `traf`: a track's part of a movie fragment, with defaults resolved.
public struct TrackFragment: Sendable, Hashable {
    /// File offset of the `moof` this fragment is in (the base of its data offsets).
    public var moofOffset: UInt64 = 0
    public var trackID: UInt32
    public var tfhdFlags: UInt32
    public var baseDataOffset: UInt64?
    public var sampleDescriptionIndex: UInt32?
    public var baseMediaDecodeTime: UInt64?
    public var runs: [TrackRun]
    public var otherBoxes: [RawBox]

    public var sampleCount: Int { runs.reduce(0) { $0 + $1.samples.count } }
    public var duration: UInt64 { runs.reduce(0) { $0 + $1.samples.reduce(0) { $0 + UInt64(widening: $1.duration) } } }
}

/// One `moof` and where it sits in the file.
public struct MovieFragment: Sendable, Hashable {
    public var offset: UInt64
    public var sequenceNumber: UInt32
    public var trackFragments: [TrackFragment]

    static func parse(_ payload: ByteReader, offset: UInt64, defaults: [UInt32: TrackExtends]) throws -> MovieFragment {
        var fragment = MovieFragment(offset: offset, sequenceNumber: 0, trackFragments: [])
        var it = BoxIterator(payload)
        while let (header, child) = try it.next() {
            var r = child
            switch header.type {
            case "mfhd":
                try r.skip(4, "version and flags")
                fragment.sequenceNumber = try r.u32("sequence number")
            case "traf":
                var traf = try parseTrackFragment(child, defaults: defaults)
                traf.moofOffset = offset
                fragment.trackFragments.append(traf)
            default:
                break
            }
        }
        return fragment
    }

    static func parseTrackFragment(_ payload: ByteReader, defaults: [UInt32: TrackExtends]) throws -> TrackFragment {
        var traf = TrackFragment(trackID: 0, tfhdFlags: 0, runs: [], otherBoxes: [])
        var it = BoxIterator(payload)
        var defaultDuration: UInt32 = 0, defaultSize: UInt32 = 0, defaultFlags: UInt32 = 0
        var sawHeader = false
        while let (header, child) = try it.next() {
            var r = child
            switch header.type {
            case "tfhd":
                try r.skip(1, "version")
                let flags = try r.u24("flags")
                traf.tfhdFlags = flags
                traf.trackID = try r.u32("track ID")
                guard let trex = defaults[traf.trackID] else {
                    throw r.fail("track \(traf.trackID) has no 'trex' in moov/mvex")
                }
                defaultDuration = trex.sampleDuration
                defaultSize = trex.sampleSize
                defaultFlags = trex.sampleFlags
                if flags & 0x1 != 0 { traf.baseDataOffset = try r.u64("base data offset") }
                if flags & 0x2 != 0 { traf.sampleDescriptionIndex = try r.u32("sample description index") }
                if flags & 0x8 != 0 { defaultDuration = try r.u32("default sample duration") }
                if flags & 0x10 != 0 { defaultSize = try r.u32("default sample size") }
                if flags & 0x20 != 0 { defaultFlags = try r.u32("default sample flags") }
                sawHeader = true
            case "tfdt":
                guard sawHeader else { throw r.fail("'tfdt' before 'tfhd'") }
                let version = try r.u8("version")
                try r.skip(3)
                traf.baseMediaDecodeTime = version == 1 ? try r.u64("decode time") : UInt64(widening: try r.u32("decode time"))
            case "trun":
                guard sawHeader else { throw r.fail("'trun' before 'tfhd'") }
                let version = try r.u8("version")
                let flags = try r.u24("flags")
                let n = try r.u32("sample count")
                let dataOffset: Int32? = flags & 0x1 != 0 ? try r.i32("data offset") : nil
                let firstFlags: UInt32? = flags & 0x4 != 0 ? try r.u32("first sample flags") : nil
                let perSample = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt32(truncatingIfNeeded: $0) != 0 }.count * 4
                if perSample > 0 { try r.check(count: UInt64(widening: n), entrySize: perSample, "sample count") }
                else if n > 1_000_000 { throw r.fail(.unsupported, "sample count \(n) with no per-sample fields is more than Splice reads in one run") }
                var samples: [TrackRun.Sample] = []
                samples.reserveCapacity(Int(widening: n))
                for i in 0..<Int(widening: n) {
                    let d = flags & 0x100 != 0 ? try r.u32("sample duration") : defaultDuration
                    let s = flags & 0x200 != 0 ? try r.u32("sample size") : defaultSize
                    var f = flags & 0x400 != 0 ? try r.u32("sample flags") : defaultFlags
                    if i == 0, let firstFlags { f = firstFlags }
                    let c = flags & 0x800 != 0 ? try r.i32("composition offset") : 0
                    samples.append(.init(duration: d, size: s, flags: f, compositionOffset: c))
                }
                traf.runs.append(TrackRun(version: version, flags: flags, dataOffset: dataOffset, samples: samples))
            default:
                traf.otherBoxes.append(RawBox(header: header, payload: child))
            }
        }
        guard sawHeader else { throw MediaError(.invalidData, "'traf' has no 'tfhd'", location: payload.path) }
        return traf
    }
}
