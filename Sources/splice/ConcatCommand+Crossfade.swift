import Foundation
import Splice

/// `splice concat --crossfade`: clips overlapped by the transition's length on two alternating
/// video tracks and two audio tracks (A/B roll), the outgoing picture's opacity and sound's
/// volume ramped down while the incoming sound's ramps up.
extension ConcatCommand {
    struct Crossfade {
        let composition: MutableComposition
        let videoComposition: VideoComposition?
        let audioMix: AudioMix?
    }

    /// The composition, video composition and audio mix of `clips` dissolving into each other
    /// over `seconds`.
    /// - Throws: `.invalidOperation` when a clip is too short for its transitions.
    static func crossfade(_ clips: [Clip], _ assets: [Asset], _ ranges: [TimeRange], seconds: Double, audioOnly: Bool) throws -> Crossfade {
        let fade = MediaTime(seconds: seconds, preferredTimescale: 90_000)
        for (k, range) in ranges.enumerated() {
            let transitions = (k > 0 ? 1 : 0) + (k < ranges.count - 1 ? 1 : 0)
            if range.duration.seconds < seconds * Double(transitions) {
                throw MediaError(.invalidOperation, "is \(String(format: "%.3f", range.duration.seconds)) s long, too short for "
                                 + "\(transitions) crossfade\(transitions == 1 ? "" : "s") of \(seconds) s", file: clips[k].url.path)
            }
        }
        let composition = MutableComposition()
        let hasVideo = !audioOnly && assets.contains { !$0.tracks(withMediaType: .video).isEmpty }
        let videoTracks = hasVideo ? (0..<min(2, clips.count)).compactMap { _ in composition.addMutableTrack(withMediaType: .video) } : []
        let audioTracks = (0..<min(2, clips.count)).compactMap { _ in composition.addMutableTrack(withMediaType: .audio) }
        var starts: [MediaTime] = []
        var at = MediaTime.zero
        for (k, asset) in assets.enumerated() {
            starts.append(at)
            let range = ranges[k]
            if let v = asset.tracks(withMediaType: .video).first(where: \.isEnabled) ?? asset.tracks(withMediaType: .video).first, !videoTracks.isEmpty {
                try videoTracks[k % 2].insertTimeRange(range.intersection(v.timeRange), of: v, at: at)
            }
            if let a = asset.tracks(withMediaType: .audio).first(where: \.isEnabled) ?? asset.tracks(withMediaType: .audio).first {
                try audioTracks[k % 2].insertTimeRange(range.intersection(a.timeRange), of: a, at: at)
            }
            at = at + range.duration - fade
        }
        let end = at + fade
        var mix = AudioMix()
        var params = audioTracks.map { AudioMixInputParameters(trackID: $0.trackID) }
        for k in 1..<max(1, clips.count) {
            let transition = TimeRange(start: starts[k], duration: fade)
            params[(k - 1) % 2].setVolumeRamp(fromStartVolume: 1, toEndVolume: 0, timeRange: transition)
            if k == 1 { params[1].setVolume(0, at: .zero) }       // (later clips come in after a ramp down to 0)
            params[k % 2].setVolumeRamp(fromStartVolume: 0, toEndVolume: 1, timeRange: transition)
        }
        mix.inputParameters = params
        guard hasVideo, let first = assets.lazy.compactMap({ $0.tracks(withMediaType: .video).first }).first, let natural = first.naturalSize else {
            return Crossfade(composition: composition, videoComposition: nil, audioMix: mix)
        }
        let shown = VideoComposition.shownSize(natural, first.preferredTransform)
        var video = VideoComposition(renderSize: shown, frameDuration: VideoComposition.frameDuration(forRate: standardRate(Double(first.nominalFrameRate))))
        func layer(_ k: Int) -> VideoCompositionLayerInstruction {
            var l = VideoCompositionLayerInstruction(trackID: videoTracks[k % 2].trackID)
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
        return Crossfade(composition: composition, videoComposition: video, audioMix: mix)
    }
}
