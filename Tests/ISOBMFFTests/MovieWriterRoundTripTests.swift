import Foundation
import ISOBMFF
import MediaCore
import Testing
import TestSupport

/// Parse → write → parse gives back equal structures.
@Suite("MovieWriter round trip")
struct MovieWriterRoundTripTests {
    @Test(arguments: ["grouped", "quickTime"])
    func moovRoundTrips(_ name: String) throws {
        let url = try fixture(name)
        let movie = try MovieFile(file: try ReadOnlyFile(path: url.path))
        let moov = try #require(movie.topLevelBoxes.last)
        #expect(moov.type == "moov")
        let original = [UInt8](try Data(contentsOf: url))
        let written = MovieWriter.movieBox(header: movie.movieHeader, tracks: movie.tracks, otherBoxes: movie.otherMovieBoxes)
        // Byte-exact where ffmpeg's box order is kept (the grouped fixture had boxes inserted by the patcher).
        let exact = written == Array(original[Int(moov.offset)...])
        #expect(exact || name == "grouped")
        let copy = Fixtures.path("roundtrip-\(name).mp4")
        try Data(original[..<Int(moov.offset)] + written).write(to: copy)
        let again = try MovieFile(file: try ReadOnlyFile(path: copy.path))
        #expect(again.tracks == movie.tracks)
        #expect(again.movieHeader == movie.movieHeader)
    }

    @Test func builderKeepsRunsAndChoosesBoxVersions() throws {
        var b = SampleTableBuilder()
        let samples: [(Int64, Int64, Bool)] = [(0, 1024, true), (512, -512, false), (1024, 0, false), (1536, 512, true)]
        for (dts, cto, sync) in samples {
            try b.addSample(size: 100, decodeTime: dts, compositionOffset: cto, duration: 512, isSync: sync, dependency: nil)
        }
        b.addChunk(offset: 48, sampleCount: 2, descriptionIndex: 1)
        b.addChunk(offset: 5_000_000_000, sampleCount: 2, descriptionIndex: 1)
        let t = b.finished()
        #expect(t.timeToSample == [.init(count: 4, delta: 512)])
        #expect(t.compositionOffsets?.map(\.offset) == [1024, -512, 0, 512])
        #expect(t.compositionOffsetsVersion == 1)
        #expect(t.syncSamples == [1, 4])
        #expect(t.constantSampleSize == 100 && t.sampleCount == 4)
        #expect(t.sampleToChunk == [.init(firstChunk: 1, samplesPerChunk: 2, sampleDescriptionIndex: 1)])
        #expect(t.dependencies == nil)
        var w = BoxWriter()
        MovieWriter.write(t, to: &w)
        let stbl = try #require(try Box.parseAll(w.bytes).first)
        #expect(stbl.children?.map(\.type) == ["stsd", "stts", "ctts", "stss", "stsc", "stsz", "co64"])
        #expect(stbl.child("ctts")?.payload.first == 1)

        var small = SampleTableBuilder()
        try small.addSample(size: 1, decodeTime: 0, compositionOffset: 0, duration: 10, isSync: true, dependency: 0x10)
        small.addChunk(offset: UInt64(UInt32.max), sampleCount: 1, descriptionIndex: 1)
        var w2 = BoxWriter()
        MovieWriter.write(small.finished(), to: &w2)
        let stbl2 = try #require(try Box.parseAll(w2.bytes).first)
        #expect(stbl2.children?.map(\.type) == ["stsd", "stts", "sdtp", "stsc", "stsz", "stco"])

        var backwards = SampleTableBuilder()
        try backwards.addSample(size: 1, decodeTime: 10, compositionOffset: 0, duration: 1, isSync: true, dependency: nil)
        #expect(throws: MediaError.self) {
            try backwards.addSample(size: 1, decodeTime: 5, compositionOffset: 0, duration: 1, isSync: true, dependency: nil)
        }
    }
}
