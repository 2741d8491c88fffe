import Foundation
import MediaCore

/// How `ExportSession.concatenating(_:to:options:)` joins clips.
public struct ConcatenationOptions: Sendable {
    /// When the clips are re-encoded.
    public enum Reencode: String, Sendable, CaseIterable {
        /// Copy when every clip fits one track (same codec, size, profile, audio rate and
        /// channels) and every cut can be exact; else re-encode every clip (with a note).
        case auto
        /// Copy or fail; into files without edit lists, cuts move back to sync samples (a note each).
        case never
        /// Re-encode every clip with the preset.
        case always
    }

    /// When the clips are re-encoded (`auto` by default).
    public var reencode = Reencode.auto
    /// The preset when re-encoding (`passthrough` means `highestQuality` for a crossfade).
    public var preset = ExportPreset.highestQuality
    /// Join only the sound (always, into a sound-only file type); a clip without sound is refused.
    public var audioOnly = false
    /// Keep every track all clips have (by type and language), not only the enabled video and audio.
    public var allTracks = false
    /// Dissolve each clip into the next over this long; the clips overlap, everything is re-encoded.
    public var crossfade: MediaTime?
    /// How copied clips are cut (`CutMode`); nil: `.smart`, or `.exact` under `reencode`
    /// `.never` (which allows only `.exact` and `.keyframe`). Files without edit lists
    /// (Matroska, WebM, MPEG-TS) refuse `.exact` and take `.keyframe` under `.never`; a clip
    /// `.smart` cannot cut there is re-encoded (`auto`), with a note.
    public var cut: CutMode?

    /// Options with these values (by default: copy what can be copied, cut smart, `highestQuality` when re-encoding).
    public init(reencode: Reencode = .auto, cut: CutMode? = nil, preset: ExportPreset = .highestQuality, audioOnly: Bool = false,
                allTracks: Bool = false, crossfade: MediaTime? = nil) {
        self.reencode = reencode
        self.cut = cut
        self.preset = preset
        self.audioOnly = audioOnly
        self.allTracks = allTracks
        self.crossfade = crossfade
    }
}

extension ExportSession {
    /// The export of `clips` one after the other into `outputURL`: each clip brings its enabled
    /// video and audio track (every common track with `allTracks`); a clip without sound leaves
    /// silence. Into MP4/MOV samples are copied and each cut is frame-exact through the edit
    /// list; what the job decided (re-encoding, moved cuts) is in `notes`. Run it with `run()`.
    /// - Throws: `.invalidData` for a clip that cannot be read or joined, `.unsupported` when
    ///   `reencode` is `.never` and the clips cannot be copied.
    public static func concatenating(_ clips: [Clip], to outputURL: URL, options: ConcatenationOptions = .init()) throws -> ExportSession {
        guard !clips.isEmpty else { throw MediaError(.invalidOperation, "nothing to join: no clips") }
        let type = try FileType.writing(outputURL)
        var o = options
        o.audioOnly = o.audioOnly || type.holdsSoundOnly
        let assets = try clips.map { try $0.open() }
        let ranges = try zip(clips, assets).map { try $0.timeRange(in: $1) }
        try Concatenation.checkSound(clips, assets, audioOnly: o.audioOnly)
        if let fade = o.crossfade {
            guard o.reencode != .never, !o.allTracks else {
                throw MediaError(.invalidOperation, "a crossfade re-encodes; it cannot go with reencode never or allTracks")
            }
            return try Concatenation.crossfading(clips, assets, ranges, fade: fade, options: o, to: outputURL)
        }
        var job = Concatenation(clips: clips, assets: assets, ranges: ranges, type: type, options: o)
        return try job.session(to: outputURL)
    }
}

/// The planning of a concatenation: which tracks, cut where, copied or re-encoded.
struct Concatenation {
    let clips: [Clip]
    let assets: [Asset]
    var ranges: [TimeRange]
    let type: FileType
    let options: ConcatenationOptions
    var notes: [String] = []

    init(clips: [Clip], assets: [Asset], ranges: [TimeRange], type: FileType, options: ConcatenationOptions) {
        self.clips = clips
        self.assets = assets
        self.ranges = ranges
        self.type = type
        self.options = options
    }

    /// Refuses joining pictures when no clip has any, and joining sound with a clip that has none.
    static func checkSound(_ clips: [Clip], _ assets: [Asset], audioOnly: Bool) throws {
        if !audioOnly, !assets.contains(where: { !$0.tracks(withMediaType: .video).isEmpty }) {
            throw MediaError(.invalidData, "no clip has video (join audio only, or into an .m4a output)", file: clips[0].url.path)
        }
        if audioOnly, let silent = zip(clips, assets).first(where: { $1.tracks(withMediaType: .audio).isEmpty }) {
            // Joining sound: a clip without any is refused, not dropped without a word.
            throw MediaError(.invalidData, "has no sound, and an audio-only join joins the clips' sound: leave it out, or join it with its video",
                             file: silent.0.url.path)
        }
    }

    /// The cut mode asked for, checked against `reencode` and the file.
    var cutMode: CutMode {
        get throws {
            if options.reencode == .never, options.cut == .smart {
                throw MediaError(.invalidOperation, "a smart cut re-encodes the partial GOPs; with reencode never cut exact or keyframe")
            }
            if !type.hasEditLists, options.cut == .exact {
                throw MediaError(.invalidOperation, ".\(type.rawValue) files have no edit lists, so an exact cut cannot hide what it copies: cut smart or keyframe")
            }
            return options.cut ?? (options.reencode != .never ? .smart : type.hasEditLists ? .exact : .keyframe)
        }
    }

    mutating func session(to outputURL: URL) throws -> ExportSession {
        var reencode = options.reencode == .always
        var mode = try cutMode
        if !type.hasEditLists, !options.audioOnly, !reencode, mode == .smart, let why = smartCutProblem() {
            // (a smart cut asked for is honoured or refused, not replaced)
            if options.cut == .smart { throw MediaError(.unsupported, "the clips cannot be cut smart: \(why); cut keyframe, or re-encode (reencode always)") }
            // No edit lists: a clip smart cut cannot cut is copied when every cut is at a sync
            // sample, else every clip is re-encoded (auto).
            reencode = try reencodesBetweenSyncSamples(why: why)
            mode = .exact
        }
        if mode == .keyframe, !reencode, !options.audioOnly { try cutAtKeyframes() }
        let composition = try build()
        composition.writesWithoutEditLists = !type.hasEditLists
        let asset = try composition.makeAsset()
        // Segments that cannot share a track, and (into a file that does not keep ISO entries as
        // they are) codecs the file cannot hold: `auto` re-encodes for either.
        let unfit = asset.tracks.filter { [.video, .audio].contains($0.mediaType) && !type.keepsBoxes && !type.canHold($0.codecName) }
        let problems = asset.tracks.compactMap { t in t.passthroughProblem.map { "track \(t.trackID): \($0)" } }
            + unfit.map { "track \($0.trackID): .\(type.rawValue) files cannot hold \($0.codecName)" }
        if !problems.isEmpty, !reencode {
            guard options.reencode != .never else { throw MediaError(.unsupported, "the clips cannot be copied (reencode never): " + problems.joined(separator: "; ")) }
            notes += problems.map { "re-encoding every clip: \($0)" }
            reencode = true
        }
        if mode == .exact, !reencode, let video = asset.tracks(withMediaType: .video).first, video.showsBlack(in: .everything),
           let silent = zip(clips, assets).first(where: { $1.tracks(withMediaType: .video).isEmpty }) {
            notes.append("track \(video.trackID) is cut smart, not exact: \(silent.0.url.lastPathComponent) has no picture, and black frames are encoded for it")
        }
        let session = ExportSession(asset: asset, preset: reencode ? options.preset : .passthrough)
        if options.cut == mode { session.cutMode = mode } else { session.setDefaultCutMode(mode) }
        session.outputURL = outputURL
        session.notes = notes
        if !assets[0].metadata.isEmpty { session.metadata = assets[0].metadata }   // the first clip's date, place, title
        if reencode { fitToFirstClip(session) }
        return session
    }

    /// Re-encoded clips take the first clip's picture size, frame rate (constant: other clips'
    /// pictures repeated or left out) and sound format.
    func fitToFirstClip(_ session: ExportSession, video: Bool = true) {
        let firstVideo = assets.lazy.compactMap { $0.tracks(withMediaType: .video).first }.first
        if video {
            session.videoSize = firstVideo?.naturalSize
            if let rate = firstVideo?.nominalFrameRate, rate > 0 { session.videoFrameRate = Concatenation.standardRate(Double(rate)) }
        }
        if let audio = assets.lazy.compactMap({ $0.tracks(withMediaType: .audio).first?.formatDescriptions.first }).first {
            session.audioSampleRate = audio.sampleRate.flatMap { $0.rounded(saturating: Int.self, .towardZero) }
            session.audioChannelCount = audio.channelCount
        }
    }

    /// Keyframe cuts: each clip's range moves to its video's sync samples (a note each).
    mutating func cutAtKeyframes() throws {
        for k in clips.indices {
            let videos = assets[k].tracks(withMediaType: .video)
            guard let video = videos.first(where: \.isEnabled) ?? videos.first, !options.audioOnly else { continue }
            let moved = try SmartVideoSource.keyframeRange(of: video, ranges[k])
            guard moved != ranges[k] else { continue }
            notes.append(ExportPlan.movedNote(from: ranges[k], to: moved, what: "\(clips[k])"))
            ranges[k] = moved
        }
    }

    /// Why a clip's video cannot be cut smart over its range (naming the clip), or nil.
    func smartCutProblem() -> String? {
        for k in clips.indices {
            let videos = assets[k].tracks(withMediaType: .video)
            guard let video = videos.first(where: \.isEnabled) ?? videos.first, let problem = video.smartCutProblem(in: ranges[k]) else { continue }
            return "\(clips[k])'s video cannot be cut smart (\(problem))"
        }
        return nil
    }

    /// Files without edit lists, clips smart cut cannot cut (`why`): a copy is exact only when
    /// every cut is at a sync sample; returns whether the clips are re-encoded (with a note).
    mutating func reencodesBetweenSyncSamples(why: String) throws -> Bool {
        for k in clips.indices {
            let videos = assets[k].tracks(withMediaType: .video)
            guard let video = videos.first(where: \.isEnabled) ?? videos.first else { continue }
            let cut = try TrackCut(track: video, range: ranges[k]).atSyncSamples(of: video).shown
            // (Before the video starts or after it ends nothing is cut.)
            let moved = (ranges[k].start > video.timeRange.start && cut.start != ranges[k].start)
                || (ranges[k].end < video.timeRange.end && cut.end != ranges[k].end)
            guard moved else { continue }
            notes.append("re-encoding every clip: \(why); \(clips[k]) is not cut at sync samples, and .\(type.rawValue) files have no edit lists to hide the rest")
            return true
        }
        return false
    }

    /// A measured frame rate as the nominal one it stands for (24.975 → 25; 29.97 stays).
    static func standardRate(_ measured: Double) -> Double {
        let nominal = [23.976, 24, 25, 29.97, 30, 48, 50, 59.94, 60, 120]
        return nominal.first { abs($0 - measured) / $0 < 0.005 } ?? measured
    }
}
