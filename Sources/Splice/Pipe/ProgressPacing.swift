import Dispatch

/// Which progress values a handler is told: at most about ten a second, each larger than the
/// last told, and 1.0 exactly once (a copy of a short file reports one per sample otherwise).
/// Not thread-safe: kept under its owner's lock.
struct ProgressPacing {
    /// The least time between two calls, in nanoseconds.
    static let interval: UInt64 = 100_000_000
    private var lastTold = -1.0
    private var lastTime: UInt64 = 0
    private var toldDone = false

    /// Whether `fraction` is to be told now; a call that says yes counts as told.
    mutating func tells(_ fraction: Double, now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> Bool {
        if fraction >= 1 {
            guard !toldDone else { return false }
            toldDone = true
        } else {
            guard !toldDone, fraction > lastTold, lastTold < 0 || now &- lastTime >= Self.interval else { return false }
        }
        lastTold = fraction
        lastTime = now
        return true
    }
}
