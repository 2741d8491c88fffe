import Foundation
import Testing
@testable import Subtitles

/// Inputs the fuzzer found, one per bug, named after it: rendering what was parsed must parse
/// again with the same cue times.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Regressions")

    @Test(arguments: ["srt-timing-line-inside-cue-text.srt", "srt-timing-line-in-orphan-text.srt", "srt-arrow-left-by-markup.srt", "srt-longer-arrow-in-text.srt", "vtt-line-empty-after-markup.vtt"])
    func renderedCuesParseAgain(_ name: String) throws {
        let data = try Data(contentsOf: FuzzRegressionTests.directory.appendingPathComponent(name))
        for format in [SubtitleFormat.srt, .webVTT] {
            guard let cues = try? SubtitleFile.parse(data: data, format: format, file: name) else { continue }
            let again = try SubtitleFile.parse(data: Data(SubtitleFile.render(cues, format: format).utf8), format: format, file: "rendered")
            #expect(again.map(\.start) == cues.map(\.start))
            #expect(again.map(\.end) == cues.map(\.end))
        }
    }
}
