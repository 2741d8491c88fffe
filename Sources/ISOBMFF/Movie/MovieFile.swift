import MediaCore

/// A top-level box of the file and where it sits; `mdat` payloads are never loaded.
public struct TopLevelBox: Sendable, Hashable {
    public var type: FourCC
    public var offset: UInt64
    public var size: UInt64
    public var headerSize: Int
}

/// An MP4 / QuickTime / 3GP file: its `ftyp`, its `moov` parsed, its fragments,
/// and a map of the top-level boxes. Reading it loads `moov` and `moof` boxes
/// only — media data stays on disk.
public struct MovieFile: Sendable {
    public var fileType: FileTypeBox?
    public var movieHeader: MovieHeader
    public var tracks: [Track]
    /// `mvex/trex` defaults by track ID; non-empty for fragmented files.
    public var trackExtends: [UInt32: TrackExtends] = [:]
    /// `mvex/mehd` fragment duration (movie timescale).
    public var fragmentDuration: UInt64?
    public var fragments: [MovieFragment] = []
    /// `udta`, `meta` and unknown `moov` children, byte-exact.
    public var otherMovieBoxes: [RawBox] = []
    public var topLevelBoxes: [TopLevelBox] = []
    /// What a salvage left out or made up (see `init(file:salvage:)`), one line each.
    public var salvageNotes: [String] = []
    /// What a copy changes of the file's timing (fragments that start after the samples before
    /// them end), one line each.
    public var timingNotes: [String] = []

    /// Largest `moov`/`moof` Splice loads; a real one is far smaller.
    public static let maximumMetadataBoxSize: UInt64 = 1 << 30

    public var isFragmented: Bool { !trackExtends.isEmpty || !fragments.isEmpty }

    /// Whether the file is QuickTime rather than ISO: by brand, else by the absence of `ftyp`.
    public var isQuickTime: Bool { fileType.map(\.isQuickTime) ?? true }

    /// Box types that may start an ISO-BMFF/QuickTime file.
    public static let leadingBoxTypes: Set<FourCC> = [
        "ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "uuid", "styp", "sidx", "moof", "junk", "PICT",
    ]

    /// Whether `prefix` (the first bytes of a file) looks like ISO-BMFF.
    public static func sniff(_ prefix: [UInt8]) -> Bool {
        guard prefix.count >= 8 else { return false }
        let type = FourCC(rawValue: UInt32(widening: prefix[4]) << 24 | UInt32(widening: prefix[5]) << 16 | UInt32(widening: prefix[6]) << 8 | UInt32(widening: prefix[7]))
        return leadingBoxTypes.contains(type)
    }

    /// Reads the file's structure.
    /// - Parameter salvage: read what a damaged file still holds instead of refusing it: a box
    ///   that runs past the end of the file (a truncated download's `mdat`) ends there, samples
    ///   not wholly in the file are left out, a track that cannot be read is left out, and a
    ///   missing `mvhd` is made up. `salvageNotes` says what was done. A file with no readable
    ///   `moov` cannot be salvaged.
    /// - Throws: `MediaError` naming the box path and what is wrong (without the file name; callers add it).
    public init(file: some RandomAccessBytes, salvage: Bool = false) throws {
        let scan = try TopLevelScan(file, salvage: salvage)
        guard let moov = scan.moov else { throw MediaError(.invalidData, "no 'moov' box: not a complete movie") }
        fileType = scan.fileType
        topLevelBoxes = scan.boxes
        salvageNotes = scan.notes
        movieHeader = MovieHeader(version: 0, creationTime: 0, modificationTime: 0, timescale: 0, duration: 0,
                                  rate: 0, volume: 0, matrix: identityMatrix, nextTrackID: 0)
        tracks = []
        var tracks = try parseMovieBox(moov, salvage: salvage)
        var seen = Set<UInt32>()
        var emptied = Set<UInt32>()
        for (i, t) in tracks.enumerated() {
            if t.trackID == 0 { throw MediaError(.invalidData, "track ID 0 is not allowed", location: "moov/trak/tkhd") }
            if !seen.insert(t.trackID).inserted {
                throw MediaError(.invalidData, "track ID \(t.trackID) is used twice", location: "moov/trak/tkhd")
            }
            if salvage, let note = tracks[i].keepSamplesPresent(fileSize: file.size, movieTimescale: movieHeader.timescale) {
                movieHeader.duration = 0   // (taken from the tracks that are left)
                if tracks[i].sampleTable.sampleCount == 0 {
                    salvageNotes.append("track \(t.trackID) is left out: none of its samples is in the file")
                    emptied.insert(t.trackID)
                } else {
                    salvageNotes.append(note)
                }
            }
            try tracks[i].sampleTable.checkSampleData(fileSize: file.size, path: "moov/trak[\(i + 1)]/mdia/minf/stbl")
        }
        tracks.removeAll { emptied.contains($0.trackID) }
        for (offset, reader) in scan.moofs {
            let fragment = try MovieFragment.parse(reader, offset: offset, defaults: trackExtends)
            fragments.append(fragment)
            for traf in fragment.trackFragments {
                guard let i = tracks.firstIndex(where: { $0.trackID == traf.trackID }) else {
                    if salvage { continue }   // (a track left out)
                    throw MediaError(.invalidData, "fragment for track \(traf.trackID), which moov does not have", location: reader.path + "/traf/tfhd")
                }
                tracks[i].fragments.append(traf)
            }
        }
        for i in tracks.indices {
            if salvage, let note = tracks[i].keepFragmentSamplesPresent(fileSize: file.size, trackExtends: trackExtends[tracks[i].trackID],
                                                                        movieTimescale: movieHeader.timescale) {
                salvageNotes.append(note)
                fragmentDuration = nil
                movieHeader.duration = 0
            }
            tracks[i].resolveEncryption(defaultDescriptionIndex: trackExtends[tracks[i].trackID]?.sampleDescriptionIndex)
            if isFragmented {
                tracks[i].resolveOpenEndedEdit(movieTimescale: movieHeader.timescale)
                timingNotes += tracks[i].checkFragmentTiming()
            }
        }
        self.tracks = tracks
    }

    /// Parses the children of `moov`: `mvhd` into `movieHeader`, `mvex` into `trackExtends` and
    /// `fragmentDuration`, the rest kept byte-exact; returns the tracks.
    private mutating func parseMovieBox(_ moov: ByteReader, salvage: Bool) throws -> [Track] {
        var mvhd: MovieHeader?
        var tracks: [Track] = []
        var it = BoxIterator(moov)
        while let (h, child) = try it.next() {
            var r = child
            switch h.type {
            case "mvhd": mvhd = try MovieHeader.parse(&r)
            case "trak" where salvage:
                do {
                    tracks.append(try Track.parse(child))
                } catch {
                    let id = Track.trackID(in: child).map { "track \($0)" } ?? child.path
                    salvageNotes.append("\(id) is left out: it cannot be read (\(error))")
                }
            case "trak": tracks.append(try Track.parse(child))
            case "mvex":
                var inner = BoxIterator(child)
                while let (eh, e) = try inner.next() {
                    var er = e
                    if eh.type == "trex" {
                        let trex = try TrackExtends.parse(&er)
                        trackExtends[trex.trackID] = trex
                    } else if eh.type == "mehd" {
                        let version = try er.u8("version")
                        try er.skip(3)
                        fragmentDuration = version == 1 ? try er.u64() : UInt64(widening: try er.u32())
                    }
                }
            default: otherMovieBoxes.append(RawBox(header: h, payload: child))
            }
        }
        if mvhd == nil || mvhd?.timescale == 0, salvage {
            // A movie header in milliseconds; durations come from the tracks.
            salvageNotes.append("moov has \(mvhd == nil ? "no 'mvhd'" : "an 'mvhd' with timescale 0"); a movie header was made up (timescale 1000)")
            let next = (tracks.map(\.trackID).max() ?? 0) + 1
            mvhd = MovieHeader(version: 0, creationTime: 0, modificationTime: 0, timescale: 1000, duration: 0,
                               rate: 0x10000, volume: 0x100, matrix: identityMatrix, nextTrackID: next)
        }
        guard let mvhd else { throw MediaError(.invalidData, "no 'mvhd' box", location: "moov") }
        if mvhd.timescale == 0 { throw MediaError(.invalidData, "timescale is 0", location: "moov/mvhd") }
        movieHeader = mvhd
        return tracks
    }
}

/// One pass over a file's top-level boxes: their map, and the `ftyp`, `moov` and `moof` boxes
/// loaded (each checked against the file's size and `MovieFile.maximumMetadataBoxSize`).
struct TopLevelScan {
    var fileType: FileTypeBox?
    var moov: ByteReader?
    var moofs: [(offset: UInt64, reader: ByteReader)] = []
    var boxes: [TopLevelBox] = []
    var notes: [String] = []

    init(_ file: some RandomAccessBytes, salvage: Bool = false) throws {
        let size = file.size
        if size == 0 { throw MediaError(.invalidData, "file is empty") }
        if !MovieFile.sniff(try file.read(at: 0, count: Int(clamping: min(size, 16)))) {
            throw MediaError(.invalidData, "not an MP4/QuickTime file: no box structure at offset 0")
        }
        var window = HeaderWindow()
        var offset: UInt64 = 0
        while offset < size {
            let available = size - offset
            if available < 8 {
                if salvage { notes.append("\(available) trailing bytes at offset \(offset) are left out"); break }
                throw MediaError(.truncated, "\(available) trailing bytes at offset \(offset) are too few for a box header")
            }
            if boxes.count >= 1_000_000 { throw MediaError(.unsupported, "more than a million top-level boxes") }
            var r = try window.reader(file, at: offset, Int(clamping: min(available, 32)))
            var header: BoxHeader
            do {
                header = try BoxHeader.parse(&r, available: salvage ? .max : available, allowToEnd: true)
                if header.size == .max { header.size = available }   // (size 0: to the end)
            } catch var e as MediaError {
                e.location = "box at offset \(offset)"
                throw e
            }
            if header.size > available {
                // Salvage: a box cut short by the end of the file. A fragment's header is left
                // out with what follows; the movie's own cannot be.
                if header.type == "moof" {
                    notes.append("the fragment at offset \(offset) is cut short by the end of the file and is left out")
                    break
                }
                guard header.type != "moov" else {
                    throw MediaError(.truncated, "'\(header.type)' box has size \(header.size) but only \(available) bytes remain: "
                                     + "its movie header is cut short, so nothing can be salvaged", location: "box at offset \(offset)")
                }
                notes.append("'\(header.type)' box at offset \(offset) runs past the end of the file: \(available) of its \(header.size) bytes are there")
                header.size = available
            }
            boxes.append(TopLevelBox(type: header.type, offset: offset, size: header.size, headerSize: header.headerSize))
            try keep(header, at: offset, of: file)
            offset += header.size
        }
    }

    /// Loads the box if it is one the movie needs.
    private mutating func keep(_ header: BoxHeader, at offset: UInt64, of file: some RandomAccessBytes) throws {
        let name = "\(header.type)"
        func load() throws -> ByteReader {
            guard header.size <= MovieFile.maximumMetadataBoxSize else {
                throw MediaError(.unsupported, "box is \(header.size) bytes, more than Splice loads", location: name)
            }
            let bytes = try file.read(at: offset, count: Int(clamping: header.size))
            return ByteReader(bytes, range: header.headerSize..<bytes.count, path: name)
        }
        switch header.type {
        case "ftyp":
            var r = try load()
            fileType = try FileTypeBox.parse(&r)
        case "moov":
            if moov != nil { throw MediaError(.invalidData, "second 'moov' box at offset \(offset)", location: "moov") }
            moov = try load()
        case "moof":
            var r = try load()
            r.path = "moof[\(moofs.count + 1)]"
            moofs.append((offset, r))
        default:
            break
        }
    }

    /// Box headers read through a 64 KiB window, so that many small boxes cost no read each.
    private struct HeaderWindow {
        var bytes: [UInt8] = []
        var start: UInt64 = 0

        mutating func reader(_ file: some RandomAccessBytes, at offset: UInt64, _ length: Int) throws -> ByteReader {
            if offset < start || offset + UInt64(clamping: length) > start + UInt64(clamping: bytes.count) {
                start = offset
                bytes = try file.read(at: offset, count: Int(clamping: min(file.size - offset, 65536)))
            }
            let from = Int(clamping: offset - start)
            return ByteReader(bytes, range: from..<(from + length), location: nil)
        }
    }
}
