import CFFmpeg
import MediaCore

/// HDR10 static metadata copied out of and into libavutil's side-data structures (frames',
/// streams'), in the units `mdcv` and the SEI use (chromaticity 1/50000, luminance 1/10000).
extension MasteringDisplay {
    init?(_ m: AVMasteringDisplayMetadata) {
        guard m.has_primaries != 0 || m.has_luminance != 0 else { return nil }
        func steps(_ r: AVRational, _ unit: Int64) -> Int64 {
            r.den > 0 && r.num >= 0 ? (Int64(widening: r.num) * unit + Int64(widening: r.den) / 2) / Int64(widening: r.den) : 0
        }
        func c(_ p: (AVRational, AVRational)) -> Chromaticity {
            Chromaticity(x: UInt16(clamping: steps(p.0, 50000)), y: UInt16(clamping: steps(p.1, 50000)))
        }
        let p = m.display_primaries
        self.init(red: c(p.0), green: c(p.1), blue: c(p.2), whitePoint: c(m.white_point),
                  maxLuminance: UInt32(clamping: steps(m.max_luminance, 10000)),
                  minLuminance: UInt32(clamping: steps(m.min_luminance, 10000)))
    }

    /// Fills libavutil's structure (both parts present).
    func fill(_ m: inout AVMasteringDisplayMetadata) {
        func c(_ v: Chromaticity) -> (AVRational, AVRational) {
            (AVRational(num: Int32(widening: v.x), den: 50000), AVRational(num: Int32(widening: v.y), den: 50000))
        }
        m.display_primaries = (c(red), c(green), c(blue))
        m.white_point = c(whitePoint)
        m.max_luminance = AVRational(num: Int32(clamping: maxLuminance), den: 10000)
        m.min_luminance = AVRational(num: Int32(clamping: minLuminance), den: 10000)
        m.has_primaries = 1
        m.has_luminance = 1
    }
}

extension ContentLightLevel {
    init(_ c: AVContentLightMetadata) {
        self.init(maxContentLightLevel: UInt16(clamping: c.MaxCLL), maxFrameAverageLightLevel: UInt16(clamping: c.MaxFALL))
    }
}

extension CodecParameters {
    /// Reads the HDR10 metadata libavformat found for stream `st` (Matroska's MasteringMetadata,
    /// MP4's `mdcv`/`clli`).
    mutating func readSideData(of st: UnsafePointer<AVStream>) {
        var size = 0
        if let p = av_stream_get_side_data(st, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, &size),
           size >= MemoryLayout<AVMasteringDisplayMetadata>.size {
            masteringDisplay = MasteringDisplay(UnsafeRawPointer(p).loadUnaligned(as: AVMasteringDisplayMetadata.self))
        }
        if let p = av_stream_get_side_data(st, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, &size), size >= MemoryLayout<AVContentLightMetadata>.size {
            contentLightLevel = ContentLightLevel(UnsafeRawPointer(p).loadUnaligned(as: AVContentLightMetadata.self))
        }
        if let p = av_stream_get_side_data(st, AV_PKT_DATA_DOVI_CONF, &size), size >= MemoryLayout<AVDOVIDecoderConfigurationRecord>.size {
            let d = UnsafeRawPointer(p).loadUnaligned(as: AVDOVIDecoderConfigurationRecord.self)
            dolbyVision = DolbyVisionConfiguration(major: d.dv_version_major, minor: d.dv_version_minor, profile: Int(widening: d.dv_profile),
                                                   level: Int(widening: d.dv_level), rpuPresent: d.rpu_present_flag != 0,
                                                   enhancementLayerPresent: d.el_present_flag != 0, baseLayerPresent: d.bl_present_flag != 0,
                                                   compatibilityID: Int(widening: d.dv_bl_signal_compatibility_id))
        }
    }

    /// Gives stream `st` (being written) this HDR10 metadata, for the muxers that write it
    /// (Matroska's MasteringMetadata, MOV's boxes).
    func writeSideData(to st: UnsafeMutablePointer<AVStream>) throws {
        if let m = masteringDisplay {
            var value = AVMasteringDisplayMetadata()
            m.fill(&value)
            try add(value, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, to: st)
        }
        if let c = contentLightLevel {
            try add(AVContentLightMetadata(MaxCLL: UInt32(widening: c.maxContentLightLevel), MaxFALL: UInt32(widening: c.maxFrameAverageLightLevel)),
                    AV_PKT_DATA_CONTENT_LIGHT_LEVEL, to: st)
        }
        if let d = dolbyVision {
            try add(AVDOVIDecoderConfigurationRecord(dv_version_major: UInt8(clamping: d.versionMajor), dv_version_minor: UInt8(clamping: d.versionMinor),
                                                     dv_profile: UInt8(clamping: d.profile), dv_level: UInt8(clamping: d.level),
                                                     rpu_present_flag: d.rpuPresent ? 1 : 0, el_present_flag: d.enhancementLayerPresent ? 1 : 0,
                                                     bl_present_flag: d.baseLayerPresent ? 1 : 0,
                                                     dv_bl_signal_compatibility_id: UInt8(clamping: d.compatibilityID)),
                    AV_PKT_DATA_DOVI_CONF, to: st)
        }
    }

    private func add<T>(_ value: T, _ type: AVPacketSideDataType, to st: UnsafeMutablePointer<AVStream>) throws {
        let size = MemoryLayout<T>.size
        guard let buffer = av_malloc(size) else { throw MediaError(.io, "out of memory") }
        buffer.storeBytes(of: value, as: T.self)
        guard av_stream_add_side_data(st, type, buffer.assumingMemoryBound(to: UInt8.self), size) >= 0 else {
            av_free(buffer)
            throw MediaError(.io, "out of memory")
        }
    }
}

extension Frame {
    /// The HDR10 metadata the decoder attached to this frame (from the SEI or OBUs), if any.
    var hdrMetadata: (MasteringDisplay?, ContentLightLevel?) {
        var mastering: MasteringDisplay?
        var light: ContentLightLevel?
        if let sd = av_frame_get_side_data(pointer, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA),
           Int(clamping: sd.pointee.size) >= MemoryLayout<AVMasteringDisplayMetadata>.size {
            mastering = MasteringDisplay(UnsafeRawPointer(sd.pointee.data).loadUnaligned(as: AVMasteringDisplayMetadata.self))
        }
        if let sd = av_frame_get_side_data(pointer, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL),
           Int(clamping: sd.pointee.size) >= MemoryLayout<AVContentLightMetadata>.size {
            light = ContentLightLevel(UnsafeRawPointer(sd.pointee.data).loadUnaligned(as: AVContentLightMetadata.self))
        }
        return (mastering, light)
    }
}
