import Foundation
import MediaCore

/// Everything `splice inspect` shows about an asset, in one structure behind
/// both the table and `--json`.
public struct AssetReport: Encodable, Sendable {
    /// One entry of a track's edit list.
    public struct Edit: Encodable, Sendable {
        /// Seconds of movie time.
        public var segmentDuration: Double
        /// Seconds of media time; `nil` for an empty edit.
        public var mediaTime: Double?
        /// The playback rate (1 for normal speed, 0 for a dwell).
        public var rate: Double

        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(segmentDuration, forKey: .segmentDuration)
            try c.encode(mediaTime, forKey: .mediaTime)
            try c.encode(rate, forKey: .rate)
        }
        enum CodingKeys: String, CodingKey { case segmentDuration, mediaTime, rate }
    }

    /// One track, as `inspect` shows it.
    public struct Track: Encodable, Sendable {
        /// The track ID.
        public var id: Int
        /// `video`, `audio`, `subtitle`, `text`…
        public var mediaType: String
        /// The ISO sample-entry type (`avc1`), for every container.
        public var codec: String
        /// FFmpeg's codec name (`h264`), for every container.
        public var codecName: String
        /// The ISO 639-2/T language (`und` when none).
        public var language: String
        /// The BCP 47 tag of `elng`, when there is one.
        public var extendedLanguage: String?
        /// Whether the track is enabled.
        public var enabled: Bool
        /// The alternate group (0: none).
        public var alternateGroup: Int
        /// The handler name or title.
        public var name: String?
        /// The track references (`tref`) by type: `{"forc": [3]}`.
        public var associations: [String: [Int]]
        /// The edit list (empty when there is none).
        public var edits: [Edit]
        /// The number of samples; nil when it cannot be known.
        public var sampleCount: Int?
        /// Seconds on the movie timeline.
        public var duration: Double
        /// The media timescale.
        public var timescale: Int
        /// Video: the shortest frame duration in seconds, where the container tells it (MP4/MOV:
        /// the smallest `stts` delta); times its sample count, the track's duration at a
        /// constant frame rate.
        public var minFrameDuration: Double?
        /// Video: the width in pixels.
        public var width: Int?
        /// Video: the height in pixels.
        public var height: Int?
        /// Audio: samples per second.
        public var sampleRate: Double?
        /// Audio: the number of channels.
        public var channels: Int?
        /// Matroska's track flags (`default`, `forced`, `hearing-impaired`, `visual-impaired`),
        /// for files read through libavformat; nil for MP4/MOV (see `enabled` and the groups).
        public var flags: [String]?
        /// How the track is encrypted (scheme, original format, key ID), when it is.
        public var encryption: TrackEncryption?
        /// Video: SDR, HDR10, HDR10+, PQ, HLG or Dolby Vision, and its metadata.
        public var dynamicRange: DynamicRange?

        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(mediaType, forKey: .mediaType)
            try c.encode(codec, forKey: .codec)
            try c.encode(codecName, forKey: .codecName)
            try c.encode(language, forKey: .language)
            try c.encode(extendedLanguage, forKey: .extendedLanguage)
            try c.encode(enabled, forKey: .enabled)
            try c.encode(alternateGroup, forKey: .alternateGroup)
            try c.encode(name, forKey: .name)
            try c.encode(associations, forKey: .associations)
            try c.encode(edits, forKey: .edits)
            try c.encode(sampleCount, forKey: .sampleCount)
            try c.encode(duration, forKey: .duration)
            try c.encode(timescale, forKey: .timescale)
            try c.encodeIfPresent(minFrameDuration, forKey: .minFrameDuration)
            try c.encodeIfPresent(width, forKey: .width)
            try c.encodeIfPresent(height, forKey: .height)
            try c.encodeIfPresent(sampleRate, forKey: .sampleRate)
            try c.encodeIfPresent(channels, forKey: .channels)
            try c.encodeIfPresent(flags, forKey: .flags)
            try c.encodeIfPresent(dynamicRange, forKey: .dynamicRange)
            if let e = encryption {
                var n = c.nestedContainer(keyedBy: EncryptionKeys.self, forKey: .encryption)
                try n.encode(e.scheme, forKey: .scheme)
                try n.encode(e.originalFormat, forKey: .originalFormat)
                try n.encode(e.keyID, forKey: .keyID)
                try n.encode(e.samplesWithInformation, forKey: .samplesWithInformation)
                try n.encodeIfPresent(e.problem, forKey: .problem)
            }
        }
        enum CodingKeys: String, CodingKey {
            case id, mediaType, codec, codecName, language, extendedLanguage, enabled, alternateGroup, name, associations,
                 edits, sampleCount, duration, timescale, minFrameDuration, width, height, sampleRate, channels, flags, encryption, dynamicRange
        }
        enum EncryptionKeys: String, CodingKey { case scheme, originalFormat, keyID, samplesWithInformation, problem }
    }

    /// An alternate group: tracks of which a player shows one.
    public struct Group: Encodable, Sendable {
        /// The group number.
        public var alternateGroup: Int
        /// The IDs of its tracks.
        public var tracks: [Int]
        /// The ID of its enabled track, if any.
        public var defaultTrack: Int?

        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(alternateGroup, forKey: .alternateGroup)
            try c.encode(tracks, forKey: .tracks)
            try c.encode(defaultTrack, forKey: .defaultTrack)
        }
        enum CodingKeys: String, CodingKey { case alternateGroup, tracks, defaultTrack }
    }

    /// The file's path, as the asset was opened with it.
    public var file: String
    /// The container (`mp4`, `mov`, or libavformat's demuxer name).
    public var format: String
    /// Seconds.
    public var duration: Double
    /// The tracks, in the file's order.
    public var tracks: [Track]
    /// The alternate groups.
    public var groups: [Group]
    /// What reading the file with `salvage` left out or made up; nil when nothing was.
    public var salvage: [String]?

    /// The report of `asset` (samples are counted by reading the file where the container does not say).
    public init(asset: Asset) {
        file = asset.url.relativePath
        format = asset.format
        duration = AssetReport.seconds(asset.duration)
        // (Counted by reading the file where the container does not say; unknown if that fails.)
        let counts = (try? asset.countSamples()) ?? [:]
        tracks = asset.tracks.map { t in
            let f = t.formatDescriptions.first
            return Track(
                id: t.trackID, mediaType: t.mediaType.description, codec: t.codec?.description ?? t.codecName, codecName: t.codecName, language: t.languageCode ?? "und",
                extendedLanguage: t.extendedLanguageTag, enabled: t.isEnabled, alternateGroup: t.alternateGroup,
                name: t.name,
                associations: Dictionary(uniqueKeysWithValues: t.associations.map { ($0.key.description, $0.value) }),
                edits: t.segments.map { s in
                    Edit(segmentDuration: AssetReport.seconds(s.target.duration),
                         mediaTime: s.source.map { AssetReport.seconds($0.start) }, rate: s.rate)
                },
                sampleCount: counts[t.trackID], duration: AssetReport.seconds(t.timeRange.duration),
                timescale: Int(widening: t.naturalTimeScale),
                minFrameDuration: t.mediaType == .video && t.minFrameDuration.isNumeric && t.minFrameDuration > .zero
                    ? AssetReport.seconds(t.minFrameDuration) : nil,
                width: f?.dimensions?.width, height: f?.dimensions?.height,
                sampleRate: f?.sampleRate, channels: f?.channelCount,
                flags: !asset.source.structure.hasTrackFlags ? nil : [(t.isDefault, "default"), (t.isForced, "forced"),
                    (t.hasMediaCharacteristic(.describesMusicAndSoundForAccessibility), "hearing-impaired"),
                    (t.hasMediaCharacteristic(.describesVideoForAccessibility), "visual-impaired")].filter(\.0).map(\.1),
                encryption: t.encryption,
                // (the first sample is read for its SEI, which only HEVC's is scanned for)
                dynamicRange: t.mediaType != .video ? nil
                    : DynamicRange(track: t, firstSample: t.codecName == "hevc" ? AssetReport.firstSample(of: t, in: asset) : nil))
        }
        salvage = asset.salvageNotes.isEmpty ? nil : asset.salvageNotes
        groups = asset.trackGroups.map {
            Group(alternateGroup: $0.alternateGroup, tracks: $0.members.map(\.trackID), defaultTrack: $0.defaultTrack?.trackID)
        }
    }

    static func seconds(_ t: MediaTime) -> Double {
        let s = t.seconds
        return s.isFinite ? (s * 1_000_000).rounded() / 1_000_000 : 0
    }

    /// The report as pretty-printed JSON with sorted keys.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The report as a table a person can scan: one row per track, then the groups.
    public func table() -> String {
        var out = "\(file)\nformat \(format), duration \(AssetReport.clock(duration)), \(tracks.count) track\(tracks.count == 1 ? "" : "s")\n\n"
        let showFlags = tracks.contains { $0.flags != nil }
        var header = ["ID", "TYPE", "CODEC", "LANG", "ENABLED", "GROUP", "NAME", "ASSOCIATIONS", "SAMPLES", "DURATION", "EDITS"]
        if showFlags { header.insert("FLAGS", at: 5) }
        var rows: [[String]] = [header]
        for t in tracks {
            let lang = t.extendedLanguage.map { "\(t.language) (\($0))" } ?? t.language
            let assoc = t.associations.keys.sorted().map { k in "\(k)→\(t.associations[k]!.map(String.init).joined(separator: ","))" }
                .joined(separator: " ")
            let edits = t.edits.isEmpty ? "-" : t.edits.map { e in
                let media = e.mediaTime.map { AssetReport.short($0) } ?? "empty"
                return "\(AssetReport.short(e.segmentDuration))@\(media)" + (e.rate == 1 ? "" : "×\(e.rate)")
            }.joined(separator: " ")
            var row = [String(t.id), t.mediaType, t.codec, lang, t.enabled ? "yes" : "no",
                       t.alternateGroup == 0 ? "-" : String(t.alternateGroup), t.name ?? "",
                       assoc.isEmpty ? "-" : assoc, t.sampleCount.map(String.init) ?? "?",
                       AssetReport.clock(t.duration), edits]
            if showFlags { row.insert(t.flags.map { $0.isEmpty ? "-" : $0.joined(separator: ",") } ?? "-", at: 5) }
            rows.append(row)
        }
        out += AssetReport.align(rows)
        out += "\n"
        if groups.isEmpty {
            out += "No alternate groups.\n"
        } else {
            out += "Alternate groups:\n"
            for g in groups {
                let list = g.tracks.map(String.init).joined(separator: ", ")
                out += "  group \(g.alternateGroup): tracks \(list); default \(g.defaultTrack.map { "track \($0)" } ?? "none (all disabled)")\n"
            }
        }
        let video = tracks.filter { $0.dynamicRange != nil }
        if !video.isEmpty {
            out += "Dynamic range:\n"
            for t in video { out += "  track \(t.id): \(t.dynamicRange!.summary)\n" }
        }
        let encrypted = tracks.filter { $0.encryption != nil }
        if !encrypted.isEmpty {
            out += "Encrypted tracks:\n"
            for t in encrypted {
                let e = t.encryption!
                out += "  track \(t.id): \(e)" + (e.problem.map { "; cannot be copied: \($0)" } ?? "") + "\n"
            }
        }
        return out
    }

    static func align(_ rows: [[String]]) -> String {
        var widths = [Int](repeating: 0, count: rows[0].count)
        for r in rows { for (i, c) in r.enumerated() { widths[i] = max(widths[i], c.count) } }
        return rows.map { r in
            r.enumerated().map { i, c in i == r.count - 1 ? c : c + String(repeating: " ", count: widths[i] - c.count) }
                .joined(separator: "  ").trimmingTrailingSpaces()
        }.joined(separator: "\n") + "\n"
    }

    static func clock(_ seconds: Double) -> String {
        let ms = (seconds * 1000).rounded(saturating: Int.self) ?? 0
        let h = ms / 3_600_000, m = (ms / 60_000) % 60, s = (ms / 1000) % 60, f = ms % 1000
        let tail = "\(s < 10 ? "0" : "")\(s).\(String(f).leftPad(3))"
        return h > 0 ? "\(h):\(m < 10 ? "0" : "")\(m):\(tail)" : "\(m):\(tail)"
    }

    static func short(_ v: Double) -> String {
        v == v.rounded() ? String(v.rounded(saturating: Int.self) ?? 0) + "s" : String(format: "%.3gs", v)
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
    func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}
