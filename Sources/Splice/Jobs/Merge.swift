import Foundation
import MediaCore

/// How `ExportSession.merging(_:with:to:options:)` puts a sound under a video.
public struct MergeOptions: Sendable {
    /// Keep the video's own sound as a second, disabled track in the new sound's alternate group.
    public var keepsOriginalAudio = false
    /// Re-encode everything with this preset; nil: copy (audio the file cannot hold is encoded).
    public var preset: ExportPreset?
    /// How a range of the video is cut when it is copied (`CutMode`); nil: smart where it can,
    /// falling back where it cannot (a mode given is honoured, or the merge throws).
    public var cut: CutMode?

    /// Options with these values (by default: the video's sound replaced, everything copied, cut smart).
    public init(keepsOriginalAudio: Bool = false, preset: ExportPreset? = nil, cut: CutMode? = nil) {
        self.keepsOriginalAudio = keepsOriginalAudio
        self.preset = preset
        self.cut = cut
    }
}

extension ExportSession {
    /// The export of `video`'s video tracks with `audio`'s first audio track from time 0,
    /// trimmed to the video's length (a shorter sound ends early). The video is copied; the
    /// sound is copied when the output holds its codec, else encoded (AAC) with a note.
    /// - Throws: `.invalidData` when `video` has no video track or `audio` no audio track.
    public static func merging(_ video: Clip, with audio: Clip, to outputURL: URL, options: MergeOptions = .init()) throws -> ExportSession {
        let type = try FileType.writing(outputURL)
        let movie = try video.open(), recording = try audio.open()
        let videoTracks = movie.tracks(withMediaType: .video)
        guard !videoTracks.isEmpty else { throw MediaError(.invalidData, "has no video track", file: video.url.path) }
        guard let sound = recording.tracks(withMediaType: .audio).first else { throw MediaError(.invalidData, "has no audio track", file: audio.url.path) }
        var videoRange = try video.timeRange(in: movie)
        let soundRange = try audio.timeRange(in: recording)
        var notes: [String] = []
        if options.preset == nil, options.cut == .keyframe, type.hasEditLists, let first = videoTracks.first(where: \.isEnabled) ?? videoTracks.first {
            let moved = try SmartVideoSource.keyframeRange(of: first, videoRange)
            if moved != videoRange { notes.append(ExportPlan.movedNote(from: videoRange, to: moved, what: "\(video)")) }
            videoRange = moved
        }

        let composition = MutableComposition()
        for track in videoTracks {
            try composition.addMutableTrack(withMediaType: .video)!.insertTimeRange(videoRange.intersection(track.timeRange), of: track, at: .zero)
        }
        let added = composition.addMutableTrack(withMediaType: .audio)!
        try added.insertTimeRange(TimeRange(start: soundRange.start, duration: min(soundRange.duration, videoRange.duration)), of: sound, at: .zero)
        let own = movie.tracks(withMediaType: .audio)
        if options.keepsOriginalAudio, let original = own.first(where: \.isEnabled) ?? own.first {
            let kept = composition.addMutableTrack(withMediaType: .audio)!
            try kept.insertTimeRange(videoRange.intersection(original.timeRange), of: original, at: .zero)
            kept.isEnabled = false
            added.alternateGroup = 1
            kept.alternateGroup = 1
        }
        composition.writesWithoutEditLists = !type.hasEditLists
        let session = ExportSession(asset: try composition.makeAsset(), preset: options.preset ?? .passthrough)
        if let cut = options.cut { session.cutMode = cut } else { session.setDefaultCutMode(type.hasEditLists ? .smart : .exact) }
        session.encodesAudioTheContainerCannotHold = true
        session.outputURL = outputURL
        if !movie.metadata.isEmpty { session.metadata = movie.metadata }
        if options.preset == nil, !type.canHold(sound.codecName) {
            notes.append("\(audio.url.lastPathComponent) (\(sound.codecName)) is encoded as AAC: .\(type.rawValue) files cannot hold \(sound.codecName)")
        }
        session.notes = notes
        return session
    }
}
