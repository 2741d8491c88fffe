import Foundation
import MediaCore
import ISOBMFF
import Subtitles

/// Subtitle tracks added to a copied movie (`SamplePipe.addingSubtitles`): cues read into tx3g
/// samples, placed in the movie's subtitle group, forced tracks linked with `forc`.
extension SubtitleReader: SampleBufferSource {}

/// A subtitle track to add to a movie.
public struct NewSubtitleTrack: Sendable {
    /// The cues, in time order.
    public var cues: [SubtitleCue]
    /// The track's language; nil: undetermined.
    public var language: LanguageTag?
    /// The handler name; the language's code when nil.
    public var name: String?
    /// Forced-only subtitles (tx3g display flags), linked by `forc` from a full track of the same language.
    public var isForced: Bool
    /// Enable this track and disable its group-mates.
    public var isDefault: Bool

    /// A track of `cues` with these properties.
    public init(cues: [SubtitleCue], language: LanguageTag? = nil, name: String? = nil, isForced: Bool = false, isDefault: Bool = false) {
        self.cues = cues
        self.language = language
        self.name = name
        self.isForced = isForced
        self.isDefault = isDefault
    }
}

extension SamplePipe {
    /// A pipe that copies every track of `asset` (with its structure, as `mirroring` does) and
    /// adds tx3g subtitle tracks: they join the movie's subtitle group (a non-zero alternate
    /// group whose tracks are all legible) or else form a group of their own; they are disabled
    /// unless one is the default; a forced track gets a `forc` link from a full subtitle track
    /// of the same language.
    /// - Returns: the pipe and warnings (cues past the movie's end).
    public static func addingSubtitles(_ tracks: [NewSubtitleTrack], to asset: Asset, outputURL: URL,
                                       fileType: FileType? = nil) throws -> (pipe: SamplePipe, warnings: [String]) {
        let reader = try AssetReader(asset: asset)
        let writer = try AssetWriter(outputURL: outputURL, fileType: fileType)
        guard writer.fileType.holdsTextSubtitles else {
            throw MediaError(.unsupported, "\(writer.fileType.rawValue) files carry no text subtitles; write them to .mp4, .m4v, .mov, .mkv or .webm", file: outputURL.path)
        }
        try TrackMirror(asset: asset).checkWritable(to: writer.fileType)
        let pipe = SamplePipe(reader: reader, writer: writer)
        let mirrored = try pipe.mirrorTracks(asset)
        var warnings: [String] = []
        let videoSize = asset.tracks(withMediaType: .video).first?.formatDescriptions.first?.dimensions

        var added: [(NewSubtitleTrack, AssetWriterInput)] = []
        for track in tracks {
            let source = SubtitleReader(cues: track.cues, forced: track.isForced)
            let input = AssetWriterInput(mediaType: .subtitle, outputSettings: nil, sourceFormatHint: source.formatDescription)
            input.languageCode = track.language?.iso639 ?? "und"
            input.extendedLanguageTag = track.language?.bcp47
            input.name = track.name ?? MediaType.subtitle.defaultHandlerName
            input.mediaTimeScale = 1000
            input.naturalSize = videoSize
            try writer.add(input)
            pipe.connect(source, to: input, duration: source.duration)
            added.append((track, input))
            if asset.duration.isNumeric, source.duration > asset.duration, let last = track.cues.max(by: { $0.end < $1.end }) {
                warnings.append("cue at line \(last.line) ends at \(String(format: "%.3f", last.endTime.seconds)) s, after the movie's end (\(String(format: "%.3f", asset.duration.seconds)) s); kept")
            }
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
        for g in groups { try writer.add(g) }

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

/// Reading subtitle tracks back as cues.
public enum SubtitleExtraction {
    /// The cues of a tx3g subtitle track, markup restored from its style records.
    public static func cues(of track: AssetTrack) throws -> [SubtitleCue] {
        let asset = track.owningAsset
        guard track.formatDescriptions.first?.codec == "tx3g" else {
            throw MediaError(.unsupported, "track \(track.trackID) is \(track.codecName), not tx3g timed text", file: asset.url.path)
        }
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: track)
        try reader.add(output)
        guard reader.startReading() else { throw reader.error! }
        var samples: [TimedTextSample] = []
        while let s = output.copyNextSampleBuffer() {
            let start = s.presentationTimeStamp.convertScale(1000, method: .nearest).value
            let end = (s.presentationTimeStamp + s.duration).convertScale(1000, method: .nearest).value
            let (text, styles) = TX3G.decode(try s.data)
            samples.append(TimedTextSample(start: start, end: end, text: text, styles: styles))
        }
        if let error = reader.error { throw error }
        return TimedText.cues(samples)
    }
}
