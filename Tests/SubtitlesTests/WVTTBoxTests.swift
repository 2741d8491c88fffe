import Foundation
import Subtitles
import Testing

/// WebVTT in MP4 held to bytes worked out by hand from ISO/IEC 14496-30 §7 (no tool here reads
/// `wvtt`): the sample entry (`SampleEntry` fields, then `vttC` and `vlab` boxstrings, not
/// NUL-terminated), a sample of two cues in `vttc` boxes (`iden`, `sttg`, `payl` in that
/// order), a gap as `vtte`; and tx3g text boxes.
@Suite("WebVTT in MP4 and tx3g places, to the byte")
struct WVTTBoxTests {
    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + body.count)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8) + body
    }

    @Test func sampleEntry() {
        let entry = WVTT.sampleEntry(header: "WEBVTT", label: "a.vtt")
        let expected: [UInt8] = [0, 0, 0, 43] + Array("wvtt".utf8) + [0, 0, 0, 0, 0, 0, 0, 1]
            + [0, 0, 0, 14] + Array("vttC".utf8) + Array("WEBVTT".utf8)
            + [0, 0, 0, 13] + Array("vlab".utf8) + Array("a.vtt".utf8)
        #expect([UInt8](entry) == expected)
        #expect(WVTT.header(ofSampleEntry: entry) == "WEBVTT")
    }

    @Test func samplesOfCuesAndGaps() {
        var first = SubtitleCue(start: 0, end: 1000, text: "")
        first.identifier = "c1"
        first.settings = "line:0"
        first.markup = .webVTT("<v Bob>Hi")
        let second = SubtitleCue(start: 500, end: 1000, text: "Yo")
        let data = [UInt8](WVTT.encode([first, second]))
        let expected: [UInt8] = [0, 0, 0, 49] + Array("vttc".utf8)
            + [0, 0, 0, 10] + Array("iden".utf8) + Array("c1".utf8)
            + [0, 0, 0, 14] + Array("sttg".utf8) + Array("line:0".utf8)
            + [0, 0, 0, 17] + Array("payl".utf8) + Array("<v Bob>Hi".utf8)
            + [0, 0, 0, 18] + Array("vttc".utf8)
            + [0, 0, 0, 10] + Array("payl".utf8) + Array("Yo".utf8)
        #expect(data == expected)
        #expect(data == Self.box("vttc", Self.box("iden", Array("c1".utf8)) + Self.box("sttg", Array("line:0".utf8))
                                    + Self.box("payl", Array("<v Bob>Hi".utf8))) + Self.box("vttc", Self.box("payl", Array("Yo".utf8))))
        #expect([UInt8](WVTT.encode([])) == [0, 0, 0, 8] + Array("vtte".utf8))
        // Read back: ids, settings and payloads as written, the text without the voice.
        let back = WVTT.decode(Data(data))
        #expect(back.map(\.identifier) == ["c1", ""] && back.map(\.settings) == ["line:0", ""])
        #expect(back.map(\.text) == ["Hi", "Yo"] && back[0].markup == .webVTT("<v Bob>Hi") && back[0].placement == .topCenter)
        #expect(WVTT.decode(Data([0, 0, 0, 8] + Array("vtte".utf8))).isEmpty)
        // A truncated box gives what can be read, without a trap.
        #expect(WVTT.decode(Data(data.prefix(30))).isEmpty)
    }

    /// The samples of overlapping cues: each stretch holds the cues showing in it, and the cue
    /// repeated in two samples is read back as one.
    @Test func overlappingCuesRoundTrip() {
        let a = SubtitleCue(start: 0, end: 2000, text: "A", line: 3), b = SubtitleCue(start: 1000, end: 3000, text: "B", line: 6)
        let samples = TimedText.samples([a, b])
        #expect(samples.map { [$0.start, $0.end] } == [[0, 1000], [1000, 2000], [2000, 3000], [3000, 3000]])
        #expect(samples.map { $0.cues.map(\.text) } == [["A"], ["A", "B"], ["B"], []])
        let read = WVTT.cues(samples.map { ($0.start, $0.end, WVTT.decode(WVTT.encode($0.cues))) })
        #expect(read.map { [$0.start, $0.end] } == [[0, 2000], [1000, 3000]] && read.map(\.text) == ["A", "B"])
    }

    /// The choice for places in tx3g: one description justified to the place most cues have, a
    /// `tbox` (top, left, bottom, right as signed 16-bit) for a cue elsewhere: for one line in
    /// a 320×240 track, a 32-pixel band at the top.
    @Test func tx3gTextBoxes() {
        let box = TX3G.textBox(for: .topCenter, lines: 1, in: .init(width: 320, height: 240), justified: .bottomCenter)
        #expect(box == TextBox(top: 0, left: 0, bottom: 32, right: 320))
        let sample = [UInt8](TX3G.encode("Top", styles: [], box: box))
        #expect(sample == [0, 3] + Array("Top".utf8) + [0, 0, 0, 16] + Array("tbox".utf8) + [0, 0, 0, 0, 0, 32, 1, 64])
        #expect(TX3G.textBox(ofSample: Data(sample)) == box)
        #expect(TX3G.placement(of: box!, in: .init(width: 320, height: 240)) == .topCenter)
        #expect(TX3G.textBox(for: .bottomCenter, lines: 1, in: .init(width: 320, height: 240), justified: .bottomCenter) == nil)
        let left = TX3G.textBox(for: CuePlacement(.bottom, .left), lines: 2, in: .init(width: 320, height: 240), justified: .bottomCenter)!
        #expect(left == TextBox(top: 184, left: 0, bottom: 240, right: 160) && TX3G.placement(of: left, in: .init(width: 320, height: 240)) == CuePlacement(.bottom, .left))
        // The justification bytes of the sample entry: 1, -1 for bottom centre; 1, 0 for top centre.
        let bottom = [UInt8](TX3G.sampleEntry()), top = [UInt8](TX3G.sampleEntry(placement: .topCenter))
        #expect(bottom[20...21] == [1, 0xFF] && top[20...21] == [1, 0])
        #expect(TX3G.placement(ofSampleEntry: Data(top)) == .topCenter && TX3G.placement(ofSampleEntry: Data(bottom)) == .bottomCenter)
        #expect(TX3G.commonPlacement([TimedTextSample(start: 0, end: 1, text: "a")]) == .bottomCenter)
    }
}
