import Foundation
import MediaCore

/// How an export's range is cut where it falls between sync samples (`cutMode`): the range a
/// keyframe cut moves to, the modes refused, and the notes saying where a track is cut otherwise
/// than asked.
extension ExportPlan {
    /// A keyframe cut of a range of a file: moved to the first video track's sync samples (the
    /// start to the one at or before it, the end to the one at or after it), with a note. Into a
    /// file without edit lists, the fallback of video that cannot be cut smart (saying why).
    func keyframeRange(in type: FileType) throws -> (TimeRange, String)? {
        let range = requestedRange
        guard settings.preset == .passthrough, range != .everything, !asset.source.structure.isCut else { return nil }
        let videos = asset.tracks(withMediaType: .video)
        guard let video = videos.first(where: \.isEnabled) ?? videos.first else { return nil }
        let name = asset.url.lastPathComponent
        switch plan(of: video) {
        case .smartCut(reencodes: false):
            let moved = try SmartVideoSource.keyframeRange(of: video, range)
            guard moved != range else { return nil }
            let why = settings.cutMode == .keyframe ? nil : smartCutProblem(of: video).map {
                ": track \(video.trackID) cannot be cut smart (\($0)), and .\(type.rawValue) files have no edit lists"
            }
            return (moved, ExportPlan.movedNote(from: range, to: moved, what: name) + (why ?? ""))
        case .copy where !type.hasEditLists:
            // (the last resort: video no cut can copy whole GOPs of)
            let cut = try TrackCut(track: video, range: range).atSyncSamples(of: video).shown
            let moved = TimeRange(start: range.start <= video.timeRange.start ? range.start : cut.start,
                                  end: range.end >= video.timeRange.end ? range.end : cut.end)
            guard moved != range else { return nil }
            let why = smartCutProblem(of: video).map { "track \(video.trackID) cannot be cut smart (\($0)), and " } ?? ""
            return (moved, ExportPlan.movedNote(from: range, to: moved, what: name) + ": \(why).\(type.rawValue) files have no edit lists")
        default: return nil
        }
    }

    /// Refuses a `cutMode` the caller chose that the export cannot follow: `.exact` into a file
    /// without edit lists, `.smart` of a video track smart cut cannot re-encode.
    /// - Throws: `.unsupported` saying why, naming the track.
    func checkCutMode() throws {
        guard let type = fileType, settings.cutModeIsChosen, settings.preset == .passthrough, settings.smartCrossfade == nil, cutsSomething else { return }
        let output = settings.outputURL?.path
        switch settings.cutMode {
        case .exact where !type.hasEditLists:
            throw MediaError(.unsupported, "an exact cut keeps every packet and hides what is outside the range with edit lists, "
                             + "which .\(type.rawValue) files do not have: cut smart or keyframe", file: output)
        case .smart:
            for track in asset.tracks(withMediaType: .video) where settings.trackSelection.includes(track) {
                if case .leaveOut = plan(of: track) { continue }
                guard let problem = smartCutProblem(of: track) else { continue }
                var error = MediaError(.unsupported, "track \(track.trackID) cannot be cut smart: \(problem); cut "
                                       + (type.hasEditLists ? "exact or keyframe" : "keyframe"), file: output)
                error.trackID = track.trackID
                throw error
            }
        default:
            break
        }
    }

    /// "clip.mp4: cut at sync samples, 1.000–4.000 s (start 0.500 s earlier, end 0.250 s later)"
    /// (an end moves earlier at an open GOP: the pictures before its sync sample need it).
    static func movedNote(from range: TimeRange, to moved: TimeRange, what: String) -> String {
        let span = String(format: "%.3f–%.3f", moved.start.seconds, moved.end.seconds)
        let by = { (d: MediaTime, ahead: String, behind: String) in String(format: "%.3f s ", abs(d.seconds)) + (d < .zero ? behind : ahead) }
        return "\(what): cut at sync samples, \(span) s (start \(by(range.start - moved.start, "earlier", "later")), "
            + "end \(by(moved.end - range.end, "later", "earlier")))"
    }

    /// Why tracks are cut otherwise than `cutMode` asks (with edit lists; at packets).
    func cutNotes(in type: FileType) -> [String] {
        let mode = cutMode
        guard mode != .exact, settings.preset == .passthrough, cutsSomething else { return [] }
        var notes = settings.cutMode == mode ? [] : ["the cut is smart: .\(type.rawValue) files have no edit lists to hide what an exact cut copies"]
        notes += asset.tracks.compactMap { track in
            // (a video track into a file without edit lists: in keyframeRange's note)
            guard case .copy = plan(of: track), type.hasEditLists ? [.video, .audio].contains(track.mediaType) : track.mediaType == .audio,
                  let problem = smartCutProblem(of: track) else { return nil }
            return "track \(track.trackID) is cut " + (type.hasEditLists ? "with edit lists" : "at its packets") + " (not \(mode.rawValue)): \(problem)"
        }
        return notes
    }

    /// The tracks a sound-only file leaves out (all but the sound and the chapters), one line each.
    func soundOnlyNotes(in type: FileType) -> [String] {
        guard type.holdsSoundOnly, settings.preset != .appleM4A else { return [] }
        let chapters = ChapterTrack.tracks(of: asset)
        return asset.tracks.filter { t in t.mediaType != .audio && settings.trackSelection.includes(t) && !chapters.contains { $0 === t } }
            .map { "track \($0.trackID) (\($0.mediaType)) is left out: .\(type.rawValue) files hold sound only" }
    }
}
