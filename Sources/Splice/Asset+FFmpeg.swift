import MediaCore
import FFmpegBridge

extension Asset {
    static func tracks(of input: InputFormatContext) -> (tracks: [AssetTrack], duration: MediaTime) {
        var tracks: [AssetTrack] = []
        var end = MediaTime.zero
        for s in input.streams {
            let scale = s.timeBase.num == 1 ? s.timeBase.den : 0
            let duration: MediaTime
            if let d = s.duration, s.timeBase.den > 0 {
                duration = MediaTime(value: d * Int64(s.timeBase.num), timescale: s.timeBase.den)
            } else if let total = input.durationSeconds {
                duration = MediaTime(seconds: total, preferredTimescale: 1_000_000)
            } else {
                duration = .zero
            }
            let timeRange = TimeRange(start: .zero, duration: duration)
            end = max(end, timeRange.end)
            let format = FormatDescription(
                mediaType: s.mediaType, codec: s.codecTag ?? FourCC(String(s.codecName.prefix(4))),
                codecName: s.codecName,
                dimensions: s.width.flatMap { w in s.height.map { Dimensions(width: w, height: $0) } },
                sampleRate: s.sampleRate.map(Double.init), channelCount: s.channelCount,
                codecConfiguration: s.extradata)
            tracks.append(AssetTrack(
                trackID: s.index + 1, mediaType: s.mediaType, formatDescriptions: [format],
                languageCode: s.language.map(Asset.iso639) ?? "und", extendedLanguageTag: nil,
                isEnabled: true, alternateGroup: 0, name: s.title, timeRange: timeRange,
                naturalTimeScale: scale > 0 ? scale : 1_000_000, segments: [], sampleCount: s.frameCount,
                isDefault: s.isDefault, isForced: s.isForced, associations: [:],
                isoTrack: nil, streamIndex: s.index))
        }
        let duration = input.durationSeconds.map { MediaTime(seconds: $0, preferredTimescale: 1_000_000) } ?? end
        return (tracks, duration)
    }

    /// Container languages are ISO 639-2 already (Matroska allows B forms and BCP 47 too; keep the primary subtag).
    static func iso639(_ language: String) -> String {
        let primary = language.split(separator: "-").first.map(String.init) ?? language
        return primary.isEmpty ? "und" : primary.lowercased()
    }
}
