import Foundation
import MediaCore
import ISOBMFF

/// AV1 samples of a smart cut: each sync sample carries the sequence header OBU it was coded
/// with (AV1 bitstream §7.5: a new coded video sequence starts at a key frame with its sequence
/// header), so that re-encoded frames and copied ones, whose sequence headers differ, each
/// start with their own while the track keeps one description.
enum AV1Framing {
    /// The OBUs of a sample (AV1 bitstream §5.3, every OBU with its size field, as ISO-BMFF and
    /// Matroska store them): type and byte range each; nil when the sizes do not add up.
    static func obus(_ b: [UInt8]) -> [(type: Int, range: Range<Int>)]? {
        var out: [(type: Int, range: Range<Int>)] = []
        var i = 0
        while i < b.count {
            let start = i
            let header = b[i]
            let type = Int(widening: (header >> 3) & 0xF)
            i += header & 4 != 0 ? 2 : 1
            guard header & 2 != 0 else { return nil }   // (a sample's OBUs have sizes)
            var size = 0, shift = 0
            while true {
                guard i < b.count, shift < 56 else { return nil }
                let byte = b[i]
                i += 1
                size |= Int(widening: byte & 0x7F) << shift
                shift += 7
                if byte & 0x80 == 0 { break }
            }
            guard size <= b.count - i else { return nil }
            i += size
            out.append((type, start..<i))
        }
        return out
    }

    /// The sequence header OBU of a description's extradata — an `av1C` record's configOBUs
    /// (after its 4 bytes), or OBUs as they are (an encoder's) — or nil.
    static func sequenceHeader(in extradata: [UInt8]) -> [UInt8]? {
        let configOBUs = AV1Configuration(record: extradata)?.configOBUs ?? extradata
        return obus(configOBUs)?.first { $0.type == 1 }.map { Array(configOBUs[$0.range]) }
    }

    /// `sample` with `header` (a sequence header OBU) before its first frame, after a temporal
    /// delimiter, unless it has one of its own.
    /// - Throws: `.invalidData` when the sample's OBU sizes do not add up.
    static func withSequenceHeader(_ sample: [UInt8], _ header: [UInt8]) throws -> [UInt8] {
        guard let units = obus(sample) else { throw MediaError(.invalidData, "an AV1 sample's OBU sizes run past its \(sample.count) bytes") }
        if units.contains(where: { $0.type == 1 }) { return sample }
        let at = units.first.map { $0.type == 2 ? $0.range.upperBound : 0 } ?? 0
        return Array(sample[..<at]) + header + sample[at...]
    }
}
