import Foundation
import MediaCore
import ISOBMFF

/// What a smart cut re-encodes with, per codec: the source's codec, profile, bit depth and
/// chroma format (its colour follows the decoded pictures), a fixed thread count (the same
/// bytes on every machine: a smart cut's output must not depend on the cores it ran on, so its
/// encoders are never left to count them, unlike an export's) and a quality well above the
/// eye's threshold.
extension SmartVideoSource {
    /// Why the frames of `track` cannot be re-encoded to match (a codec without an encoder
    /// here; a profile the encoders do not make: lossless H.264, 12-bit H.264, HEVC's 16-bit
    /// and monochrome range extensions), or nil.
    static func profileProblem(_ track: AssetTrack) -> String? {
        do { _ = try encodingSettings(for: track) } catch { return (error as? MediaError)?.message ?? "\(error)" }
        return nil
    }

    /// The re-encoding settings of `track`'s frames (CRF 18 for x264, 20 for x265, 16 for
    /// libvpx-vp9 and 20 for SVT-AV1).
    static func encodingSettings(for track: AssetTrack) throws -> VideoEncodingSettings {
        switch track.codecName {
        case "h264", "hevc": return try nalSettings(for: track)
        case "vp9": return try vp9Settings(for: track)
        case "av1": return try av1Settings(for: track)
        default:
            throw MediaError(.unsupported, "smart cut re-encodes H.264, HEVC, VP9 and AV1 (this is \(track.codecName))")
        }
    }

    /// H.264 and HEVC in the source's profile, level, chroma format and bit depth: x264's
    /// Baseline to High 4:4:4 (8 and 10 bits), x265's Main, Main 10 and range extensions (4:2:2
    /// and 4:4:4, 8 to 12 bits), all read from the configuration record.
    private static func nalSettings(for track: AssetTrack) throws -> VideoEncodingSettings {
        let hevc = track.codecName == "hevc"
        guard let config = track.recordParameters?.configuration,
              let chroma = config.chromaFormat, let depth = config.bitDepth else {
            throw MediaError(.unsupported, "its \(track.codecName) has no configuration record, which smart cut copies")
        }
        let profileName = config.profileName ?? "an unnamed profile"
        guard let pixels = PixelBuffer.PixelFormat(chromaFormat: chroma, bitDepth: depth) else {
            throw MediaError(.unsupported, "smart cut does not re-encode \(track.codecName) \(profileName) (\(depth)-bit, chroma format \(chroma))")
        }
        var v = VideoEncodingSettings(codec: hevc ? .hevc : .h264, quality: .crf(hevc ? 20 : 18), pixelFormat: pixels)
        v.preset = "medium"
        v.options["threads"] = "4"   // (fixed, never the machine's count: the same bytes on every machine)
        if let avc = config as? AVCConfiguration {
            let profiles: [Int: String] = [66: "baseline", 77: "main", 88: "main", 100: "high", 110: "high10", 122: "high422", 244: "high444"]
            guard let profile = profiles[avc.profile], depth <= 10 else {
                throw MediaError(.unsupported, "smart cut re-encodes H.264 in the Baseline, Main, High, High 10, High 4:2:2 and "
                                 + "High 4:4:4 Predictive profiles at 8 and 10 bits (this is \(profileName), \(depth)-bit)")
            }
            guard !avc.isLossless else {
                throw MediaError(.unsupported, "its H.264 \(profileName) is lossless (transform bypass), which smart cut does not re-encode to match")
            }
            v.profile = profile
            let level = avc.level ?? 0
            v.options["level"] = "\(level / 10).\(level % 10)"
            // x264's macroblock tree gives other bytes for the same pictures when another x264
            // ran before it in the process (each cut's pieces are encoders of their own).
            v.options["x264-params"] = "mbtree=0"
        } else if let hevcConfig = config as? HEVCConfiguration {
            let profile: String
            switch (hevcConfig.profile, chroma, depth) {
            case (1, 1, 8): profile = "main"
            case (2, 1, 10): profile = "main10"
            case (4, 1, 12): profile = "main12"
            case (4, 2, 10): profile = "main422-10"
            case (4, 2, 12): profile = "main422-12"
            case (4, 3, 8): profile = "main444-8"
            case (4, 3, 10): profile = "main444-10"
            case (4, 3, 12): profile = "main444-12"
            default:
                throw MediaError(.unsupported, "smart cut re-encodes HEVC in the Main, Main 10, Main 12, Main 4:2:2 10 and 12, and Main 4:4:4 "
                                 + "8, 10 and 12 profiles (this is \(profileName))")
            }
            v.profile = profile
            // (fixed pools and frame threads, never the machine's: the same bytes on every machine)
            v.options["x265-params"] = "pools=4:frame-threads=2:level-idc=\(String(format: "%.1f", Double(hevcConfig.level ?? 0) / 30))"
        } else {
            throw MediaError(.unsupported, "its \(track.codecName) has no configuration record, which smart cut copies")
        }
        return v
    }

    /// VP9 profiles 0 and 2 (4:2:0, 8 or 10 bits), read from the first key frame's header (VP9
    /// bitstream §6.2: a stream's profile and bit depth are in its frames, not its description).
    private static func vp9Settings(for track: AssetTrack) throws -> VideoEncodingSettings {
        guard let key = try firstKeyFrame(of: track), let (profile, bitDepth) = vp9Profile(key) else {
            throw MediaError(.unsupported, "its first VP9 key frame's header cannot be read")
        }
        guard profile == 0 || profile == 2, bitDepth <= 10 else {
            throw MediaError(.unsupported, "smart cut re-encodes VP9 in profiles 0 and 2 (4:2:0, 8 and 10 bits; this is profile \(profile), \(bitDepth) bits)")
        }
        var v = VideoEncodingSettings(codec: .vp9, quality: .crf(16), pixelFormat: bitDepth > 8 ? .yuv420p10le : .yuv420p)
        v.options = ["deadline": "good", "cpu-used": "2", "threads": "4", "tile-columns": "0"]   // (fixed threads: the same bytes anywhere)
        v.frameRate = frameRate(of: track)
        return v
    }

    /// AV1's Main profile (4:2:0 and monochrome-free, 8 or 10 bits: what SVT-AV1 encodes), from `av1C`.
    private static func av1Settings(for track: AssetTrack) throws -> VideoEncodingSettings {
        guard let config = track.formatDescriptions.first?.parameters.configuration as? AV1Configuration, let depth = config.bitDepth else {
            throw MediaError(.unsupported, "its AV1 has no configuration record")
        }
        let profile = config.profile, highBitDepth = depth > 8, twelve = depth == 12, mono = config.chromaFormat == 0
        guard profile == 0, !twelve, !mono else {
            throw MediaError(.unsupported, "smart cut re-encodes AV1 in the Main profile (4:2:0, 8 and 10 bits; this is seq_profile \(profile)"
                             + (twelve ? ", 12 bits" : "") + (mono ? ", monochrome" : "") + ")")
        }
        var v = VideoEncodingSettings(codec: .av1, quality: .crf(20), pixelFormat: highBitDepth ? .yuv420p10le : .yuv420p)
        v.preset = "8"
        v.frameRate = frameRate(of: track)
        return v
    }

    private static func frameRate(of track: AssetTrack) -> Double? {
        track.nominalFrameRate > 0 ? Concatenation.standardRate(Double(track.nominalFrameRate)) : nil
    }

    /// The bytes of the track's first sync sample.
    private static func firstKeyFrame(of track: AssetTrack) throws -> [UInt8]? {
        let start = track.timeRange.start
        let packets = try track.packets(over: TimeRange(start: start, duration: MediaTime(value: 1, timescale: 1000)))
        return try packets.first(where: \.isSync).map { [UInt8](try $0.loadData()) }
    }

    /// A VP9 key frame's profile and bit depth (the uncompressed header's frame marker, profile
    /// bits, frame type, sync code and colour config), or nil.
    static func vp9Profile(_ frame: [UInt8]) -> (profile: Int, bitDepth: Int)? {
        var r = BitReader(raw: frame.prefix(8))
        guard r.bits(2) == 2, let low = r.bits(1), let high = r.bits(1) else { return nil }
        let profile = low | high << 1
        if profile == 3 { _ = r.bits(1) }
        // show_existing_frame 0, frame_type 0 (key), show_frame, error_resilient_mode, sync code
        guard r.bits(1) == 0, r.bits(1) == 0, r.bits(2) != nil, r.bits(24) == 0x498342 else { return nil }
        let bitDepth = profile >= 2 ? (r.bits(1) == 1 ? 12 : 10) : 8
        return (profile, bitDepth)
    }
}
