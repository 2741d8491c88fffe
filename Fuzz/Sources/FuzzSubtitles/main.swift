// SRT and WebVTT parsing, timed-text samples and tx3g round trips on arbitrary bytes.
import Foundation
import FuzzSupport
import Subtitles

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    for format in [SubtitleFormat.srt, .webVTT] {
        // (A file whose cues were all left out is read as no cues; there is nothing to render.)
        guard let cues = try? SubtitleFile.parse(data: bytes, format: format, file: "fuzz"), !cues.isEmpty else { continue }
        for sample in TimedText.samples(cues) {
            let encoded = TX3G.encode(sample.text, styles: sample.styles)
            let (text, _) = TX3G.decode(encoded)
            if text != sample.text && sample.text.utf8.count < 65_535 { fatalError("tx3g round trip changed the text") }
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
    return 0
}

runFuzzer(fuzz)
