import Foundation
import Splice
import Testing
import TestSupport

/// The sample movie `make demo` inspects is what the README says it is.
@Suite("Bundled demo sample")
struct DemoSampleTests {
    static let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Examples/Media/grouped.mp4").standardized

    /// Regenerates the sample: `SPLICE_WRITE_DEMO_SAMPLE=1 swift test --filter DemoSampleTests`. (4:2:0: an RGB
    /// test pattern encoded without a pixel format would be H.264 High 4:4:4, which few players
    /// take: the demo shows a cut of what cameras and phones record.)
    @Test(.enabled(if: ProcessInfo.processInfo.environment["SPLICE_WRITE_DEMO_SAMPLE"] != nil))
    func writeSample() throws {
        try Fixtures.makeGrouped(DemoSampleTests.sample, size: "160x120",
                                 extra: ["-pix_fmt", "yuv420p", "-b:v", "60k", "-b:a:0", "24k", "-b:a:1", "24k", "-b:a:2", "64k", "-ac", "1"])
    }

    @Test func sampleHasGroupsAndAssociations() throws {
        let asset = try Asset(url: DemoSampleTests.sample)
        #expect(asset.trackGroups.map { $0.trackIDs } == [[2, 3], [4], [5, 6]])
        #expect(asset.track(withTrackID: 4)?.associatedTracks(ofType: .audioFallback).map(\.trackID) == [2])
        #expect(asset.track(withTrackID: 5)?.associatedTracks(ofType: .forcedSubtitlesOnly).map(\.trackID) == [6])
    }
}
