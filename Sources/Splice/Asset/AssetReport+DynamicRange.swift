import Foundation
import MediaCore
import ISOBMFF

/// What `inspect` says of a video track's dynamic range.
extension AssetReport {
    /// A video track's dynamic range, as `inspect` shows it: from the sample description (`colr`,
    /// `mdcv`, `clli`, `dvcC`/`dvvC`, Matroska's colour and block addition mappings) and the
    /// first sample's SEI (HDR10+, and HDR10 metadata a container does not state).
    public struct DynamicRange: Encodable, Sendable {
        /// `SDR`, `HDR10`, `HDR10+`, `PQ` (without mastering metadata), `HLG` or `Dolby Vision`.
        public var kind: String
        /// One line: `HDR10 (mastering display 1000–0.0001 cd/m², MaxCLL 1000, MaxFALL 400)`,
        /// `PQ without mastering metadata`, `Dolby Vision 8.4 (HLG-compatible)`.
        public var summary: String
        /// The transfer characteristics (`bt709`, `smpte2084`, `arib-std-b67`, `unspecified`).
        public var transfer: String
        /// The colour primaries (`bt709`, `bt2020`, …).
        public var primaries: String
        /// The mastering display's luminance range, cd/m².
        public var masteringDisplay: [String: Double]?
        /// MaxCLL and MaxFALL, cd/m².
        public var contentLightLevel: [String: Int]?
        /// Whether the first sample carries HDR10+ dynamic metadata.
        public var hdr10Plus: Bool
        /// The Dolby Vision configuration: profile, level, compatibility ID, layers.
        public var dolbyVision: DolbyVision?

        /// A Dolby Vision configuration record's fields.
        public struct DolbyVision: Encodable, Sendable {
            /// `dv_profile`.
            public var profile: Int
            /// `dv_level`.
            public var level: Int
            /// `dv_bl_signal_compatibility_id`.
            public var compatibilityID: Int
            /// What other decoders show of the base layer (`HDR10`, `SDR`, `HLG`), nil: nothing right.
            public var compatibleBaseLayer: String?
            /// `rpu_present_flag`.
            public var rpu: Bool
            /// `el_present_flag`.
            public var enhancementLayer: Bool
            /// `bl_present_flag`.
            public var baseLayer: Bool
        }

        /// The range of `track`, whose first sample is `firstSample` (nil: unread).
        init(track: AssetTrack, firstSample: [UInt8]?) {
            let p = track.formatDescriptions.first?.parameters ?? CodecParameters(mediaType: .video, codecName: "")
            var sei = HEVCSEIMetadata(sample: [], lengthSize: 4)
            if p.codecName == "hevc", let sample = firstSample, p.extradata.count >= 23, p.extradata[0] == 1 {
                sei = HEVCSEIMetadata(sample: sample, lengthSize: Int(widening: p.extradata[21] & 3) + 1)
            }
            let mastering = p.masteringDisplay ?? sei.masteringDisplay
            let light = p.contentLightLevel ?? sei.contentLightLevel
            transfer = DynamicRange.transferNames[p.transferCharacteristics] ?? "code \(p.transferCharacteristics)"
            primaries = DynamicRange.primariesNames[p.colorPrimaries] ?? "code \(p.colorPrimaries)"
            masteringDisplay = mastering.map { ["maxLuminance": Double($0.maxLuminance) / 10_000, "minLuminance": Double($0.minLuminance) / 10_000] }
            contentLightLevel = light.map { ["maxCLL": Int(widening: $0.maxContentLightLevel), "maxFALL": Int(widening: $0.maxFrameAverageLightLevel)] }
            hdr10Plus = sei.hasHDR10Plus
            dolbyVision = p.dolbyVision.map {
                DolbyVision(profile: $0.profile, level: $0.level, compatibilityID: $0.compatibilityID, compatibleBaseLayer: $0.compatibleBaseLayer,
                            rpu: $0.rpuPresent, enhancementLayer: $0.enhancementLayerPresent, baseLayer: $0.baseLayerPresent)
            }
            var details: [String] = []
            if let m = mastering {
                details.append("mastering display \(String(format: "%g", Double(m.maxLuminance) / 10_000))–\(String(format: "%g", Double(m.minLuminance) / 10_000)) cd/m²")
            }
            if let l = light { details.append("MaxCLL \(l.maxContentLightLevel), MaxFALL \(l.maxFrameAverageLightLevel)") }
            // (HDR10 metadata in the SEI of a stream the container does not tag: PQ all the same)
            // (an untagged base layer of Dolby Vision is what its compatibility ID says)
            let said = p.transferCharacteristics == 2 ? [1: 16, 6: 16, 4: 18][p.dolbyVision?.compatibilityID ?? 0] ?? 2 : p.transferCharacteristics
            let pq = said == 16 || (said == 2 && mastering != nil)
            if pq {
                kind = hdr10Plus ? "HDR10+" : mastering != nil || light != nil ? "HDR10" : "PQ"
            } else {
                kind = said == 18 ? "HLG" : "SDR"
            }
            let base = kind == "PQ" ? "PQ without mastering metadata" : details.isEmpty ? kind : "\(kind) (\(details.joined(separator: ", ")))"
            if let dv = p.dolbyVision {
                summary = dv.summary + (dv.compatibleBaseLayer == nil ? "" : "; base layer \(base)")
                kind = "Dolby Vision"
            } else {
                summary = base
            }
        }

        static let transferNames = [1: "bt709", 2: "unspecified", 4: "gamma22", 5: "gamma28", 6: "smpte170m", 7: "smpte240m", 8: "linear",
                                    13: "iec61966-2-1", 14: "bt2020-10", 15: "bt2020-12", 16: "smpte2084", 17: "smpte428", 18: "arib-std-b67"]
        static let primariesNames = [1: "bt709", 2: "unspecified", 4: "bt470m", 5: "bt470bg", 6: "smpte170m", 7: "smpte240m", 8: "film",
                                     9: "bt2020", 10: "smpte428", 11: "smpte431", 12: "smpte432", 22: "ebu3213"]
    }

    /// The first sample's bytes of a video track (nil when it cannot be read or is encrypted), for its SEI.
    static func firstSample(of track: AssetTrack, in asset: Asset) -> [UInt8]? {
        guard track.encryption == nil, let reader = try? AssetReader(asset: asset) else { return nil }
        let output = AssetReaderTrackOutput(track: track, outputSettings: nil)
        guard (try? reader.add(output)) != nil, reader.startReading() else { return nil }
        defer { reader.cancelReading() }
        return output.copyNextSampleBuffer().flatMap { try? $0.loadData() }.map { [UInt8]($0) }
    }
}
