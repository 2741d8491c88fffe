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
    @inlinable public init(widening value: UInt8) { self.init(value) }
    @inlinable public init(widening value: UInt16) { self.init(value) }
    @inlinable public init(widening value: UInt32) { self.init(value) }
    @inlinable public init(widening value: Int8) { self.init(value) }
    @inlinable public init(widening value: Int16) { self.init(value) }
    @inlinable public init(widening value: Int32) { self.init(value) }
    @inlinable public init(widening value: Int64) { self.init(value) }   // Splice runs on 64-bit systems only
}

extension Int64 {
    @inlinable public init(widening value: UInt8) { self.init(value) }
    @inlinable public init(widening value: UInt16) { self.init(value) }
    @inlinable public init(widening value: UInt32) { self.init(value) }
    @inlinable public init(widening value: Int8) { self.init(value) }
    @inlinable public init(widening value: Int16) { self.init(value) }
    @inlinable public init(widening value: Int32) { self.init(value) }
    @inlinable public init(widening value: Int) { self.init(value) }
}

extension UInt64 {
    @inlinable public init(widening value: UInt8) { self.init(value) }
    @inlinable public init(widening value: UInt16) { self.init(value) }
    @inlinable public init(widening value: UInt32) { self.init(value) }
}

extension UInt32 {
    @inlinable public init(widening value: UInt8) { self.init(value) }
    @inlinable public init(widening value: UInt16) { self.init(value) }
}

extension Int32 {
    @inlinable public init(widening value: UInt8) { self.init(value) }
    @inlinable public init(widening value: UInt16) { self.init(value) }
    @inlinable public init(widening value: Int8) { self.init(value) }
    @inlinable public init(widening value: Int16) { self.init(value) }
}

extension UInt16 {
    @inlinable public init(widening value: UInt8) { self.init(value) }
}

extension Int16 {
    @inlinable public init(widening value: UInt8) { self.init(value) }
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
