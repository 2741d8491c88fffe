import Testing
import MediaCore

@Suite("TimestampOrder")
struct TimestampOrderTests {
    /// Places (dts, pts) pairs one after another, each lasting `duration`; nil for a dropped one.
    private func placed(_ times: [(Int64, Int64)], duration: Int64 = 10, repeats: Bool = false) -> ([(Int64, Int64)?], TimestampOrder) {
        var order = TimestampOrder(allowsRepeatedDecodeTimes: repeats)
        let out = times.map { dts, pts -> (Int64, Int64)? in
            guard let p = order.place(decodeTime: dts, presentationTime: pts) else { return nil }
            order.lastDuration = duration
            return (p.decodeTime, p.presentationTime)
        }
        return (out, order)
    }

    @Test func timesInOrderAreKept() {
        let (out, order) = placed([(0, 20), (10, 10), (20, 40), (30, 30)])
        #expect(out.map { $0!.0 } == [0, 10, 20, 30])
        #expect(out.map { $0!.1 } == [20, 10, 40, 30])
        #expect(order.repaired == 0 && order.dropped == 0 && order.largestRepair == 0)
    }

    @Test func aRepeatedOrSlightlyEarlierDecodeTimeMovesATickOn() {
        let (out, order) = placed([(0, 0), (0, 5), (6, 6), (2, 8)])
        #expect(out.map { $0!.0 } == [0, 1, 6, 7])
        #expect(out.map { $0!.1 } == [0, 5, 6, 8])
        #expect(order.repaired == 2 && order.largestRepair == 5)
    }

    @Test func aDecodeTimeFurtherBackThanAFrameIsDropped() {
        let (out, order) = placed([(100, 100), (110, 110), (50, 50), (120, 120)])
        #expect(out[2] == nil)
        #expect(out[3]! == (120, 120))
        #expect(order.dropped == 1 && order.repaired == 0)
    }

    @Test func aPresentationBeforeItsDecodeTimePullsTheDecodeTimeBack() {
        // Pulled back to the presentation time, but never behind the previous decode time + 1.
        let (out, order) = placed([(0, 0), (20, 15), (30, 12)])
        #expect(out[1]! == (15, 15))
        #expect(out[2]! == (16, 16))
        #expect(order.repaired == 2 && order.largestRepair == 14)
    }

    @Test func subtitleCuesMayStartTogether() {
        let (out, order) = placed([(0, 0), (0, 0), (5, 5)], repeats: true)
        #expect(out.map { $0!.0 } == [0, 0, 5])
        #expect(order.repaired == 0)
    }

    @Test func aDerivedPresentationTimeThatMovesIsNotARepair() {
        var order = TimestampOrder()
        _ = order.place(decodeTime: 0, presentationTime: 0)
        order.lastDuration = 10
        let p = order.place(decodeTime: 10, presentationTime: 5, statedPresentationTime: false)
        #expect(p! == (decodeTime: 5, presentationTime: 5))
        #expect(order.repaired == 1 && order.largestRepair == 5)   // the decode time moved
    }

    /// The times are a file's: the extremes of `Int64` are placed without a trap.
    @Test func extremeTimesSaturate() {
        let (out, order) = placed([(.max, .max), (.min, .min), (.max, .min), (.min, .max)], duration: .max)
        #expect(out[0]! == (.max, .max))
        // Int64.min lies further back than Int64.max can say: dropped, or held at the floor.
        for p in out.dropFirst() { if let p { #expect(p.0 == .max && p.1 == .max) } }
        #expect(order.repaired + order.dropped == 3)
        #expect(order.largestRepair == .max || order.largestRepair == 0)
        #expect(Int64.max.addingSaturating(1) == .max && Int64.min.subtractingSaturating(1) == .min)
        #expect(Int64.min.addingSaturating(-1) == .min && Int64.max.subtractingSaturating(-1) == .max)
        #expect(Int64(5).subtractingSaturating(7) == -2)
    }
}
