import MediaCore

/// FLAC in ISO-BMFF (Encapsulation of FLAC in ISO Base Media File Format §3.3.2): the `dfLa`
/// box holds the stream's metadata blocks, the first of which is STREAMINFO — what FFmpeg
/// keeps as extradata.
enum FLACConfiguration {
    static let streamInfoLength = 34

    /// `dfLa` from FFmpeg's FLAC extradata (STREAMINFO, alone or after `fLaC` and its block header).
    static func dfLa(_ extradata: [UInt8]) throws -> [UInt8] {
        var info = extradata
        if info.starts(with: Array("fLaC".utf8)), info.count >= 8 + streamInfoLength { info = Array(info[8..<(8 + streamInfoLength)]) }
        guard info.count >= streamInfoLength else { throw MediaError(.invalidData, "FLAC stream without its STREAMINFO block") }
        var w = BoxWriter()
        w.fullBox("dfLa", version: 0, flags: 0) { w in
            w.u8(0x80)                               // last block, type 0 (STREAMINFO)
            w.u24(UInt32(truncatingIfNeeded: streamInfoLength))
            w.append(info.prefix(streamInfoLength))
        }
        return w.bytes
    }

    /// The STREAMINFO block of a `dfLa` payload (version/flags, then block header and body).
    static func streamInfo(dfLa d: [UInt8]) -> [UInt8]? {
        var r = ByteReader(d, path: "dfLa")
        guard (try? r.skip(4)) != nil, let type = try? r.u8(), type & 0x7F == 0,
              let length = try? r.u24(), length >= streamInfoLength,
              let info = try? r.bytes(streamInfoLength) else { return nil }
        return info
    }
}
