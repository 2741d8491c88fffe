import Foundation
@testable import Splice
import Testing
import TestSupport

/// `ExportPlan`: what an export does, decided once, and FLV — a container added as one row.
@Suite("Export plan")
struct ExportPlanTests {
    static let clip: Result<URL, Error> = Result {
        let url = Fixtures.path("plan-clip.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-f", "lavfi", "-i", "sine=frequency=440:duration=4",
                         "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-bf", "2", "-c:a", "aac", "-b:a", "96k", url.path])
        return url
    }

    static func decodeErrors(_ url: URL) throws -> String {
        try Tool.run("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-f", "null", "-"]).stderr
    }

    static func frameCount(_ url: URL) throws -> Int {
        let r = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames",
                                           "-of", "csv=p=0", url.path])
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test("an export makes its plan once, and carries out what it says", arguments: ["mp4", "mkv", "flv"])
    func oneExportOnePlan(suffix: String) throws {
        let session = ExportSession(asset: try Asset(url: try Self.clip.get()), preset: .passthrough)
        session.timeRange = TimeRange(start: MediaTime(value: 1300, timescale: 1000), end: MediaTime(value: 3100, timescale: 1000))
        session.cutMode = .smart
        session.outputURL = Fixtures.path("plan-once.\(suffix)")
        session.replacesExistingFile = true
        try session.run()
        #expect(session.plansMade == 1)
        #expect(try Self.frameCount(Fixtures.path("plan-once.\(suffix)")) == 45)
        #expect(try Self.decodeErrors(Fixtures.path("plan-once.\(suffix)")).isEmpty)
        #expect(session.cutSummary.count == 2, "\(session.cutSummary)")
    }

    @Test("a plan asked what it would write reads nothing and says why a file cannot hold it")
    func refusals() throws {
        let asset = try Asset(url: try Self.clip.get())
        var settings = ExportPlan.Settings(preset: .passthrough)
        let ogg = ExportPlan(asset: asset, settings: settings, fileType: .ogg)
        #expect(ogg.refusal == .codec(track: 2, codec: "aac", fileType: .ogg))
        #expect(ogg.refusal?.description == "track 2 would be aac, which ogg files cannot hold")
        if case .leaveOut = ogg.plan(of: asset.tracks[0]) {} else { Issue.record("video is left out of a sound-only file") }
        settings.timeRange = TimeRange(start: MediaTime(value: 1, timescale: 1), end: MediaTime(value: 2, timescale: 1))
        settings.cutMode = .exact
        let mkv = ExportPlan(asset: asset, settings: settings, fileType: .mkv)
        #expect(mkv.cutMode == .smart && mkv.refusal == nil && mkv.cuts.isEmpty)
        #expect(ExportPlan(asset: asset, settings: ExportPlan.Settings(preset: .appleM4A), fileType: .mp4).refusal == .soundOnlyPreset)
    }

    @Test("FLV: one row, and Splice copies, cuts and exports into it")
    func flvIsARow() throws {
        let clip = try Self.clip.get()
        #expect(FileType(pathExtension: "flv") == .flv && FileType.containers(holding: "h264").contains("flv"))
        #expect(try Tool.splice(["export", "--help"]).stdout.contains(".flv"))
        let copy = Fixtures.path("plan-copy.flv")
        #expect(try Tool.splice(["remux", clip.path, copy.path, "--force"]).status == 0)
        #expect(try RemuxTests.streamHash(copy) == RemuxTests.streamHash(clip))
        #expect(try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0", copy.path]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines) == "flv")
        let trimmed = Fixtures.path("plan-trim.flv")
        let r = try Tool.splice(["trim", clip.path, "-o", trimmed.path, "--range", "1.3,3.1", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.frameCount(trimmed) == 45)
        #expect(try Self.decodeErrors(trimmed).isEmpty)
        let exported = Fixtures.path("plan-export.flv")
        #expect(try Tool.splice(["export", clip.path, "-o", exported.path, "--preset", "lowQuality", "--force"]).status == 0)
        #expect(try Tool.ffprobeStreams(exported).map { $0["codec_name"] as? String } == ["h264", "aac"])
    }
}
