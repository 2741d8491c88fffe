import Foundation
import MediaCore

/// A crossfade: clips overlapped by the transition's length on two alternating video tracks and
/// two audio tracks (A/B roll), the outgoing picture's opacity and sound's volume ramped down
/// while the incoming sound's ramps up. Cut smart (`reencode` auto, the clips' video H.264,
/// HEVC, VP9 or AV1 of one size, their sound AAC): only each transition's frames and the
/// partial GOPs around them are re-encoded, and the sound across each transition; else
/// everything is, with a note saying why.
extension Concatenation {
    static func crossfading(_ clips: [Clip], _ assets: [Asset], _ ranges: [TimeRange], fade: MediaTime, options: ConcatenationOptions,
                            to outputURL: URL) throws -> ExportSession {
        guard fade > .zero else { throw MediaError(.invalidOperation, "a crossfade lasts more than 0 s") }
        var job = Concatenation(clips: clips, assets: assets, ranges: ranges, type: try FileType.writing(outputURL), options: options)
        let hasVideo = !options.audioOnly && assets.contains { !$0.tracks(withMediaType: .video).isEmpty }
        let unsmart: String? = options.reencode == .always ? "reencode always" : [nil, .smart].contains(options.cut)
            ? job.smartCrossfadeProblem(video: hasVideo) : "a crossfade cuts smart or re-encodes every clip (not \(options.cut?.rawValue ?? ""))"
        var fade = fade
        if unsmart == nil, hasVideo { fade = job.onFrameGrid(fade: fade) }
        let ranges = job.ranges
        for (k, range) in ranges.enumerated() {
            let transitions = (k > 0 ? 1 : 0) + (k < ranges.count - 1 ? 1 : 0)
            if range.duration < fade * Int64(widening: transitions) {
                throw MediaError(.invalidOperation, "is \(String(format: "%.3f", range.duration.seconds)) s long, too short for "
                                 + "\(transitions) crossfade\(transitions == 1 ? "" : "s") of \(String(format: "%.3f", fade.seconds)) s", file: clips[k].url.path)
            }
        }
        let composition = MutableComposition()
        let videoTracks = hasVideo ? (0..<min(2, clips.count)).compactMap { _ in composition.addMutableTrack(withMediaType: .video) } : []
        let audioTracks = (0..<min(2, clips.count)).compactMap { _ in composition.addMutableTrack(withMediaType: .audio) }
        var starts: [MediaTime] = []
        var at = MediaTime.zero
        for (k, asset) in assets.enumerated() {
            starts.append(at)
            if let v = asset.tracks(withMediaType: .video).first(where: \.isEnabled) ?? asset.tracks(withMediaType: .video).first, !videoTracks.isEmpty {
                try videoTracks[k % 2].insertTimeRange(ranges[k].intersection(v.timeRange), of: v, at: at)
            }
            if let a = asset.tracks(withMediaType: .audio).first(where: \.isEnabled) ?? asset.tracks(withMediaType: .audio).first {
                try audioTracks[k % 2].insertTimeRange(ranges[k].intersection(a.timeRange), of: a, at: at)
            }
            at = at + ranges[k].duration - fade
        }
        let asset = try composition.makeAsset()
        let dissolves = hasVideo ? job.dissolves(videoTracks, starts: starts, end: at + fade, fade: fade) : nil
        if unsmart == nil {
            let session = ExportSession(asset: asset, preset: .passthrough)
            session.notes = job.notes
            session.cutMode = .smart
            session.smartCrossfade = job.smartCrossfade(asset, videoTracks, audioTracks, dissolves, starts: starts, fade: fade)
            session.outputURL = outputURL
            if !assets[0].metadata.isEmpty { session.metadata = assets[0].metadata }
            return session
        }
        let session = ExportSession(asset: asset, preset: options.preset == .passthrough ? .highestQuality : options.preset)
        if options.reencode != .always, let why = unsmart { session.notes = ["re-encoding every clip: \(why)"] }
        session.outputURL = outputURL
        session.audioMix = crossfadeMix(audioTracks, starts: starts, fade: fade)
        session.videoComposition = dissolves
        if !assets[0].metadata.isEmpty { session.metadata = assets[0].metadata }
        job.fitToFirstClip(session, video: false)
        return session
    }

    /// A smart crossfade's transitions and clips in whole frames (the first clip's): each range
    /// moved to the nearest frame boundaries of its video, the fade rounded to whole frames
    /// (a note when that changes it). Returns the fade.
    mutating func onFrameGrid(fade: MediaTime) -> MediaTime {
        guard let first = assets.lazy.compactMap({ $0.tracks(withMediaType: .video).first }).first else { return fade }
        let frame = SmartVideoSource.frameDuration(of: first)
        func frames(_ t: MediaTime) -> Int64 { (t.seconds / frame.seconds).rounded(saturating: Int64.self) ?? 0 }
        for k in clips.indices {
            guard let v = assets[k].tracks(withMediaType: .video).first else { continue }
            let origin = v.timeRange.start
            ranges[k] = TimeRange(start: origin + frame * frames(ranges[k].start - origin), end: origin + frame * frames(ranges[k].end - origin))
        }
        let whole = frame * max(1, frames(fade))
        if abs((whole - fade).seconds) > 0.0005 {
            notes.append("the crossfade lasts \(String(format: "%.3f", whole.seconds)) s: whole frames, \(max(1, frames(fade))) at "
                         + "\(String(format: "%g", (1 / frame.seconds * 1000).rounded() / 1000)) fps")
        }
        return whole
    }

    /// Why the clips cannot be crossfaded smart (naming the clip), or nil: video smart cut
    /// re-encodes, of one codec and size; AAC sound of one configuration.
    func smartCrossfadeProblem(video: Bool) -> String? {
        var firstVideo: AssetTrack?, firstAudio: AssetTrack?
        for k in clips.indices {
            let videos = assets[k].tracks(withMediaType: .video), audios = assets[k].tracks(withMediaType: .audio)
            if video {
                guard let v = videos.first(where: \.isEnabled) ?? videos.first else { return "\(clips[k]) has no video" }
                if let problem = v.smartCutProblem(in: ranges[k]) { return "\(clips[k])'s video cannot be cut smart (\(problem))" }
                firstVideo = firstVideo ?? v
                if v.codecName != firstVideo?.codecName || v.naturalSize != firstVideo?.naturalSize { return "the clips' video differs in codec or size" }
            }
            if let a = audios.first(where: \.isEnabled) ?? audios.first {
                if a.codecName != "aac" { return "\(clips[k])'s sound is \(a.codecName), and a smart crossfade joins AAC" }
                if let problem = a.smartCutProblem(in: ranges[k]) { return "\(clips[k])'s sound cannot be cut smart (\(problem))" }
                firstAudio = firstAudio ?? a
                if a.formatDescriptions.first?.parameters.extradata != firstAudio?.formatDescriptions.first?.parameters.extradata {
                    return "the clips' AAC differs in configuration"
                }
            }
        }
        return nil
    }

    /// The smart crossfade's plan: each clip's video between transitions and the transitions
    /// between; each clip's sound to the middle of each transition, crossfaded over all of it.
    func smartCrossfade(_ asset: Asset, _ videoTracks: [CompositionTrack], _ audioTracks: [CompositionTrack], _ dissolves: VideoComposition?,
                        starts: [MediaTime], fade: MediaTime) -> SmartCrossfade {
        let last = clips.count - 1
        let half = MediaTime(value: fade.value / 2, timescale: fade.timescale)
        func span(_ k: Int, _ track: AssetTrack?, from: MediaTime, to: MediaTime) -> CutSpan {
            let target = TimeRange(start: starts[k] + from, end: starts[k] + ranges[k].duration - to)
            return CutSpan(track: track, source: TimeRange(start: ranges[k].start + from, duration: target.duration), target: target)
        }
        var x = SmartCrossfade(videoSpans: [], transitions: nil, audioSpans: [], fade: fade,
                               videoTrackID: videoTracks.first?.trackID, audioTrackID: audioTracks.first?.trackID)
        for k in clips.indices {
            let videos = assets[k].tracks(withMediaType: .video), audios = assets[k].tracks(withMediaType: .audio)
            if let v = videos.first(where: \.isEnabled) ?? videos.first, dissolves != nil {
                x.videoSpans.append(span(k, v, from: k > 0 ? fade : .zero, to: k < last ? fade : .zero))
            }
            x.audioSpans.append(span(k, audios.first(where: \.isEnabled) ?? audios.first, from: k > 0 ? half : .zero, to: k < last ? fade - half : .zero))
        }
        if var dissolves, let first = x.videoSpans.first?.track {
            // (the transitions' pictures on the clips' own frame grid)
            dissolves.frameDuration = SmartVideoSource.frameDuration(of: first)
            let ids = Set(videoTracks.map(\.trackID))
            x.transitions = SmartVideoSource.Transitions(asset: asset, tracks: asset.tracks(withMediaType: .video).filter { ids.contains($0.trackID) },
                                                         composition: dissolves, ranges: starts.dropFirst().map { TimeRange(start: $0, duration: fade) })
        }
        if audioTracks.isEmpty || !assets.contains(where: { !$0.tracks(withMediaType: .audio).isEmpty }) { x.audioTrackID = nil }
        return x
    }

    /// The sound: each clip's track ramps down over the transition while the next one's ramps up.
    private static func crossfadeMix(_ tracks: [CompositionTrack], starts: [MediaTime], fade: MediaTime) -> AudioMix {
        var params = tracks.map { AudioMixInputParameters(trackID: $0.trackID) }
        for k in 1..<max(1, starts.count) {
            let transition = TimeRange(start: starts[k], duration: fade)
            params[(k - 1) % 2].setVolumeRamp(fromStartVolume: 1, toEndVolume: 0, timeRange: transition)
            if k == 1 { params[1].setVolume(0, at: .zero) }       // (later clips come in after a ramp down to 0)
            params[k % 2].setVolumeRamp(fromStartVolume: 0, toEndVolume: 1, timeRange: transition)
        }
        var mix = AudioMix()
        mix.inputParameters = params
        return mix
    }

    /// The picture: each clip alone between transitions, the outgoing one fading out over the
    /// incoming one during them, every clip fitted into the first one's shown size.
    private func dissolves(_ tracks: [CompositionTrack], starts: [MediaTime], end: MediaTime, fade: MediaTime) -> VideoComposition? {
        guard let first = assets.lazy.compactMap({ $0.tracks(withMediaType: .video).first }).first, let natural = first.naturalSize else { return nil }
        let shown = VideoComposition.shownSize(natural, first.preferredTransform)
        var video = VideoComposition(renderSize: shown, frameDuration: VideoComposition.frameDuration(forRate: Concatenation.standardRate(Double(first.nominalFrameRate))))
        func layer(_ k: Int) -> VideoCompositionLayerInstruction {
            var l = VideoCompositionLayerInstruction(trackID: tracks[k % 2].trackID)
            if let source = assets[k].tracks(withMediaType: .video).first, let size = source.naturalSize {
                l.setTransform(VideoComposition.fittingTransform(size, source.preferredTransform, into: shown), at: .zero)
            }
            return l
        }
        for k in clips.indices {
            let solo = TimeRange(start: k == 0 ? .zero : starts[k] + fade, end: k == clips.count - 1 ? end : starts[k + 1])
            if !solo.isEmpty { video.instructions.append(VideoCompositionInstruction(timeRange: solo, layerInstructions: [layer(k)])) }
            guard k + 1 < clips.count else { continue }
            let transition = TimeRange(start: starts[k + 1], duration: fade)
            var outgoing = layer(k)
            outgoing.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: transition)
            video.instructions.append(VideoCompositionInstruction(timeRange: transition, layerInstructions: [outgoing, layer(k + 1)]))
        }
        return video
    }
}
