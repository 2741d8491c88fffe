import Foundation
import Testing
import TestSupport

/// `splice inspect` and the top-level CLI, run as the built binary.
@Suite("CLI: splice inspect")
struct InspectCLITests {
    func inspectJSON(_ url: URL) throws -> [String: Any] {
        let r = try Tool.splice(["inspect", url.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty)
        return try #require(try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
    }

    @Test func jsonHasTheDocumentedKeys() throws {
        let json = try inspectJSON(try Fixtures.grouped.get())
        #expect(json["format"] as? String == "mp4")
        #expect(abs((json["duration"] as? Double ?? 0) - 3.0) < 0.05)
        let tracks = try #require(json["tracks"] as? [[String: Any]])
        #expect(tracks.count == 7)
        for key in ["id", "mediaType", "codec", "language", "extendedLanguage", "enabled", "alternateGroup", "name",
                    "associations", "edits", "sampleCount"] {
            #expect(tracks.allSatisfy { $0.keys.contains(key) }, "key \(key)")
        }
        #expect(tracks.map { $0["mediaType"] as? String } == ["video", "audio", "audio", "audio", "subtitle", "subtitle", "text"])
        #expect(tracks[0]["extendedLanguage"] is NSNull)
        #expect(tracks[2]["extendedLanguage"] as? String == "fr-CA")
        #expect(tracks[3]["associations"] as? [String: [Int]] == ["fall": [2], "chap": [7]])
        #expect(tracks[4]["associations"] as? [String: [Int]] == ["forc": [6], "chap": [7]])
        #expect(tracks[1]["associations"] as? [String: [Int]] == ["folw": [5], "chap": [7]])
        let edits = try #require(tracks[5]["edits"] as? [[String: Any]])
        #expect(edits.count == 3)
        #expect(edits[0]["mediaTime"] is NSNull)
        #expect(edits[0]["segmentDuration"] as? Double == 1)
        #expect(edits[2]["mediaTime"] as? Double == 1.5)
        #expect(edits[2]["rate"] as? Double == 1)
        let groups = try #require(json["groups"] as? [[String: Any]])
        #expect(groups.map { $0["alternateGroup"] as? Int } == [2, 5, 7])
        #expect(groups.map { $0["tracks"] as? [Int] } == [[2, 3], [4], [5, 6]])
        #expect(groups.map { $0["defaultTrack"] as? Int } == [2, 4, 5])
    }

    /// mediainfo, an independent reader, sees the same groups, enabled flags and references.
    @Test func mediainfoAgrees() throws {
        let url = try Fixtures.grouped.get()
        let ours = try #require(inspectJSON(url)["tracks"] as? [[String: Any]])
        let mi = try Tool.check("mediainfo", ["--Output=JSON", url.path])
        let media = try #require((try JSONSerialization.jsonObject(with: mi.stdoutData) as? [String: Any])?["media"] as? [String: Any])
        let theirs = try #require(media["track"] as? [[String: Any]]).filter { $0["ID"] != nil }
        var checked = 0
        for t in theirs {
            let id = Int(t["ID"] as! String)!
            let track = try #require(ours.first { $0["id"] as? Int == id })
            if let group = t["AlternateGroup"] as? String {
                #expect(track["alternateGroup"] as? Int == Int(group), "track \(id)")
            } else {
                #expect(track["alternateGroup"] as? Int == 0, "track \(id)")
            }
            if let enabled = t["Default"] as? String {
                #expect(track["enabled"] as? Bool == (enabled == "Yes"), "track \(id)")
            }
            let extra = t["extra"] as? [String: Any] ?? [:]
            let assoc = track["associations"] as? [String: [Int]] ?? [:]
            if let to = extra["Fallback_To"] as? String { #expect(assoc["fall"] == [Int(to)!]) }
            if let forced = extra["Forced_Alternative"] as? String { #expect(assoc["forc"] == [Int(forced)!]) }
            if let menus = extra["Menus"] as? String { #expect(assoc["chap"] == [Int(menus)!]) }
            checked += 1
        }
        #expect(checked == 7)
    }

    @Test func tableShowsTracksAndGroups() throws {
        let r = try Tool.splice(["inspect", try Fixtures.grouped.get().path])
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("ID") && $0.contains("TYPE") && $0.contains("GROUP") && $0.contains("ASSOCIATIONS") })
        let row4 = try #require(lines.first { $0.hasPrefix("4 ") })
        #expect(row4.contains("ac-3") && row4.contains("fall→2") && row4.contains("yes"))
        let row3 = try #require(lines.first { $0.hasPrefix("3 ") })
        #expect(row3.contains("fra (fr-CA)") && row3.contains(" no "))
        #expect(lines.contains("  group 7: tracks 5, 6; default track 5"))
    }

    @Test func matroskaJSONUsesFFmpegCodecNames() throws {
        let json = try inspectJSON(try Fixtures.matroska.get())
        let tracks = try #require(json["tracks"] as? [[String: Any]])
        // `codec` is the ISO sample-entry type for every container, `codecName` FFmpeg's name.
        #expect(tracks.map { $0["codec"] as? String } == ["avc1", "mp4a", "mp4a", "subr"])
        #expect(tracks.map { $0["codecName"] as? String } == ["h264", "aac", "aac", "subrip"])
        #expect(tracks.map { $0["language"] as? String } == ["und", "eng", "spa", "fra"])
        #expect((json["groups"] as? [Any])?.isEmpty == true)
    }

    @Test func helpAndVersion() throws {
        let help = try Tool.splice(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("OVERVIEW:") && help.stdout.contains("USAGE:") && help.stdout.contains("inspect"))
        let version = try Tool.splice(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("splice "))
        let sub = try Tool.splice(["help", "inspect"])
        #expect(sub.status == 0)
        #expect(sub.stdout.contains("USAGE: splice inspect <file> [--json]"))
        #expect(try Tool.splice(["inspect", "--help"]).stdout == sub.stdout)
    }

    @Test(arguments: [[], ["inspect"], ["inspect", "a", "b"], ["inspect", "--bogus", "x"], ["frobnicate"]])
    func usageErrorsExit64(_ args: [String]) throws {
        let r = try Tool.splice(args)
        #expect(r.status == 64)
        #expect(r.stdout.isEmpty)
        #expect(!r.stderr.isEmpty)
    }
}
