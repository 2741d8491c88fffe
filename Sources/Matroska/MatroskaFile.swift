import MediaCore

/// A Matroska or WebM file read natively: its segment's information, tracks and global tags,
/// and where every frame of every track lies (the clusters scanned once, block headers only —
/// the frames' bytes stay in the file).
///
/// What it reads is the common shape of a movie (the Matroska specification, RFC 9559): one
/// segment of known size; `Info`, `Tracks`, `Cluster`s of `SimpleBlock`s and `BlockGroup`s with
/// any lacing, `Tags`. Whatever else it meets — chapters, attachments, content encodings, block
/// additions, clusters of unknown size — it reports as `.unsupported` rather than half-read, for
/// libavformat to read instead.
public struct MatroskaFile: Sendable {
    /// A global tag (`Tags\Tag` without targets): FFmpeg's key (`NAME`, `NAME-lang`,
    /// `PARENT/CHILD`) and its text.
    public struct Tag: Sendable, Hashable {
        /// The tag's name.
        public var name: String
        /// Its value.
        public var value: String
    }

    /// `DocType`: `matroska` or `webm`.
    public private(set) var docType = "matroska"
    /// `TimestampScale`: nanoseconds per tick of every timestamp in the file.
    public private(set) var timestampScale: UInt64 = 1_000_000
    /// `Duration`, in ticks, when stated.
    public private(set) var duration: Double?
    /// `Title`.
    public private(set) var title: String?
    /// `MuxingApp`: the library that wrote the file.
    public private(set) var muxingApp: String?
    /// `DateUTC`: nanoseconds since 2001-01-01T00:00:00 UTC.
    public private(set) var dateUTC: Int64?
    /// The tracks, in `Tracks` order.
    public internal(set) var tracks: [MatroskaTrack] = []
    /// The global tags.
    public private(set) var tags: [Tag] = []

    /// Reads `file`'s structure and indexes its frames.
    /// - Throws: `.invalidData` or `.truncated` for a damaged file (with the offset), `.unsupported`
    ///   naming what it holds that is not read natively.
    public init(file: any RandomAccessBytes) throws {
        var reader = EBMLReader(file)
        let header = try reader.element(at: 0, limit: reader.size)
        guard header.id == 0x1A45_DFA3, let headerSize = header.size else {
            throw MediaError(.invalidData, "not an EBML file", location: "EBML")
        }
        for e in try reader.children(of: header) {
            switch e.id {
            case 0x4282: docType = try reader.string(e)
            case 0x42F7: if try reader.unsigned(e) > 1 { throw MediaError(.unsupported, "EBML read version above 1", location: "EBML") }
            case 0x4285: if try reader.unsigned(e) > 4 { throw MediaError(.unsupported, "Matroska read version above 4", location: "EBML") }
            default: break
            }
        }
        guard docType == "matroska" || docType == "webm" else {
            throw MediaError(.unsupported, "EBML document type '\(docType)'", location: "EBML")
        }
        var at = header.dataOffset + headerSize
        var segment: EBMLElement?
        while segment == nil, at < reader.size {
            let e = try reader.element(at: at, limit: reader.size)
            if e.id == 0x1853_8067 { segment = e } else { at = e.end(within: reader.size) }
        }
        guard let segment else { throw MediaError(.invalidData, "no segment", location: "Segment") }
        guard segment.size != nil else {
            throw MediaError(.unsupported, "a segment of unknown size (a live stream)", location: "Segment")
        }
        try readSegment(segment, with: &reader)
    }

    private mutating func readSegment(_ segment: EBMLElement, with reader: inout EBMLReader) throws {
        let end = segment.end(within: reader.size)
        var at = segment.dataOffset
        var byNumber: [UInt64: Int] = [:]
        while at < end {
            let e = try reader.element(at: at, limit: end)
            guard let size = e.size else {
                throw MediaError(.unsupported, "a cluster of unknown size (a live stream)", location: "Segment at \(e.offset)")
            }
            switch e.id {
            case 0x1549_A966: try readInfo(e, with: &reader)
            case 0x1654_AE6B:
                guard tracks.isEmpty else { throw MediaError(.unsupported, "a second track list", location: "Segment/Tracks") }
                tracks = try reader.children(of: e).filter { $0.id == 0xAE }.map { entry in
                    var t = MatroskaTrack()
                    try t.read(entry, with: &reader)
                    return t
                }
                for (i, t) in tracks.enumerated() {
                    guard byNumber.updateValue(i, forKey: t.number) == nil, t.number > 0 else {
                        throw MediaError(.invalidData, "track number \(t.number) is used twice or is 0", location: "Segment/Tracks")
                    }
                }
            case 0x1F43_B675:
                guard !byNumber.isEmpty else { throw MediaError(.unsupported, "clusters before the track list", location: "Segment/Cluster") }
                try readCluster(e, with: &reader, tracks: byNumber)
            case 0x1254_C367: try readTags(e, with: &reader)
            case 0x1043_A770: throw MediaError(.unsupported, "chapters", location: "Segment/Chapters")
            case 0x1941_A469: throw MediaError(.unsupported, "attachments", location: "Segment/Attachments")
            default: break   // SeekHead, Cues, Void, CRC-32
            }
            at = e.dataOffset + size
        }
        guard !tracks.isEmpty else { throw MediaError(.invalidData, "no tracks", location: "Segment/Tracks") }
    }

    private mutating func readInfo(_ info: EBMLElement, with reader: inout EBMLReader) throws {
        for e in try reader.children(of: info) {
            switch e.id {
            case 0x2A_D7B1: timestampScale = try reader.unsigned(e)
            case 0x4489: duration = try reader.float(e)
            case 0x7BA9: title = try reader.string(e)
            case 0x4D80: muxingApp = try reader.string(e)
            case 0x4461: dateUTC = try reader.signed(e)
            default: break
            }
        }
        guard timestampScale > 0 else { throw MediaError(.invalidData, "timestamp scale 0", location: "Segment/Info") }
    }

    private mutating func readTags(_ element: EBMLElement, with reader: inout EBMLReader) throws {
        for tag in try reader.children(of: element) where tag.id == 0x7373 {
            var global = true
            var simple: [EBMLElement] = []
            for e in try reader.children(of: tag) {
                if e.id == 0x63C0 {
                    // Targets naming a track, edition, chapter or attachment: not the movie's.
                    for t in try reader.children(of: e) where [0x63C5, 0x63C9, 0x63C4, 0x63C6].contains(t.id) {
                        if try reader.unsigned(t) != 0 { global = false }
                    }
                } else if e.id == 0x67C8 {
                    simple.append(e)
                }
            }
            guard global else { continue }
            for s in simple { try readSimpleTag(s, prefix: nil, depth: 0, with: &reader) }
        }
    }

    private mutating func readSimpleTag(_ element: EBMLElement, prefix: String?, depth: Int, with reader: inout EBMLReader) throws {
        var name = "", language: String?, value: String?
        var nested: [EBMLElement] = []
        for e in try reader.children(of: element) {
            switch e.id {
            case 0x45A3: name = try reader.string(e)
            case 0x447A, 0x447B: language = try reader.string(e)
            case 0x4487: value = try reader.string(e)
            case 0x67C8: nested.append(e)
            default: break
            }
        }
        guard !name.isEmpty else { return }
        var key = prefix.map { "\($0)/\(name)" } ?? name
        if let language, language != "und", !language.isEmpty { key += "-\(language)" }
        if let value { tags.append(Tag(name: key, value: value)) }
        // Tags nest a level or two; deeper ones (a hostile file's thousands) are not read.
        guard depth < 8 else { return }
        for n in nested { try readSimpleTag(n, prefix: key, depth: depth + 1, with: &reader) }
    }
}
