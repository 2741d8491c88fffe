import Foundation
import ISOBMFF
import MediaCore
import Subtitles

/// A package's tracks as the manifests present them — variants, sound and subtitle groups —
/// and its media files laid out: a file per segment (`1-1/init.mp4`, `1-1/1.m4s`, …), or one
/// per track (`1-1.mp4`); HLS subtitles as WebVTT segments (`1-3/1.vtt`).
struct PackageLayout {
    var tracks: [PackageTrack]
    var singleFile: Bool
    /// Where each segment starts, in seconds from the first (the lead video track's).
    var segmentStarts: [Double]
    /// The movie's duration, in seconds.
    var duration: Double
    /// Each text track's WebVTT segments for HLS, by key: rendered once, for the files, the
    /// playlists and the variants' bit rates.
    private var webVTT: [String: [WebVTTSegment]] = [:]

    typealias WebVTTSegment = (start: Double, duration: Double, text: String)

    init(tracks: [PackageTrack], singleFile: Bool, segmentStarts: [Double], duration: Double) {
        (self.tracks, self.singleFile, self.segmentStarts, self.duration) = (tracks, singleFile, segmentStarts, duration)
        for t in tracks where t.isLegible {
            webVTT[t.key] = Self.webVTTSegments(t.document ?? SubtitleDocument(cues: []), starts: segmentStarts, duration: duration)
        }
    }

    var videos: [PackageTrack] { tracks.filter { $0.kind == .video && $0.media != nil } }
    var texts: [PackageTrack] { tracks.filter(\.isLegible) }

    /// The sound tracks by alternate group (a track in none is a group of its own), in order.
    var soundGroups: [[PackageTrack]] {
        var groups: [[PackageTrack]] = []
        for t in tracks where t.kind == .audio && t.media != nil {
            if t.group != 0, let i = groups.firstIndex(where: { $0.first?.group == t.group }) { groups[i].append(t) } else { groups.append([t]) }
        }
        return groups
    }

    /// The track a group plays by default: its first enabled track, else its first.
    static func defaultTrack(_ group: [PackageTrack]) -> PackageTrack? {
        group.first { $0.isEnabled } ?? group.first
    }

    /// The WebVTT segments of text track `t` for HLS.
    func webVTTSegments(_ t: PackageTrack) -> [WebVTTSegment] { webVTT[t.key] ?? [] }

    /// `document` as WebVTT segments starting at `starts`: each segment's cues (a cue that spans
    /// a segment's start is in both), with `X-TIMESTAMP-MAP` mapping cue time 0 to media time 0.
    static func webVTTSegments(_ document: SubtitleDocument, starts: [Double], duration: Double) -> [WebVTTSegment] {
        let lastCue = Double(document.cues.map(\.end).max() ?? 0) / 1000
        let end = max(duration, lastCue)
        return starts.indices.map { k in
            let start = starts[k], stop = k + 1 < starts.count ? starts[k + 1] : end
            var part = document
            part.cues = document.cues.filter { Double($0.end) / 1000 > start && Double($0.start) / 1000 < stop }
            var text = SubtitleFile.render(part, format: .webVTT)
            let header = text.firstIndex(of: "\n") ?? text.endIndex
            text.insert(contentsOf: "\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000", at: header)
            if part.cues.isEmpty, !text.hasSuffix("\n") { text += "\n" }
            return (start, max(0, stop - start), text)
        }
    }

    /// Writes every track's segment files (or keeps its one file), and the WebVTT segments;
    /// returns the names written.
    func writeMedia(into dir: URL) throws -> [String] {
        var files: [String] = []
        for t in tracks {
            if let media = t.media {
                if singleFile {
                    files.append(t.mediaFile)
                } else {
                    try FileManager.default.createDirectory(at: dir.appendingPathComponent(t.key), withIntermediateDirectories: true)
                    let file = try ReadOnlyFile(path: media.url.path)
                    try write(file, media.initRange, to: dir.appendingPathComponent(t.initFile))
                    files.append(t.initFile)
                    for (n, s) in media.segments.enumerated() {
                        try write(file, s.range, to: dir.appendingPathComponent(t.segmentFile(n + 1)))
                        files.append(t.segmentFile(n + 1))
                    }
                    try FileManager.default.removeItem(at: media.url)
                }
            }
            if t.isLegible, t.document != nil {
                try FileManager.default.createDirectory(at: dir.appendingPathComponent(t.key), withIntermediateDirectories: true)
                for (n, segment) in webVTTSegments(t).enumerated() {
                    try Data(segment.text.utf8).write(to: dir.appendingPathComponent(t.segmentFile(n + 1, webVTT: true)))
                    files.append(t.segmentFile(n + 1, webVTT: true))
                }
            }
        }
        return files
    }

    /// Copies `range` of `file` into a new file at `url`, in the kernel where it can (`copy_file_range`).
    private func write(_ file: ReadOnlyFile, _ range: Range<UInt64>, to url: URL) throws {
        let out = try OutputFile(destination: url.path, replacing: false)
        try out.append(from: file, offset: range.lowerBound, length: Int(clamping: range.upperBound - range.lowerBound))
        try out.commit()
    }

    /// Refuses a rendition whose segments do not start where the lead's do (within half a frame).
    static func checkAligned(_ t: PackageTrack, with lead: PackageTrack, file: String) throws {
        guard let media = t.media, let leadMedia = lead.media else { return }
        func starts(_ m: PackageMedia) -> [Double] { m.segments.map { m.seconds($0.start - (m.segments.first?.start ?? 0)) } }
        let mine = starts(media), theirs = starts(leadMedia)
        let frame = lead.source.minFrameDuration.isNumeric ? lead.source.minFrameDuration.seconds : 0.02
        let tolerance = max(0.001, min(frame, t.source.minFrameDuration.isNumeric ? t.source.minFrameDuration.seconds : frame) / 2)
        if mine.count != theirs.count || zip(mine, theirs).contains(where: { abs($0 - $1) > tolerance }) {
            let k = zip(mine, theirs).enumerated().first { abs($0.element.0 - $0.element.1) > tolerance }?.offset ?? min(mine.count, theirs.count)
            let at = k < theirs.count ? String(format: "%.3f s", theirs[k]) : "the end"
            throw MediaError(.unsupported, "track \(t.source.trackID)'s segments do not start where the package's do (track \(lead.source.trackID) "
                             + "of \(lead.source.owningAsset.url.lastPathComponent)): segment \(k + 1) starts at \(at) there; "
                             + "encode the renditions with sync samples at the same times (e.g. a fixed GOP)", file: file)
        }
    }
}
