import MediaCore

/// Keeps a writer's tracks interleaved with bounded memory. Samples wait per input, each in the
/// window of decode time it falls in (`preferredMediaChunkDuration`, the smallest of the
/// inputs'); an input whose frontier is ahead of the slowest unfinished input is not ready, and
/// the windows every unfinished input has passed are written. The layout depends only on the
/// samples, never on timing.
struct Interleaver {
    /// The window length.
    let window: MediaTime
    /// The lowest frontier among unfinished inputs (`Int64.max` when all are finished).
    private(set) var slowestFrontier: Int64 = -1
    /// Most bytes an input may hold before its chunk is written regardless of the others.
    static let maximumPendingBytes = 16 << 20

    init(inputs: [AssetWriterInput]) {
        let durations = inputs.map(\.preferredMediaChunkDuration).filter { $0.isNumeric && $0 > .zero }
        window = durations.min() ?? MediaTime(value: 1, timescale: 2)
    }

    /// Whether `state`'s input may take another sample now.
    func isReady(_ state: borrowing InputState) -> Bool {
        !state.isFinished && state.pendingBytes < Interleaver.maximumPendingBytes && state.frontier <= slowestFrontier + 1
    }

    /// Whether `state` holds so much that its chunk must be written now.
    func isHeavy(pendingBytes: Int) -> Bool {
        pendingBytes >= Interleaver.maximumPendingBytes
    }

    /// The window a decode time (`value` in `timescale` units) falls in.
    func windowIndex(_ value: Int64, timescale: Int32) -> Int64 {
        guard value > 0 else { return 0 }
        return MediaTime(value: value, timescale: timescale)
            .ticks(numerator: Int32(clamping: window.value), denominator: window.timescale, rounding: .down)
    }

    /// Recomputes the slowest frontier; returns whether it moved (other inputs may have become ready).
    mutating func updateSlowestFrontier(_ states: [InputState]) -> Bool {
        var slowest = Int64.max
        for s in states where !s.isFinished && s.frontier < slowest { slowest = s.frontier }
        defer { slowestFrontier = slowest }
        return slowest != slowestFrontier
    }

    /// How many pending samples of each input can be written now (all of them with `all`), or
    /// nil when none can.
    func writableCounts(_ states: [InputState], all: Bool) -> [Int]? {
        var limit = all ? Int64.max : slowestFrontier
        // An input holding too much data has its chunk written now, so that it never blocks.
        if !all, let heavy = states.first(where: { !$0.isFinished && isHeavy(pendingBytes: $0.pendingBytes) && $0.frontier <= limit }) {
            limit = heavy.frontier + 1
        }
        var any = false
        let counts = states.map { s in
            var n = 0
            while n < s.pending.count && s.pending[n].window < limit { n += 1 }
            any = any || n > 0
            return n
        }
        return any ? counts : nil
    }
}
