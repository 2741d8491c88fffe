import MediaCore

/// How a protected sample entry (`encv`, `enca`, …) is encrypted: its `sinf` — the original
/// format (`frma`), the scheme (`schm`: `cenc`, `cbcs`, `cens`, `cbc1`, PIFF's `piff`) and the
/// track encryption defaults (`tenc`, or PIFF's `uuid` tenc): key ID and per-sample IV size.
/// ISO/IEC 23001-7 §8; PIFF 1.1 §5.3.
public struct ProtectionScheme: Sendable, Hashable {
    public var originalFormat: FourCC
    public var scheme: FourCC
    public var schemeVersion: UInt32
    public var isProtected: Bool
    /// Bytes of each sample's IV in its auxiliary information (0: a constant IV in `tenc`).
    public var perSampleIVSize: Int
    public var keyID: [UInt8]

    /// The key ID as 32 hex digits.
    public var keyIDHex: String { keyID.map(CodecString.hex).joined() }

    static let piffTrackEncryption: [UInt8] = [0x89, 0x74, 0xDB, 0xCE, 0x7B, 0xE7, 0x4C, 0x51, 0x84, 0xF9, 0x71, 0x48, 0xF9, 0x88, 0x25, 0x54]

    /// The scheme of a sample entry (of a track of `mediaType`) with a `sinf` child, or nil.
    public init?(sampleEntry bytes: [UInt8], mediaType: MediaType) {
        guard let sinf = CodecMapping.sampleEntryChildren(bytes, mediaType: mediaType)?.first(where: { $0.type == "sinf" }) else { return nil }
        self.init(sinf: ByteReader(sinf.payload, path: "sinf"))
    }

    init?(sinf: ByteReader) {
        (originalFormat, scheme, schemeVersion, isProtected, perSampleIVSize, keyID) = ("    ", "    ", 0, false, 0, [])
        var it = BoxIterator(sinf)
        var sawTenc = false
        while let (h, child) = try? it.next() {
            var r = child
            switch h.type {
            case "frma": if let f = try? r.u32("original format") { originalFormat = FourCC(rawValue: f) }
            case "schm":
                _ = try? r.skip(4)
                scheme = FourCC(rawValue: (try? r.u32("scheme type")) ?? 0)
                schemeVersion = (try? r.u32("scheme version")) ?? 0
            case "schi":
                var inner = BoxIterator(child)
                while let (ih, box) = try? inner.next() {
                    var b = box
                    if ih.type == "tenc" {
                        guard (try? b.skip(6)) != nil, let p = try? b.u8("isProtected"), let iv = try? b.u8("per-sample IV size"),
                              let kid = try? b.bytes(16, "key ID") else { continue }
                        (isProtected, perSampleIVSize, keyID, sawTenc) = (p != 0, Int(widening: iv), kid, true)
                    } else if ih.type == "uuid", let id = try? b.bytes(16, "uuid"), id == ProtectionScheme.piffTrackEncryption {
                        guard (try? b.skip(4)) != nil, let algorithm = try? b.bytes(3, "algorithm"), let iv = try? b.u8("IV size"),
                              let kid = try? b.bytes(16, "key ID") else { continue }
                        (isProtected, perSampleIVSize, keyID, sawTenc) = (algorithm != [0, 0, 0], Int(widening: iv), kid, true)
                    }
                }
            default: break
            }
        }
        guard sawTenc || scheme != "    " else { return nil }
    }
}

/// Each sample's auxiliary encryption information — its IV and, with subsample encryption, its
/// map of clear and protected bytes — as stored (`senc`, or PIFF's `uuid` senc, sized by `saiz`),
/// in decode order. Carried byte for byte: a copy writes the same entries into its own `senc`,
/// `saiz` and `saio`.
public struct SampleEncryption: Sendable, Hashable {
    /// `senc` flags: 0x2 when entries carry subsample maps.
    public var flags: UInt32
    public private(set) var data: [UInt8] = []
    public private(set) var sizes: [UInt8] = []
    private var offsets: [Int] = []

    public init(flags: UInt32) { self.flags = flags }

    public var sampleCount: Int { sizes.count }

    /// Sample `i`'s entry.
    public func entry(_ i: Int) -> ArraySlice<UInt8> { data[offsets[i]..<(offsets[i] + Int(widening: sizes[i]))] }

    mutating func append(_ entry: ArraySlice<UInt8>) {
        offsets.append(data.count)
        sizes.append(UInt8(entry.count))   // lint: checked (entries are at most 255 bytes: parseSenc and saiz say so)
        data += entry
    }

    /// The entries of samples `range` (a fragment's share), clamped to the entries there are.
    public func samples(_ range: Range<Int>) -> SampleEncryption {
        var out = SampleEncryption(flags: flags)
        for i in range.clamped(to: 0..<sampleCount) { out.append(entry(i)) }
        return out
    }

    mutating func append(contentsOf other: SampleEncryption) {
        for i in 0..<other.sampleCount { append(other.entry(i)) }
        flags |= other.flags & 0x2
    }

    static let piffSampleEncryption: [UInt8] = [0xA2, 0x39, 0x4F, 0x52, 0x5A, 0x9B, 0x4F, 0x14, 0xA2, 0x44, 0x6C, 0x42, 0x7C, 0x64, 0x8D, 0xF4]

    /// The sample sizes of a `saiz` payload (`count` samples).
    static func parseSaiz(_ payload: ByteReader) throws -> [UInt8] {
        var r = payload
        try r.skip(1, "version")
        let flags = try r.u24("flags")
        if flags & 1 != 0 { try r.skip(8, "aux info type") }
        let defaultSize = try r.u8("default sample info size")
        let count = Int(widening: try r.u32("sample count"))
        if defaultSize != 0 {
            guard count <= 10_000_000 else { throw r.fail("sample count \(count) is more than Splice reads") }
            return [UInt8](repeating: defaultSize, count: count)
        }
        try r.check(count: UInt64(clamping: count), entrySize: 1, "sample count")
        return try r.bytes(count, "sample info sizes")
    }

    /// The offsets of a `saio` payload.
    static func parseSaio(_ payload: ByteReader) throws -> [UInt64] {
        var r = payload
        let version = try r.u8("version")
        let flags = try r.u24("flags")
        if flags & 1 != 0 { try r.skip(8, "aux info type") }
        let count = Int(widening: try r.u32("entry count"))
        try r.check(count: UInt64(clamping: count), entrySize: version == 0 ? 4 : 8)
        return try (0..<count).map { _ in version == 0 ? UInt64(widening: try r.u32("offset")) : try r.u64("offset") }
    }

    /// The entries `sizes` and `offsets` (one run: every sample's information back to back)
    /// point at in `file` — how a player finds them; nil when there is not one run.
    public static func read(sizes: [UInt8], offsets: [UInt64], from file: some RandomAccessBytes) throws -> SampleEncryption? {
        guard offsets.count == 1 else { return nil }
        let total = sizes.reduce(0) { $0 + Int(widening: $1) }
        guard offsets[0] + UInt64(clamping: total) <= file.size else {
            throw MediaError(.invalidData, "'saio' points at \(total) bytes at \(offsets[0]), past the end of the file")
        }
        let bytes = try file.read(at: offsets[0], count: total)
        var out = SampleEncryption(flags: 0)
        var at = 0
        for s in sizes {
            out.append(bytes[at..<(at + Int(widening: s))])
            at += Int(widening: s)
        }
        return out
    }

    /// The entries of a `senc` payload (from its version and flags on; PIFF's after its UUID):
    /// cut by `sizes` when `saiz` gave them, else walked with the IV size (the box's own, PIFF's
    /// override, else `ivSize` from `tenc`).
    static func parseSenc(_ payload: ByteReader, sizes: [UInt8]?, ivSize: Int, expectedCount: Int) throws -> SampleEncryption {
        var r = payload
        try r.skip(1, "version")
        let flags = try r.u24("flags")
        var iv = ivSize
        if flags & 1 != 0 {
            try r.skip(3, "algorithm ID")
            iv = Int(widening: try r.u8("IV size"))
            try r.skip(16, "key ID")
        }
        let count = Int(widening: try r.u32("sample count"))
        guard count == expectedCount else { throw r.fail("\(count) entries for \(expectedCount) samples") }
        var out = SampleEncryption(flags: flags & 0x2)
        if let sizes, sizes.count == count {
            let total = sizes.reduce(0) { $0 + Int(widening: $1) }
            guard total <= r.remaining else { throw r.fail("'saiz' sizes add up to \(total) bytes, more than the \(r.remaining) 'senc' holds") }
            let all = try r.bytes(total, "sample auxiliary information")
            var at = 0
            for s in sizes {
                out.append(all[at..<(at + Int(widening: s))])
                at += Int(widening: s)
            }
            return out
        }
        let least = iv + (flags & 2 != 0 ? 2 : 0)
        if least > 0 { try r.check(count: UInt64(clamping: count), entrySize: least, "sample count") }
        else if count > 10_000_000 { throw r.fail("sample count \(count) is more than Splice reads") }
        for _ in 0..<count {
            var entry = try r.bytes(iv, "IV")
            if flags & 2 != 0 {
                let n = try r.u16("subsample count")
                try r.check(count: UInt64(widening: n), entrySize: 6, "subsample count")
                entry += [UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n & 0xFF)] + (try r.bytes(Int(truncatingIfNeeded: n) * 6, "subsamples"))
            }
            guard entry.count <= 255 else { throw r.fail("a sample's auxiliary information is \(entry.count) bytes, more than 'saiz' can say") }
            out.append(entry[...])
        }
        return out
    }

    /// `senc` (version 0), `saiz` and `saio` (version 1, one offset, 0 until
    /// `MovieWriter.patchAuxiliaryInformationOffsets` points it at the `senc` entries).
    func write(to w: inout BoxWriter) {
        w.fullBox("senc", version: 0, flags: flags) { w in
            w.u32(UInt32(clamping: sampleCount))
            w.append(data)
        }
        let constant = sizes.first.map { first in sizes.allSatisfy { $0 == first } } ?? true
        w.fullBox("saiz", version: 0, flags: 0) { w in
            w.u8(constant ? (sizes.first ?? 0) : 0)
            w.u32(UInt32(clamping: sampleCount))
            if !constant { w.append(sizes) }
        }
        w.fullBox("saio", version: 1, flags: 0) { w in
            w.u32(1)
            w.u64(0)
        }
    }
}

extension MovieWriter {
    /// Points each track's `saio` at its `senc` entries, now that the movie box's place in the
    /// file (`moovOffset`) is known: `moov` is the movie box's bytes, as `movieBox` built them.
    public static func patchAuxiliaryInformationOffsets(_ moov: inout [UInt8], moovOffset: UInt64) {
        /// The payloads of the boxes at `path` below `reader`.
        func boxes(_ reader: ByteReader, _ path: ArraySlice<FourCC>) -> [ByteReader] {
            guard let type = path.first else { return [reader] }
            var it = BoxIterator(reader)
            var found: [ByteReader] = []
            while let (h, child) = try? it.next() {
                if h.type == type { found += boxes(child, path.dropFirst()) }
            }
            return found
        }
        var patches: [(entries: Int, field: Int)] = []
        for stbl in boxes(ByteReader(moov), ["moov", "trak", "mdia", "minf", "stbl"]) {
            var senc: Int?, saio: Int?
            var it = BoxIterator(stbl)
            while let (h, child) = try? it.next() {
                // senc: version and flags, sample count, then the entries; saio (version 1, one
                // entry): version and flags, entry count, then the offset.
                if h.type == "senc" { senc = child.position + 8 }
                if h.type == "saio", child.remaining >= 16 { saio = child.position + 8 }
            }
            if let senc, let saio { patches.append((senc, saio)) }
        }
        for p in patches {
            let target = moovOffset + UInt64(clamping: p.entries)
            for k in 0..<8 { moov[p.field + k] = UInt8(truncatingIfNeeded: target >> (56 - 8 * UInt64(truncatingIfNeeded: k))) }
        }
    }
}
