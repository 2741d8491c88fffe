import Foundation
import MediaCore
import ISOBMFF
import Subtitles

/// The policy of a lossless copy: which tracks are copied, how each becomes a writer input, how
/// groups and associations are rebuilt, and what becomes of chapters and of Matroska's flags.
/// It configures the reader, writer and pipe through their public API only.
struct TrackMirror {
    typealias TrackPlan = ExportPlan.TrackPlan
    let asset: Asset
    /// Each track's plan by track ID (an export's); a track without one is copied.
    var plans: [Int: TrackPlan] = [:]
    /// Each ranged track's cut by track ID (an export's), which its output reads and its input shows.
    var cuts: [Int: TrackCut] = [:]
    /// The part of the asset copied: `.everything` keeps each track's media and edit list as
    /// they are; a range reads on the asset's timeline, cut frame-exactly by the writer's session.
    var timeRange: TimeRange = .everything
    /// The tracks copied (`TrackSelection`); the others are left out, and so are the `tref`s to them.
    var selection: TrackSelection = .all

    init(asset: Asset) { self.asset = asset }

    /// The mirror that carries out an export's plan.
    init(plan: ExportPlan) {
        asset = plan.asset
        plans = plan.tracks
        cuts = plan.cuts
        timeRange = plan.range
        selection = plan.settings.trackSelection
        addedComposition = plan.addedComposition
    }

    /// What becomes of `track`: its plan, or copied.
    func plan(_ track: AssetTrack) -> TrackPlan { plans[track.trackID] ?? .copy }

    /// A video composition drawn with no video track in the asset (still images, a background):
    /// it becomes a track of its own, first.
    var addedComposition: (VideoComposition, VideoOutputSettings, EncodingSettings)?

    /// The one rule for tracks the target cannot hold: those without picture or sound (timecode,
    /// timed metadata, attachments, data) are left out with a warning; video, audio and
    /// subtitles a target cannot hold fail the job (`checkWritable`, the muxer), naming them.
    /// A timecode track's start timecode goes into Matroska as a tag. Returns the copied tracks
    /// left out, and the timecodes to carry.
    private func leaveOutWhatTheTargetCannotHold(_ pipe: SamplePipe) -> (left: [AssetTrack], timecodes: [(track: AssetTrack, timecode: String)]) {
        var timecodes: [(track: AssetTrack, timecode: String)] = []
        for track in asset.tracks where track.backing.isAttachment && selection.includes(track) {
            pipe.warnings.append("track \(track.trackID) (\(track.codecName)\(track.name.map { ", " + $0 } ?? "")) is left out: attachments and data streams are not copied")
        }
        let type = pipe.writer.fileType
        let left = copiedTracks.filter { !type.keepsBoxes && TrackMirror.isAuxiliaryWithoutMapping($0) }
        for track in left {
            if type.timecodeAsTag, track.mediaType == .timecode, let timecode = TrackMirror.startTimecode(of: track) {
                timecodes.append((track, timecode))
                pipe.warnings.append("track \(track.trackID) (timecode \(timecode)) is kept as the TIMECODE tag of the video: "
                                     + "\(type.rawValue) files have no timecode tracks")
                continue
            }
            pipe.warnings.append("track \(track.trackID) (\(track.mediaType), '\(track.codec?.description ?? track.codecName)') is left out: "
                                 + "\(type.rawValue) files cannot hold it")
        }
        return (left, timecodes)
    }

    /// A track with no picture or sound (timecode `tmcd`, timed metadata) whose MP4 sample entry
    /// no other container has a codec for.
    static func isAuxiliaryWithoutMapping(_ track: AssetTrack) -> Bool {
        guard ![.video, .audio].contains(track.mediaType), !track.mediaType.isLegible,
              let entry = track.formatDescriptions.first?.sampleEntry else { return false }
        return CodecMapping.codecParameters(sampleEntry: [UInt8](entry), mediaType: track.mediaType) == nil
    }

    /// The tracks a mirror copies: the selected ones, but the attachments (fonts, covers) of libavformat sources.
    var copiedTracks: [AssetTrack] { asset.tracks.filter { !$0.backing.isAttachment && selection.includes($0) } }

    /// Checks that every copied track can be written to `fileType`.
    /// - Throws: `.unsupported` naming the track, its codec and why (what MP4 holds, or what could
    ///   not be read of its configuration).
    func checkWritable(to fileType: FileType) throws {
        try checkEncryption(to: fileType)
        if fileType.holdsSoundOnly, let video = copiedTracks.first(where: { track in
            if case .leaveOut = plan(track) { false } else { track.mediaType == .video }
        }) {
            var error = MediaError(.unsupported, "track \(video.trackID) is video, and .\(fileType.rawValue) files hold sound only: export it "
                                   + "(the video is left out) or write " + FileType.listing(FileType.kinds(holding: video.codecName, soundOnly: false)),
                                   file: asset.filePath(of: video))
            error.trackID = video.trackID
            throw error
        }
        // A file that keeps boxes needs a sample entry for every track; other muxers say what they refuse.
        guard fileType.keepsBoxes else { return }
        for track in copiedTracks {
            guard case .copy = plan(track) else { continue }   // (decoded, mixed and left-out tracks need no entry)
            guard let format = track.formatDescriptions.first, format.sampleEntry == nil,
                  SubtitlePacketFormat(codecName: format.codecName ?? "") == nil else { continue }
            let reason = track.backing.isoProblem ?? "no ISO sample description"
            var error = MediaError(.unsupported, "track \(track.trackID) (\(track.codecName)) cannot be written to \(fileType.rawValue): \(reason)",
                                   file: asset.filePath(of: track))
            error.trackID = track.trackID
            throw error
        }
    }

    /// Encrypted tracks are copied whole into MP4/MOV, or not at all: their samples cannot be
    /// decoded, cut, or carried into containers without Common Encryption.
    private func checkEncryption(to fileType: FileType) throws {
        for track in copiedTracks {
            guard let e = track.encryption else { continue }
            var what = "track \(track.trackID) is encrypted (\(e))"
            var file = asset.filePath(of: track)
            if let segment = track.backing.composedSegments?.first(where: { $0.sourceTrack?.encryption != nil }) {
                // A composition's track: the clip that is encrypted, not the composition.
                what = "\(segment.name) is encrypted (\(e))"
                file = segment.sourceURL?.path
            }
            if case .leaveOut = plan(track) { continue }
            guard case .copy = plan(track) else {
                throw MediaError(.unsupported, "\(what): its samples cannot be decoded without the key; copy it (passthrough)", file: file)
            }
            if let problem = e.problem { throw MediaError(.unsupported, "\(what): \(problem)", file: file) }
            guard fileType.carriesCommonEncryption else {
                throw MediaError(.unsupported, "\(what): .\(fileType.rawValue) files cannot carry MP4's Common Encryption; write "
                                 + FileType.listing(FileType.allCases.filter(\.carriesCommonEncryption)),
                                 file: file)
            }
            guard timeRange == .everything else {
                throw MediaError(.unsupported, "\(what): its samples and their IVs can only be copied whole, not cut to a range", file: file)
            }
        }
    }

    /// Adds an output, an input and a connection to `pipe` for every copied track, and returns
    /// the inputs and the groups (not yet added to the writer).
    func apply(to pipe: SamplePipe) throws -> SamplePipe.Mirrored {
        let writer = pipe.writer
        writer.copyMovieStructure(of: asset)
        // MP4 to MP4 keeps the user data as it is; other pairs carry what Splice can read of it.
        let structure = asset.source.structure
        if writer.metadata.isEmpty, !(structure.keepsBoxes && writer.fileType.keepsBoxes) { writer.metadata = asset.metadata }
        if structure.startsAtStartTime { pipe.sessionStartTime = asset.startTime }
        let leftOut = leaveOutWhatTheTargetCannotHold(pipe)
        let chapterTracks = (writer.fileType.chapters == .track ? [] : carryChapters(into: pipe)) + leftOut.left
        var inputs: [Int: AssetWriterInput] = [:]
        var ordered: [AssetWriterInput] = []
        let ranged = timeRange != .everything
        if ranged {
            pipe.reader?.timeRange = timeRange
            pipe.sessionStartTime = timeRange.start
            pipe.sessionEndTime = timeRange.end
        } else if structure.isCut, asset.duration.isNumeric, asset.duration > .zero {
            // (a clip's last frame may outlast its range: the file ends with the timeline)
            pipe.sessionEndTime = asset.duration
        }
        if let (composition, decoded, encoded) = addedComposition {
            let input = try connectComposition([], composition, decoded, encoded, in: nil, to: pipe, ranged: ranged)
            ordered.append(input)
        }
        for track in copiedTracks where !chapterTracks.contains(where: { $0 === track }) {
            let plan = self.plan(track)
            if case .leaveOut = plan { continue }
            let input = try connect(track, plan, to: pipe, ranged: ranged)
            inputs[track.trackID] = input
            ordered.append(input)
        }
        carryTimecodes(leftOut.timecodes, into: inputs)
        let groups = self.groups(inputs, notes: &pipe.notes)
        if writer.fileType.chapters == .track, structure.chapters != .track, !asset.chapters.isEmpty {
            ordered.append(try addChapterTrack(to: pipe, referredToBy: ordered))
        }
        carryAssociations(between: inputs, notes: &pipe.notes)
        return SamplePipe.Mirrored(inputs: ordered, inputsByTrackID: inputs, groups: groups)
    }

    /// The input that writes `track` as `plan` says, connected.
    private func connect(_ track: AssetTrack, _ plan: TrackPlan, to pipe: SamplePipe, ranged: Bool) throws -> AssetWriterInput {
        switch plan {
        case .smartCrossfade(let crossfade): return try connectSmartCrossfade(track, crossfade, to: pipe)
        case .smartCut(let reencodes): return try connectSmartCut(track, reencodes: reencodes, to: pipe, ranged: ranged)
        case .substitute(let encoded): return try connectEncoded(encoded, in: track, to: pipe)
        default: return try connectCombined(plan, in: track, to: pipe, ranged: ranged) ?? connectPair(for: track, plan: plan, ranged: ranged, to: pipe)
        }
    }

    /// The input of a plan that combines tracks (a mix, a composition) in `track`'s place; nil for other plans.
    private func connectCombined(_ plan: TrackPlan, in track: AssetTrack, to pipe: SamplePipe, ranged: Bool) throws -> AssetWriterInput? {
        switch plan {
        case .compose(let tracks, let composition, let decoded, let encoded):
            return try connectComposition(tracks, composition, decoded, encoded, in: track, to: pipe, ranged: ranged)
        case .mix(let tracks, let mix, let decoded, let encoded):
            return try connectMix(tracks, mix, decoded, encoded, in: track, to: pipe, ranged: ranged)
        default:
            return nil
        }
    }

    /// An audio mix of `tracks` into one encoding input in `track`'s place.
    private func connectMix(_ tracks: [AssetTrack], _ mix: AudioMix, _ decoded: AudioOutputSettings, _ encoded: EncodingSettings,
                            in track: AssetTrack, to pipe: SamplePipe, ranged: Bool) throws -> AssetWriterInput {
        let mixed = AssetReaderAudioMixOutput(audioTracks: tracks, audioSettings: decoded)
        mixed.audioMix = mix
        try pipe.reader?.add(mixed)
        let input = AssetWriterInput(mediaType: .audio, outputSettings: encoded)
        input.copyProperties(of: track)
        try pipe.writer.add(input)
        let span = ranged ? timeRange.intersection(track.timeRange) : TimeRange(start: .zero, duration: asset.duration)
        pipe.connect(mixed, to: input, duration: span.duration, start: span.start)
        pipe.mixes.append(mixed)
        return input
    }

    /// A video composition of `tracks` into one encoding input in `track`'s place (its
    /// language, name, flags and group; not its matrix, which the composition applied).
    private func connectComposition(_ tracks: [AssetTrack], _ composition: VideoComposition, _ decoded: VideoOutputSettings,
                                    _ encoded: EncodingSettings, in track: AssetTrack?, to pipe: SamplePipe, ranged: Bool) throws -> AssetWriterInput {
        let composed = AssetReaderVideoCompositionOutput(videoTracks: tracks, videoSettings: decoded)
        composed.videoComposition = composition
        if let reader = pipe.reader { try reader.add(composed) }
        let input = AssetWriterInput(mediaType: .video, outputSettings: encoded)
        if let track { input.copyProperties(of: track) }
        input.transform = .identity
        try pipe.writer.add(input)
        let end = composition.duration > .zero ? composition.duration : asset.duration
        let span = ranged ? timeRange.intersection(TimeRange(start: .zero, duration: end)) : TimeRange(start: .zero, duration: end)
        pipe.connect(composed, to: input, duration: span.duration, start: span.start)
        return input
    }

    /// Adds the output and input that copy or re-encode `track`, connected; a range's cut decided
    /// once, which the output reads and the input shows.
    private func connectPair(for track: AssetTrack, plan: TrackPlan, ranged: Bool, to pipe: SamplePipe) throws -> AssetWriterInput {
        let (output, input) = pair(for: track, plan: plan, ranged: ranged, writer: pipe.writer)
        if ranged {
            guard let cut = cuts[track.trackID] else {
                throw MediaError(.invalidOperation, "the export plan has no cut for track \(track.trackID)")
            }
            output.cut = cut
            input.cut = cut
        }
        try pipe.reader?.add(output)
        try pipe.writer.add(input)
        if let cut = output.cut {
            pipe.connect(output, to: input, duration: cut.shown.duration, start: cut.shown.start)
        } else if output.outputSettings != nil {
            pipe.connect(output, to: input, duration: track.timeRange.duration, start: track.timeRange.start)
        } else {
            pipe.connect(output, to: input, duration: track.timeRange.duration)
        }
        return input
    }

    /// The reader output and writer input that copy or re-encode `track`.
    private func pair(for track: AssetTrack, plan: TrackPlan, ranged: Bool, writer: AssetWriter) -> (AssetReaderTrackOutput, AssetWriterInput) {
        if case .encode(let decoded, let encoded) = plan {
            let input = AssetWriterInput(mediaType: track.mediaType, outputSettings: encoded)
            input.copyProperties(of: track)
            return (AssetReaderTrackOutput(track: track, outputSettings: decoded), input)
        }
        let output = AssetReaderTrackOutput(track: track, outputSettings: nil)
        // Whole tracks keep their media times and edit lists; a range is read on the asset's
        // timeline and cut by the session.
        output.presentsMediaTimeline = !ranged
        output.alwaysCopiesSampleData = false
        let input = AssetWriterInput(copying: track)
        if ranged { input.segments = nil }
        input.sharesEquivalentDescriptions = asset.source.structure.isCut
        // Audio from other containers is timed in samples in MP4 (its timestamps, often in
        // milliseconds, move by less than a tick).
        if !asset.source.structure.timesSoundInSamples, writer.fileType.timesSoundInSamples, track.mediaType == .audio,
           let rate = track.formatDescriptions.first?.sampleRate, rate >= 1, rate <= Double(Int32.max) {
            input.mediaTimeScale = rate.rounded(saturating: Int32.self, .towardZero) ?? 1
        }
        // Text packets from elsewhere get the picture's size (as ffmpeg gives them), where tx3g text boxes place cues.
        if track.mediaType.isLegible, track.formatDescriptions.first?.sampleEntry == nil, track.naturalSize == nil { input.naturalSize = asset.tracks(withMediaType: .video).first?.naturalSize }
        return (output, input)
    }

    /// QuickTime chapter tracks become the writer's chapters (Matroska, WebM), or are left out
    /// with a warning; returns them (they are not copied as tracks).
    private func carryChapters(into pipe: SamplePipe) -> [AssetTrack] {
        // The container's own chapters (Matroska's, read through libavformat) go across as they are.
        if asset.source.structure.chapters == .list, !asset.chapters.isEmpty {
            if pipe.writer.fileType.chapters == .list {
                pipe.writer.chapters += asset.chapters
            } else {
                pipe.warnings.append("\(asset.chapters.count) chapters are left out: \(pipe.writer.fileType.rawValue) files have no chapters")
            }
        }
        let tracks = ChapterTrack.tracks(of: asset).filter(selection.includes)
        for track in tracks {
            if pipe.writer.fileType.chapters == .list {
                do {
                    pipe.writer.chapters += try ChapterTrack.chapters(of: track)
                } catch {
                    pipe.warnings.append("track \(track.trackID) (chapters) is left out: it cannot be read: \((error as? MediaError)?.message ?? "\(error)")")
                }
            } else {
                pipe.warnings.append("track \(track.trackID) (chapters) is left out: \(pipe.writer.fileType.rawValue) files have no chapters")
            }
        }
        return tracks
    }

    /// Container chapters become a QuickTime chapter track, referred to by `chap` from every
    /// audio and video track (as QuickTime and ffmpeg write them).
    private func addChapterTrack(to pipe: SamplePipe, referredToBy others: [AssetWriterInput]) throws -> AssetWriterInput {
        let source = ChapterSamples(asset.chapters)
        let input = AssetWriterInput(mediaType: .text, outputSettings: nil, sourceFormatHint: source.formatDescription)
        input.marksOutputTrackAsEnabled = false
        input.name = "Chapters"
        input.mediaTimeScale = 1000
        try pipe.writer.add(input)
        pipe.connect(source, to: input, duration: asset.duration)
        for other in others where other.mediaType == .audio || other.mediaType == .video {
            other.addTrackAssociation(withTrackOf: input, type: .chapterList)
        }
        return input
    }
}

extension SamplePipe {
    /// A pipe that copies every track of `asset` into a new file with the same structure:
    /// one input per track, the alternate groups (same numbers, same default tracks), every
    /// track association (IDs remapped), languages, `elng`, names, enabled flags, edit lists,
    /// and — from MP4/MOV sources — the boxes Splice does not interpret.
    ///
    /// ```swift
    /// let pipe = try SamplePipe.mirroring(asset, to: URL(fileURLWithPath: "copy.mp4"))
    /// pipe.progressHandler = { print(Int($0 * 100), "%") }
    /// try pipe.run()
    /// ```
    /// - Parameters:
    ///   - asset: the movie copied.
    ///   - outputURL: the file written (its extension says the container, unless `fileType` does).
    ///   - fileType: the container, when not the extension's.
    ///   - tracks: the tracks copied (every track by default); `tref`s to the others are
    ///     dropped and groups get new default tracks, each said in `notes`.
    public static func mirroring(_ asset: Asset, to outputURL: URL, fileType: FileType? = nil, keeping tracks: TrackSelection = .all) throws -> SamplePipe {
        try tracks.check(against: asset)
        let reader = try AssetReader(asset: asset)
        let writer = try AssetWriter(outputURL: outputURL, fileType: fileType)
        var mirror = TrackMirror(asset: asset)
        mirror.selection = tracks
        try mirror.checkWritable(to: writer.fileType)
        let pipe = SamplePipe(reader: reader, writer: writer)
        try pipe.mirror(asset, with: mirror)
        return pipe
    }

    /// Adds an output, an input and a connection for every track of `asset`, and its groups
    /// (see `mirroring`).
    /// - Returns: the inputs, in track order.
    @discardableResult
    public func mirror(_ asset: Asset) throws -> [AssetWriterInput] {
        let m = try mirrorTracks(asset)
        for g in m.groups where !g.inputs.isEmpty { try writer.add(g) }
        return m.inputs
    }

    /// What `mirrorTracks` made: inputs in track order (and by source track ID) and the source's
    /// groups as writer groups, not yet added — so that a caller can add tracks to them first.
    public struct Mirrored {
        /// The inputs, in the source's track order.
        public var inputs: [AssetWriterInput]
        /// The inputs by the source track's ID.
        public var inputsByTrackID: [Int: AssetWriterInput]
        /// One per `Asset.trackGroups` entry, in the same order; without inputs when none of
        /// its tracks is copied (such a group is not added to the writer).
        public var groups: [AssetWriterInputGroup]
    }

    /// Mirrors `asset` under `mirror`'s plan and range (an export), groups included.
    func mirror(_ asset: Asset, with mirror: TrackMirror) throws {
        let m = try mirror.apply(to: self)
        for g in m.groups where !g.inputs.isEmpty { try writer.add(g) }
    }

    /// Like `mirror(_:)`, but returns the groups instead of adding them to the writer.
    public func mirrorTracks(_ asset: Asset, keeping tracks: TrackSelection = .all) throws -> Mirrored {
        var mirror = TrackMirror(asset: asset)
        mirror.selection = tracks
        return try mirror.apply(to: self)
    }
}
