import MediaCore
import ISOBMFF

/// How a cut that falls between sync samples is written (`ExportSession.cutMode`, `--cut`).
///
/// AVFoundation cuts with edit lists: whole groups of pictures are copied and the frames outside
/// the range are hidden. QuickTime plays that as meant; ffmpeg, GStreamer, mpv, Chromium and
/// Firefox mostly do not (docs/smart-cut.md). A smart cut re-encodes only the frames that
/// cannot be copied whole, so that every stored frame is shown and each track has one edit.
public enum CutMode: String, Sendable, Hashable, CaseIterable {
    /// The frames from a cut's start to the next sync sample, and from the last copied one to the
    /// cut's end, are re-encoded (the sound around each join too); the rest is copied. Plays
    /// right in every player. H.264, HEVC, VP9 and AV1; AAC (Opus copied in whole packets).
    case smart
    /// Every packet is the source's; what is outside the range is hidden by the edit list
    /// (AVFoundation's layout; right in QuickTime and AVFoundation). MP4/MOV only.
    case exact
    /// Each cut moves to a sync sample (a start earlier, an end later); nothing is re-encoded.
    case keyframe
}

/// One stretch of an output track: `track`'s media over `source` (on its asset's timeline),
/// shown over `target`; no track: nothing there (silence, black).
struct CutSpan: Sendable {
    let track: AssetTrack?
    let source: TimeRange
    let target: TimeRange

    /// Where `time` of the source is shown.
    func targetTime(_ time: MediaTime) -> MediaTime { time - source.start + target.start }
}

extension AssetTrack {
    /// The H.264/HEVC configuration record of the track's (first) sample description.
    var nalConfiguration: NALConfiguration? {
        recordParameters.flatMap { NALConfiguration(codecName: codecName, record: $0.extradata) }
    }

    /// The codec parameters of the track's (first) description that hold its configuration
    /// record: as read, or — for a stream whose parameter sets travel in the stream (MPEG-TS's
    /// H.264 and HEVC) — those of the ISO sample entry made from them.
    var recordParameters: CodecParameters? {
        guard let format = formatDescriptions.first else { return nil }
        if format.parameters.configuration != nil { return format.parameters }
        return format.entryCodecParameters(mediaType: mediaType).flatMap { $0.configuration != nil ? $0 : nil }
    }

    /// The track's packets over `range` of its asset's timeline, in decode order, from the sync
    /// sample before it; their bytes stay in the file.
    func packets(over range: TimeRange) throws -> [SampleBuffer] {
        let cursor = try CompositionSource.cursor(self, range, copies: false)
        defer { cursor.close() }
        var packets: [SampleBuffer] = []
        while let p = try cursor.next() { packets.append(p) }
        return packets
    }

    /// The spans of this track over `range` of its asset (`.everything`: all of it): a
    /// composition track's segments, clipped to the range; another track's media over the range.
    func cutSpans(in range: TimeRange) -> [CutSpan] {
        guard let segments = backing.composedSegments else {
            let shown = range == .everything ? timeRange : range.intersection(timeRange)
            return shown.isEmpty ? [] : [CutSpan(track: self, source: shown, target: shown)]
        }
        return segments.compactMap { segment in
            let target = range == .everything ? segment.targetRange : segment.targetRange.intersection(range)
            guard !target.isEmpty else { return nil }
            guard let source = segment.sourceRange, let track = segment.sourceTrack else { return CutSpan(track: nil, source: target, target: target) }
            return CutSpan(track: track, source: TimeRange(start: source.start + (target.start - segment.targetRange.start), duration: target.duration),
                           target: target)
        }
    }

    /// Why a smart cut (`reencoding`) or a keyframe cut cannot write this track over `range`
    /// (it is then cut otherwise: with edit lists, at sync samples, or re-encoded), or nil.
    func smartCutProblem(in range: TimeRange, reencoding: Bool = true) -> String? {
        guard mediaType == .video || mediaType == .audio else { return "only video and sound are cut smart" }
        if encryption != nil { return "it is encrypted" }
        if backing.composedSegments?.contains(where: \.isScaled) == true { return "a segment plays at another speed" }
        let sources = cutSpans(in: range).compactMap(\.track)
        guard let first = sources.first?.formatDescriptions.first else { return "nothing of it is shown" }
        for track in sources {
            guard let format = track.formatDescriptions.first, track.formatDescriptions.count == 1 else {
                return "\(track.origin.url.lastPathComponent) has several sample descriptions"
            }
            guard track.codecName == sources[0].codecName, format.dimensions == first.dimensions else { return "its clips differ in codec or size" }
            switch (mediaType, track.codecName) {
            case (.video, "h264"), (.video, "hevc"):
                guard track.recordParameters != nil else { return "its \(track.codecName) has no configuration record" }
                guard reencoding else { continue }
                if let dv = format.parameters.dolbyVision { return "it is \(dv.summary): re-encoded frames would have no RPU" }
                if let entry = format.sampleEntry, CodecMapping.extendedCoding(sampleEntry: [UInt8](entry), mediaType: .video) == .mvHEVC {
                    return "it is MV-HEVC: re-encoded frames would have no second view"
                }
                if let reason = SmartVideoSource.profileProblem(track) { return reason }
                if track.codecName == "h264", let record = track.nalConfiguration,
                   record.parameterSets.contains(where: { ($0.first ?? 0) & 0x1F == 7 && InBandParameterSets.codesFields(sps: $0) != false }) {
                    return "its pictures are coded as fields (or its SPS cannot be read), which smart cut does not re-encode"
                }
            case (.video, let codec):
                if reencoding, let reason = SmartVideoSource.profileProblem(track) { return reason }
                // (VP9 and AV1 frames say what they are; other codecs' clips must share one configuration)
                if !["vp9", "av1"].contains(codec), format.parameters.extradata != first.parameters.extradata {
                    return "its clips' \(codec) configurations differ"
                }
            case (.audio, "opus") where !reencoding:
                // (copied on the sound's 20 ms grid; nothing to encode the silence of a clip without any with)
                guard format.parameters.extradata == first.parameters.extradata, format.sampleRate == CodecFacts.of("opus")?.sampleRate.map(Double.init) else {
                    return "its clips' Opus differs in configuration"
                }
                if cutSpans(in: range).contains(where: { $0.track == nil }) { return "a clip has no Opus sound" }
            case (.audio, "aac"):
                guard format.sampleRate == first.sampleRate, format.channelCount == first.channelCount,
                      format.parameters.extradata == first.parameters.extradata else {
                    return "its clips' AAC differs in configuration (sample rate, channels, object type)"
                }
            default:
                return "smart cut joins AAC sound (this is \(track.codecName))"
            }
        }
        return nil
    }
}
