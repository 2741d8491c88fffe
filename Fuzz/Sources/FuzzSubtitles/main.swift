// SRT, WebVTT and ASS parsing, timed-text samples, tx3g and wvtt round trips, packets, cue
// settings and regions on arbitrary bytes.
import Foundation
import FuzzSupport
import Subtitles

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    for format in [SubtitleFormat.srt, .webVTT, .ass] {
        // (A file whose cues were all left out is read as no cues; there is nothing to render.)
        guard let cues = try? SubtitleFile.parse(data: bytes, format: format, file: "fuzz"), !cues.isEmpty else { continue }
        for sample in TimedText.samples(cues) {
            let encoded = TX3G.encode(sample.text, styles: sample.styles)
            let (text, _) = TX3G.decode(encoded)
            if text != sample.text && sample.text.utf8.count < 65_535 { fatalError("tx3g round trip changed the text") }
        }
        let samples = TimedText.samples(cues)
        _ = WVTT.cues(samples.map { ($0.start, $0.end, WVTT.decode(WVTT.encode($0.cues))) })
        for sample in samples where WVTT.decode(WVTT.encode(sample.cues)).count != sample.cues.count {
            fatalError("a wvtt sample lost a cue")
        }
        let rendered = SubtitleFile.render(cues, format: format)
        guard let again = try? SubtitleFile.parse(data: Data(rendered.utf8), format: format, file: "rendered") else {
            fatalError("rendered \(format) does not parse again:\n\(rendered)")
        }
        if again.map(\.start) != cues.map(\.start) || again.map(\.end) != cues.map(\.end) {
            fatalError("rendered \(format) changed the cue times")
        }
    }
    _ = TX3G.decode(bytes)
    _ = TX3G.textBox(ofSample: bytes)
    _ = WVTT.decode(bytes)
    _ = WVTT.header(ofSampleEntry: bytes)
    for format in SubtitlePacketFormat.allCases {
        let reader = SubtitlePacketReader(format: format, codecPrivate: [UInt8](bytes.prefix(4096)))
        let cue = reader.cue(bytes)
        _ = format.packet(for: cue, order: 1)
    }
    let text = String(decoding: bytes, as: UTF8.self)
    _ = WebVTTCueSettings(text, regions: [WebVTTRegion(text)])
    return 0
}

runFuzzer(fuzz)
