import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// A crossfaded concat cut smart: only each transition's frames (and the partial GOPs around
/// them) are re-encoded; every other packet is the source's.
@Suite("Smart crossfade", .enabled(if: EncodingTests.notUnderTSan))
struct SmartCrossfadeTests {
    static func crossfade(_ name: String, reencode: ConcatenationOptions.Reencode = .auto) throws -> ExportSession {
        let clips = try SmartCutTests.clips.get()
        let session = try ExportSession.concatenating(SmartCutTests.ranges.map {
            Clip(url: clips[$0.0], start: SmartCutTests.seconds($0.1), end: SmartCutTests.seconds($0.2))
        }, to: Fixtures.path(name), options: ConcatenationOptions(reencode: reencode, crossfade: SmartCutTests.seconds(1)))
        session.replacesExistingFile = true
        try session.run()
        return session
    }

    @Test(arguments: ["mp4", "mkv"])
    func onlyTheTransitionsAreReencoded(_ suffix: String) throws {
        let clips = try SmartCutTests.clips.get()
        let session = try Self.crossfade("smart-crossfade.\(suffix)")
        let out = try #require(session.outputURL)
        #expect(session.preset == .passthrough && session.notes.isEmpty, "\(session.notes)")
        // 3.75 s three times, less two transitions of 1 s: 9.25 s, 222 frames, shown by all three players.
        let packets = try SmartCutTests.packets(out, annexB: true)
        #expect(packets.count == 222, "\(packets.count) frames")
        #expect(try Tool.check("ffmpeg", ["-v", "error", "-xerror", "-i", out.path, "-f", "null", "-"]).stderr.isEmpty)
        for player in [Player.ffmpeg, .gstreamer, .mpv] {
            #expect(try player.frames(out).count == 222 * 320 * 240 * 3 / 2, "\(player)")
        }
        // Transitions at 2.75–3.75 s and 5.5–6.5 s of the output. The first clip's GOP at 2–4 s
        // (output 0.5–2.5 s) and the third's at 4–6 s (7.25–9.25 s) are copied whole.
        let sources = try clips.map { try SmartCutTests.slices($0, annexB: true) }
        let md5s = packets.map(\.md5)
        #expect(md5s.firstRange(of: Array(sources[0][48..<96])) != nil && md5s.firstRange(of: Array(sources[2][96..<144])) != nil)
        let known = Set(sources.joined())
        let copied = packets.filter { known.contains($0.md5) }
        let origin = packets.map(\.time).min() ?? 0
        let transitions = [(2.75, 3.75), (5.5, 6.5)]
        #expect(copied.allSatisfy { p in !transitions.contains { p.time - origin > $0.0 - 0.001 && p.time - origin < $0.1 - 0.001 } })
        #expect(session.cutSummary.first == "track 1 (smart crossfade): \(222 - copied.count) frames re-encoded, \(copied.count) copied",
                "\(session.cutSummary)")
        // The transitions' frames as the re-encoding crossfade draws them (SSIM ≥ 0.98).
        let full = try #require(try Self.crossfade("full-crossfade.\(suffix)", reencode: .always).outputURL)
        for (a, b) in transitions {
            let graph = "[0:v]trim=start=\(a):end=\(b),settb=1/24,setpts=N[x];[1:v]trim=start=\(a):end=\(b),settb=1/24,setpts=N[y];[x][y]ssim"
            let r = try Tool.check("ffmpeg", ["-i", out.path, "-i", full.path, "-filter_complex", graph, "-f", "null", "-"])
            let value = r.stderr.split(separator: "\n").last { $0.contains("All:") }.flatMap { $0.split(separator: "All:").last?.prefix(8) }
            #expect((value.flatMap { Double($0) } ?? 0) >= 0.98, "\(a)–\(b) s: SSIM \(value ?? "none")")
        }
        // The sound: each tone alone between transitions, both halfway through each, one after the other.
        let x = try SmartCutTests.sound(out)
        let tones = [440.0, 660, 880]
        for (k, t) in [1.5, 4.6, 8.0].enumerated() {
            let own = SmartCutTests.level(x, tones[k], at: Int(t * 48000))
            let others = tones.indices.filter { $0 != k }.map { SmartCutTests.level(x, tones[$0], at: Int(t * 48000)) }.max() ?? 0
            #expect(own > 0.01 && others < own / 10, "clip \(k + 1) at \(t) s: \(own) vs \(others)")
        }
        for (k, (a, b)) in transitions.enumerated() {
            let middle = Int((a + b) / 2 * 48000) - 480
            let (out, into) = (SmartCutTests.level(x, tones[k], at: middle), SmartCutTests.level(x, tones[k + 1], at: middle))
            #expect(out > 0.003 && into > 0.003 && abs(out - into) < 0.5 * max(out, into), "transition \(k + 1): \(out) vs \(into)")
        }
    }
}
