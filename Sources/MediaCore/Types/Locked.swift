import Foundation

/// A value several threads share, touched only under its lock (a pthread mutex, which the
/// thread sanitizer sees).
///
/// ```swift
/// let count = Locked(0)
/// count.withLock { $0 += 1 }
/// ```
public final class Locked<Value: Sendable>: @unchecked Sendable {   // `stored` is touched only under `lock`
    private let lock = NSLock()
    private var stored: Value

    /// A lock around `value`.
    public init(_ value: Value) { stored = value }

    /// Runs `body` on the value, holding the lock. `body` must not call out to code that could
    /// take this lock again, nor wait for another thread.
    @discardableResult
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&stored)
    }

    /// A copy of the value.
    public var value: Value { withLock { $0 } }
}

extension Locked {
    /// One part of the value, read or set under the lock.
    public subscript<T>(_ part: WritableKeyPath<Value, T>) -> T {
        get { withLock { $0[keyPath: part] } }
        set { withLock { $0[keyPath: part] = newValue } }
    }
}
