import Foundation
import ISOBMFF
import MediaCore

/// A package's DASH MPD (ISO/IEC 23009-1): the live profile with a `SegmentTemplate` and
/// `SegmentTimeline` per representation, or with one file per track the on-demand profile with
/// `SegmentBase` (its `sidx`). Video tracks of one codec share an adaptation set (their segments
/// start together); each sound and subtitle track has one, in its alternate group's `group`,
/// with `Role` main for the track its group plays by default.
struct DASHManifest {
    var layout: PackageLayout

    func write(into dir: URL) throws -> [String] {
        try Data(manifest().utf8).write(to: dir.appendingPathComponent("manifest.mpd"))
        return ["manifest.mpd"]
    }

    /// `PT12.345S`.
    static func duration(_ s: Double) -> String { String(format: "PT%.3fS", s) }

    func manifest() -> String {
        let media = layout.tracks.compactMap(\.media)
        let longest = media.flatMap { m in m.segments.map { m.seconds($0.duration) } }.max() ?? 1
        let profile = layout.singleFile ? "urn:mpeg:dash:profile:isoff-on-demand:2011" : "urn:mpeg:dash:profile:isoff-live:2011"
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                     "<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" xmlns:cenc=\"urn:mpeg:cenc:2013\" profiles=\"\(profile)\" type=\"static\" "
                        + "minBufferTime=\"\(Self.duration(longest))\" mediaPresentationDuration=\"\(Self.duration(layout.duration))\">",
                     "  <Period id=\"1\" start=\"PT0S\">"]
        var id = 0
        var videoSets: [[PackageTrack]] = []
        for v in layout.videos {
            let family = String((v.media?.codec ?? "").prefix(4))
            if let i = videoSets.firstIndex(where: { String(($0[0].media?.codec ?? "").prefix(4)) == family }) { videoSets[i].append(v) } else { videoSets.append([v]) }
        }
        for set in videoSets {
            id += 1
            lines += adaptationSet(id, set, contentType: "video", mimeType: "video/mp4", roles: ["main"], group: nil)
        }
        let sound = layout.soundGroups
        for (g, group) in sound.enumerated() {
            let main = PackageLayout.defaultTrack(group)?.key
            for t in group {
                id += 1
                lines += adaptationSet(id, [t], contentType: "audio", mimeType: "audio/mp4", roles: [t.key == main ? "main" : "alternate"],
                                       group: group.count > 1 ? g + 1 : nil)
            }
        }
        let texts = layout.texts.filter { $0.media != nil }
        let shown = texts.first { $0.isEnabled && !$0.isForced }?.key
        for t in texts {
            id += 1
            let roles = t.isForced ? ["forced-subtitle"] : t.key == shown ? ["main", "subtitle"] : ["subtitle"]
            lines += adaptationSet(id, [t], contentType: "text", mimeType: "application/mp4", roles: roles, group: texts.count > 1 ? sound.count + 1 : nil)
        }
        return (lines + ["  </Period>", "</MPD>"]).joined(separator: "\n") + "\n"
    }

    func adaptationSet(_ id: Int, _ tracks: [PackageTrack], contentType: String, mimeType: String, roles: [String], group: Int?) -> [String] {
        var a = "    <AdaptationSet id=\"\(id)\" contentType=\"\(contentType)\" mimeType=\"\(mimeType)\" segmentAlignment=\"true\" startWithSAP=\"1\""
        if let group { a += " group=\"\(group)\"" }
        if let lang = tracks[0].language { a += " lang=\"\(lang)\"" }
        var lines = [a + ">"]
        for r in roles { lines.append("      <Role schemeIdUri=\"urn:mpeg:dash:role:2011\" value=\"\(r)\"/>") }
        if let media = tracks[0].media { lines += PackageProtection.dashElements(media, indent: "      ") }
        for t in tracks { lines += representation(t) }
        return lines + ["    </AdaptationSet>"]
    }

    func representation(_ t: PackageTrack) -> [String] {
        guard let media = t.media else { return [] }
        var a = "      <Representation id=\"\(t.key)\" bandwidth=\"\(media.peakBitRate.rounded(saturating: Int.self, .up) ?? 0)\""
        if let codec = media.codec { a += " codecs=\"\(codec)\"" }
        if t.kind == .video, let size = t.source.naturalSize { a += " width=\"\(size.width)\" height=\"\(size.height)\" sar=\"1:1\"" }
        if t.kind == .video, let rate = frameRate(t) { a += " frameRate=\"\(rate)\"" }
        if t.kind == .audio, let rate = t.source.formatDescriptions.first?.sampleRate, rate > 0 { a += " audioSamplingRate=\"\(rate.rounded(saturating: Int.self) ?? 0)\"" }
        var lines = [a + ">"]
        if let c = PackageProtection.channels(t) {
            lines.append("        <AudioChannelConfiguration schemeIdUri=\"\(c.scheme)\" value=\"\(c.value)\"/>")
        }
        if layout.singleFile {
            lines.append("        <BaseURL>\(t.mediaFile)</BaseURL>")
            let index = media.indexRange.map { " indexRange=\"\($0.lowerBound)-\($0.upperBound - 1)\"" } ?? ""
            lines += ["        <SegmentBase timescale=\"\(media.timescale)\" presentationTimeOffset=\"\(media.presentationTimeOffset)\"\(index)>",
                      "          <Initialization range=\"\(media.initRange.lowerBound)-\(media.initRange.upperBound - 1)\"/>",
                      "        </SegmentBase>"]
        } else {
            lines += ["        <SegmentTemplate timescale=\"\(media.timescale)\" presentationTimeOffset=\"\(media.presentationTimeOffset)\" "
                        + "initialization=\"\(t.initFile)\" media=\"\(t.key)/$Number$.m4s\" startNumber=\"1\">",
                      "          <SegmentTimeline>"]
            lines += timeline(media).map { "            " + $0 }
            lines += ["          </SegmentTimeline>", "        </SegmentTemplate>"]
        }
        return lines + ["      </Representation>"]
    }

    /// `S` elements: runs of equal durations as one with `r`, `t` where a segment does not
    /// start where the one before ended.
    func timeline(_ media: PackageMedia) -> [String] {
        var out: [String] = []
        var run: (t: UInt64?, d: UInt64, r: Int)?
        var next: UInt64?
        func flush() {
            guard let run else { return }
            out.append("<S" + (run.t.map { " t=\"\($0)\"" } ?? "") + " d=\"\(run.d)\"" + (run.r > 0 ? " r=\"\(run.r)\"" : "") + "/>")
        }
        for s in media.segments {
            let continues = next == s.earliest
            if continues, let r = run, r.d == s.duration {
                run!.r += 1
            } else {
                flush()
                run = (continues ? nil : s.earliest, s.duration, 0)
            }
            next = s.earliest + s.duration
        }
        flush()
        return out
    }

    /// `25`, `30000/1001`: the track's rate from its shortest frame duration.
    func frameRate(_ t: PackageTrack) -> String? {
        let d = t.source.minFrameDuration
        guard d.isNumeric, d.value > 0 else { return nil }
        let (n, m) = (Int64(widening: d.timescale), d.value)
        let g = MediaTime.gcd(n, m)
        return m / g == 1 ? "\(n / g)" : "\(n / g)/\(m / g)"
    }
}
