import MediaCore

/// Writes the boxes of a fragmented movie (ISO/IEC 14496-12 §8.8): `mvex` for the movie box, a
/// `moof` per fragment, and the indexes `sidx` (§8.16.3) and `mfra` (§8.8.9). A `moof`'s data
/// offsets count from the `moof` itself (`default-base-is-moof`, as CMAF requires), so a
/// fragment's bytes do not depend on where it lands in the file.
public enum FragmentWriter {
    /// One track's share of a fragment: samples of one sample description, in decode order,
    /// whose data follows in the fragment's `mdat` in this order.
    public struct TrackPart: Sendable {
        public var trackID: UInt32
        public var descriptionIndex: UInt32
        /// The first sample's decode time (`tfdt`), in the media timescale.
        public var baseDecodeTime: UInt64
        public var samples: [TrackRun.Sample]
        /// The samples' auxiliary encryption information (`senc`, `saiz`, `saio`), when protected.
        public var encryption: SampleEncryption?

        public init(trackID: UInt32, descriptionIndex: UInt32, baseDecodeTime: UInt64, samples: [TrackRun.Sample],
                    encryption: SampleEncryption? = nil) {
            self.trackID = trackID
            self.descriptionIndex = descriptionIndex
            self.baseDecodeTime = baseDecodeTime
            self.samples = samples
            self.encryption = encryption
        }

        /// Bytes of sample data.
        public var dataSize: UInt64 { samples.reduce(0) { $0 + UInt64(widening: $1.size) } }
    }

    /// `sample_flags` of a sync sample (depends on no other) and of any other sample (depends on
    /// others; `sample_is_non_sync_sample`), §8.8.3.1.
    public static let syncSampleFlags: UInt32 = 0x0200_0000
    public static let nonSyncSampleFlags: UInt32 = 0x0101_0000

    /// `mvex`: `mehd` (the whole presentation's duration, in the movie timescale) and a `trex` per
    /// track, every default zero but the first sample description.
    public static func movieExtends(duration: UInt64, trackIDs: [UInt32]) -> [UInt8] {
        var w = BoxWriter()
        w.box("mvex") { w in
            w.fullBox("mehd", version: 1, flags: 0) { $0.u64(duration) }
            for id in trackIDs {
                w.fullBox("trex", version: 0, flags: 0) { w in
                    w.u32(id); w.u32(1); w.u32(0); w.u32(0); w.u32(0)
                }
            }
        }
        return w.bytes
    }

    /// Where the first track fragment's decode time (`tfdt`'s 64-bit value) is in what
    /// `fragmentHeader` writes: after `moof`'s header, `mfhd` (16 bytes), `traf`'s header,
    /// `tfhd` (20 bytes) and `tfdt`'s header, version and flags.
    public static let firstDecodeTimeOffset = 8 + 16 + 8 + 20 + 12

    /// A `moof` (sequence number `sequence`) followed by its `mdat` header, for `parts` whose
    /// data follows the header in order.
    /// - Throws: `.unsupported` when a sample's size, duration or composition offset does not fit
    ///   its `trun` field.
    public static func fragmentHeader(sequence: UInt32, parts: [TrackPart]) throws -> [UInt8] {
        let dataSize = parts.reduce(0) { $0 + $1.dataSize }
        let mdatHeader = dataSize + 8 <= UInt64(widening: UInt32.max) ? 8 : 16
        var w = BoxWriter()
        var dataOffsetFields: [Int] = [], auxiliaryFields: [(field: Int, entries: Int)] = []
        w.box("moof") { w in
            w.fullBox("mfhd", version: 0, flags: 0) { $0.u32(sequence) }
            for part in parts {
                w.box("traf") { w in
                    // default-base-is-moof, sample-description-index-present
                    w.fullBox("tfhd", version: 0, flags: 0x02_0002) { w in w.u32(part.trackID); w.u32(part.descriptionIndex) }
                    w.fullBox("tfdt", version: 1, flags: 0) { $0.u64(part.baseDecodeTime) }
                    let negative = part.samples.contains { $0.compositionOffset < 0 }
                    let offsets = negative || part.samples.contains { $0.compositionOffset != 0 }
                    // data-offset, sample-duration, -size, -flags (and composition offsets)
                    w.fullBox("trun", version: negative ? 1 : 0, flags: 0x701 | (offsets ? 0x800 : 0)) { w in
                        w.u32(UInt32(clamping: part.samples.count))
                        dataOffsetFields.append(w.count)
                        w.i32(0)
                        for s in part.samples {
                            w.u32(s.duration); w.u32(s.size); w.u32(s.flags)
                            if offsets { w.i32(s.compositionOffset) }
                        }
                    }
                    if let e = part.encryption { auxiliaryFields.append(writeAuxiliaryInformation(e, to: &w)) }
                }
            }
        }
        // Data offsets: from the moof's first byte to each part's first sample.
        var at = UInt64(clamping: w.count + mdatHeader)
        for (field, part) in zip(dataOffsetFields, parts) {
            guard let offset = Int32(exactly: at) else { throw MediaError(.unsupported, "a fragment's header of \(at) bytes is too large") }
            w.patch(UInt32(bitPattern: offset), at: field)
            at += part.dataSize
        }
        for a in auxiliaryFields { w.patch(UInt32(clamping: a.entries), at: a.field) }
        w.header("mdat", size: dataSize + 8)
        return w.bytes
    }

    /// `senc`, `saiz` and `saio` of a track fragment; returns where `saio`'s offset field is and
    /// where the `senc` entries start (both from the start of `w`, the `moof`).
    private static func writeAuxiliaryInformation(_ e: SampleEncryption, to w: inout BoxWriter) -> (field: Int, entries: Int) {
        var entries = 0
        w.fullBox("senc", version: 0, flags: e.flags) { w in
            w.u32(UInt32(clamping: e.sampleCount))
            entries = w.count
            w.append(e.data)
        }
        let sizes = e.sizes
        let constant = sizes.first.map { first in sizes.allSatisfy { $0 == first } } ?? true
        w.fullBox("saiz", version: 0, flags: 0) { w in
            w.u8(constant ? (sizes.first ?? 0) : 0)
            w.u32(UInt32(clamping: e.sampleCount))
            if !constant { w.append(sizes) }
        }
        var field = 0
        w.fullBox("saio", version: 0, flags: 0) { w in
            w.u32(1)
            field = w.count
            w.u32(0)
        }
        return (field, entries)
    }

    /// One reference of a segment index: a fragment (its `moof` and `mdat`).
    public struct Reference: Sendable {
        public var size: UInt64
        /// Its duration and the earliest presentation time in it, in the index's timescale.
        public var duration: UInt64
        public var earliestPresentationTime: UInt64
        public var startsWithSync: Bool

        public init(size: UInt64, duration: UInt64, earliestPresentationTime: UInt64, startsWithSync: Bool) {
            self.size = size
            self.duration = duration
            self.earliestPresentationTime = earliestPresentationTime
            self.startsWithSync = startsWithSync
        }
    }

    /// `sidx` of one track (version 1): `references` in order, the first `firstOffset` bytes
    /// after the box's end.
    /// - Throws: `.unsupported` when a fragment is 2 GiB or more, or there are more than 65,535.
    public static func segmentIndex(trackID: UInt32, timescale: UInt32, firstOffset: UInt64, references: [Reference]) throws -> [UInt8] {
        guard let count = UInt16(exactly: references.count) else {
            throw MediaError(.unsupported, "\(references.count) fragments are more than one segment index holds (65,535)")
        }
        var w = BoxWriter()
        try w.fullBox("sidx", version: 1, flags: 0) { w in
            w.u32(trackID)
            w.u32(timescale)
            w.u64(references.first?.earliestPresentationTime ?? 0)
            w.u64(firstOffset)
            w.u16(0)
            w.u16(count)
            for r in references {
                guard r.size < 1 << 31, let duration = UInt32(exactly: r.duration) else {
                    throw MediaError(.unsupported, "a fragment of \(r.size) bytes or \(r.duration) ticks is too large for a segment index")
                }
                w.u32(UInt32(truncatingIfNeeded: r.size))   // (reference_type 0: media)
                w.u32(duration)
                w.u32(r.startsWithSync ? 0x9000_0000 : 0)   // starts_with_SAP, SAP type 1
            }
        }
        return w.bytes
    }

    /// `mfra`: for each track the time and file offset of its fragments' first sync samples
    /// (`tfra`, version 1), then `mfro` with the box's size.
    public static func randomAccess(_ tracks: [(trackID: UInt32, entries: [(time: UInt64, moofOffset: UInt64)])]) -> [UInt8] {
        var w = BoxWriter()
        w.box("mfra") { w in
            for t in tracks {
                w.fullBox("tfra", version: 1, flags: 0) { w in
                    w.u32(t.trackID)
                    w.u32(0)   // one-byte traf, trun and sample numbers
                    w.u32(UInt32(clamping: t.entries.count))
                    for e in t.entries {
                        w.u64(e.time); w.u64(e.moofOffset)
                        w.u8(1); w.u8(1); w.u8(1)
                    }
                }
            }
            w.fullBox("mfro", version: 0, flags: 0) { $0.u32(0) }
        }
        w.patch(UInt32(clamping: w.count), at: w.count - 4)
        return w.bytes
    }
}
