import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// The writer's stages seen from outside: a sample entry built at write time from the codec
/// parameters of samples that bring none (what an encoder hands the writer), and the text
/// stage between tx3g and a container's packets.
@Suite("Writer stages")
struct WriterStageTests {
    /// A reader output's samples with formats that have codec parameters only.
    final class WithoutSampleEntries: SampleBufferSource, @unchecked Sendable {
        let output: AssetReaderTrackOutput
        init(_ output: AssetReaderTrackOutput) { self.output = output }
        func copyNextSampleBuffer() -> SampleBuffer? {
            guard var sample = output.copyNextSampleBuffer() else { return nil }
            sample.formatDescription = FormatDescription(parameters: sample.formatDescription.parameters)
            return sample
        }
    }

    /// Copies `tracks` of `asset` into `url`, their samples stripped of their sample entries.
    static func writeWithoutSampleEntries(_ asset: Asset, tracks: [Int], to url: URL) throws {
        try? FileManager.default.removeItem(at: url)
        let pipe = SamplePipe(reader: try AssetReader(asset: asset), writer: try AssetWriter(outputURL: url))
        for i in tracks {
            let output = AssetReaderTrackOutput(track: asset.tracks[i])
            try pipe.reader?.add(output)
            let input = AssetWriterInput(mediaType: asset.tracks[i].mediaType)
            try pipe.writer.add(input)
            pipe.connect(WithoutSampleEntries(output), to: input)
        }
        pipe.sessionStartTime = asset.startTime
        try pipe.run()
    }

    @Test func sampleEntriesAreBuiltFromCodecParameters() throws {
        // H.264 (avcC in CodecPrivate) and AAC (AudioSpecificConfig) from Matroska: samples in ISO
        // form whose entries the writer must make itself.
        let source = try fixture("matroska")
        let asset = try Asset(url: source)
        let video = try #require(asset.tracks.firstIndex { $0.mediaType == .video })
        let audio = try #require(asset.tracks.firstIndex { $0.mediaType == .audio })
        let url = Fixtures.path("entries-from-parameters.mp4")
        try Self.writeWithoutSampleEntries(asset, tracks: [video, audio], to: url)
        let streams = try Tool.ffprobeStreams(url)
        #expect(streams.map { $0["codec_tag_string"] as? String } == ["avc1", "mp4a"])
        #expect(streams.map { $0["codec_name"] as? String } == ["h264", "aac"])
        func frames(_ u: URL, _ map: String) throws -> [Substring] {
            try Tool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", u.path, "-map", map, "-f", "framemd5", "-"])
                .stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").last! }
        }
        #expect(try frames(url, "0:v") == frames(source, "0:v"))
        // The audio's packets are the source's, byte for byte, and decode cleanly.
        func packets(_ u: URL) throws -> String {
            try Tool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", u.path, "-map", "0:a:0", "-c", "copy",
                                      "-f", "streamhash", "-hash", "md5", "-"]).stdout
        }
        #expect(try packets(url) == packets(source))
        #expect(try Tool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-f", "null", "-"]).stderr.isEmpty)
    }

    @Test func samplesWithNeitherEntryNorParametersAreRefused() async throws {
        let url = Fixtures.path("no-entry.mp4")
        try? FileManager.default.removeItem(at: url)
        let writer = try AssetWriter(outputURL: url)
        let input = AssetWriterInput(mediaType: .video)
        try writer.add(input)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        let format = FormatDescription(mediaType: .video, codec: "xxxx")
        let sample = SampleBuffer(data: Data([1, 2, 3]), decodeTimeStamp: .zero, presentationTimeStamp: .zero,
                                  duration: MediaTime(value: 1, timescale: 25), isSync: true, formatDescription: format)
        #expect(!input.append(sample))
        #expect(writer.status == .failed)
        #expect(writer.error?.message.contains("carry no ISO sample description") == true)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }
}
