/// Number conversions that cannot trap, so that the ones that can stand out.
///
/// Every number Splice reads from a file, a stream or libav is untrusted; a bare conversion such
/// as `Int(x)` or `UInt32(x)` traps when the value does not fit, and a trap on input is a crash.
/// In the code that reads and writes files, `scripts/lint` therefore refuses bare integer
/// conversions: each is one of
/// - `init(widening:)` below: the target holds every value of the source, which the compiler
///   checks (there is an overload only for such pairs);
/// - `init(exactly:)` with the `nil` case handled (an error naming the box, or a value kept as it
///   was), or `init(clamping:)` where saturating is the meaning;
/// - `init(truncatingIfNeeded:)` after a check that the value fits, or for bit fields;
/// - `rounded(saturating:)` for a floating-point value.

extension Int {
    /// `value` as an `Int`: every `UInt8` fits.
    @inlinable public init(widening value: UInt8) { self.init(value) }
    /// `value` as an `Int`: every `UInt16` fits.
    @inlinable public init(widening value: UInt16) { self.init(value) }
    /// `value` as an `Int`: every `UInt32` fits.
    @inlinable public init(widening value: UInt32) { self.init(value) }
    /// `value` as an `Int`: every `Int8` fits.
    @inlinable public init(widening value: Int8) { self.init(value) }
    /// `value` as an `Int`: every `Int16` fits.
    @inlinable public init(widening value: Int16) { self.init(value) }
    /// `value` as an `Int`: every `Int32` fits.
    @inlinable public init(widening value: Int32) { self.init(value) }
    /// `value` as an `Int`: every `Int64` fits.
    @inlinable public init(widening value: Int64) { self.init(value) }   // Splice runs on 64-bit systems only
}

extension Int64 {
    /// `value` as an `Int64`: every `UInt8` fits.
    @inlinable public init(widening value: UInt8) { self.init(value) }
    /// `value` as an `Int64`: every `UInt16` fits.
    @inlinable public init(widening value: UInt16) { self.init(value) }
    /// `value` as an `Int64`: every `UInt32` fits.
    @inlinable public init(widening value: UInt32) { self.init(value) }
    /// `value` as an `Int64`: every `Int8` fits.
    @inlinable public init(widening value: Int8) { self.init(value) }
    /// `value` as an `Int64`: every `Int16` fits.
    @inlinable public init(widening value: Int16) { self.init(value) }
    /// `value` as an `Int64`: every `Int32` fits.
    @inlinable public init(widening value: Int32) { self.init(value) }
    /// `value` as an `Int64`: every `Int` fits.
    @inlinable public init(widening value: Int) { self.init(value) }
}

extension UInt64 {
    /// `value` as a `UInt64`: every `UInt8` fits.
    @inlinable public init(widening value: UInt8) { self.init(value) }
    /// `value` as a `UInt64`: every `UInt16` fits.
    @inlinable public init(widening value: UInt16) { self.init(value) }
    /// `value` as a `UInt64`: every `UInt32` fits.
    @inlinable public init(widening value: UInt32) { self.init(value) }
}

extension UInt32 {
    /// `value` as a `UInt32`: every `UInt8` fits.
    @inlinable public init(widening value: UInt8) { self.init(value) }
    /// `value` as a `UInt32`: every `UInt16` fits.
    @inlinable public init(widening value: UInt16) { self.init(value) }
}

extension Int32 {
    /// `value` as an `Int32`: every `UInt8` fits.
    @inlinable public init(widening value: UInt8) { self.init(value) }
    /// `value` as an `Int32`: every `UInt16` fits.
    @inlinable public init(widening value: UInt16) { self.init(value) }
    /// `value` as an `Int32`: every `Int8` fits.
    @inlinable public init(widening value: Int8) { self.init(value) }
    /// `value` as an `Int32`: every `Int16` fits.
    @inlinable public init(widening value: Int16) { self.init(value) }
}

extension UInt16 {
    /// `value` as a `UInt16`: every `UInt8` fits.
    @inlinable public init(widening value: UInt8) { self.init(value) }
}

extension Int16 {
    /// `value` as an `Int16`: every `UInt8` fits.
    @inlinable public init(widening value: UInt8) { self.init(value) }
    /// `value` as an `Int16`: every `Int8` fits.
    @inlinable public init(widening value: Int8) { self.init(value) }
}

extension BinaryFloatingPoint {
    /// The value rounded (`rule`) to an integer of type `T`, saturating at `T`'s bounds;
    /// nil when it is not a number.
    @inlinable public func rounded<T: FixedWidthInteger>(saturating _: T.Type,
                                                          _ rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> T? {
        if isNaN { return nil }
        let r = rounded(rule)
        if r >= Self(T.max) { return T.max }   // Self(T.max) rounds up to a power of two: >= is the bound
        if r <= Self(T.min) { return T.min }
        return T(r)   // lint: checked (in range above)
    }
}

extension Int64 {
    /// `self + other`, held at `Int64.min` or `Int64.max` where it would overflow (times from a file).
    @inlinable public func addingSaturating(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self − other`, held at `Int64.min` or `Int64.max` where it would overflow.
    @inlinable public func subtractingSaturating(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }
}
