import Foundation
import MediaCore
import ISOBMFF
import FFmpegBridge

/// What an export does with each track — copy it, leave it out, re-encode it or mix it — and
/// whether the file type can hold the result.
extension ExportPlan {

    /// `track`'s plan in `fileType`, decided (once, by `init`).
    func decide(for track: AssetTrack) -> TrackPlan {
        let type = fileType
        if !settings.trackSelection.includes(track) { return .leaveOut }
        if let encoded = settings.encodedTracks[track.trackID] { return .substitute(encoded) }
        if let crossfade = settings.smartCrossfade {
            return [crossfade.videoTrackID, crossfade.audioTrackID].contains(track.trackID) ? .smartCrossfade(crossfade) : .leaveOut
        }
        switch track.mediaType {
        case .video:
            if settings.preset == .appleM4A || type?.holdsSoundOnly == true { return .leaveOut }
            if let composition = settings.videoComposition {
                return track === asset.tracks(withMediaType: .video).first ? plan(forComposition: composition) : .leaveOut
            }
            guard let recipe = settings.preset.video else { return cutPlan(for: track) ?? .copy }
            var box = recipe.box
            // The box applies to the picture as shown: a quarter-turned track fits it turned.
            if let b = box, let r = track.preferredTransform.rotationDegrees, r == 90 || r == 270 {
                box = Dimensions(width: b.height, height: b.width)
            }
            var (decoded, encoded) = videoSettings(tenBitSource: ExportPlan.bitDepth(of: track) > 8, hdrSource: ExportPlan.isHDR(track), box: box)
            decoded.frameRate = settings.videoFrameRate
            encoded.frameRate = settings.videoFrameRate
            return .encode(.video(decoded), .video(encoded))
        case .audio where settings.audioMix != nil && mixedTracks.contains { $0 === track }:
            guard mixedTracks.first === track, let mix = settings.audioMix else { return .leaveOut }
            let first = track.formatDescriptions.first
            // (as many channels as the widest track: a mono voice and stereo music mix in stereo)
            let widest = mixedTracks.compactMap { $0.formatDescriptions.first?.channelCount }.max()
            let rate = settings.audioSampleRate ?? ((first?.sampleRate ?? 48000).rounded(saturating: Int.self) ?? 48000), channels = settings.audioChannelCount ?? widest ?? 2
            let codec = encodedAudioCodec
            let bitRate = CodecFacts.of(codec.rawValue)?.isLossless == true ? nil : (settings.audioBitRate ?? settings.preset.audioBitRate ?? 192_000)
            return .mix(mixedTracks, mix, AudioOutputSettings(sampleFormat: .f32, isInterleaved: true, sampleRate: rate, channelCount: channels),
                        .audio(AudioEncodingSettings(codec: codec, sampleRate: rate, channelCount: channels, bitRate: bitRate)))
        case .audio:
            let unfit = settings.preset == .passthrough && settings.encodesAudioTheContainerCannotHold && type?.canHold(track.codecName) == false
            if settings.preset == .passthrough, !unfit, let cut = cutPlan(for: track) { return cut }
            guard let rate = settings.preset.audioBitRate ?? (unfit ? 192_000 : nil) else { return .copy }
            let codec = encodedAudioCodec
            let target = settings.audioBitRate ?? rate
            let sameFormat = (settings.audioSampleRate.map { Double($0) == track.formatDescriptions.first?.sampleRate } ?? true)
                && (settings.audioChannelCount.map { $0 == track.formatDescriptions.first?.channelCount } ?? true)
            if !unfit, codec == .aac, track.codecName == "aac", settings.audioBitRate == nil, sameFormat,
               Double(track.estimatedDataRate) <= Double(target) * 1.02, !TrackCut.cutsInsideAFrame(ExportPlan.exportedRange(of: asset, settings), of: track),
               !asset.source.structure.isCut {
                return .copy
            }
            return .encode(.audio(AudioOutputSettings(sampleRate: settings.audioSampleRate, channelCount: settings.audioChannelCount)),
                           .audio(AudioEncodingSettings(codec: codec, sampleRate: settings.audioSampleRate, channelCount: settings.audioChannelCount,
                                                        bitRate: CodecFacts.of(codec.rawValue)?.isLossless == true ? nil : target)))
        default:
            // (a sound-only file keeps the sound, and the chapters where it has a chapter track)
            let soundOnly = settings.preset == .appleM4A || type?.holdsSoundOnly == true
            return soundOnly && !ChapterTrack.tracks(of: asset).contains(where: { $0 === track }) ? .leaveOut : .copy
        }
    }

    /// A smart or keyframe cut of a copied track, when the cut mode asks for one (`cutMode`),
    /// something is cut (a range, a composition) and the track can be; into a file without edit
    /// lists, a keyframe cut of video that cannot be re-encoded to match.
    private func cutPlan(for track: AssetTrack) -> TrackPlan? {
        var mode = cutMode
        let type = fileType, range = requestedRange
        guard cutsSomething else { return nil }
        // A clip without picture shows black frames in every mode: an exact cut's empty edit is
        // misplayed (held on the last picture, or the next clip pulled early), so it is cut smart.
        if mode == .exact, track.showsBlack(in: range) { mode = .smart }
        guard mode != .exact else { return nil }
        if smartCutProblem(of: track, reencoding: mode == .smart) == nil { return .smartCut(reencodes: mode == .smart) }
        // Without edit lists, what smart cut cannot re-encode gets a keyframe cut (video at sync
        // samples; Opus sound in whole packets, placed within half a packet of the picture).
        if mode == .smart, type?.hasEditLists == false, smartCutProblem(of: track, reencoding: false) == nil {
            return .smartCut(reencodes: false)
        }
        return nil
    }

    /// The composed video track's plan: the preset's box and codec, the composition's frame rate.
    func plan(forComposition composition: VideoComposition) -> TrackPlan {
        let (decoded, encoded) = videoSettings(tenBitSource: composedTracks.contains { ExportPlan.bitDepth(of: $0) > 8 },
                                               hdrSource: composedTracks.contains(where: ExportPlan.isHDR), box: (settings.preset.video ?? ExportPreset.highestQuality.video!).box)
        var e = encoded
        e.frameRate = 1 / composition.frameDuration.seconds
        return .compose(composedTracks, composition, decoded, .video(e))
    }

    /// The decoded and encoded settings of re-encoded video: the preset's (`highestQuality`'s
    /// under `passthrough`, which re-encodes only for a video composition) with the overrides.
    /// HDR stays HDR where the preset keeps 10 bits (HEVC presets: an 8-bit PQ or HLG source
    /// is encoded in 10 bits too); everywhere else it is tone-mapped to SDR BT.709.
    private func videoSettings(tenBitSource: Bool, hdrSource: Bool, box: Dimensions?) -> (VideoOutputSettings, VideoEncodingSettings) {
        let type = fileType
        let recipe = settings.preset.video ?? ExportPreset.highestQuality.video!
        // The preset's codec, or the file's own where it cannot hold that one (WebM: VP9).
        let codec = settings.videoCodec ?? (type.flatMap { $0.canHold(recipe.codec.rawValue) ? nil : $0.defaultVideoCodec } ?? recipe.codec)
        let tenBit = recipe.keepsTenBit && codec != .h264 && (tenBitSource || hdrSource)
        let pixels: PixelBuffer.PixelFormat = tenBit ? .yuv420p10le : .yuv420p
        var decoded = VideoOutputSettings(pixelFormat: pixels, maximumWidth: box?.width, maximumHeight: box?.height)
        // (set whatever the track's tags say: HDR said only in the stream's VUI is found in the pictures)
        if !tenBit { decoded.toneMapping = settings.toneMapping }
        decoded.size = settings.videoSize
        decoded.decoderThreadCount = VideoOutputSettings.decoderThreadsBesideEncoder
        var encoding = VideoEncodingSettings(codec: codec, quality: .crf(settings.crf ?? recipe.crf), pixelFormat: pixels)
        switch codec {
        case .h264, .hevc: encoding.preset = recipe.speed
        case .av1: encoding.preset = "8"
        case .vp9: encoding.options = ["deadline": "good", "cpu-used": "4", "row-mt": "1"]
        }
        if codec == .hevc, tenBit { encoding.profile = "main10" }
        if let n = settings.threadCount {
            encoding.options["threads"] = String(n)
            decoded.decoderThreadCount = min(decoded.decoderThreadCount, n)
        }
        return (decoded, encoding)
    }

    /// The video tracks a `videoComposition` draws: those its layer instructions name, else
    /// every enabled one.
    var composedTracks: [AssetTrack] {
        guard let composition = settings.videoComposition else { return [] }
        let named = Set(composition.instructions.flatMap { $0.layerInstructions.map(\.trackID) })
        let video = asset.tracks(withMediaType: .video)
        return named.isEmpty ? video.filter(\.isEnabled) : video.filter { named.contains($0.trackID) }
    }

    /// The audio tracks an `audioMix` mixes, as AVFoundation's does: every enabled one, and a
    /// disabled one it has parameters for; parameters only set volumes.
    /// (`mixing(_:under:)` mixes the music and the original only, keeping the other tracks.)
    var mixedTracks: [AssetTrack] {
        guard let mix = settings.audioMix else { return [] }
        let kept = asset.tracks(withMediaType: .audio).filter(settings.trackSelection.includes)
        if let only = settings.mixedTrackIDs { return kept.filter { only.contains($0.trackID) } }
        return kept.filter { $0.isEnabled || mix.parameters(forTrackID: $0.trackID) != nil }
    }

    /// One line per `audioMix` parameters that name no audio track of the asset (AVFoundation
    /// ignores them without a word).
    var audioMixNotes: [String] {
        (settings.audioMix?.inputParameters ?? []).compactMap { p in
            guard let track = asset.track(withTrackID: p.trackID) else {
                return "the audio mix's parameters for track \(p.trackID) are ignored: the asset has no track \(p.trackID)"
            }
            return track.mediaType == .audio ? nil : "the audio mix's parameters for track \(p.trackID) are ignored: it is a \(track.mediaType) track"
        }
    }

    /// Whether a track's pictures are HDR (PQ or HLG), by its codec configuration's colour.
    static func isHDR(_ track: AssetTrack) -> Bool {
        track.mediaType == .video && (track.formatDescriptions.first?.parameters.color.isHDR ?? false)
    }

    /// The bits per component of a track's pictures, from its codec configuration (8 when unknown).
    static func bitDepth(of track: AssetTrack) -> Int {
        track.formatDescriptions.first?.parameters.configuration?.bitDepth ?? 8
    }

    /// The sound codec encoded: the one set, else AAC, or the file's own where it cannot hold AAC (Ogg, WebM: Opus).
    private var encodedAudioCodec: AudioEncodingSettings.Codec {
        settings.audioCodec ?? (fileType.flatMap { $0.canHold("aac") ? nil : $0.defaultAudioCodec } ?? .aac)
    }

    /// Why `type` cannot hold what this export writes, or nil when it can.
    func refusal(writing type: FileType) -> Refusal? {
        if settings.preset == .appleM4A, type != .m4a { return .soundOnlyPreset }
        let chapters = ChapterTrack.tracks(of: asset)
        for track in asset.tracks where !track.backing.isAttachment {
            // (a chapter track becomes the file's chapters, or is left out with a warning)
            guard let codec = plan(of: track).writtenCodec(of: track), !chapters.contains(where: { $0 === track }) else { continue }
            if type.keepsBoxes {
                // (a copied track keeps its sample entry; text becomes tx3g)
                if track.mediaType.isLegible { continue }
                let copied = track.codecName == codec
                if copied, track.formatDescriptions.first?.sampleEntry == nil, let problem = track.backing.isoProblem {
                    return .noSampleEntry(track: track.trackID, codec: codec, problem: problem)
                }
                if !copied, !type.canHold(codec) { return .codec(track: track.trackID, codec: codec, fileType: type) }
            } else if track.mediaType.isLegible {
                if !type.holdsTextSubtitles { return .text(track: track.trackID, mediaType: track.mediaType, fileType: type) }
            } else if !type.canHold(codec) {
                return .codec(track: track.trackID, codec: codec, fileType: type)
            }
        }
        return nil
    }
}

extension AssetTrack {
    /// Whether this composed video track has a stretch without media (a clip without picture)
    /// in `range`, which is shown black.
    func showsBlack(in range: TimeRange) -> Bool {
        mediaType == .video && origin.source.structure.isCut && cutSpans(in: range).contains { $0.track == nil }
    }
}
