import MediaCore

/// Reads bits most-significant first from codec headers (SPS, sequence headers, frame headers).
/// Reading past the end gives zeros and sets `isOverrun`, so that a short header yields a
/// checkable flag rather than a trap.
struct BitReader {
    private let bytes: [UInt8]
    private(set) var position = 0
    private(set) var isOverrun = false

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// RBSP bytes of a NAL unit payload: emulation-prevention bytes (00 00 03) removed.
    init(rbsp bytes: ArraySlice<UInt8>) {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var zeros = 0
        for b in bytes {
            if zeros >= 2 && b == 3 { zeros = 0; continue }
            out.append(b)
            zeros = b == 0 ? zeros + 1 : 0
        }
        self.bytes = out
    }

    mutating func bit() -> UInt32 {
        guard position < bytes.count * 8 else { isOverrun = true; position += 1; return 0 }
        let b = (bytes[position >> 3] >> (7 - UInt8(truncatingIfNeeded: position & 7))) & 1
        position += 1
        return UInt32(widening: b)
    }

    mutating func bits(_ n: Int) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<n { v = v << 1 | bit() }
        return v
    }

    mutating func flag() -> Bool { bit() == 1 }

    mutating func skip(_ n: Int) { for _ in 0..<n { _ = bit() } }

    /// Exp-Golomb ue(v), capped at 31 leading zeros.
    mutating func ue() -> UInt32 {
        var zeros = 0
        while bit() == 0 && zeros < 32 && !isOverrun { zeros += 1 }
        guard zeros < 32 else { isOverrun = true; return 0 }
        return (UInt32(1) << zeros) - 1 + bits(zeros)
    }

    /// AV1 uvlc().
    mutating func uvlc() -> UInt32 {
        var zeros = 0
        while bit() == 0 && zeros < 32 && !isOverrun { zeros += 1 }
        guard zeros < 32 else { return UInt32.max }
        return (UInt32(1) << zeros) - 1 + bits(zeros)
    }
}
