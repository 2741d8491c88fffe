import MediaCore

/// `ftyp`: the major brand and the brands the file is compatible with.
public struct FileTypeBox: Sendable, Hashable {
    public var majorBrand: FourCC
    public var minorVersion: UInt32
    public var compatibleBrands: [FourCC]

    public init(majorBrand: FourCC, minorVersion: UInt32, compatibleBrands: [FourCC]) {
        self.majorBrand = majorBrand
        self.minorVersion = minorVersion
        self.compatibleBrands = compatibleBrands
    }

    static func parse(_ r: inout ByteReader) throws -> FileTypeBox {
        let major = try r.fourCC("major brand")
        let minor = try r.u32("minor version")
        var brands: [FourCC] = []
        while r.remaining >= 4 { brands.append(try r.fourCC("compatible brand")) }
        return FileTypeBox(majorBrand: major, minorVersion: minor, compatibleBrands: brands)
    }

    /// Whether this is a QuickTime movie (`qt  ` brand).
    public var isQuickTime: Bool { majorBrand == "qt  " }
}

/// A 3×3 transformation matrix as stored in `mvhd`/`tkhd` (16.16 a,b,c,d,tx,ty; 2.30 u,v,w).
public typealias Matrix = [Int32]
public let identityMatrix: Matrix = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000]

/// The times `mvhd` and `mdhd` start with: 32-bit in version 0, 64-bit in version 1
/// (a version-0 duration of all ones means unknown).
enum HeaderTimes {
    static func parse(_ r: inout ByteReader, version: UInt8) throws
        -> (creation: UInt64, modification: UInt64, timescale: UInt32, duration: UInt64) {
        if version == 1 {
            return (try r.u64("creation time"), try r.u64("modification time"), try r.u32("timescale"), try r.u64("duration"))
        }
        let creation = UInt64(widening: try r.u32("creation time")), modification = UInt64(widening: try r.u32("modification time"))
        let timescale = try r.u32("timescale"), d = try r.u32("duration")
        return (creation, modification, timescale, d == .max ? .max : UInt64(widening: d))
    }
}

/// `mvhd`: movie timescale, duration and next track ID.
public struct MovieHeader: Sendable, Hashable {
    public init(version: UInt8, creationTime: UInt64, modificationTime: UInt64, timescale: UInt32, duration: UInt64, rate: Int32, volume: Int16, matrix: Matrix, nextTrackID: UInt32) {
        self.version = version
        self.creationTime = creationTime
        self.modificationTime = modificationTime
        self.timescale = timescale
        self.duration = duration
        self.rate = rate
        self.volume = volume
        self.matrix = matrix
        self.nextTrackID = nextTrackID
    }

    public var version: UInt8
    public var creationTime: UInt64
    public var modificationTime: UInt64
    public var timescale: UInt32
    public var duration: UInt64
    public var rate: Int32
    public var volume: Int16
    public var matrix: Matrix
    public var nextTrackID: UInt32

    static func parse(_ r: inout ByteReader) throws -> MovieHeader {
        let version = try r.u8("version")
        try r.skip(3, "flags")
        let t = try HeaderTimes.parse(&r, version: version)
        var h = MovieHeader(version: version, creationTime: t.creation, modificationTime: t.modification,
                            timescale: t.timescale, duration: t.duration, rate: 0, volume: 0, matrix: identityMatrix,
                            nextTrackID: 0)
        h.rate = try r.i32("rate")
        h.volume = try r.i16("volume")
        try r.skip(10)
        h.matrix = try (0..<9).map { _ in try r.i32("matrix") }
        try r.skip(24, "pre_defined")
        h.nextTrackID = try r.u32("next track ID")
        return h
    }
}

/// `tkhd`: track ID, flags, alternate group, volume, matrix and visual size.
public struct TrackHeader: Sendable, Hashable {
    public init(version: UInt8, flags: UInt32, creationTime: UInt64, modificationTime: UInt64, trackID: UInt32, duration: UInt64, layer: Int16, alternateGroup: Int16, volume: Int16, matrix: Matrix, width: UInt32, height: UInt32) {
        self.version = version
        self.flags = flags
        self.creationTime = creationTime
        self.modificationTime = modificationTime
        self.trackID = trackID
        self.duration = duration
        self.layer = layer
        self.alternateGroup = alternateGroup
        self.volume = volume
        self.matrix = matrix
        self.width = width
        self.height = height
    }

    public static let enabledFlag: UInt32 = 0x1
    public static let inMovieFlag: UInt32 = 0x2
    public static let inPreviewFlag: UInt32 = 0x4

    public var version: UInt8
    public var flags: UInt32
    public var creationTime: UInt64
    public var modificationTime: UInt64
    public var trackID: UInt32
    /// In the movie timescale; `UInt64.max` when unknown.
    public var duration: UInt64
    public var layer: Int16
    public var alternateGroup: Int16
    /// 8.8 fixed point; 0x0100 is full volume.
    public var volume: Int16
    public var matrix: Matrix
    /// 16.16 fixed point.
    public var width: UInt32
    public var height: UInt32

    public var isEnabled: Bool { flags & TrackHeader.enabledFlag != 0 }
    public var isInMovie: Bool { flags & TrackHeader.inMovieFlag != 0 }
    public var isInPreview: Bool { flags & TrackHeader.inPreviewFlag != 0 }

    static func parse(_ r: inout ByteReader) throws -> TrackHeader {
        let version = try r.u8("version")
        let flags = try r.u24("flags")
        var h = TrackHeader(version: version, flags: flags, creationTime: 0, modificationTime: 0, trackID: 0,
                            duration: 0, layer: 0, alternateGroup: 0, volume: 0, matrix: identityMatrix,
                            width: 0, height: 0)
        if version == 1 {
            h.creationTime = try r.u64("creation time")
            h.modificationTime = try r.u64("modification time")
            h.trackID = try r.u32("track ID")
            try r.skip(4)
            h.duration = try r.u64("duration")
        } else {
            h.creationTime = UInt64(widening: try r.u32("creation time"))
            h.modificationTime = UInt64(widening: try r.u32("modification time"))
            h.trackID = try r.u32("track ID")
            try r.skip(4)
            let d = try r.u32("duration")
            h.duration = d == .max ? .max : UInt64(widening: d)
        }
        try r.skip(8)
        h.layer = try r.i16("layer")
        h.alternateGroup = try r.i16("alternate group")
        h.volume = try r.i16("volume")
        try r.skip(2)
        h.matrix = try (0..<9).map { _ in try r.i32("matrix") }
        h.width = try r.u32("width")
        h.height = try r.u32("height")
        return h
    }
}

/// One `tref` child: a reference type and the track IDs it points to.
public struct TrackReference: Sendable, Hashable {
    public var type: FourCC
    public var trackIDs: [UInt32]
    public init(type: FourCC, trackIDs: [UInt32]) {
        self.type = type
        self.trackIDs = trackIDs
    }

    static func parseAll(_ payload: ByteReader) throws -> [TrackReference] {
        var refs: [TrackReference] = []
        var it = BoxIterator(payload)
        while let (header, child) = try it.next() {
            var r = child
            r.path = child.path
            try r.check(count: UInt64(clamping: r.remaining / 4), entrySize: 4)
            var ids: [UInt32] = []
            ids.reserveCapacity(r.remaining / 4)
            while r.remaining >= 4 { ids.append(try r.u32("track ID")) }
            if r.remaining != 0 { throw r.fail("\(r.remaining) bytes left over; track IDs are 4 bytes each") }
            refs.append(TrackReference(type: header.type, trackIDs: ids))
        }
        return refs
    }
}

/// One `elst` entry: a segment of the movie timeline mapped to media time.
public struct EditListEntry: Sendable, Hashable {
    /// In the movie timescale.
    public var segmentDuration: UInt64
    /// In the media timescale; -1 for an empty edit.
    public var mediaTime: Int64
    public var rateInteger: Int16
    public var rateFraction: Int16

    public init(segmentDuration: UInt64, mediaTime: Int64, rateInteger: Int16 = 1, rateFraction: Int16 = 0) {
        self.segmentDuration = segmentDuration
        self.mediaTime = mediaTime
        self.rateInteger = rateInteger
        self.rateFraction = rateFraction
    }

    public var isEmpty: Bool { mediaTime == -1 }

    /// The media rate: integer and fraction together are one signed 16.16 fixed-point number.
    public var rate: Double {
        Double(Int32(widening: rateInteger) << 16 | Int32(widening: UInt16(bitPattern: rateFraction))) / 65536
    }

    /// Splits a rate into the two 16-bit halves of its 16.16 fixed-point form.
    public static func rateFields(_ rate: Double) -> (integer: Int16, fraction: Int16) {
        let fixed = (rate * 65536).rounded(saturating: Int32.self) ?? 0
        return (Int16(truncatingIfNeeded: fixed >> 16), Int16(truncatingIfNeeded: fixed))
    }
}

/// `elst`: the edit list.
public struct EditList: Sendable, Hashable {
    public var version: UInt8
    public var entries: [EditListEntry]

    public init(version: UInt8 = 0, entries: [EditListEntry]) {
        self.version = version
        self.entries = entries
    }

    static func parse(_ r: inout ByteReader) throws -> EditList {
        let version = try r.u8("version")
        try r.skip(3, "flags")
        let n = try r.count(entrySize: version == 1 ? 20 : 12)
        var entries: [EditListEntry] = []
        entries.reserveCapacity(n)
        for _ in 0..<n {
            let d: UInt64, t: Int64
            if version == 1 {
                d = try r.u64("segment duration")
                t = try r.i64("media time")
            } else {
                d = UInt64(widening: try r.u32("segment duration"))
                t = Int64(widening: try r.i32("media time"))
            }
            entries.append(EditListEntry(segmentDuration: d, mediaTime: t,
                                         rateInteger: try r.i16("rate"), rateFraction: try r.i16("rate fraction")))
        }
        return EditList(version: version, entries: entries)
    }
}

/// `mdhd`: the media timescale, duration and language.
public struct MediaHeader: Sendable, Hashable {
    public init(version: UInt8, creationTime: UInt64, modificationTime: UInt64, timescale: UInt32, duration: UInt64, languageCode: UInt16, quality: UInt16) {
        self.version = version
        self.creationTime = creationTime
        self.modificationTime = modificationTime
        self.timescale = timescale
        self.duration = duration
        self.languageCode = languageCode
        self.quality = quality
    }

    public var version: UInt8
    public var creationTime: UInt64
    public var modificationTime: UInt64
    public var timescale: UInt32
    public var duration: UInt64
    /// The 16-bit language field as stored: packed ISO 639-2/T, or a QuickTime Macintosh code below 0x400.
    public var languageCode: UInt16
    public var quality: UInt16

    /// The language as ISO 639-2 (`und` when unspecified or unknown).
    public var language: String { Language.iso639(fromPacked: languageCode) }

    static func parse(_ r: inout ByteReader) throws -> MediaHeader {
        let version = try r.u8("version")
        try r.skip(3, "flags")
        let t = try HeaderTimes.parse(&r, version: version)
        var h = MediaHeader(version: version, creationTime: t.creation, modificationTime: t.modification,
                            timescale: t.timescale, duration: t.duration, languageCode: 0, quality: 0)
        h.languageCode = try r.u16("language")
        h.quality = try r.u16("pre_defined")
        if h.timescale == 0 { throw r.fail("timescale is 0") }
        return h
    }
}

/// `hdlr`: the handler type and the track's name.
public struct HandlerBox: Sendable, Hashable {
    public init(componentType: FourCC, handlerType: FourCC, name: String, isPascalName: Bool) {
        self.componentType = componentType
        self.handlerType = handlerType
        self.name = name
        self.isPascalName = isPascalName
    }

    /// QuickTime component type (`mhlr`, `dhlr`); 0 in ISO files.
    public var componentType: FourCC
    public var handlerType: FourCC
    public var name: String
    /// Whether the name was a QuickTime Pascal string (length byte first).
    public var isPascalName: Bool
    /// The box as read, after version and flags: what a copy writes again, byte for byte, while
    /// nothing above is changed (nil: written from the fields).
    public var payload: [UInt8]?

    static func parse(_ r: inout ByteReader) throws -> HandlerBox {
        try r.skip(4, "version and flags")
        let payload = r.rest()
        var r = ByteReader(payload, path: "hdlr")
        let component = try r.fourCC("pre_defined")
        let handler = try r.fourCC("handler type")
        try r.skip(12)
        let raw = r.rest()
        var pascal = false
        var nameBytes: ArraySlice<UInt8> = raw[...]
        if let first = raw.first, Int(widening: first) > 0, Int(widening: first) <= raw.count - 1,
           component.rawValue != 0 || Int(widening: first) == raw.count - 1 || (Int(widening: first) == raw.count - 2 && raw.last == 0) {
            // A QuickTime Pascal string: a length byte, then the text.
            pascal = true
            nameBytes = raw[1..<(1 + Int(widening: first))]
        } else if raw.first == 0 && component.rawValue != 0 {
            pascal = true
            nameBytes = []
        }
        if let zero = nameBytes.firstIndex(of: 0) { nameBytes = nameBytes[..<zero] }
        let name = String(decoding: nameBytes, as: UTF8.self)
        var box = HandlerBox(componentType: component, handlerType: handler, name: name, isPascalName: pascal)
        box.payload = payload
        return box
    }

    /// Whether `payload` still says what the fields say (so that it can be written as it was).
    public var payloadIsCurrent: Bool {
        guard let payload, var parsed = try? HandlerBox.parse(payloadWithHeader: payload) else { return false }
        parsed.payload = self.payload
        return parsed == self
    }

    private static func parse(payloadWithHeader payload: [UInt8]) throws -> HandlerBox {
        var r = ByteReader([0, 0, 0, 0] + payload, path: "hdlr")
        return try parse(&r)
    }
}

/// `elng`: the extended (BCP 47) language tag.
enum ExtendedLanguageBox {
    static func parse(_ r: inout ByteReader) throws -> String {
        try r.skip(4, "version and flags")
        var bytes = r.rest()[...]
        if let zero = bytes.firstIndex(of: 0) { bytes = bytes[..<zero] }
        return String(decoding: bytes, as: UTF8.self)
    }
}
