import Foundation

/// A value behind a lock, with the API of the standard library's `Synchronization.Mutex`
/// (`init(_:)` takes the value `sending`; `withLock` hands it over `inout sending` and returns
/// `sending`), so that the compiler checks what crosses it exactly as it checks that `Mutex`'s.
///
/// Splice uses this one, not `Synchronization`'s: on Linux that `Mutex` locks with atomics and
/// futex calls inside the standard library, which ThreadSanitizer does not see, so every access
/// made under it is reported as a race. This one locks a pthread mutex (`NSLock`), which
/// ThreadSanitizer follows, so that `make sanitize` checks the lock discipline for real.
///
/// ```swift
/// let state = Mutex(State())
/// state.withLock { $0.count += 1 }
/// ```
public final class Mutex<Value: ~Copyable>: @unchecked Sendable {   // `value` is touched only under `lock`
    private let lock = NSLock()
    private var value: Value

    /// A mutex holding `initialValue`.
    public init(_ initialValue: consuming sending Value) {
        value = initialValue
    }

    /// Runs `body` with the value, under the lock; returns what it returns.
    public func withLock<Result: ~Copyable, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
