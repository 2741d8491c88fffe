import MediaCore

/// A crossfaded concat cut smart (`Concatenation.crossfading`): the video's stretches between
/// transitions cut smart and each transition's pictures drawn and encoded; the sound copied
/// except across each transition, where the clips ramp over each other (linearly, as the
/// re-encoding crossfade's audio mix does).
struct SmartCrossfade: Sendable {
    /// Each clip's stretch between transitions, in output order.
    var videoSpans: [CutSpan]
    var transitions: SmartVideoSource.Transitions?
    /// Each clip's sound, meeting the next in the middle of the transition.
    var audioSpans: [CutSpan]
    var fade: MediaTime
    /// The composition's tracks written (one video, one audio); its others are left out.
    var videoTrackID: Int?
    var audioTrackID: Int?
}

/// A track of a smart or keyframe cut (`CutMode`, docs/smart-cut.md) in the mirror.
extension TrackMirror {
    /// A smart (or keyframe) cut of `track`: a source that copies and re-encodes its spans, into
    /// an input that writes them as they come (one edit: the session's).
    func connectSmartCut(_ track: AssetTrack, reencodes: Bool, to pipe: SamplePipe, ranged: Bool) throws -> AssetWriterInput {
        try connectSmart(track, spans: track.cutSpans(in: ranged ? timeRange : .everything), origin: ranged ? timeRange.start : .zero,
                         reencodes: reencodes, crossfade: nil, to: pipe)
    }

    /// The video or the sound of a crossfaded concat cut smart.
    func connectSmartCrossfade(_ track: AssetTrack, _ crossfade: SmartCrossfade, to pipe: SamplePipe) throws -> AssetWriterInput {
        try connectSmart(track, spans: track.mediaType == .video ? crossfade.videoSpans : crossfade.audioSpans, origin: .zero,
                         reencodes: true, crossfade: crossfade, to: pipe)
    }

    private func connectSmart(_ track: AssetTrack, spans: [CutSpan], origin: MediaTime, reencodes: Bool, crossfade: SmartCrossfade?,
                              to pipe: SamplePipe) throws -> AssetWriterInput {
        let reader = pipe.reader
        let fail: @Sendable (MediaError) -> Void = { error in reader?.fail(error, track: track) }
        let kind = crossfade != nil ? "smart crossfade" : reencodes ? "smart cut" : "keyframe cut"
        let source: any SampleBufferSource
        let format: FormatDescription
        if track.mediaType == .video {
            // In-band parameter sets in every sync sample, one description (MP4/MOV, Matroska: all five
            // players follow); into start-code files each packet keeps its own (see SmartVideoSource.init).
            let inBand = !pipe.writer.fileType.startCodeCodecs.contains(spans.lazy.compactMap(\.track).first?.codecName ?? track.codecName)
            let video = try SmartVideoSource(spans: spans, reencodes: reencodes, inBand: inBand, transitions: crossfade?.transitions, failure: fail)
            (source, format) = (video, video.format)
            pipe.cutReports.append { "track \(track.trackID) (\(kind)): \(video.summary)" }
        } else {
            let audio = try SmartAudioSource(spans: spans, origin: origin, reencodes: reencodes, priming: pipe.writer.fileType.hasEditLists,
                                             crossfade: crossfade?.fade, failure: fail)
            (source, format) = (audio, audio.format)
            pipe.cutReports.append { "track \(track.trackID) (\(kind)): \(counted(audio.counts.encoded, "sound packet")) encoded, \(audio.counts.copied) copied" }
        }
        let input = AssetWriterInput(mediaType: track.mediaType, outputSettings: nil, sourceFormatHint: format)
        input.copyProperties(of: track)
        input.mediaTimeScale = spans.lazy.compactMap(\.track).first?.naturalTimeScale ?? track.naturalTimeScale
        // The clips' one frame rate, as their containers said it (Matroska's DefaultDuration):
        // in milliseconds the frames' durations alone do not tell it.
        let rates = spans.map { $0.track?.backing.frameRate.map { [$0.num, $0.den] } }
        if track.mediaType == .video, let rate = rates.first ?? nil, rates.allSatisfy({ $0 == rate }) { input.frameRateHint = (rate[0], rate[1]) }
        let end = spans.last?.target.end ?? origin
        input.cut = TrackCut(shown: TimeRange(start: origin, end: end), read: TimeRange(start: origin, end: end))
        try pipe.writer.add(input)
        pipe.connect(source, to: input, duration: end - origin, start: origin)
        return input
    }
}

/// `n` things, in the singular for one: "1 frame", "2 frames".
func counted(_ n: Int, _ thing: String) -> String { "\(n) \(thing)\(n == 1 ? "" : "s")" }
