/// A four-character code: a box type, a sample-entry type, a handler or brand.
public struct FourCC: Sendable, Hashable, Comparable, ExpressibleByStringLiteral, CustomStringConvertible {
    public typealias StringLiteralType = StaticString
    /// The four bytes as a big-endian integer.
    public let rawValue: UInt32

    /// The code whose bytes are `rawValue`'s, big-endian.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Makes a code from up to four characters (Latin-1); shorter strings are padded with spaces.
    public init(_ string: String) {
        var v: UInt32 = 0
        var n = 0
        for scalar in string.unicodeScalars.prefix(4) {
            v = (v << 8) | (scalar.value <= 0xFF ? scalar.value : 0x3F)
            n += 1
        }
        while n < 4 { v = (v << 8) | 0x20; n += 1 }
        rawValue = v
    }

    /// From a literal such as `"avc1"`: read straight from its UTF-8 bytes (no String is made),
    /// since box types are compared against literals for every box parsed.
    public init(stringLiteral value: StaticString) {
        var v: UInt32 = 0
        var n = 0
        if value.hasPointerRepresentation {
            let p = value.utf8Start
            var i = 0
            while i < value.utf8CodeUnitCount && n < 4 {
                var scalar = UInt32(widening: p[i])
                // Two-byte UTF-8 (©, 0xA9 in box types) as its Latin-1 value.
                if scalar >= 0xC0 && i + 1 < value.utf8CodeUnitCount {
                    scalar = (scalar & 0x1F) << 6 | UInt32(widening: p[i + 1] & 0x3F)
                    i += 1
                }
                v = (v << 8) | (scalar <= 0xFF ? scalar : 0x3F)
                n += 1
                i += 1
            }
        } else {
            let scalar = value.unicodeScalar.value
            v = scalar <= 0xFF ? scalar : 0x3F
            n = 1
        }
        while n < 4 { v = (v << 8) | 0x20; n += 1 }
        rawValue = v
    }

    /// The four bytes, as a file holds them.
    public var bytes: [UInt8] {
        [UInt8(truncatingIfNeeded: rawValue >> 24), UInt8(truncatingIfNeeded: (rawValue >> 16) & 0xFF), UInt8(truncatingIfNeeded: (rawValue >> 8) & 0xFF), UInt8(truncatingIfNeeded: rawValue & 0xFF)]
    }

    /// The code as text; bytes outside printable ASCII (except © 0xA9) are shown as `\xNN`.
    public var description: String {
        var s = ""
        for b in bytes {
            if (0x20...0x7E).contains(b) { s.unicodeScalars.append(Unicode.Scalar(b)) }
            else if b == 0xA9 { s += "©" }
            else { s += "\\x" + String(b, radix: 16, uppercase: true).leftPadded(to: 2) }
        }
        return s
    }

    public static func < (a: FourCC, b: FourCC) -> Bool { a.rawValue < b.rawValue }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
