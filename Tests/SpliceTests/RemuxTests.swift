import Foundation
import ISOBMFF
import MediaCore
import Splice
import Testing
import TestSupport

/// `splice remux`: the output has the input's structure and the same packets.
@Suite("Remux round trips")
struct RemuxTests {
    static func streamHash(_ url: URL) throws -> String {
        try Tool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:v?", "-map", "0:a?", "-map", "0:s?",
                                  "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]).stdout
    }

    static func structure(_ url: URL) throws -> [String: Any] {
        let r = try Tool.splice(["inspect", url.path, "--json"])
        guard r.status == 0, var json = try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] else {
            throw ToolError(message: "inspect failed: \(r.stderr)")
        }
        json["file"] = nil
        return json
    }

    /// mediainfo's view of each track: ID, alternate group, enabled ("Default"), references.
    static func mediainfoTracks(_ url: URL) throws -> [String] {
        let mi = try Tool.check("mediainfo", ["--Output=JSON", url.path])
        let json = try JSONSerialization.jsonObject(with: mi.stdoutData) as? [String: Any]
        let tracks = (json?["media"] as? [String: Any])?["track"] as? [[String: Any]] ?? []
        return tracks.filter { $0["ID"] != nil }.map { t in
            let extra = t["extra"] as? [String: Any] ?? [:]
            let refs = ["Fallback_To", "Fallback_From", "Forced_Alternative", "Subtitles_For", "Menus", "Menu_For"]
                .compactMap { k in extra[k].map { "\(k)=\($0)" } }
            return "\(t["@type"] ?? "") id=\(t["ID"] ?? "") group=\(t["AlternateGroup"] ?? "-") default=\(t["Default"] ?? "-") lang=\(t["Language"] ?? "-") \(refs.joined(separator: " "))"
        }
    }

    /// Equal as JSON: both serialised with sorted keys.
    static func equalJSON(_ a: Any, _ b: Any) -> Bool {
        let x = try? JSONSerialization.data(withJSONObject: a, options: [.sortedKeys])
        let y = try? JSONSerialization.data(withJSONObject: b, options: [.sortedKeys])
        return x != nil && x == y
    }

    @Test(arguments: ["grouped", "allDisabled", "negativeCTS", "quickTime", "fragmented"])
    func roundTripKeepsStructureAndPackets(_ name: String) throws {
        let input: URL
        switch name {
        case "allDisabled": input = try Fixtures.allDisabled.get()
        case "negativeCTS": input = try Fixtures.negativeCTS.get()
        default: input = try fixture(name)
        }
        for faststart in [false, true] {
            let output = Fixtures.path("remux-\(name)\(faststart ? "-fast" : "").\(input.pathExtension)")
            try? FileManager.default.removeItem(at: output)
            let r = try Tool.splice(["remux", input.path, output.path, "--verify"] + (faststart ? ["--faststart"] : []))
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains(": copied, ") && r.stdout.contains("; verified: "), "\(r.stdout)")

            var a = try RemuxTests.structure(input), b = try RemuxTests.structure(output)
            if name == "fragmented" {
                // The source's movie duration comes from its fragments; the copy states it in mvhd.
                #expect(abs((a["duration"] as! Double) - (b["duration"] as! Double)) < 0.05)
                a["duration"] = nil; b["duration"] = nil
            }
            #expect(RemuxTests.equalJSON(a, b), "structure differs:\n\(a)\n\(b)")
            #expect(try RemuxTests.streamHash(input) == RemuxTests.streamHash(output))
            #expect(try RemuxTests.mediainfoTracks(input) == RemuxTests.mediainfoTracks(output))
            let decode = try Tool.run("ffmpeg", ["-nostdin", "-v", "error", "-i", output.path, "-f", "null", "-"])
            #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")

            let boxes = try MovieFile(file: try ReadOnlyFile(path: output.path)).topLevelBoxes.map(\.type)
            if faststart {
                #expect(boxes.firstIndex(of: "moov")! < boxes.firstIndex(of: "mdat")!)
            } else {
                #expect(boxes.firstIndex(of: "moov")! > boxes.firstIndex(of: "mdat")!)
            }
        }
    }

    @Test func negativeOffsetsAreWrittenAsVersion1() throws {
        let input = try Fixtures.negativeCTS.get()
        let output = Fixtures.path("remux-ctts.mp4")
        try? FileManager.default.removeItem(at: output)
        #expect(try Tool.splice(["remux", input.path, output.path]).status == 0)
        let movie = try MovieFile(file: try ReadOnlyFile(path: output.path))
        let video = movie.tracks[0].sampleTable
        #expect(video.compositionOffsetsVersion == 1)
        #expect(video.compositionOffsets?.contains { $0.offset < 0 } == true)
        #expect(video.syncSamples != nil)
        // Every AAC sample is a sync sample: no stss.
        #expect(movie.tracks[1].sampleTable.syncSamples == nil)
        // Tracks interleave in chunks of about half a second.
        #expect(movie.tracks[0].sampleTable.chunkOffsets.count >= 4)
        #expect(movie.tracks[1].sampleTable.chunkOffsets.count >= 4)
    }

    @Test func refusesToOverwriteWithoutForce() throws {
        let input = try Fixtures.quickTime.get()
        let output = Fixtures.path("exists.mov")
        try Data("keep me".utf8).write(to: output)
        let r = try Tool.splice(["remux", input.path, output.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("already exists"))
        #expect(try Data(contentsOf: output) == Data("keep me".utf8))
        #expect(try Tool.splice(["remux", input.path, output.path, "--force"]).status == 0)
        #expect(try RemuxTests.streamHash(input) == RemuxTests.streamHash(output))
    }

    /// A remux over its own input is refused, `--force` or not: the input stays as it was.
    @Test func remuxOverItsOwnInputIsRefused() throws {
        let output = Fixtures.path("self.mp4")
        try? FileManager.default.removeItem(at: output)
        try FileManager.default.copyItem(at: try Fixtures.grouped.get(), to: output)
        let before = try Data(contentsOf: output)
        let r = try Tool.splice(["remux", output.path, output.path, "--force"])
        #expect(r.status == 1)
        #expect(r.stderr == "error: \(output.path): is an input of this job: writing it would replace what is being read; choose another output\n")
        #expect(try Data(contentsOf: output) == before)
        #expect(try leftovers(of: output).isEmpty)
    }
}

/// Temporary files left beside `url` by a writer of it.
func leftovers(of url: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        .filter { $0.hasPrefix("." + url.lastPathComponent + ".splice-") }
}
