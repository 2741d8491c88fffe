import Foundation
import MediaCore
import ISOBMFF
import Subtitles
import FFmpegBridge

/// A kind of file `AssetWriter` writes, and everything Splice knows about it in one row: its
/// extensions, who writes it, and what it can hold. MP4, MOV, M4A and M4V are written natively;
/// Matroska, WebM, MPEG-TS, AVI, Ogg and Ogg Opus through libavformat's muxers.
///
/// Code that writes files asks the row (`hasEditLists`, `canHold(_:)`, `chapters`, …), never
/// which kind of file it is; adding a container is adding a row to `allCases`.
public struct FileType: RawRepresentable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The type's name and first extension (`mp4`, `mkv`, …).
    public let rawValue: String
    /// The extensions that name it, lower case.
    public let extensions: [String]
    /// What people call it ("Matroska", "MPEG-TS"), for messages.
    public let title: String
    /// Who writes the file.
    let writer: Writer
    /// Whether a track can hold edit lists (a shift, trims, gaps, several segments). Without
    /// them, cuts move to sync samples or are re-encoded, and segments are laid end to end.
    public let hasEditLists: Bool
    /// Whether the file holds only sound: video is refused by copies and left out by exports.
    public let holdsSoundOnly: Bool
    /// How text subtitles are held: as tx3g samples, as the container's text packets, or not.
    public let textSubtitles: TextSubtitles
    /// Whether text packets keep their format's header (a WebVTT file's header block): WebM's
    /// WebVTT has no place for it.
    let keepsSubtitleHeaders: Bool
    /// How chapters are held.
    let chapters: Chapters
    /// Whether a timecode track's start timecode is kept as the video's `TIMECODE` tag (the
    /// container has no timecode tracks).
    let timecodeAsTag: Bool
    /// Whether the file carries MP4's Common Encryption (`sinf`, `senc`, `pssh`).
    public let carriesCommonEncryption: Bool
    /// Whether the file holds any track its ISO sample entry describes (timed metadata,
    /// timecode, …) and keeps a mirrored ISO source's boxes as they are: sample entries,
    /// handlers, user data (Splice's own writer). `--verify` compares those.
    public let keepsBoxes: Bool
    /// Whether each track has a timescale of its own: sound from other containers is then timed
    /// in samples.
    let timesSoundInSamples: Bool
    /// Whether the index can be written before the media (`shouldOptimizeForNetworkUse`).
    public let movesIndexToFront: Bool
    /// QuickTime's conventions: Macintosh language codes, Pascal handler names, sound
    /// descriptions of version 1, PCM sound.
    public let usesQuickTimeConventions: Bool
    /// Languages in ISO 639-2's bibliographic form (`ger`, not `deu`): Matroska's.
    let bibliographicLanguages: Bool
    /// The codecs the file holds when libavformat cannot say (nil: ask the muxer or, for MP4/MOV,
    /// the codec registry).
    let codecs: Set<String>?
    /// Codecs whose NAL-length samples and configuration record become start codes and in-band
    /// parameter sets through libavcodec's `*_mp4toannexb` filter (one per configuration).
    let startCodeCodecs: Set<String>
    /// Whether AAC is carried in ADTS headers, which cannot say object types above 31 (USAC).
    let aacInADTS: Bool
    /// The codecs an export encodes to when the preset's cannot go in the file and none is set.
    public let defaultAudioCodec: AudioEncodingSettings.Codec
    /// The video codec an export encodes to when the preset's cannot go in the file and none is set; nil for sound-only files.
    public let defaultVideoCodec: VideoEncodingSettings.Codec?

    /// Who writes a file type: Splice itself (ISO-BMFF, with the `ftyp` a new file gets and the
    /// major brands that name an existing one), or a libavformat muxer.
    enum Writer: Sendable {
        case iso(FileTypeBox, majorBrands: [FourCC])
        case libavformat(String)
    }

    /// How a file type holds text subtitles.
    public enum TextSubtitles: Hashable, Sendable {
        /// 3GPP timed text (`tx3g`) samples.
        case timedText
        /// The container's subtitle packets, in this format unless a source's own fits.
        case packets(SubtitlePacketFormat)
        /// It has no place for them.
        case none
    }

    enum Chapters: Hashable, Sendable {
        /// A QuickTime chapter track (text) referred to by `chap`.
        case track
        /// The container's own chapter list.
        case list
        case none
    }

    // swiftlint:disable:next function_parameter_count
    private init(_ name: String, _ title: String, extensions: [String] = [], writer: Writer, hasEditLists: Bool = false,
                 holdsSoundOnly: Bool = false, textSubtitles: TextSubtitles = .none, keepsSubtitleHeaders: Bool = true,
                 chapters: Chapters = .none, timecodeAsTag: Bool = false, quickTime: Bool = false, bibliographicLanguages: Bool = false,
                 codecs: Set<String>? = nil, startCodeCodecs: Set<String> = [], aacInADTS: Bool = false,
                 audio: AudioEncodingSettings.Codec = .aac, video: VideoEncodingSettings.Codec? = .h264) {
        rawValue = name
        self.title = title
        self.extensions = [name] + extensions
        self.writer = writer
        self.keepsSubtitleHeaders = keepsSubtitleHeaders
        let iso = if case .iso = writer { true } else { false }
        self.hasEditLists = hasEditLists || iso
        self.holdsSoundOnly = holdsSoundOnly
        self.textSubtitles = textSubtitles
        self.chapters = iso ? .track : chapters
        self.timecodeAsTag = timecodeAsTag
        (carriesCommonEncryption, keepsBoxes, timesSoundInSamples, movesIndexToFront) = (iso, iso, iso, iso)
        usesQuickTimeConventions = quickTime
        self.bibliographicLanguages = bibliographicLanguages
        self.codecs = codecs
        self.startCodeCodecs = startCodeCodecs
        self.aacInADTS = aacInADTS
        defaultAudioCodec = audio
        defaultVideoCodec = holdsSoundOnly ? nil : video
    }

    private static let h264AndHEVC: Set<String> = ["h264", "hevc"]

    // The rows.
    /// MPEG-4 (`.mp4`), written by Splice: edit lists, alternate groups, track references and tx3g subtitles kept.
    public static let mp4 = FileType("mp4", "MP4", writer: .iso(FileTypeBox(majorBrand: "isom", minorVersion: 512,
                                                                     compatibleBrands: ["isom", "iso2", "avc1", "mp41"]), majorBrands: []),
                                     textSubtitles: .timedText)
    /// QuickTime (`.mov`, `.qt`), written by Splice with QuickTime's conventions.
    public static let mov = FileType("mov", "QuickTime", extensions: ["qt"], writer: .iso(FileTypeBox(majorBrand: "qt  ", minorVersion: 0x200,
                                                                                         compatibleBrands: ["qt  "]), majorBrands: ["qt  "]),
                                     textSubtitles: .timedText, quickTime: true)
    /// MPEG-4 audio (`.m4a`, `.m4b`), written by Splice; sound only.
    public static let m4a = FileType("m4a", "MPEG-4 audio", extensions: ["m4b"], writer: .iso(FileTypeBox(majorBrand: "M4A ", minorVersion: 512,
                                                                                          compatibleBrands: ["M4A ", "isom", "iso2", "mp41"]),
                                                                              majorBrands: ["M4A ", "M4B "]),
                                     holdsSoundOnly: true)
    /// Apple's MPEG-4 video (`.m4v`), written by Splice.
    public static let m4v = FileType("m4v", "M4V", writer: .iso(FileTypeBox(majorBrand: "M4V ", minorVersion: 512,
                                                                     compatibleBrands: ["M4V ", "isom", "iso2", "avc1", "mp41"]),
                                                         majorBrands: ["M4V ", "M4VH", "M4VP"]),
                                     textSubtitles: .timedText)
    /// Matroska (`.mkv`), written by libavformat; text subtitles as SRT, chapters as its list.
    public static let mkv = FileType("mkv", "Matroska", writer: .libavformat("matroska"), textSubtitles: .packets(.subrip), chapters: .list,
                                     timecodeAsTag: true, bibliographicLanguages: true)
    /// Matroska audio (`.mka`), written by libavformat; sound only.
    public static let mka = FileType("mka", "Matroska audio", writer: .libavformat("matroska"), holdsSoundOnly: true, chapters: .list,
                                     timecodeAsTag: true, bibliographicLanguages: true)
    /// WebM (`.webm`), written by libavformat: VP8/VP9/AV1 and Opus/Vorbis, WebVTT subtitles; exports encode VP9 and Opus.
    public static let webm = FileType("webm", "WebM", writer: .libavformat("webm"), textSubtitles: .packets(.webvtt), keepsSubtitleHeaders: false,
                                      chapters: .list,
                                      timecodeAsTag: true, bibliographicLanguages: true, audio: .opus, video: .vp9)
    /// MPEG-TS: the codecs libavformat's muxer gives a stream type (ISO/IEC 13818-1 and the DVB
    /// and ATSC registrations it knows); it writes others as private data no reader decodes.
    public static let ts = FileType("ts", "MPEG-TS", extensions: ["m2t", "mts"], writer: .libavformat("mpegts"),
                                    codecs: ["mpeg1video", "mpeg2video", "mpeg4", "h264", "hevc", "cavs", "dirac", "vc1", "avs2", "avs3",
                                             "mp2", "mp3", "aac", "aac_latm", "ac3", "eac3", "dts", "truehd", "opus", "s302m",
                                             "dvb_subtitle", "dvb_teletext", "smpte_klv", "timed_id3"],
                                    startCodeCodecs: h264AndHEVC, aacInADTS: true)
    /// AVI (`.avi`), written by libavformat; H.264 and HEVC with start codes.
    public static let avi = FileType("avi", "AVI", writer: .libavformat("avi"), startCodeCodecs: h264AndHEVC)
    /// Ogg (RFC 3533) as a sound file: Opus, Vorbis, FLAC or Speex; exports encode Opus.
    public static let ogg = FileType("ogg", "Ogg", extensions: ["oga"], writer: .libavformat("ogg"), holdsSoundOnly: true,
                                     codecs: ["opus", "vorbis", "flac", "speex"], audio: .opus)
    /// Ogg Opus (RFC 7845): Ogg holding one Opus stream.
    public static let opus = FileType("opus", "Ogg Opus", writer: .libavformat("opus"), holdsSoundOnly: true, codecs: ["opus"], audio: .opus)

    /// FLV (`.flv`), written by libavformat: H.264 and AAC (or MP3) as MP4 carries them, times in milliseconds.
    public static let flv = FileType("flv", "FLV", writer: .libavformat("flv"))

    /// Every file type Splice writes, in the order messages list them: its own rows, then those
    /// registered (`register(_:)`).
    public static var allCases: [FileType] { rows.value }
    private static let rows = Locked<[FileType]>([.mp4, .mov, .m4a, .m4v, .mkv, .mka, .webm, .ts, .avi, .flv, .ogg, .opus])

    /// A row for another of libavformat's muxers, to `register(_:)`: a file without edit lists,
    /// chapters or text subtitles, holding what the muxer says it holds (or `codecs`).
    /// - Parameters:
    ///   - name: its first extension and name (`wav`).
    ///   - title: what people call it, for messages (`WAV`).
    ///   - extensions: other extensions that name it.
    ///   - muxer: libavformat's name for the muxer (`ffmpeg -muxers` lists them).
    ///   - holdsSoundOnly: copies refuse video, exports leave it out.
    ///   - codecs: the codecs it holds; nil: what the muxer says it holds.
    ///   - audio: the codec exports encode sound to when the preset's cannot go in the file.
    ///   - video: the codec exports encode video to when the preset's cannot go in the file.
    public init(_ name: String, title: String, extensions: [String] = [], muxer: String, holdsSoundOnly: Bool = false,
                codecs: Set<String>? = nil, audio: AudioEncodingSettings.Codec = .aac, video: VideoEncodingSettings.Codec? = .h264) {
        self.init(name.lowercased(), title, extensions: extensions.map { $0.lowercased() }, writer: .libavformat(muxer),
                  holdsSoundOnly: holdsSoundOnly, codecs: codecs, audio: audio, video: video)
    }

    /// Adds `type` to `allCases`: Splice then writes it wherever it writes files (`AssetWriter`,
    /// exports, every job and subcommand), named by its extensions.
    /// - Throws: `.invalidOperation` when its name or an extension names a row already, or
    ///   `.unsupported` when this machine's libavformat has no such muxer.
    public static func register(_ type: FileType) throws {
        if let muxer = type.muxerName, !OutputFormatContext.hasMuxer(named: muxer) {
            throw MediaError(.unsupported, "this machine's libavformat has no '\(muxer)' muxer")
        }
        try rows.withLock { rows in
            if let taken = rows.first(where: { $0.rawValue == type.rawValue || !Set($0.extensions).isDisjoint(with: type.extensions) }) {
                throw MediaError(.invalidOperation, "cannot register .\(type.rawValue): .\(taken.rawValue) files are named so already")
            }
            rows.append(type)
        }
    }

    /// `types`' extensions as messages and help texts list them: ".mp4, .mov or .mkv".
    public static func listing(_ types: [FileType], _ conjunction: String = "or") -> String {
        let names = types.map { "." + $0.rawValue }
        guard let last = names.last else { return "" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " \(conjunction) " + last
    }

    public init?(rawValue: String) {
        guard let row = FileType.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = row
    }

    /// The file type for a path extension, case-insensitive.
    public init?(pathExtension: String) {
        let e = pathExtension.lowercased()
        guard let row = FileType.allCases.first(where: { $0.extensions.contains(e) }) else { return nil }
        self = row
    }

    /// The file type `url`'s extension names, for writing it.
    /// - Throws: `.unsupported` naming the file types Splice writes, when it names none.
    public static func writing(_ url: URL) throws -> FileType {
        guard let type = FileType(pathExtension: url.pathExtension) else {
            throw MediaError(.unsupported, "cannot write '.\(url.pathExtension)' files; Splice writes \(FileType.listing(FileType.allCases, "and"))",
                             file: url.path)
        }
        return type
    }

    /// Refuses to write `type` into a file whose extension names another kind of file (Matroska
    /// into `x.mp4`: other programs, and Splice's own `Asset`, would take it for what its name
    /// says). Extensions of the same writer's family (MP4 into `.mov` or `.m4v`) are allowed,
    /// and so are extensions that name no type.
    static func check(_ type: FileType, against url: URL) throws {
        guard let named = FileType(pathExtension: url.pathExtension), named != type else { return }
        switch (named.writer, type.writer) {
        case (.iso, .iso): return
        case (.libavformat(let a), .libavformat(let b)) where a == b: return
        default:
            throw MediaError(.invalidOperation, "the file type is .\(type.rawValue), but the name's extension '.\(url.pathExtension)' says .\(named.rawValue); "
                             + "name the file .\(type.extensions.first ?? type.rawValue) or set the file type to .\(named.rawValue)", file: url.path)
        }
    }

    /// The file type of an existing movie (by its `ftyp`; QuickTime without one).
    init(_ ftyp: FileTypeBox?) {
        guard let ftyp else { self = .mov; return }
        self = FileType.allCases.first { row in
            if case .iso(_, let brands) = row.writer { brands.contains(ftyp.majorBrand) } else { false }
        } ?? .mp4
    }

    public static func == (a: FileType, b: FileType) -> Bool { a.rawValue == b.rawValue }
    public func hash(into h: inout Hasher) { h.combine(rawValue) }
    public var description: String { rawValue }

    /// The libavformat muxer writing the file, nil for MP4/MOV.
    var muxerName: String? {
        if case .libavformat(let name) = writer { name } else { nil }
    }

    /// Whether the file holds text subtitle tracks.
    public var holdsTextSubtitles: Bool { textSubtitles != .none }

    /// Whether CMAF may be written into it: the MPEG-4 files (`.mp4`, `.m4v`, `.m4a`), not QuickTime.
    var isCMAFContainer: Bool { [FileType.mp4, .m4v, .m4a].contains(self) }

    /// The text packets the container takes by default (nil for MP4/MOV's tx3g, or none).
    var subtitlePacketFormat: SubtitlePacketFormat? {
        if case .packets(let f) = textSubtitles { f } else { nil }
    }

    /// Whether the file holds samples of `codecName` (FFmpeg's name) copied as they are.
    public func canHold(_ codecName: String) -> Bool {
        if let codecs { return codecs.contains(codecName) }
        switch writer {
        case .iso:
            guard let entry = CodecRegistry.entry(named: codecName), entry.writesSampleEntries else { return false }
            return !entry.quickTimeOnly || usesQuickTimeConventions
        case .libavformat(let muxer):
            return OutputFormatContext.canHold(codecName, formatName: muxer)
        }
    }

    /// Whether the file's text subtitles can be packets of `format` (a source's own, kept as it is).
    func holdsSubtitlePackets(_ format: SubtitlePacketFormat) -> Bool {
        subtitlePacketFormat != nil && canHold(format.rawValue)
    }

    /// The extensions of the kinds of file that hold `codecName`, one per writer (for messages).
    public static func containers(holding codecName: String) -> [String] {
        kinds(holding: codecName).map(\.rawValue)
    }

    /// The first row of each writer that holds `codecName` (MP4 for all of Splice's own, Matroska
    /// for its muxer, …), in the rows' order: the files a message suggests.
    static func kinds(holding codecName: String, soundOnly: Bool? = nil) -> [FileType] {
        var writers: Set<String> = [], rows: [FileType] = []
        for row in allCases where (soundOnly.map { $0 == row.holdsSoundOnly } ?? true) && row.canHold(codecName)
            && writers.insert(row.muxerName ?? "").inserted {
            rows.append(row)
        }
        return rows
    }
}
