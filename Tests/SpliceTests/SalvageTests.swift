import Foundation
import ISOBMFF
import MediaCore
import Splice
import Testing
import TestSupport

/// `--salvage`: damaged MP4s (a truncated download, a missing `mvhd`, a track with an empty
/// `stsd` or `stco`) are refused by default and copied for what they hold with it.
@Suite("Salvage")
struct SalvageTests {
    /// H.264 + AAC, 2 s, moov first (as a progressive download is).
    static let movie: Result<URL, Error> = Result {
        let url = Fixtures.path("salvage.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-f", "lavfi", "-i", "sine=duration=2",
                         "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-movflags", "+faststart", url.path])
        return url
    }

    /// The same with moov last, for MoovPatch.
    static let moovLast: Result<URL, Error> = Result {
        let url = Fixtures.path("salvage-moov-last.mp4")
        try Tool.ffmpeg(["-i", try movie.get().path, "-c", "copy", url.path])
        return url
    }

    /// The same as fragments of 0.2 s (ffmpeg's `frag_keyframe+empty_moov`).
    static let fragmented: Result<URL, Error> = Result {
        let url = Fixtures.path("salvage-fragmented.mp4")
        try Tool.ffmpeg(["-i", try movie.get().path, "-c", "copy", "-movflags", "frag_keyframe+empty_moov", "-frag_duration", "200000", url.path])
        return url
    }

    /// Each packet's md5 (`framemd5` of a copy), per stream.
    static func packetHashes(_ url: URL, _ map: String) throws -> [Substring] {
        try Tool.check("ffmpeg", ["-v", "error", "-i", url.path, "-map", map, "-c", "copy", "-f", "framemd5", "-"]).stdout
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last }
    }

    static func streamHash(_ url: URL, _ map: String) throws -> String {
        try Tool.check("ffmpeg", ["-v", "error", "-i", url.path, "-map", map, "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]).stdout
    }

    @Test func aTruncatedDownloadKeepsEverySampleThatIsThere() throws {
        let source = try Self.movie.get()
        let bytes = try Data(contentsOf: source)
        let cut = Fixtures.path("salvage-cut.mp4"), out = Fixtures.path("salvage-cut-out.mp4")
        try bytes.prefix(bytes.count * 7 / 10).write(to: cut)
        try? FileManager.default.removeItem(at: out)
        let refused = try Tool.splice(["remux", cut.path, out.path])
        #expect(refused.status == 65 && refused.stderr.contains("'mdat' box has size"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try Tool.splice(["inspect", cut.path]).status == 65)

        let r = try Tool.splice(["remux", "--salvage", cut.path, out.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("runs past the end of the file"), "\(r.stderr)")
        // "track 1: 16 of 50 samples run past the end of the file and are left out (34 kept, …)"
        for (track, map) in [(1, "0:v"), (2, "0:a")] {
            let line = try #require(r.stderr.split(separator: "\n").first { $0.contains("track \(track): ") && $0.contains("samples run past") })
            let kept = try #require(Int(line.split(separator: "(").last?.split(separator: " ").first ?? ""))
            let all = try Self.packetHashes(source, map), copied = try Self.packetHashes(out, map)
            #expect(copied.count == kept && kept > 0 && kept < all.count, "\(line)")
            #expect(Array(all.prefix(copied.count)) == copied, "track \(track): the samples kept are the source's")
        }
        #expect(try Tool.check("ffmpeg", ["-v", "error", "-i", out.path, "-f", "null", "-"]).stderr.isEmpty)
        // inspect --salvage shows what remux --salvage copies.
        let json = try Tool.splice(["inspect", "--salvage", "--json", cut.path])
        #expect(json.status == 0 && json.stdout.contains("\"salvage\""))
        let counts = try Asset(url: cut, salvage: true).tracks.map(\.sampleCount)
        #expect(try Asset(url: out).tracks.map(\.sampleCount) == counts)
    }

    /// A fragmented recording cut short (in a fragment's media data, or in its header) keeps
    /// the samples wholly in the file.
    @Test(arguments: [6, 8])
    func aCutShortFragmentedRecordingKeepsItsWholeSamples(tenths: Int) throws {
        let fragmented = try Self.fragmented.get()
        let bytes = try Data(contentsOf: fragmented)
        let cut = Fixtures.path("salvage-fragmented-cut-\(tenths).mp4"), out = Fixtures.path("salvage-fragmented-out-\(tenths).mp4")
        try bytes.prefix(bytes.count * tenths / 10).write(to: cut)
        #expect(try Tool.splice(["remux", cut.path, out.path, "--force"]).status == 65)
        let r = try Tool.splice(["remux", "--salvage", cut.path, out.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        for map in ["0:v", "0:a"] {
            let all = try Self.packetHashes(fragmented, map), copied = try Self.packetHashes(out, map)
            #expect(copied.count > 0 && copied.count < all.count && Array(all.prefix(copied.count)) == copied, "\(map): \(copied.count) of \(all.count)")
        }
        #expect(try Tool.check("ffmpeg", ["-v", "error", "-i", out.path, "-f", "null", "-"]).stderr.isEmpty)
    }

    @Test func aMissingMovieHeaderIsMadeUp() throws {
        let source = try Self.movie.get(), damaged = Fixtures.path("salvage-no-mvhd.mp4"), out = Fixtures.path("salvage-no-mvhd-out.mp4")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/iso-patch").path
        #expect(try Tool.check(script, ["rename", source.path, damaged.path, "mvhd", "free"]).status == 0)
        let refused = try Tool.splice(["remux", damaged.path, out.path, "--force"])
        #expect(refused.status == 65 && refused.stderr.contains("moov: no 'mvhd' box"), "\(refused.stderr)")
        let r = try Tool.splice(["remux", "--salvage", damaged.path, out.path, "--force"])
        #expect(r.status == 0 && r.stderr.contains("a movie header was made up"), "\(r.stderr)")
        #expect(try Self.streamHash(out, "0") == Self.streamHash(source, "0"))
        let duration = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out.path]).stdout
        #expect(abs((Double(duration.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 2) < 0.1, "\(duration)")
    }

    @Test(arguments: [("stsd", "stsd: has no sample description, but the track has"), ("stco", "stco: has no chunk offsets, but the track has")])
    func aTrackThatCannotBeReadIsLeftOut(box: String, message: String) throws {
        let source = try Self.moovLast.get(), damaged = Fixtures.path("salvage-empty-\(box).mp4"), out = Fixtures.path("salvage-empty-\(box)-out.mp4")
        try FileManager.default.copyItem(at: source, to: damaged, replacing: true)
        try MoovPatch.apply(to: damaged) { moov in
            moov.modifyTrack(2) { trak in
                trak.modifyChild("mdia") { $0.modifyChild("minf") { $0.modifyChild("stbl") { $0.modifyChild(FourCC(box)) { $0.payload = [0, 0, 0, 0, 0, 0, 0, 0] } } } }
            }
        }
        let refused = try Tool.splice(["remux", damaged.path, out.path, "--force"])
        #expect(refused.status == 65 && refused.stderr.contains("moov/trak[2]/mdia/minf/stbl/" + message), "\(refused.stderr)")
        let r = try Tool.splice(["remux", "--salvage", damaged.path, out.path, "--force"])
        #expect(r.status == 0 && r.stderr.contains("track 2 is left out: it cannot be read"), "\(r.stderr)")
        let streams = try Tool.ffprobeStreams(out)
        #expect(streams.count == 1 && streams.first?["codec_name"] as? String == "h264")
        #expect(try Self.streamHash(out, "0:v") == Self.streamHash(source, "0:v"))
    }
}

extension FileManager {
    func copyItem(at source: URL, to destination: URL, replacing: Bool) throws {
        if replacing { try? removeItem(at: destination) }
        try copyItem(at: source, to: destination)
    }
}
