import Foundation
import MediaCore
import ISOBMFF

/// What a smart cut re-encodes with, per codec: the source's codec, profile, bit depth and
/// chroma format (its colour follows the decoded pictures), a fixed thread count (the same
/// bytes on every machine) and a quality well above the eye's threshold.
extension SmartVideoSource {
    /// Why the frames of `track` cannot be re-encoded to match (a codec without an encoder
    /// here; a profile Splice does not encode: 4:2:2, 4:4:4, HEVC's range extensions), or nil.
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

    private static func nalSettings(for track: AssetTrack) throws -> VideoEncodingSettings {
        let record = track.formatDescriptions.first?.parameters.extradata ?? []
        let tenBit = ExportSession.bitDepth(of: track) > 8
        var v = VideoEncodingSettings(codec: track.codecName == "hevc" ? .hevc : .h264, quality: .crf(track.codecName == "hevc" ? 20 : 18),
                                      pixelFormat: tenBit ? .yuv420p10le : .yuv420p)
        v.preset = "medium"
        v.options["threads"] = "4"
        if track.codecName == "h264", record.count > 3, record[0] == 1 {
            let profiles: [UInt8: String] = [66: "baseline", 77: "main", 88: "main", 100: "high", 110: "high10"]
            guard let profile = profiles[record[1]] else {
                throw MediaError(.unsupported, "smart cut re-encodes H.264 in the Baseline, Main, High and High 10 profiles (profile_idc \(record[1]))")
            }
            v.profile = profile
            v.options["level"] = "\(record[3] / 10).\(record[3] % 10)"
            // x264's macroblock tree gives other bytes for the same pictures when another x264
            // ran before it in the process (each cut's pieces are encoders of their own).
            v.options["x264-params"] = "mbtree=0"
        } else if track.codecName == "hevc", record.count > 12, record[0] == 1 {
            let profile = record[1] & 0x1F
            guard profile == 1 || profile == 2 else {
                throw MediaError(.unsupported, "smart cut re-encodes HEVC in the Main and Main 10 profiles (general_profile_idc \(profile))")
            }
            v.profile = profile == 2 ? "main10" : "main"
            v.options["x265-params"] = "pools=4:frame-threads=2:level-idc=\(String(format: "%.1f", Double(record[12]) / 30))"
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
        v.options = ["deadline": "good", "cpu-used": "2", "threads": "4", "tile-columns": "0"]
        v.frameRate = frameRate(of: track)
        return v
    }

    /// AV1's Main profile (4:2:0 and monochrome-free, 8 or 10 bits: what SVT-AV1 encodes), from `av1C`.
    private static func av1Settings(for track: AssetTrack) throws -> VideoEncodingSettings {
        let record = track.formatDescriptions.first?.parameters.extradata ?? []
        guard record.count >= 4, record[0] == 0x81 else { throw MediaError(.unsupported, "its AV1 has no configuration record") }
        let profile = record[1] >> 5, highBitDepth = record[2] & 0x40 != 0, twelve = record[2] & 0x20 != 0, mono = record[2] & 0x10 != 0
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
