import Testing
@testable import MediaCore

@Suite("MediaTime and TimeRange")
struct MediaTimeTests {
    @Test func equalityAcrossTimescales() {
        #expect(MediaTime(value: 1, timescale: 2) == MediaTime(value: 2, timescale: 4))
        #expect(MediaTime(value: 1001, timescale: 30000) == MediaTime(value: 3003, timescale: 90000))
        #expect(MediaTime(value: 1, timescale: 3) != MediaTime(value: 333_333, timescale: 1_000_000))
        let set: Set = [MediaTime(value: 1, timescale: 2), MediaTime(value: 500, timescale: 1000)]
        #expect(set.count == 1)
    }

    @Test func comparisonIsExactForLargeValues() {
        // Products overflow 64 bits; 128-bit comparison keeps them exact.
        let a = MediaTime(value: Int64.max - 1, timescale: Int32.max)
        let b = MediaTime(value: Int64.max, timescale: Int32.max)
        #expect(a < b)
        #expect(MediaTime(value: Int64.max, timescale: 1) > MediaTime(value: Int64.max, timescale: 2))
        #expect(MediaTime(value: -1, timescale: 1) < .zero)
        #expect(MediaTime.negativeInfinity < MediaTime(value: Int64.min, timescale: 1))
        #expect(MediaTime(value: Int64.max, timescale: 1) < .positiveInfinity)
    }

    @Test func additionUsesTheLeastCommonMultiple() {
        let sum = MediaTime(value: 1, timescale: 48000) + MediaTime(value: 1, timescale: 44100)
        #expect(sum.timescale == 7_056_000)
        #expect(sum == MediaTime(value: 147 + 160, timescale: 7_056_000))
        let same = MediaTime(value: 5, timescale: 1000) - MediaTime(value: 7, timescale: 1000)
        #expect(same.value == -2 && same.timescale == 1000)
    }

    @Test func additionFallsBackToTheFinerTimescaleWithRounding() {
        // lcm(2147483647, 2147483646) does not fit in 32 bits.
        let a = MediaTime(value: 1, timescale: Int32.max), b = MediaTime(value: 1, timescale: Int32.max - 1)
        let sum = a + b
        #expect(sum.timescale == Int32.max)
        #expect(sum.value == 2)
    }

    @Test func overflowBecomesInfinity() {
        #expect(MediaTime(value: Int64.max, timescale: 1) + MediaTime(value: 1, timescale: 1) == .positiveInfinity)
        #expect(MediaTime(value: Int64.min, timescale: 1) - MediaTime(value: 1, timescale: 1) == .negativeInfinity)
        #expect(-MediaTime(value: Int64.min, timescale: 1) == .positiveInfinity)
        #expect(MediaTime(value: Int64.max / 2 + 1, timescale: 1) * 2 == .positiveInfinity)
        #expect(MediaTime(value: Int64.max, timescale: 1).convertScale(90000) == .positiveInfinity)
    }

    @Test func specialValues() {
        #expect(MediaTime.positiveInfinity + MediaTime(value: 5, timescale: 1) == .positiveInfinity)
        #expect(MediaTime(value: 5, timescale: 1) - .positiveInfinity == .negativeInfinity)
        #expect(!(MediaTime.positiveInfinity - .positiveInfinity).isValid)
        #expect(!(MediaTime.invalid + .zero).isValid)
        #expect(!MediaTime(value: 1, timescale: 0).isValid)
        #expect(MediaTime(value: 1, timescale: -5).kind == .invalid)
        #expect(MediaTime.positiveInfinity * -1 == .negativeInfinity)
        #expect(MediaTime.invalid.seconds.isNaN)
    }

    @Test func conversionRoundsAsAsked() {
        let t = MediaTime(value: 1001, timescale: 30000) // 0.03336… s
        #expect(t.convertScale(1000, method: .nearest).value == 33)
        #expect(t.convertScale(1000, method: .up).value == 34)
        #expect(t.convertScale(1000, method: .down).value == 33)
        let n = MediaTime(value: -1001, timescale: 30000)
        #expect(n.convertScale(1000, method: .towardZero).value == -33)
        #expect(n.convertScale(1000, method: .awayFromZero).value == -34)
        #expect(n.convertScale(1000, method: .down).value == -34)
        #expect(n.convertScale(1000, method: .up).value == -33)
        #expect(MediaTime(value: 1, timescale: 2).convertScale(1, method: .nearest).value == 1)
        #expect(MediaTime(value: -1, timescale: 2).convertScale(1, method: .nearest).value == -1)
        #expect(MediaTime(value: 3, timescale: 1).convertScale(90000).value == 270_000)
    }

    @Test func seconds() {
        #expect(MediaTime(seconds: 1.5, preferredTimescale: 600) == MediaTime(value: 900, timescale: 600))
        #expect(MediaTime(seconds: .infinity, preferredTimescale: 600) == .positiveInfinity)
        #expect(!MediaTime(seconds: .nan, preferredTimescale: 600).isValid)
        #expect(MediaTime(seconds: 1e300, preferredTimescale: 600) == .positiveInfinity)
        #expect(MediaTime(value: 3, timescale: 4).seconds == 0.75)
    }

    @Test func timeRanges() {
        let r = TimeRange(start: MediaTime(value: 1, timescale: 1), duration: MediaTime(value: 2, timescale: 1))
        #expect(r.end == MediaTime(value: 3, timescale: 1))
        #expect(r.contains(MediaTime(value: 1, timescale: 1)))
        #expect(!r.contains(MediaTime(value: 3, timescale: 1)))
        let other = TimeRange(start: MediaTime(value: 5, timescale: 2), end: MediaTime(value: 10, timescale: 1))
        #expect(r.intersection(other) == TimeRange(start: MediaTime(value: 5, timescale: 2), end: MediaTime(value: 3, timescale: 1)))
        #expect(r.intersection(TimeRange(start: MediaTime(value: 4, timescale: 1), duration: .zero)).isEmpty)
        #expect(TimeRange.everything.contains(MediaTime(value: Int64.max, timescale: 1)))
    }

    @Test func fourCharacterCodes() {
        let code: FourCC = "avc1"
        #expect(code.rawValue == 0x6176_6331)
        #expect(code.description == "avc1")
        #expect(FourCC(rawValue: 0xA974_6F6F).description == "©too")
        #expect(FourCC(rawValue: 0x0000_0001).description == "\\x00\\x00\\x00\\x01")
        #expect(FourCC("ac3") == "ac3 ")
    }

    @Test func mediaTypesFromHandlers() {
        #expect(MediaType(handlerType: "vide") == .video)
        #expect(MediaType(handlerType: "sbtl") == .subtitle)
        #expect(MediaType(handlerType: "subt") == .subtitle)
        #expect(MediaType(handlerType: "text") == .text)
        #expect(MediaType(handlerType: "hint") == .data)
        #expect(MediaType.subtitle.isLegible && MediaType.closedCaption.isLegible && !MediaType.audio.isLegible)
    }
}
