import Foundation
import ISOBMFF
import MediaCore

/// A package's HLS playlists (RFC 8216 and Apple's HLS authoring specification): `master.m3u8`
/// with a variant per video track and sound group, and a media playlist per track.
struct HLSPlaylists {
    var layout: PackageLayout

    /// Writes the playlists; returns their names.
    func write(into dir: URL) throws -> [String] {
        var files: [String] = []
        for t in layout.tracks {
            let text: String
            if let media = t.media, !t.isLegible {
                text = mediaPlaylist(t, media)
            } else if t.isLegible {
                text = webVTTPlaylist(t)
            } else {
                continue
            }
            try Data(text.utf8).write(to: dir.appendingPathComponent(t.playlistFile))
            files.append(t.playlistFile)
        }
        try Data(master().utf8).write(to: dir.appendingPathComponent("master.m3u8"))
        return files + ["master.m3u8"]
    }

    /// A duration as `EXTINF` writes it.
    static func seconds(_ s: Double) -> String { String(format: "%.5f", s) }

    /// The target duration: the longest segment, rounded to the nearest second (RFC 8216 §4.3.3.1).
    static func target(_ durations: [Double]) -> Int { max(1, durations.map { $0.rounded(saturating: Int.self) ?? 0 }.max() ?? 1) }

    func mediaPlaylist(_ t: PackageTrack, _ media: PackageMedia) -> String {
        let durations = media.segments.map { media.seconds($0.duration) }
        // EXT-X-MAP outside an I-frame playlist needs version 6 (RFC 8216 §7).
        var lines = ["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:\(Self.target(durations))",
                     "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-MEDIA-SEQUENCE:1", "#EXT-X-INDEPENDENT-SEGMENTS"]
        lines += PackageProtection.hlsKeys(media)
        if layout.singleFile {
            lines.append("#EXT-X-MAP:URI=\"\(t.mediaFile)\",BYTERANGE=\"\(media.initRange.count)@\(media.initRange.lowerBound)\"")
            for (s, d) in zip(media.segments, durations) {
                lines += ["#EXTINF:\(Self.seconds(d)),", "#EXT-X-BYTERANGE:\(s.size)@\(s.range.lowerBound)", t.mediaFile]
            }
        } else {
            lines.append("#EXT-X-MAP:URI=\"\(t.initFile)\"")
            for (n, d) in durations.enumerated() { lines += ["#EXTINF:\(Self.seconds(d)),", t.segmentFile(n + 1)] }
        }
        return (lines + ["#EXT-X-ENDLIST"]).joined(separator: "\n") + "\n"
    }

    func webVTTPlaylist(_ t: PackageTrack) -> String {
        let segments = layout.webVTTSegments(t)
        // Fractional EXTINF durations need version 3.
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:\(Self.target(segments.map(\.duration)))",
                     "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-MEDIA-SEQUENCE:1"]
        for (n, s) in segments.enumerated() { lines += ["#EXTINF:\(Self.seconds(s.duration)),", t.segmentFile(n + 1, webVTT: true)] }
        return (lines + ["#EXT-X-ENDLIST"]).joined(separator: "\n") + "\n"
    }

    /// Each track's NAME, unique in its group (RFC 8216 §4.3.4.1.1): a repeated label gets
    /// its track's place (`en (1-5)`).
    static func uniqueNames(_ groups: [[PackageTrack]]) -> [String: String] {
        var names: [String: String] = [:]
        for group in groups {
            let counts = Dictionary(group.map { ($0.label, 1) }, uniquingKeysWith: +)
            for t in group { names[t.key] = counts[t.label, default: 0] > 1 ? "\(t.label) (\(t.key))" : t.label }
        }
        return names
    }

    /// A quoted-string attribute value (no quotes or line breaks can be in one).
    static func quoted(_ s: String) -> String {
        "\"" + s.filter { $0 != "\"" && !$0.isNewline } + "\""
    }

    /// The multivariant playlist: `EXT-X-MEDIA` for every sound and subtitle track (a group per
    /// alternate group; subtitles all in one), a variant per video track and sound group.
    func master() -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-INDEPENDENT-SEGMENTS"]
        let sound = layout.soundGroups
        let names = Self.uniqueNames(sound + [layout.texts])
        for (g, group) in sound.enumerated() {
            let main = PackageLayout.defaultTrack(group)?.key
            for t in group {
                var a = ["TYPE=AUDIO", "GROUP-ID=\"audio\(g + 1)\"", "NAME=" + Self.quoted(names[t.key] ?? t.label)]
                if let l = t.language { a.append("LANGUAGE=" + Self.quoted(l)) }
                a += ["DEFAULT=\(t.key == main ? "YES" : "NO")", "AUTOSELECT=YES"]
                if let c = PackageProtection.channels(t) { a.append("CHANNELS=\"\(c.count)\"") }
                a.append("URI=\"\(t.playlistFile)\"")
                lines.append("#EXT-X-MEDIA:" + a.joined(separator: ","))
            }
        }
        let texts = layout.texts
        let shown = texts.first { $0.isEnabled && !$0.isForced }?.key
        for t in texts {
            var a = ["TYPE=SUBTITLES", "GROUP-ID=\"subtitles\"", "NAME=" + Self.quoted(names[t.key] ?? t.label)]
            if let l = t.language { a.append("LANGUAGE=" + Self.quoted(l)) }
            // DEFAULT=YES needs AUTOSELECT=YES; a forced track is chosen by language, so autoselected.
            a += ["DEFAULT=\(t.key == shown ? "YES" : "NO")", "AUTOSELECT=YES", "FORCED=\(t.isForced ? "YES" : "NO")", "URI=\"\(t.playlistFile)\""]
            lines.append("#EXT-X-MEDIA:" + a.joined(separator: ","))
        }
        let groups: [(name: String?, tracks: [PackageTrack])] = sound.isEmpty ? [(nil, [])] : sound.enumerated().map { ("audio\($0.offset + 1)", $0.element) }
        let videos = layout.videos
        for v in videos {
            for g in groups { lines += variant(v, sound: g, subtitles: texts) }
        }
        if videos.isEmpty {
            // Sound only: a variant per sound track, its own playlist.
            for t in sound.joined() { lines += variant(nil, sound: (nil, [t]), subtitles: texts, uri: t.playlistFile) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One `EXT-X-STREAM-INF`: BANDWIDTH the largest sum of peak segment bit rates any
    /// combination of its renditions plays (RFC 8216 §4.3.4.2), AVERAGE-BANDWIDTH the same of averages.
    func variant(_ v: PackageTrack?, sound: (name: String?, tracks: [PackageTrack]), subtitles: [PackageTrack], uri: String? = nil) -> [String] {
        let soundMedia = sound.tracks.compactMap(\.media)
        func most(_ m: [PackageMedia], _ rate: (PackageMedia) -> Double) -> Double { m.map(rate).max() ?? 0 }
        let text = webVTTRates(subtitles)
        let peak = (v?.media?.peakBitRate ?? 0) + most(soundMedia, \.peakBitRate) + text.peak
        let average = (v?.media?.averageBitRate ?? 0) + most(soundMedia, \.averageBitRate) + text.average
        var codecs: [String] = []
        for c in ([v?.media?.codec] + soundMedia.map(\.codec)).compactMap({ $0 }) where !codecs.contains(c) { codecs.append(c) }
        var a = ["BANDWIDTH=\(peak.rounded(saturating: Int.self, .up) ?? 0)", "AVERAGE-BANDWIDTH=\(average.rounded(saturating: Int.self, .up) ?? 0)"]
        if !codecs.isEmpty { a.append("CODECS=\"\(codecs.joined(separator: ","))\"") }
        if let v, let size = v.source.naturalSize { a.append("RESOLUTION=\(size.width)x\(size.height)") }
        if let v, v.source.nominalFrameRate > 0 { a.append("FRAME-RATE=" + String(format: "%.3f", v.source.nominalFrameRate)) }
        if let name = sound.name { a.append("AUDIO=\"\(name)\"") }
        if !subtitles.isEmpty { a.append("SUBTITLES=\"subtitles\"") }
        return ["#EXT-X-STREAM-INF:" + a.joined(separator: ","), uri ?? v?.playlistFile ?? ""]
    }

    /// The largest bit rate of a WebVTT segment of the subtitle tracks, and the largest average.
    func webVTTRates(_ texts: [PackageTrack]) -> (peak: Double, average: Double) {
        var peak = 0.0, average = 0.0
        for t in texts {
            let segments = layout.webVTTSegments(t)
            let bits = segments.map { Double($0.text.utf8.count) * 8 }
            peak = max(peak, zip(bits, segments).map { $0 / max($1.duration, 0.001) }.max() ?? 0)
            average = max(average, bits.reduce(0, +) / max(segments.reduce(0) { $0 + $1.duration }, 0.001))
        }
        return (peak, average)
    }
}
