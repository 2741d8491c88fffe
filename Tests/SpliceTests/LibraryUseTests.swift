import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// Misuse of the reader and writer is loud (an error naming the rule, the reader or writer
/// failed with it), and the documented feeding loop ends however writing ends.
@Suite("Library use")
struct LibraryUseTests {
    static func asset() throws -> Asset { try Asset(url: try Fixtures.grouped.get()) }

    @Test func readerRefusesOutputsItCannotServe() throws {
        let asset = try LibraryUseTests.asset(), other = try LibraryUseTests.asset()
        let reader = try AssetReader(asset: asset)
        let foreign = AssetReaderTrackOutput(track: other.tracks[0])
        #expect(!reader.canAdd(foreign))
        let error = #expect(throws: MediaError.self) { try reader.add(foreign) }
        #expect(error?.message.contains("is not a track of this asset") == true)
        #expect(reader.status == .failed)
        #expect(reader.error?.message == error?.message)
        #expect(!reader.startReading())
    }

    @Test func readerRefusesAnOutputTwiceAndAfterStarting() throws {
        let asset = try LibraryUseTests.asset()
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: asset.tracks[0])
        try reader.add(output)
        #expect(throws: MediaError.self) { try reader.add(output) }
        #expect(reader.error?.message.contains("added already") == true)

        let second = try AssetReader(asset: asset)
        try second.add(AssetReaderTrackOutput(track: asset.tracks[0]))
        #expect(second.startReading())
        let late = #expect(throws: MediaError.self) { try second.add(AssetReaderTrackOutput(track: asset.tracks[1])) }
        #expect(late?.message.contains("before startReading()") == true)
        #expect(second.status == .failed)
    }

    @Test func writerRefusesInputsAndGroupsItCannotTake() throws {
        let url = Fixtures.path("misuse.mp4")
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let stray = AssetWriterInput(mediaType: .audio, outputSettings: nil)
        let group = AssetWriterInputGroup(inputs: [stray], defaultInput: stray)
        let error = #expect(throws: MediaError.self) { try writer.add(group) }
        #expect(error?.message.contains("added to the writer first") == true)
        #expect(writer.status == .failed)
        #expect(!writer.startWriting())
        #expect(!FileManager.default.fileExists(atPath: url.path))

        let other = try AssetWriter(outputURL: Fixtures.path("misuse-2.mp4"), fileType: .mp4)
        let input = AssetWriterInput(mediaType: .audio, outputSettings: nil)
        try other.add(input)
        #expect(other.startWriting())
        let late = #expect(throws: MediaError.self) { try other.add(AssetWriterInput(mediaType: .video, outputSettings: nil)) }
        #expect(late?.message.contains("before startWriting()") == true)
        #expect(other.status == .failed)
        #expect(!input.append(try WriterSessionTests.samples(try LibraryUseTests.asset(), track: 1)[0]))
    }

    /// A feeding loop whose writer fails (decode times that go back on one track) ends on every
    /// track, and nothing is left at the output path.
    @Test func theFeedingLoopEndsWhenTheWriterFails() throws {
        let asset = try LibraryUseTests.asset()
        let url = Fixtures.path("fails.mp4")
        try? FileManager.default.removeItem(at: url)
        let reader = try AssetReader(asset: asset)
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let video = AssetReaderTrackOutput(track: asset.tracks[0])
        try reader.add(video)
        let videoInput = AssetWriterInput(mediaType: .video, outputSettings: nil)
        let audioInput = AssetWriterInput(mediaType: .audio, outputSettings: nil)
        try writer.add(videoInput)
        try writer.add(audioInput)
        let audio = try WriterSessionTests.samples(asset, track: 1)
        let backwards = SampleBufferSequence(Array(audio.prefix(40)) + [audio[3]] + audio.dropFirst(40))
        #expect(reader.startReading())
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        #expect(feed([(video, videoInput), (backwards, audioInput)]))
        #expect(writer.status == .failed)
        #expect(writer.error?.message.contains("goes back") == true)
        writer.finish()
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func theFeedingLoopEndsWhenWritingIsCancelled() throws {
        let asset = try LibraryUseTests.asset()
        let url = Fixtures.path("cancelled.mp4")
        try? FileManager.default.removeItem(at: url)
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let videoInput = AssetWriterInput(mediaType: .video, outputSettings: nil)
        let audioInput = AssetWriterInput(mediaType: .audio, outputSettings: nil)
        try writer.add(videoInput)
        try writer.add(audioInput)
        let videoSamples = try WriterSessionTests.samples(asset, track: 0)
        let audio = SampleBufferSequence(try WriterSessionTests.samples(asset, track: 1))
        let cancelling = SampleBufferSequence(videoSamples.enumerated().lazy.map { i, s in
            if i == 30 { writer.cancelWriting() }
            return s
        })
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        #expect(feed([(cancelling, videoInput), (audio, audioInput)]))
        #expect(writer.status == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func writingMatroskaFailsWithAMediaError() throws {
        // Whatever the machine has, the error type is MediaError and names the file.
        do {
            let writer = try AssetWriter(outputURL: Fixtures.path("x.mkv"))
            #expect(writer.fileType == .mkv)
        } catch let error as MediaError {
            #expect(error.file?.hasSuffix("x.mkv") == true)
        }
    }
}

/// FFmpeg is loaded on first use, never linked: other programs and MP4-only jobs never need it.
@Suite("Packaging")
struct PackagingTests {
    @Test func spliceLinksNoFFmpegLibrary() throws {
        let r = try Tool.check("ldd", [Tool.spliceBinary])
        #expect(!r.stdout.contains("libav"), "\(r.stdout)")
        #expect(r.stdout.contains("libc.so"))
    }

    @Test func anMP4JobNeverLoadsFFmpeg() throws {
        let movie = try Fixtures.grouped.get().path
        let mp4 = try Tool.run(Tool.spliceBinary, ["inspect", movie], environment: ["LD_DEBUG": "libs"])
        #expect(mp4.status == 0)
        #expect(mp4.stderr.contains("calling init"), "LD_DEBUG reports loads")
        #expect(!mp4.stderr.contains("libavformat"))
        let mkv = try Tool.run(Tool.spliceBinary, ["inspect", try Fixtures.matroska.get().path], environment: ["LD_DEBUG": "libs"])
        #expect(mkv.status == 0)
        #expect(mkv.stderr.contains("libavformat"))
    }
}
