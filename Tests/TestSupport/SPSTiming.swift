import Foundation

/// Test media: an H.264 Annex B stream whose sequence parameter sets say no frame rate (VUI
/// `timing_info_present_flag` cleared), as some encoders write them. A demuxer then knows a
/// frame's duration only from the timestamps, once it has seen enough of them.
public enum SPSTiming {
    /// `annexB` with the timing information taken out of every SPS (ITU-T H.264 7.3.2.1.1, E.1.1).
    public static func removingTimingInfo(_ annexB: Data) throws -> Data {
        let bytes = [UInt8](annexB)
        var starts: [Int] = []
        var i = 0
        while i + 2 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 { starts.append(i + 3); i += 3 } else { i += 1 }
        }
        var out: [UInt8] = []
        for (k, start) in starts.enumerated() {
            var end = k + 1 < starts.count ? starts[k + 1] - 3 : bytes.count
            var zeros = 0
            while end > start, bytes[end - 1] == 0 { end -= 1; zeros += 1 }
            var nal = Array(bytes[start..<end])
            if let first = nal.first, first & 0x1F == 7 { nal = [first] + escaped(try withoutTiming(unescaped(Array(nal.dropFirst())))) }
            out += [0, 0, 1] + nal + [UInt8](repeating: 0, count: zeros)
        }
        return Data(out)
    }

    private struct Bits {
        var bits: [Bool]
        var p = 0
        init(_ bytes: [UInt8]) { bits = bytes.flatMap { b in (0..<8).map { b & (0x80 >> $0) != 0 } } }
        mutating func u(_ n: Int) throws -> Int {
            guard p + n <= bits.count else { throw CocoaError(.fileReadCorruptFile) }
            defer { p += n }
            return bits[p..<(p + n)].reduce(0) { $0 << 1 | ($1 ? 1 : 0) }
        }
        mutating func ue() throws -> Int {
            var z = 0
            while try u(1) == 0 { z += 1 }
            return (1 << z) - 1 + (try u(z))
        }
    }

    /// The SPS payload with VUI timing removed (unchanged when it has none).
    private static func withoutTiming(_ rbsp: [UInt8]) throws -> [UInt8] {
        var r = Bits(rbsp)
        let profile = try r.u(8)
        _ = try r.u(16); _ = try r.ue()
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            if try r.ue() == 3 { _ = try r.u(1) }
            _ = try r.ue(); _ = try r.ue(); _ = try r.u(1)
            guard try r.u(1) == 0 else { throw CocoaError(.featureUnsupported) }   // scaling lists: not written by x264 by default
        }
        _ = try r.ue()
        switch try r.ue() {
        case 0: _ = try r.ue()
        case 1: throw CocoaError(.featureUnsupported)
        default: break
        }
        _ = try r.ue(); _ = try r.u(1); _ = try r.ue(); _ = try r.ue()
        if try r.u(1) == 0 { _ = try r.u(1) }
        _ = try r.u(1)
        if try r.u(1) == 1 { for _ in 0..<4 { _ = try r.ue() } }
        guard try r.u(1) == 1 else { return rbsp }
        if try r.u(1) == 1, try r.u(8) == 255 { _ = try r.u(32) }
        if try r.u(1) == 1 { _ = try r.u(1) }
        if try r.u(1) == 1 { _ = try r.u(4); if try r.u(1) == 1 { _ = try r.u(24) } }
        if try r.u(1) == 1 { _ = try r.ue(); _ = try r.ue() }
        let flag = r.p
        guard try r.u(1) == 1 else { return rbsp }
        // Clear the flag and drop num_units_in_tick, time_scale and fixed_frame_rate_flag (65 bits).
        var bits = Array(r.bits[..<flag]) + [false] + Array(r.bits[(flag + 66)...])
        while bits.last == false { bits.removeLast() }   // the old stop bit and its alignment
        while bits.count % 8 != 0 { bits.append(false) }
        return stride(from: 0, to: bits.count, by: 8).map { i in bits[i..<(i + 8)].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) } }
    }

    private static func unescaped(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [], zeros = 0
        for x in b {
            if zeros >= 2 && x == 3 { zeros = 0; continue }
            out.append(x)
            zeros = x == 0 ? zeros + 1 : 0
        }
        return out
    }

    private static func escaped(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [], zeros = 0
        for x in b {
            if zeros >= 2 && x <= 3 { out.append(3); zeros = 0 }
            out.append(x)
            zeros = x == 0 ? zeros + 1 : 0
        }
        return out
    }
}
