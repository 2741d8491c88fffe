import Foundation
import ISOBMFF
import MediaCore
import Subtitles

/// One track of a package: where it came from, what the manifests say of it, and once written
/// its CMAF media — a file of its own, cut into segments where the package's segments start.
struct PackageTrack {
    /// The track's place: `1-2` is input 1's track 2. Every file name of the track is made from
    /// it (never from a name, language or title read from the input).
    var key: String
    var input: Int
    var source: AssetTrack
    var kind: MediaType
    /// The source's alternate group (0: none), made unique across inputs as `input * 65536 + group`.
    var group: Int
    var isEnabled: Bool
    var isForced: Bool
    /// BCP 47: the `elng` tag, else the ISO 639 code in its shortest form; nil for `und`.
    var language: String?
    /// What a player's menu shows: the track's own name when it has one, else its language.
    var label: String
    /// Subtitles: the cues (on the movie's timeline, in milliseconds).
    var document: SubtitleDocument?
    var media: PackageMedia?

    var isLegible: Bool { kind.isLegible }

    /// The names of the files Splice writes for a track (`layout` single file: one).
    var mediaFile: String { key + ".mp4" }
    var initFile: String { key + "/init.mp4" }
    func segmentFile(_ n: Int, webVTT: Bool = false) -> String { "\(key)/\(n).\(webVTT ? "vtt" : "m4s")" }
    var playlistFile: String { key + ".m3u8" }

    /// The package's tracks of `assets` (renditions of one movie): every video, sound and text
    /// track; a sound or text track equal to one of an earlier input (same kind, codec,
    /// language, channels and forced flag) is left out, as renditions each carry the same sound.
    static func tracks(of assets: [Asset], notes: inout [String]) throws -> [PackageTrack] {
        var tracks: [PackageTrack] = []
        var seen: [String: String] = [:]
        for (i, asset) in assets.enumerated() {
            var mine: [String: String] = [:]
            defer { seen.merge(mine) { a, _ in a } }
            for t in asset.tracks {
                guard t.mediaType == .video || t.mediaType == .audio || t.mediaType.isLegible else {
                    notes.append("\(asset.url.lastPathComponent): track \(t.trackID) (\(t.mediaType)) is not packaged: "
                                 + "HLS and DASH carry video, sound and subtitles")
                    continue
                }
                if t.mediaType == .video, t.formatDescriptions.first?.codec == "jpeg" || t.formatDescriptions.first?.codec == "png " {
                    notes.append("\(asset.url.lastPathComponent): track \(t.trackID) is a still picture (cover art); not packaged")
                    continue
                }
                let track = PackageTrack(input: i + 1, source: t)
                if t.mediaType != .video {
                    let same = "\(t.mediaType)|\(t.codecName)|\(track.language ?? "")|\(t.formatDescriptions.first?.channelCount ?? 0)|\(track.isForced)"
                    if let earlier = seen[same] {
                        notes.append("\(asset.url.lastPathComponent): track \(t.trackID) is the same kind of track as \(earlier); packaged once")
                        continue
                    }
                    mine[same] = "input \(i + 1)'s track \(t.trackID)"
                }
                tracks.append(track)
            }
        }
        return tracks
    }

    init(input: Int, source: AssetTrack) {
        self.input = input
        self.source = source
        key = "\(input)-\(source.trackID)"
        kind = source.mediaType
        group = source.alternateGroup == 0 ? 0 : input * 65536 + source.alternateGroup
        isEnabled = source.isEnabled
        // (forced: flagged so, or the `forc` target of another track)
        let asset = source.owningAsset
        isForced = source.isForced || asset.tracks.contains { $0.associations[.forcedSubtitlesOnly]?.contains(source.trackID) == true }
        language = PackageTrack.bcp47(source.extendedLanguageTag, source.languageCode)
        label = PackageTrack.label(source, language: language, forced: isForced)
    }

    /// `en` for `eng`, `pt-BR` from `elng`; nil for undetermined.
    static func bcp47(_ extended: String?, _ code: String?) -> String? {
        // (a tag from the file: only letters, digits and hyphens get into a manifest)
        func clean(_ s: String) -> Bool { !s.isEmpty && s.count <= 35 && s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") } }
        if let extended, clean(extended), extended != "und" { return extended }
        guard let code, clean(code), code != "und" else { return nil }
        return LanguageTag.shortest(code)
    }

    /// The track's name when it is its own (not a muxer's handler name), else its language and kind.
    static func label(_ t: AssetTrack, language: String?, forced: Bool) -> String {
        let defaults: Set<String> = ["", "SoundHandler", "VideoHandler", "SubtitleHandler", "TextHandler", "Core Media Audio",
                                     "Core Media Video", "Core Media Text", "ISO Media file produced by Google Inc.", "GPAC ISO Video Handler",
                                     "GPAC ISO Audio Handler", "L-SMASH Audio Handler", "L-SMASH Video Handler", "Apple Sound Media Handler",
                                     "Apple Video Media Handler", "Apple Text Media Handler"]
        let name = (t.name ?? "").filter { !$0.isNewline && $0 != "\"" && $0 != "<" && $0 != ">" && $0 != "&" }
            .trimmingCharacters(in: .whitespaces)
        if !defaults.contains(name), !name.hasSuffix("Handler"), name.count <= 64 { return name }
        let base = language ?? "Track \(t.trackID)"
        return forced ? base + " (forced)" : base
    }
}

/// A track's CMAF media as written: its segments' places and times.
struct PackageMedia {
    /// The track's file (in the staging directory).
    var url: URL
    var timescale: UInt32
    /// `ftyp` and `moov`: the initialization segment.
    var initRange: Range<UInt64>
    /// The `sidx` box, when the file has one.
    var indexRange: Range<UInt64>?
    var segments: [Segment]
    /// RFC 6381.
    var codec: String?
    /// The first sample description.
    var entry: [UInt8]
    /// The edit's media time (the track's composition lead or sound priming), in `timescale`.
    var presentationTimeOffset: UInt64
    var encryption: ProtectionScheme?
    /// `pssh` boxes, whole.
    var protectionHeaders: [[UInt8]]

    /// One `moof` and its `mdat`.
    struct Segment {
        var range: Range<UInt64>
        /// Decode time (`tfdt`) and duration, in `timescale`.
        var start: UInt64
        var duration: UInt64
        /// The earliest presentation time of its samples (`tfdt` plus the least composition offset).
        var earliest: UInt64
        var size: UInt64 { range.upperBound - range.lowerBound }
    }

    var duration: UInt64 { segments.reduce(0) { $0 + $1.duration } }

    func seconds(_ ticks: UInt64) -> Double { Double(ticks) / Double(max(1, timescale)) }

    /// The largest bit rate of a segment, and the average (bits per second).
    var peakBitRate: Double { segments.map { Double($0.size) * 8 / max(seconds($0.duration), 0.001) }.max() ?? 0 }
    var averageBitRate: Double {
        Double(segments.reduce(0) { $0 + $1.size }) * 8 / max(seconds(duration), 0.001)
    }

    /// Reads the layout of the single-track CMAF file at `url`.
    /// - Throws: `.invalidData` when it is not one (a bug: Splice wrote it).
    init(url: URL, mediaType: MediaType) throws {
        self.url = url
        let file = try ReadOnlyFile(path: url.path)
        let movie = try MovieFile(file: file)
        guard let track = movie.tracks.first, movie.tracks.count == 1, let entry = track.sampleTable.sampleEntries.first,
              let ftyp = movie.topLevelBoxes.first(where: { $0.type == "ftyp" }),
              let moov = movie.topLevelBoxes.first(where: { $0.type == "moov" }) else {
            throw MediaError(.invalidData, "not a single-track fragmented movie", file: url.path)
        }
        timescale = track.mediaHeader.timescale
        self.entry = entry.bytes
        codec = CodecString.of(entry.bytes, mediaType: mediaType)
        initRange = ftyp.offset..<(moov.offset + moov.size)
        indexRange = movie.topLevelBoxes.first { $0.type == "sidx" }.map { $0.offset..<($0.offset + $0.size) }
        let boxes = movie.topLevelBoxes
        var segments: [Segment] = []
        for fragment in movie.fragments {
            guard let i = boxes.firstIndex(where: { $0.offset == fragment.offset && $0.type == "moof" }), i + 1 < boxes.count,
                  boxes[i + 1].type == "mdat", let traf = fragment.trackFragments.first else {
                throw MediaError(.invalidData, "a fragment at byte \(fragment.offset) is not a moof followed by its mdat", file: url.path)
            }
            let end = boxes[i + 1].offset + boxes[i + 1].size
            let start = traf.baseMediaDecodeTime ?? 0
            var decode = Int64(clamping: start), earliest = Int64.max
            for run in traf.runs {
                for s in run.samples {
                    earliest = min(earliest, decode.addingReportingOverflow(Int64(widening: s.compositionOffset)).partialValue)
                    decode = decode.addingReportingOverflow(Int64(widening: s.duration)).partialValue
                }
            }
            segments.append(Segment(range: fragment.offset..<end, start: start, duration: traf.duration,
                                    earliest: earliest == .max ? start : UInt64(clamping: max(0, earliest))))
        }
        self.segments = segments
        let edit = track.editList?.entries.first { !$0.isEmpty }
        presentationTimeOffset = edit.map { UInt64(clamping: max(0, $0.mediaTime)) } ?? 0
        encryption = ProtectionScheme(sampleEntry: entry.bytes, mediaType: mediaType)
        protectionHeaders = movie.otherMovieBoxes.filter { $0.type == "pssh" }.map(\.bytes)
    }
}
