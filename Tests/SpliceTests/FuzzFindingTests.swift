import Foundation
import Testing
import TestSupport

/// What the fuzz targets that run users' jobs (Fuzz/Sources/FuzzRemux) found, one file each in
/// Regressions/, named after its bug: `inspect` (with and without `--salvage`) and `remux` into
/// MP4 and Matroska end with exit 0 and an output that opens, or with exit 65, one line, and
/// nothing written — never a signal, and within the hostile-input corpus's limits of CPU time
/// and memory (a file that made libavformat trace millions of lines once took minutes).
@Suite("Fuzz findings")
struct FuzzFindingTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Regressions")
    static let findings = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()

    @Test(arguments: findings)
    func finding(_ name: String) throws {
        let input = Self.directory.appendingPathComponent(name)
        for salvage in [[], ["--salvage"]] {
            let inspect = try HostileInputTests.run(["inspect", input.path] + salvage)
            Self.expectEnded(inspect, name, "inspect \(salvage)")
            for type in ["mp4", "mkv"] {
                let output = Fixtures.path("finding-\(name)\(salvage.isEmpty ? "" : "-salvaged").\(type)")
                try? FileManager.default.removeItem(at: output)
                let remux = try HostileInputTests.run(["remux", input.path, output.path] + salvage)
                Self.expectEnded(remux, name, "remux to \(type) \(salvage)")
                if remux.status == 0 {
                    let probe = try Tool.run("ffprobe", ["-v", "error", output.path])
                    #expect(probe.status == 0, "\(name): the \(type) copy does not open: \(probe.stderr)")
                } else {
                    #expect(!FileManager.default.fileExists(atPath: output.path), "\(name): a failed remux left \(type) output")
                }
            }
        }
    }

    static func expectEnded(_ r: HostileInputTests.Run, _ name: String, _ job: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == 0 || r.status == 65, "\(name) \(job): status \(r.status): \(r.stderr)", sourceLocation: sourceLocation)
        HostileInputTests.expectWithinLimits(r, "\(name) \(job)", sourceLocation: sourceLocation)
        if r.status == 65 {
            #expect(r.stderr.split(separator: "\n").filter { !$0.hasPrefix("warning: ") }.count == 1 && r.stderr.contains("error: "),
                    "\(name) \(job): \(r.stderr)", sourceLocation: sourceLocation)
        }
    }
}
