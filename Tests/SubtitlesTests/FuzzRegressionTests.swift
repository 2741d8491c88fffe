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
            guard let cues = try? SubtitleFile.parse(data: data, format: format, file: name), !cues.isEmpty else { continue }
            let again = try SubtitleFile.parse(data: Data(SubtitleFile.render(cues, format: format).utf8), format: format, file: "rendered")
            #expect(again.map(\.start) == cues.map(\.start))
            #expect(again.map(\.end) == cues.map(\.end))
        }
    }

    /// A WebVTT file whose only block is a malformed cue: read as no cues, with the warning
    /// that says why, not refused (nothing is rendered from it, so the round trip stops here).
    @Test func aFileWhoseOnlyCueIsLeftOutIsReadEmpty() throws {
        let data = try Data(contentsOf: FuzzRegressionTests.directory.appendingPathComponent("vtt-only-cue-left-out.vtt"))
        var warnings: [String] = []
        let cues = try SubtitleFile.parse(try TextDecoding.decode(data, file: "t.vtt"), format: .webVTT, file: "t.vtt") { warnings.append($0) }
        #expect(cues.isEmpty)
        #expect(warnings.count == 1 && warnings[0].contains("the block is left out"), "\(warnings)")
    }
}
