import MediaCore

// What a composition's passthrough needs of its segments: one codec, size, profile and audio
// format (players cannot switch those mid-track), and no change of speed.

extension AssetTrack {
    /// For a composition's track: whether a segment starts between sync samples (its first
    /// samples lie before it, which only an edit list can hide).
    public var startsBetweenSyncSamples: Bool { backing.startsBetweenSyncSamples }

    /// For a composition's track: why its segments cannot be copied into one track byte for
    /// byte — another codec, picture size, profile (chroma format, bit depth), sample rate or
    /// channel count than the first segment's, or a scaled segment; nil when they can.
    public var passthroughProblem: String? {
        guard let segments = backing.composedSegments else { return nil }
        let shown = segments.enumerated().filter { !$0.element.isEmpty }
        guard let (firstIndex, first) = shown.first, let reference = first.sourceTrack?.formatDescriptions.first else { return nil }
        for (i, segment) in shown {
            if segment.isScaled {
                return "segment \(i + 1) (\(segment.name)) plays at another speed, which needs re-encoding"
            }
            guard let format = segment.sourceTrack?.formatDescriptions.first, i != firstIndex else { continue }
            if let difference = AssetTrack.difference(format, reference) {
                return "segment \(i + 1) (\(segment.name)) is \(AssetTrack.describe(format)), segment \(firstIndex + 1) (\(first.name)) "
                    + "is \(AssetTrack.describe(reference)): the \(difference) differs"
            }
        }
        return nil
    }

    /// Which parameter a player cannot switch mid-track between `a` and `b`, if any.
    static func difference(_ a: FormatDescription, _ b: FormatDescription) -> String? {
        let p = a.parameters, q = b.parameters
        if p.codecName != q.codecName { return "codec" }
        if p.mediaType == .video {
            if p.width != q.width || p.height != q.height { return "picture size" }
            if profile(p) != profile(q) { return "profile" }
        }
        if p.mediaType == .audio {
            if p.sampleRate != q.sampleRate { return "sample rate" }
            if p.channelCount != q.channelCount { return "channel count" }
        }
        return nil
    }

    /// `h264 High 1920x1080`, `aac 48000 Hz 2 ch`.
    static func describe(_ f: FormatDescription) -> String {
        let p = f.parameters
        switch p.mediaType {
        case .video: return [p.codecName, profile(p), "\(p.width)x\(p.height)"].compactMap { $0 }.joined(separator: " ")
        case .audio: return "\(p.codecName) \(p.sampleRate) Hz \(p.channelCount) ch"
        default: return p.codecName
        }
    }

    /// The profile its configuration record names (H.264, HEVC, AV1).
    static func profile(_ p: CodecParameters) -> String? {
        p.configuration?.profileName
    }
}

extension CompositionTrackSegment {
    /// `clip.mp4 track 1`.
    var name: String { "\(sourceURL?.lastPathComponent ?? "?") track \(sourceTrackID)" }
}
