/// Start-code framing (ITU-T H.264 Annex B) and the NAL units it separates.
public enum AnnexB {
    /// The NAL units between start codes (trailing zero bytes dropped).
    public static func nalUnits(_ b: [UInt8]) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        var i = 0
        var start: Int?
        let n = b.count
        while i + 2 < n {
            if b[i] == 0 && b[i + 1] == 0 && b[i + 2] == 1 {
                if let s = start { units.append(trimmed(b[s..<i])) }
                i += 3
                start = i
            } else {
                i += 1
            }
        }
        if let s = start, s < n { units.append(trimmed(b[s..<n])) }
        return units.filter { !$0.isEmpty }
    }

    private static func trimmed(_ s: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var end = s.endIndex
        while end > s.startIndex && s[end - 1] == 0 { end -= 1 }
        return s[s.startIndex..<end]
    }

    /// Each NAL unit behind a 4-byte big-endian length. Data with no start code is returned as is.
    public static func lengthPrefixed(_ b: [UInt8]) -> [UInt8] {
        let units = nalUnits(b)
        guard !units.isEmpty else { return b }
        var out: [UInt8] = []
        out.reserveCapacity(b.count + 4 * units.count)
        for u in units {
            let n = UInt32(clamping: u.count)
            out += [UInt8(truncatingIfNeeded: n >> 24), UInt8(truncatingIfNeeded: (n >> 16) & 0xFF), UInt8(truncatingIfNeeded: (n >> 8) & 0xFF), UInt8(truncatingIfNeeded: n & 0xFF)]
            out += u
        }
        return out
    }
}
