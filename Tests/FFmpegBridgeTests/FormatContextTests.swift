import Foundation
import Testing
import MediaCore
import FFmpegBridge
import TestSupport

/// The libavformat wrappers on their own: what an input's streams say (codec parameters and
/// metadata), how the demuxer and timeline hand out a stream's samples, and that the codec
/// parameters written into an output are what ffprobe reads back — with ffmpeg as the
/// independent producer and ffprobe as the judge.
@Suite("FFmpegBridge: inputs, demuxing, outputs")
struct FormatContextTests {
    /// H.264 with B-frames (320x240) + stereo AAC in French (default) + mono AC-3 titled "Commentary".
    static let matroska: Result<URL, Error> = Result {
        let url = Fixtures.path("bridge.mkv")
        try Tool.ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=2",
            "-f", "lavfi", "-i", "sine=frequency=440:duration=2:sample_rate=48000",
            "-f", "lavfi", "-i", "sine=frequency=660:duration=2:sample_rate=44100",
            "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2",
            "-c:a:0", "aac", "-ac:a:0", "2", "-c:a:1", "ac3", "-ac:a:1", "1",
            "-metadata:s:a:0", "language=fre", "-metadata:s:a:1", "title=Commentary",
            "-disposition:a:0", "default", "-disposition:a:1", "0", url.path,
        ])
        return url
    }

    static func packetCounts(_ url: URL) throws -> [Int] {
        let r = try Tool.check("ffprobe", ["-v", "error", "-count_packets", "-show_entries", "stream=nb_read_packets",
                                           "-of", "csv=p=0", url.path])
        return r.stdout.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    @Test func streamsDescribeTheirCodecsAndMetadata() throws {
        let input = try InputFormatContext(path: try Self.matroska.get().path)
        let streams = input.streams
        #expect(streams.map(\.codec.codecName) == ["h264", "aac", "ac3"])
        #expect(streams.map(\.mediaType) == [.video, .audio, .audio])
        let video = streams[0].codec
        #expect(video.width == 320 && video.height == 240)
        #expect(video.extradata.first == 1)                       // avcC, not Annex B
        #expect(video.reorderDelay > 0)                           // B-frames
        #expect(streams[1].codec.sampleRate == 48000 && streams[1].codec.channelCount == 2)
        #expect(streams[1].codec.channelLayoutMask == 0x3)        // front left + right
        #expect(streams[2].codec.sampleRate == 44100 && streams[2].codec.channelCount == 1)
        #expect(streams[1].metadata.language == "fre" && streams[1].metadata.isDefault)
        #expect(streams[2].metadata.title == "Commentary" && !streams[2].metadata.isDefault)
    }

    /// Probing names the demuxer an open would use, reading no more than the file's first bytes;
    /// an input opened with that name reads as one probed; what no demuxer knows is refused.
    @Test func probingNamesTheDemuxerWithoutOpening() throws {
        let mkv = try Self.matroska.get()
        let named = Fixtures.path("bridge-probe.bin")
        try? FileManager.default.removeItem(at: named)
        try FileManager.default.copyItem(at: mkv, to: named)
        #expect(try InputFormatContext.probe(path: mkv.path) == "matroska,webm")
        #expect(try InputFormatContext.probe(path: named.path) == "matroska,webm")
        let opened = try InputFormatContext(path: named.path, format: "matroska,webm")
        #expect(opened.formatName == "matroska,webm" && opened.streams.count == 3)
        let text = try Fixtures.write("bridge-probe.txt", "")
        #expect(throws: FFmpegError.self) { try InputFormatContext.probe(path: text.path) }
        #expect(throws: FFmpegError.self) { try InputFormatContext.probe(path: Fixtures.path("nowhere.bin").path) }
    }

    @Test func timelinesHandOutEveryPacketInDecodeOrder() throws {
        let url = try Self.matroska.get()
        let input = try InputFormatContext(path: url.path)
        let streams = input.streams
        let demuxer = try PacketDemuxer(path: url.path, streams: Set(streams.map(\.index)))
        var counts: [Int] = []
        for s in streams {
            let format = FormatDescription(parameters: s.codec)
            var timeline = PacketTimeline(stream: s.index, timeBase: s.timeBase, conversion: .none, format: format)
            timeline.reordersFrames = s.codec.reorderDelay > 0
            var n = 0
            var last: MediaTime?
            var keyFrames = 0
            while let sample = try timeline.next(from: demuxer) {
                if let last { #expect(sample.decodeTimeStamp >= last) }
                #expect(sample.presentationTimeStamp >= sample.decodeTimeStamp || s.mediaType == .audio)
                #expect(sample.duration > .zero)
                if sample.isSync { keyFrames += 1 }
                last = sample.decodeTimeStamp
                n += 1
            }
            #expect(keyFrames >= 1)
            counts.append(n)
        }
        #expect(counts == (try Self.packetCounts(url)))
    }

    @Test func outputStreamsCarryTheCodecParametersAndMetadata() throws {
        let source = try Self.matroska.get()
        let input = try InputFormatContext(path: source.path)
        let streams = input.streams
        let target = Fixtures.path("bridge-copy.mkv")
        try? FileManager.default.removeItem(at: target)
        let file = try OutputFile(destination: target.path, replacing: true)
        let output = try OutputFormatContext(formatName: "matroska", file: file)
        for s in streams {
            var metadata = s.metadata
            if s.index == 2 { metadata.language = "ger"; metadata.isForced = true }
            _ = try output.addStream(s.codec, metadata: metadata, timeBase: s.timeBase)
        }
        try output.writeHeader()
        // The samples as the timeline hands them out (decode times filled in for Matroska's
        // B-frames), stream after stream: the muxer interleaves them.
        let demuxer = try PacketDemuxer(path: source.path, streams: Set(streams.map(\.index)))
        for s in streams {
            var timeline = PacketTimeline(stream: s.index, timeBase: s.timeBase, conversion: .none,
                                          format: FormatDescription(parameters: s.codec))
            let tb = output.timeBase(ofStream: s.index)
            func ticks(_ t: MediaTime) -> Int64 { t.ticks(numerator: tb.num, denominator: tb.den) }
            while let sample = try timeline.next(from: demuxer) {
                try output.write(sample.data, stream: s.index, presentationTime: ticks(sample.presentationTimeStamp),
                                 decodeTime: ticks(sample.decodeTimeStamp), duration: ticks(sample.duration), isKeyFrame: sample.isSync)
            }
        }
        try output.writeTrailer()
        try file.commit()

        let probed = try Tool.ffprobeStreams(target)
        #expect(probed.map { $0["codec_name"] as? String } == ["h264", "aac", "ac3"])
        #expect(probed[0]["width"] as? Int == 320 && probed[0]["height"] as? Int == 240)
        #expect(probed[1]["channel_layout"] as? String == "stereo")
        #expect(probed[2]["sample_rate"] as? String == "44100")
        let tags = probed.map { $0["tags"] as? [String: Any] ?? [:] }
        let dispositions = probed.map { $0["disposition"] as? [String: Int] ?? [:] }
        #expect(tags[1]["language"] as? String == "fre" && dispositions[1]["default"] == 1)
        #expect(tags[2]["language"] as? String == "ger" && tags[2]["title"] as? String == "Commentary")
        #expect(dispositions[2]["forced"] == 1 && dispositions[2]["default"] == 0)
        func hashes(_ url: URL) throws -> String {
            try Tool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0", "-c", "copy",
                                      "-f", "streamhash", "-hash", "md5", "-"]).stdout
        }
        #expect(try hashes(target) == hashes(source))
    }
}
