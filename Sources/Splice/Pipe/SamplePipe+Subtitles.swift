import Foundation
import MediaCore
import ISOBMFF
import Subtitles

/// Subtitle tracks added to a copied movie (`SamplePipe.addingSubtitles`): cues read into tx3g
/// samples, placed in the movie's subtitle group, forced tracks linked with `forc`.
extension SubtitleReader: SampleBufferSource {}

/// A subtitle track to add to a movie.
public struct NewSubtitleTrack: Sendable {
    /// The cues, and what their file keeps beside them (WebVTT STYLE and REGION blocks, an
    /// ASS script's header).
    public var document: SubtitleDocument
    /// The cues, in time order.
    public var cues: [SubtitleCue] {
        get { document.cues }
        set { document.cues = newValue }
    }
    /// The samples in MP4/MOV: `.tx3g` (the default, which every MP4 player shows) or `.wvtt`
    /// (WebVTT in MP4, which keeps cue ids, settings, voices, classes and STYLE/REGION blocks).
    /// Matroska gets the file's own format (SRT, WebVTT, ASS); WebM gets WebVTT.
    public var mp4Format = SubtitleTrackFormat.tx3g
    /// The source's name, for messages and `wvtt`'s source label.
    public var sourceName: String?
    /// The track's language; nil: undetermined.
    public var language: LanguageTag?
    /// The handler name; the language's code when nil.
    public var name: String?
    /// Forced-only subtitles (tx3g display flags), linked by `forc` from a full track of the same language.
    public var isForced: Bool
    /// Enable this track and disable its group-mates.
    public var isDefault: Bool
    /// Keep cues that run past the movie's end, so that the movie lasts until the last one
    /// ends; `false` (the default): they are clipped to the movie's end (a cue that starts at or
    /// after it is left out), with a warning naming them. (GStreamer hides every track shorter
    /// than a fifth of a movie that a late cue made longer.)
    public var keepsLateCues = false

    /// A track of `cues` with these properties.
    public init(cues: [SubtitleCue], language: LanguageTag? = nil, name: String? = nil, isForced: Bool = false, isDefault: Bool = false) {
        self.init(document: SubtitleDocument(cues: cues), language: language, name: name, isForced: isForced, isDefault: isDefault)
    }

    /// A track of `document`'s cues with these properties.
    public init(document: SubtitleDocument, language: LanguageTag? = nil, name: String? = nil, isForced: Bool = false, isDefault: Bool = false) {
        self.document = document
        self.language = language
        self.name = name
        self.isForced = isForced
        self.isDefault = isDefault
    }
}

extension SamplePipe {
    /// A pipe that copies every track of `asset` (with its structure, as `mirroring` does) and
    /// adds subtitle tracks (tx3g or `wvtt` in MP4/MOV, as each track's `mp4Format` says;
    /// elsewhere `trackFormat(of:in:)`'s packets): they join the movie's subtitle group (a non-zero alternate
    /// group whose tracks are all legible) or else form a group of their own; they are disabled
    /// unless one is the default; a forced track gets a `forc` link from a full subtitle track
    /// of the same language.
    /// - Returns: the pipe and warnings (cues past the movie's end, clipped or kept as each
    ///   track's `keepsLateCues` says; markup the track's format cannot hold, one per track).
    /// - Parameters:
    ///   - tracks: the subtitle tracks added.
    ///   - asset: the movie copied.
    ///   - outputURL: the file written.
    ///   - fileType: the container, when not the extension's.
    ///   - selection: the source's tracks copied (every track by default; see `mirroring`).
    public static func addingSubtitles(_ tracks: [NewSubtitleTrack], to asset: Asset, outputURL: URL,
                                       fileType: FileType? = nil, keeping selection: TrackSelection = .all) throws -> (pipe: SamplePipe, warnings: [String]) {
        try selection.check(against: asset)
        let reader = try AssetReader(asset: asset)
        let writer = try AssetWriter(outputURL: outputURL, fileType: fileType)
        guard writer.fileType.holdsTextSubtitles else {
            throw MediaError(.unsupported, "\(writer.fileType.rawValue) files carry no text subtitles; write them to "
                             + FileType.listing(FileType.allCases.filter(\.holdsTextSubtitles)), file: outputURL.path)
        }
        var mirror = TrackMirror(asset: asset)
        mirror.selection = selection
        try mirror.checkWritable(to: writer.fileType)
        let pipe = SamplePipe(reader: reader, writer: writer)
        let mirrored = try pipe.mirrorTracks(asset, keeping: selection)
        var warnings: [String] = []
        let videoSize = asset.tracks(withMediaType: .video).first?.formatDescriptions.first?.dimensions

        var added: [(NewSubtitleTrack, AssetWriterInput)] = []
        for track in tracks {
            added.append((track, try pipe.addSubtitleInput(track, within: asset.duration, size: videoSize, warnings: &warnings)))
        }

        // The subtitle group: the first group whose tracks are all legible.
        let sourceGroups = asset.trackGroups
        let legible = sourceGroups.firstIndex { $0.members.allSatisfy { $0.hasMediaCharacteristic(.legible) } }
        let newDefault = added.first { $0.0.isDefault }?.1
        var groups = mirrored.groups
        if let i = legible {
            let old = groups[i]
            groups[i] = AssetWriterInputGroup(inputs: old.inputs + added.map(\.1), defaultInput: newDefault ?? old.defaultInput,
                                              preferredAlternateGroup: old.preferredAlternateGroup)
        } else if !added.isEmpty {
            groups.append(AssetWriterInputGroup(inputs: added.map(\.1), defaultInput: newDefault))
        }
        for g in groups where !g.inputs.isEmpty { try writer.add(g) }

        // forc: from a full subtitle track of the same language (source or new) to the forced one.
        for (track, input) in added where track.isForced {
            let language = input.languageCode ?? "und"
            let sourceFull = legible.flatMap { i in
                sourceGroups[i].members.first { t in
                    t.languageCode == language && !TX3G.isForcedOnly(t.formatDescriptions.first?.sampleEntry)
                        && !asset.tracks.contains { $0.associations[.forcedSubtitlesOnly]?.contains(t.trackID) == true }
                }
            }.flatMap { mirrored.inputsByTrackID[$0.trackID] }
            let newFull = added.first { !$0.0.isForced && ($0.1.languageCode ?? "und") == language }?.1
            if let full = sourceFull ?? newFull, full.canAddTrackAssociation(withTrackOf: input, type: .forcedSubtitlesOnly) {
                full.addTrackAssociation(withTrackOf: input, type: .forcedSubtitlesOnly)
            }
        }
        return (pipe, warnings)
    }
}

extension SamplePipe {
    /// The writer input of a new subtitle track, its samples read from its cues within a movie
    /// of `duration` (late cues and markup the format cannot hold told to `warnings`).
    func addSubtitleInput(_ track: NewSubtitleTrack, within duration: MediaTime, size: Dimensions?,
                          warnings: inout [String]) throws -> AssetWriterInput {
        let (cues, late) = Self.cues(of: track, within: duration)
        if let late { warnings.append(late) }
        var document = track.document
        document.cues = cues
        let format = Self.trackFormat(of: track, in: writer.fileType)
        if let lost = Self.lossWarning(document, format, file: track.sourceName ?? "subtitles") { warnings.append(lost) }
        let source = SubtitleReader(document: document, format: format, forced: track.isForced, label: track.sourceName, size: size)
        let input = AssetWriterInput(mediaType: .subtitle, outputSettings: nil, sourceFormatHint: source.formatDescription)
        input.languageCode = track.language?.iso639 ?? "und"
        input.extendedLanguageTag = track.language?.bcp47
        input.name = track.name ?? MediaType.subtitle.defaultHandlerName
        input.mediaTimeScale = 1000
        input.naturalSize = size
        try writer.add(input)
        connect(source, to: input, duration: source.duration)
        return input
    }

    /// The samples `track` is written as in a file of `type`: its MP4 format in MP4/MOV; in
    /// Matroska, the packets of its file's format; in WebM, WebVTT without the header.
    static func trackFormat(of track: NewSubtitleTrack, in type: FileType) -> SubtitleTrackFormat {
        guard let packets = type.subtitlePacketFormat else { return track.mp4Format }
        let own: SubtitlePacketFormat = track.document.assHeader != nil ? .ass
            : track.cues.contains { if case .webVTT = $0.markup { true } else { false } } ? .webvtt : packets
        let format = type.holdsSubtitlePackets(own) ? own : packets
        return .packets(format, keepsHeader: type.keepsSubtitleHeaders)
    }

    /// The one warning naming what `format` cannot hold of `document`; nil when it holds all.
    static func lossWarning(_ document: SubtitleDocument, _ format: SubtitleTrackFormat, file: String) -> String? {
        let (target, name): (CueLosses.Target, String) = switch format {
        case .tx3g: (.tx3g, "tx3g")
        case .wvtt: (.webVTT(keepsHeader: true), "WebVTT in MP4")
        case .packets(.webvtt, let keeps): (.webVTT(keepsHeader: keeps), keeps ? "Matroska WebVTT" : "WebM (WebVTT)")
        case .packets(.ass, _): (.ass, "ASS")
        case .packets: (.srt, "SRT")
        }
        return CueLosses.warning(for: document, to: target, targetName: name, file: file)
    }

    /// `track`'s cues within a movie of `duration`: those that run past its end clipped to it
    /// (a cue that starts at or after it left out) unless the track keeps late cues, and the
    /// warning naming them (nil when none runs past the end).
    static func cues(of track: NewSubtitleTrack, within duration: MediaTime) -> ([SubtitleCue], String?) {
        guard duration.isNumeric else { return (track.cues, nil) }
        let end = duration.convertScale(1000, method: .down).value
        guard let last = track.cues.map(\.end).max(), last > end else { return (track.cues, nil) }
        let late = track.cues.filter { $0.end > end }.map(\.line)
        let lines = "\(late.count) cue\(late.count == 1 ? "" : "s") (line\(late.count == 1 ? "" : "s") "
            + late.prefix(10).map(String.init).joined(separator: ", ") + (late.count > 10 ? ", …" : "") + ")"
        let movieEnd = String(format: "%.3f", duration.seconds)
        if track.keepsLateCues {
            return (track.cues, "\(lines) run past the movie's end (\(movieEnd) s); kept: the movie lasts until \(String(format: "%.3f", Double(last) / 1000)) s")
        }
        let clipped = track.cues.compactMap { c -> SubtitleCue? in
            guard c.start < end else { return nil }
            var c = c
            c.end = min(c.end, end)
            return c
        }
        return (clipped, "\(lines) run past the movie's end (\(movieEnd) s); clipped to it (--keep-late-cues keeps them)")
    }
}

/// Reading subtitle tracks back as cues.
public enum SubtitleExtraction {
    /// The codecs of picture subtitles, which have no text to extract, by FFmpeg's name.
    static let bitmapCodecs = ["hdmv_pgs_subtitle": "PGS", "dvd_subtitle": "VobSub", "dvb_subtitle": "DVB",
                               "xsub": "XSUB", "dvb_teletext": "teletext"]

    /// Why `track` has no text to extract; nil when it has: tx3g, QuickTime text and `wvtt` (MP4/MOV),
    /// and the SRT, ASS/SSA, WebVTT and plain-text packets of other containers.
    public static func problem(with track: AssetTrack) -> String? {
        guard let format = track.formatDescriptions.first else { return "track \(track.trackID) has no sample description" }
        if TextConversion.isMP4Text(format) { return nil }
        if SubtitlePacketFormat(codecName: track.codecName) != nil { return nil }
        if let kind = bitmapCodecs[track.codecName] {
            return "track \(track.trackID) is \(kind) subtitles (\(track.codecName)): pictures, not text; Splice extracts text subtitles only"
        }
        return "track \(track.trackID) is \(track.codecName), not a text subtitle track"
    }

    /// The cues of a text subtitle track, as `document(of:)` reads them.
    public static func cues(of track: AssetTrack) throws -> [SubtitleCue] {
        try document(of: track).cues
    }

    /// The cues of a text subtitle track — tx3g or QuickTime text with markup restored from
    /// their style records and their place from their sample descriptions, `wvtt` with ids,
    /// settings and payloads, or another container's SRT, ASS/SSA, WebVTT or text packets —
    /// each where the track's edits show it on the asset's timeline; with the track's WebVTT
    /// STYLE and REGION blocks or ASS script header.
    /// - Throws: `.unsupported` naming the track's codec when it has no text (`problem(with:)`).
    public static func document(of track: AssetTrack) throws -> SubtitleDocument {
        let asset = track.owningAsset
        if let problem = problem(with: track) { throw MediaError(.unsupported, problem, file: asset.url.path) }
        let first = track.formatDescriptions.first
        let packets = first?.sampleEntry == nil ? SubtitlePacketFormat(codecName: track.codecName).map {
            SubtitlePacketReader(format: $0, codecPrivate: first?.parameters.extradata ?? [])
        } : nil
        let wvttReader = first?.codec == "wvtt" ? SubtitlePacketReader(format: .webvtt, codecPrivate: Array((WVTT.header(ofSampleEntry: first?.sampleEntry) ?? "").utf8)) : nil
        let webVTTHeader = (wvttReader ?? packets)?.webVTTHeader
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: track)
        try reader.add(output)
        guard reader.startReading() else { throw reader.error! }
        var cues: [SubtitleCue] = []
        var samples: [TimedTextSample] = []
        var wvtt: [(start: Int64, end: Int64, cues: [SubtitleCue])] = []
        while let s = output.copyNextSampleBuffer() {
            let start = s.presentationTimeStamp.convertScale(1000, method: .nearest).value
            let end = s.duration.isNumeric ? (s.presentationTimeStamp + s.duration).convertScale(1000, method: .nearest).value : start
            let bytes = try s.loadData()
            let entry = s.formatDescription.sampleEntry
            if let packets {
                var cue = packets.cue(bytes)
                (cue.start, cue.end) = (start, end)
                if end > start, !cue.text.isEmpty || cue.markup != nil { cues.append(cue) }
            } else if s.formatDescription.codec == "wvtt" {
                wvtt.append((start, end, (wvttReader ?? SubtitlePacketReader(format: .webvtt, codecPrivate: [])).cues(ofWVTTSample: bytes)))
            } else {
                let (text, styles) = TX3G.decode(bytes)
                var sample = TimedTextSample(start: start, end: end, text: text, styles: styles)
                sample.placement = TX3G.textBox(ofSample: bytes).map { TX3G.placement(of: $0, in: track.naturalSize) }
                    ?? TX3G.placement(ofSampleEntry: entry)
                samples.append(sample)
            }
        }
        if let error = reader.error { throw error }
        if !wvtt.isEmpty { cues = WVTT.cues(wvtt) } else if packets == nil { cues = TimedText.cues(samples) }
        var document = webVTTHeader.map { SubtitleDocument(cues: cues, webVTTHeader: $0) } ?? SubtitleDocument(cues: cues)
        if packets?.format == .ass { document.assHeader = packets?.assHeader }
        return document
    }
}
