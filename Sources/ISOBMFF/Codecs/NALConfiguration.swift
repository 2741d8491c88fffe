import MediaCore

/// What a length-prefixed H.264 or HEVC stream needs from its decoder configuration record
/// (`avcC`, ISO/IEC 14496-15 §5.3.3.1; `hvcC`, §8.3.3.1): the size of each NAL unit's length
/// field and the parameter sets (SPS/PPS, and VPS for HEVC) a decoder starts from.
///
/// A track whose sample descriptions differ carries a new record at each change; a container
/// with one configuration per stream (Matroska) gets the new parameter sets in the samples
/// themselves (`inBand(_:from:)`).
public struct NALConfiguration: Sendable, Hashable {
    /// Bytes of each NAL unit's length: 1, 2 or 4.
    public var lengthSize: Int
    /// The parameter sets, in the record's order, without length or start code.
    public var parameterSets: [[UInt8]]

    /// Reads a record of `codecName` (`h264` or `hevc`); nil for other codecs or a record that
    /// cannot be read (every length is checked against the bytes that are there).
    public init?(codecName: String, record: [UInt8]) {
        switch CodecRegistry.entry(named: codecName)?.configuration?.init(record: record) {
        case let avc as AVCConfiguration: self = avc.nal
        case let hevc as HEVCConfiguration: self = hevc.nal
        default: return nil
        }
    }

    /// `AVCDecoderConfigurationRecord`: version 1, profile, compatibility, level,
    /// 6 bits + lengthSizeMinusOne, 3 bits + SPS count, SPSs, PPS count, PPSs.
    init?(avcC b: [UInt8]) {
        guard b.count >= 7, b[0] == 1 else { return nil }
        var sets: [[UInt8]] = []
        var i = 5
        for countMask in [UInt8(0x1F), 0xFF] {
            guard i < b.count else { return nil }
            let count = Int(widening: b[i] & countMask)
            i += 1
            for _ in 0..<count {
                guard let unit = NALConfiguration.unit(b, at: &i) else { return nil }
                sets.append(unit)
            }
        }
        guard let size = NALConfiguration.lengthSize(b[4]) else { return nil }
        self.init(lengthSize: size, parameterSets: sets)
    }

    /// `HEVCDecoderConfigurationRecord`: 22 bytes of profile and format (lengthSizeMinusOne in
    /// the low bits of byte 21), then arrays of NAL units, each `type, count, (length, unit)…`.
    init?(hvcC b: [UInt8]) {
        guard b.count >= 23, b[0] == 1, let size = NALConfiguration.lengthSize(b[21]) else { return nil }
        var sets: [[UInt8]] = []
        var i = 23
        for _ in 0..<Int(widening: b[22]) {
            guard i + 3 <= b.count else { return nil }
            let count = Int(widening: b[i + 1]) << 8 | Int(widening: b[i + 2])
            i += 3
            for _ in 0..<count {
                guard let unit = NALConfiguration.unit(b, at: &i) else { return nil }
                sets.append(unit)
            }
        }
        self.init(lengthSize: size, parameterSets: sets)
    }

    public init(lengthSize: Int, parameterSets: [[UInt8]]) {
        self.lengthSize = lengthSize
        self.parameterSets = parameterSets
    }

    private static func lengthSize(_ byte: UInt8) -> Int? {
        let size = Int(widening: byte & 3) + 1
        return size == 3 ? nil : size
    }

    /// A 16-bit length and the unit after it, advancing `i`.
    private static func unit(_ b: [UInt8], at i: inout Int) -> [UInt8]? {
        guard i + 2 <= b.count else { return nil }
        let n = Int(widening: b[i]) << 8 | Int(widening: b[i + 1])
        guard n > 0, i + 2 + n <= b.count else { return nil }
        defer { i += 2 + n }
        return Array(b[(i + 2)..<(i + 2 + n)])
    }

    /// The NAL units of a sample framed with `lengthSize`-byte lengths; nil when a length runs
    /// past the sample.
    public func units(of sample: [UInt8]) -> [ArraySlice<UInt8>]? {
        var units: [ArraySlice<UInt8>] = []
        var i = 0
        while i < sample.count {
            guard i + lengthSize <= sample.count else { return nil }
            var n = 0
            for k in 0..<lengthSize { n = n << 8 | Int(widening: sample[i + k]) }
            i += lengthSize
            guard n <= sample.count - i else { return nil }
            units.append(sample[i..<(i + n)])
            i += n
        }
        return units
    }

    /// A sample of this configuration framed for a stream declared with `stream`'s: its NAL
    /// units with `stream.lengthSize`-byte lengths, after this configuration's parameter sets
    /// when `withParameterSets` (a sync sample after a change of description).
    /// - Throws: `.invalidData` when the sample's NAL lengths do not add up, or a unit is too
    ///   long for the stream's length field.
    public func inBand(_ sample: [UInt8], for stream: NALConfiguration, withParameterSets: Bool) throws -> [UInt8] {
        guard let units = units(of: sample) else {
            throw MediaError(.invalidData, "a sample's NAL unit lengths run past its \(sample.count) bytes")
        }
        let prefix = withParameterSets ? parameterSets.map { $0[...] } : []
        var out: [UInt8] = []
        out.reserveCapacity(sample.count + prefix.reduce(0) { $0 + $1.count + stream.lengthSize })
        for unit in prefix + units {
            guard stream.lengthSize == 4 || unit.count < 1 << (8 * stream.lengthSize) else {
                throw MediaError(.unsupported, "a NAL unit of \(unit.count) bytes does not fit the stream's \(stream.lengthSize)-byte lengths")
            }
            for k in stride(from: stream.lengthSize - 1, through: 0, by: -1) {
                out.append(UInt8(truncatingIfNeeded: unit.count >> (8 * k)))
            }
            out += unit
        }
        return out
    }
}
