import MediaCore

/// A `trak` and everything in it that Splice reads or keeps.
public struct Track: Sendable, Hashable {
    public var header: TrackHeader
    public var references: [TrackReference] = []
    public var editList: EditList?
    public var mediaHeader: MediaHeader
    public var handler: HandlerBox
    /// From `elng`.
    public var extendedLanguage: String?
    public var sampleTable: SampleTable
    /// `minf` header boxes (`vmhd`, `smhd`, `nmhd`, `gmhd`, …) and `dinf`, byte-exact.
    public var mediaInformationBoxes: [RawBox] = []
    /// `udta`, `meta` and unknown `trak` children, byte-exact.
    public var otherTrackBoxes: [RawBox] = []
    /// Unknown `mdia` children, byte-exact.
    public var otherMediaBoxes: [RawBox] = []
    /// Fragments of this track, in file order (fragmented files only).
    public var fragments: [TrackFragment] = []
    /// How the track is encrypted (its first protected sample entry's `sinf`), when it is.
    public var protection: ProtectionScheme?
    /// Every sample's auxiliary encryption information, in decode order (protected tracks).
    public var encryption: SampleEncryption?
    /// Samples of a protected track that use a clear sample entry (a clear lead), which are not
    /// encrypted.
    public var clearSampleCount = 0
    /// Why the track's samples cannot be read in decode order (fragments whose decode times go
    /// back), when they cannot.
    public var timingProblem: String?
    /// Why the track's encryption cannot be carried into a copy, when it cannot.
    public var encryptionProblem: String?
    /// Where a progressive track's `saiz`/`saio` say its auxiliary information is: each
    /// sample's size and the file offsets of the runs (one per chunk, or one for all).
    public var auxiliaryInformationLocation: AuxiliaryInformationLocation?

    public init(header: TrackHeader, mediaHeader: MediaHeader, handler: HandlerBox, sampleTable: SampleTable) {
        self.header = header
        self.mediaHeader = mediaHeader
        self.handler = handler
        self.sampleTable = sampleTable
    }

    public var trackID: UInt32 { header.trackID }
    /// The first sample's decode time: 0 in a sample table, else its fragment's `tfdt` (or 0).
    public var firstDecodeTime: Int64 {
        sampleTable.sampleCount > 0 ? 0 : Int64(clamping: fragments.first { $0.sampleCount > 0 }?.baseMediaDecodeTime ?? 0)
    }
    public var mediaType: MediaType { MediaType(handlerType: handler.handlerType) }

    /// Samples in the `stbl` plus all fragments.
    public var sampleCount: Int { sampleTable.sampleCount + fragments.reduce(0) { $0 + $1.sampleCount } }

    /// The media duration in the media timescale: the sample tables and fragments, else `mdhd`.
    public var mediaDuration: UInt64 {
        let fromSamples = sampleTable.totalDuration + fragments.reduce(0) { $0 + $1.duration }
        if fromSamples > 0 { return fromSamples }
        return mediaHeader.duration == .max ? 0 : mediaHeader.duration
    }

    static func parse(_ payload: ByteReader) throws -> Track {
        var header: TrackHeader?
        var refs: [TrackReference] = []
        var edits: EditList?
        var extra: [RawBox] = []
        var media: (MediaHeader, HandlerBox, String?, SampleTable, [RawBox], [RawBox])?
        var it = BoxIterator(payload)
        while let (h, child) = try it.next() {
            var r = child
            switch h.type {
            case "tkhd": header = try TrackHeader.parse(&r)
            case "tref": refs = try TrackReference.parseAll(child)
            case "edts":
                var inner = BoxIterator(child)
                while let (eh, e) = try inner.next() {
                    guard eh.type == "elst" else { continue }
                    var er = e
                    edits = try EditList.parse(&er)
                }
            case "mdia": media = try parseMedia(child)
            default: extra.append(RawBox(header: h, payload: child))
            }
        }
        guard let header else { throw MediaError(.invalidData, "no 'tkhd' box", location: payload.path) }
        guard let media else { throw MediaError(.invalidData, "no 'mdia' box", location: payload.path) }
        var track = Track(header: header, mediaHeader: media.0, handler: media.1, sampleTable: media.3)
        track.references = refs
        track.editList = edits
        track.extendedLanguage = media.2
        track.mediaInformationBoxes = media.4
        track.otherMediaBoxes = media.5
        track.otherTrackBoxes = extra
        return track
    }

    private static func parseMedia(_ payload: ByteReader) throws
        -> (MediaHeader, HandlerBox, String?, SampleTable, [RawBox], [RawBox]) {
        var mdhd: MediaHeader?, hdlr: HandlerBox?, elng: String?
        var minf: ByteReader?
        var other: [RawBox] = []
        var it = BoxIterator(payload)
        while let (h, child) = try it.next() {
            var r = child
            switch h.type {
            case "mdhd": mdhd = try MediaHeader.parse(&r)
            case "hdlr": hdlr = try HandlerBox.parse(&r)
            case "elng": elng = try ExtendedLanguageBox.parse(&r)
            case "minf": minf = child
            default: other.append(RawBox(header: h, payload: child))
            }
        }
        guard let mdhd else { throw MediaError(.invalidData, "no 'mdhd' box", location: payload.path) }
        guard let hdlr else { throw MediaError(.invalidData, "no 'hdlr' box", location: payload.path) }
        guard let minf else { throw MediaError(.invalidData, "no 'minf' box", location: payload.path) }
        var stbl: SampleTable?
        var minfBoxes: [RawBox] = []
        var it2 = BoxIterator(minf)
        while let (h, child) = try it2.next() {
            if h.type == "stbl" {
                stbl = try SampleTable.parse(child, handler: hdlr.handlerType)
            } else {
                minfBoxes.append(RawBox(header: h, payload: child))
            }
        }
        guard let stbl else { throw MediaError(.invalidData, "no 'stbl' box", location: minf.path) }
        return (mdhd, hdlr, elng, stbl, minfBoxes, other)
    }
}
