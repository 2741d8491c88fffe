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
        let url = Fixtures.path("refused-inputs.mp4")
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
        let url = Fixtures.path("feeding-cancelled.mp4")
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

    @Test func readerProgressFollowsTheSlowestOutput() throws {
        let asset = try LibraryUseTests.asset()
        let reader = try AssetReader(asset: asset)
        let video = AssetReaderTrackOutput(track: asset.tracks[0]), audio = AssetReaderTrackOutput(track: asset.tracks[1])
        try reader.add(video)
        try reader.add(audio)
        #expect(reader.startReading())
        #expect(reader.progress == 0)
        var seen: [Double] = []
        // Video first: progress waits for the audio, which has not moved.
        while video.copyNextSampleBuffer() != nil {}
        #expect(reader.progress == 0)
        while audio.copyNextSampleBuffer() != nil { seen.append(reader.progress) }
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(seen.count > 100 && seen[seen.count / 2] > 0.3 && seen[seen.count / 2] < 0.7)
        #expect(reader.status == .completed && reader.progress == 1)
        #expect(reader.currentTime == asset.duration)
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
        #expect(!r.stdout.contains("libav") && !r.stdout.contains("libswscale") && !r.stdout.contains("libswresample"), "\(r.stdout)")
        #expect(r.stdout.contains("libc.so"))
    }

    @Test func anMP4JobNeverLoadsFFmpeg() throws {
        let movie = try Fixtures.grouped.get().path
        let mp4 = try Tool.run(Tool.spliceBinary, ["inspect", movie], environment: ["LD_DEBUG": "libs"])
        #expect(mp4.status == 0)
        #expect(mp4.stderr.contains("calling init"), "LD_DEBUG reports loads")
        #expect(!mp4.stderr.contains("libavformat") && !mp4.stderr.contains("libswscale"))
        let mkv = try Tool.run(Tool.spliceBinary, ["inspect", try Fixtures.matroska.get().path], environment: ["LD_DEBUG": "libs"])
        #expect(mkv.status == 0)
        #expect(mkv.stderr.contains("libavformat"))
    }
}

/// What the reader tells of a track is what the writer takes: a hand-written copy keeps the
/// display matrix, the size and the volume.
@Suite("Track properties")
struct TrackPropertyTests {
    @Test func propertiesOfTheGroupedMovie() throws {
        let asset = try Asset(url: try Fixtures.grouped.get())
        let video = asset.tracks[0], audio = asset.tracks[1], text = asset.tracks[4]
        #expect(video.naturalSize == Dimensions(width: 320, height: 240))
        #expect(video.preferredTransform == .identity)
        #expect(audio.preferredVolume == 1 && video.preferredVolume == 0)
        #expect(abs(video.nominalFrameRate - 25) < 0.01)
        #expect(video.minFrameDuration.seconds == 0.04)
        let sizes = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size",
                                               "-of", "csv=p=0", try Fixtures.grouped.get().path])
        #expect(video.totalSampleDataLength == sizes.stdout.split(separator: "\n").compactMap { Int64($0) }.reduce(0, +))
        #expect(video.estimatedDataRate > 0)
        #expect(video.mediaCharacteristics == [.visual] && text.mediaCharacteristics == [.legible])
        #expect(asset.tracks.allSatisfy { $0.isPlayable })
        #expect(audio.commonMetadata.contains(MetadataItem(commonKey: "language", value: "eng")))
        #expect(video.codec == "avc1" && video.codecName == "h264")
        #expect(asset.trackGroups.map(\.trackIDs) == [[2, 3], [4], [5, 6]])
    }

    @Test func aCopyCarriesTransformSizeAndVolume() throws {
        let asset = try Asset(url: try Fixtures.grouped.get())
        let url = Fixtures.path("rotated.mp4")
        try? FileManager.default.removeItem(at: url)
        let reader = try AssetReader(asset: asset)
        let writer = try AssetWriter(outputURL: url, fileType: .mp4)
        let pairs = try passthroughPairs(asset, tracks: [0, 1], reader: reader, writer: writer)
        let portrait = AffineTransform2D(rotationAngle: .pi / 2).translatedBy(x: 0, y: -240)
        #expect(portrait.rotationDegrees == 90)
        #expect(AffineTransform2D(matrix: portrait.matrix) == portrait)
        pairs[0].1.transform = portrait
        pairs[1].1.preferredVolume = 0.5
        #expect(reader.startReading() && writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        #expect(feed(pairs.map { ($0.0 as any SampleBufferSource, $0.1) }))
        writer.finish()
        #expect(writer.status == .completed)
        // ffprobe reads the matrix as a display rotation (counter-clockwise degrees: -90).
        let probe = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_streams", url.path])
        #expect(probe.stdout.contains("rotation=-90"), "\(probe.stdout)")
        let copy = try Asset(url: url)
        #expect(copy.tracks[0].preferredTransform == portrait)
        #expect(copy.tracks[0].naturalSize == Dimensions(width: 320, height: 240))
        #expect(copy.tracks[1].preferredVolume == 0.5)
    }
}
