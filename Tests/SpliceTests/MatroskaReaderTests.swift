import Foundation
import MediaCore
@testable import Splice
import Testing
import TestSupport

/// The native Matroska reader (`MatroskaSource`) against libavformat's (`FormatSource`) on the
/// same files, made by the two common muxers (mkvmerge, which laces audio, and ffmpeg): the same
/// tracks, sample entries, and every sample's bytes and times. Then the copy into MP4 it exists
/// for, checked with ffprobe, and the files it leaves to libavformat.
@Suite("Matroska read natively")
struct MatroskaReaderTests {
    /// Sources of different shapes: B-frame depth, codec (H.264, HEVC, VP9, AV1; AAC, AC-3,
    /// E-AC-3), rate, channels; sound alone (which mkvmerge times in ticks of one sample,
    /// 22,676 ns at 44.1 kHz, where ffmpeg's muxer keeps milliseconds).
    static let sources: Result<[String: URL], Error> = Result {
        let shapes: [(String, [String])] = [
            ("h264-bf2", ["-f", "lavfi", "-i", "testsrc2=s=320x240:r=25", "-f", "lavfi", "-i", "sine=f=440:r=48000",
                          "-t", "2", "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g", "25",
                          "-c:a", "aac", "-ac", "2", "-b:a", "128k"]),
            ("h264-bf3-ntsc", ["-f", "lavfi", "-i", "testsrc2=s=320x240:r=24000/1001", "-f", "lavfi", "-i", "sine=f=1000:r=44100",
                               "-t", "2", "-c:v", "libx264", "-preset", "fast", "-bf", "3", "-g", "30",
                               "-c:a", "aac", "-ac", "1", "-b:a", "64k"]),
            ("hevc", ["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30000/1001", "-f", "lavfi", "-i", "sine=f=440:r=48000",
                      "-t", "2", "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "bframes=4:log-level=error",
                      "-c:a", "aac", "-b:a", "96k"]),
            ("vp9-ac3", ["-f", "lavfi", "-i", "testsrc2=s=320x240:r=25", "-f", "lavfi", "-i", "sine=f=440:r=48000",
                         "-t", "2", "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-g", "25",
                         "-c:a", "ac3", "-b:a", "128k"]),
            ("av1-eac3", ["-f", "lavfi", "-i", "testsrc2=s=160x120:r=25", "-f", "lavfi", "-i", "sine=f=440:r=48000",
                          "-t", "1", "-c:v", "libaom-av1", "-cpu-used", "8", "-g", "12",
                          "-c:a", "eac3", "-b:a", "96k"]),
            ("aac-only", ["-f", "lavfi", "-i", "sine=f=440:r=44100", "-t", "3", "-c:a", "aac", "-b:a", "64k"]),
            ("h264-large", ["-f", "lavfi", "-i", "testsrc2=s=320x240:r=25,noise=alls=40:allf=t", "-f", "lavfi", "-i", "sine=f=440:r=48000",
                            "-t", "1", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-c:a", "aac", "-b:a", "128k"]),
        ]
        var made: [String: URL] = [:]
        for (name, args) in shapes {
            let mp4 = Fixtures.path("mkvnative-\(name).\(name.hasPrefix("h") ? "mp4" : "mkv")")
            try Tool.ffmpeg(args + [mp4.path])
            let merged = Fixtures.path("mkvnative-\(name)-mkvmerge.mkv")
            try Tool.check("mkvmerge", ["-q", "-o", merged.path, mp4.path])
            made["\(name)-mkvmerge"] = merged
            let copied = Fixtures.path("mkvnative-\(name)-ffmpeg.mkv")
            try Tool.ffmpeg(["-i", mp4.path, "-map", "0", "-c", "copy", "-metadata", "title=Native", "-metadata:s:a:0", "language=fre",
                             "-metadata:s:v:0", "title=Picture", "-disposition:a:0", "0", copied.path])
            made["\(name)-ffmpeg"] = copied
        }
        return made
    }

    static let names = ["h264-bf2-mkvmerge", "h264-bf2-ffmpeg", "h264-bf3-ntsc-mkvmerge", "h264-bf3-ntsc-ffmpeg", "hevc-mkvmerge", "hevc-ffmpeg",
                        "vp9-ac3-mkvmerge", "vp9-ac3-ffmpeg", "av1-eac3-mkvmerge", "av1-eac3-ffmpeg", "aac-only-mkvmerge", "aac-only-ffmpeg",
                        "h264-large-mkvmerge", "h264-large-ffmpeg"]

    @Test("the same tracks and samples as libavformat reads", arguments: names)
    func sameAsLibavformat(_ name: String) throws {
        let url = try #require(try Self.sources.get()[name])
        let native = try MatroskaSource.load(try ReadOnlyFile(path: url.path))
        let other = try FormatSource.load(url.path)
        #expect(native.format == other.format)
        #expect(abs(native.duration.seconds - other.duration.seconds) < 0.001)
        #expect(native.startTime == other.startTime)
        try #require(native.tracks.count == other.tracks.count)
        for (a, b) in zip(native.tracks, other.tracks) {
            #expect(a.trackID == b.trackID && a.mediaType == b.mediaType)
            #expect(a.formatDescriptions[0].sampleEntry == b.formatDescriptions[0].sampleEntry, "track \(a.trackID): sample entry")
            #expect(a.languageCode == b.languageCode && a.name == b.name, "track \(a.trackID)")
            #expect(a.isDefault == b.isDefault && a.isForced == b.isForced, "track \(a.trackID)")
            #expect(a.naturalSize == b.naturalSize && a.naturalTimeScale == b.naturalTimeScale)
            #expect(abs(a.timeRange.duration.seconds - b.timeRange.duration.seconds) < 0.001)
            let mine = try samples(of: a, in: native.source)
            let theirs = try samples(of: b, in: other.source)
            try #require(mine.count == theirs.count, "track \(a.trackID): \(mine.count) samples, libavformat reads \(theirs.count)")
            for (i, (x, y)) in zip(mine, theirs).enumerated() {
                let at = "track \(a.trackID) sample \(i)"
                #expect(try x.data == y.data, "\(at): bytes")
                #expect(x.presentationTimeStamp == y.presentationTimeStamp && x.isSync == y.isSync && x.trimDurationAtEnd == y.trimDurationAtEnd,
                        "\(at): \(x.presentationTimeStamp) \(x.isSync) against \(y.presentationTimeStamp) \(y.isSync)")
                // libavformat delays decoding by the stream's declared reorder depth (x264 declares
                // 2 for -bf 2); the native reader by the least its frames need, never more.
                #expect(x.decodeTimeStamp >= y.decodeTimeStamp && x.decodeTimeStamp <= x.presentationTimeStamp, "\(at): decode time")
                if i > 0 { #expect(x.decodeTimeStamp > mine[i - 1].decodeTimeStamp, "\(at): decode order") }
                if x.decodeTimeStamp == y.decodeTimeStamp, i + 1 == mine.count || mine[i + 1].decodeTimeStamp == theirs[i + 1].decodeTimeStamp {
                    #expect(x.duration == y.duration, "\(at): duration \(x.duration) against \(y.duration)")
                }
            }
        }
        #expect(native.source.movieMetadata.map(\.description) == other.source.movieMetadata.map(\.description))
    }

    static let notSanitized = ProcessInfo.processInfo.environment["SPLICE_SANITIZER"] == nil

    /// `splice remux` of Matroska into MP4, traced: FFmpeg is never opened, frames of 64 KiB and
    /// more (lossless video) are copied file to file one call each, and smaller ones a block
    /// header apart are read in runs of up to 1 MiB rather than copied one call each; the copy
    /// holds the same packets and decodes to the same pictures and sound as the source. (Not
    /// under the sanitizers, which stop a traced process.)
    @Test(.enabled(if: notSanitized), arguments: ["h264-bf2-mkvmerge", "h264-bf2-ffmpeg", "hevc-mkvmerge", "aac-only-mkvmerge",
                                                  "aac-only-ffmpeg", "h264-large-ffmpeg"])
    func remuxToMP4IsAFileToFileCopy(_ name: String) throws {
        let source = try #require(try Self.sources.get()[name])
        let out = Fixtures.path("mkvnative-\(name).mp4-copy.mp4")
        let log = Fixtures.path("mkvnative-\(name).strace")
        let r = try Tool.run("strace", ["-f", "-qq", "-e", "trace=openat,copy_file_range", "-o", log.path,
                                        Tool.spliceBinary, "remux", source.path, out.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let trace = try String(contentsOf: log, encoding: .utf8)
        #expect(!trace.contains("libavformat") && !trace.contains("libavcodec"), "FFmpeg was loaded")
        let copies = trace.components(separatedBy: "copy_file_range(").count - 1
        // 25 lossless pictures of over 100 KB each copied on their own; 50 to 130 small frames
        // (2 to 9 KB pictures, AAC) in a few runs (a key frame or a cluster's headers break one).
        #expect(name.hasSuffix("large-ffmpeg") ? copies >= 25 : copies < 20, "\(copies) copies")
        let hasVideo = !name.hasPrefix("aac")
        #expect(try ContainerTests.payloadHashes(out) == ContainerTests.payloadHashes(source))
        func decoded(_ url: URL, _ stream: String) throws -> [String] {
            try Tool.check("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:\(stream)", "-f", "framemd5", "-"]).stdout
                .split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",").last ?? "") }
        }
        if hasVideo { #expect(try decoded(out, "v") == decoded(source, "v")) }
        #expect(try decoded(out, "a") == decoded(source, "a"))
    }

    /// Times no muxer writes — frames shown in reverse, lasting as long as an `Int64` can — are
    /// refused by the native reader (counting decode times back would overflow), not trapped on.
    @Test func hostileTimesAreRefusedNotTrapped() throws {
        func group(_ time: Int16, _ duration: UInt64) -> [UInt8] {
            EBMLBuilder.element(0xA0, EBMLBuilder.element(0xA1, EBMLBuilder.blockBody(time, flags: 0, [0, 0, 0, 1, 0x65]))
                                + EBMLBuilder.uint(0x9B, duration))
        }
        let longest = UInt64(Int64.max)
        let bytes = EBMLBuilder.file(type: 1, codec: "V_MPEG4/ISO/AVC", codecPrivate: [1, 0x64, 0, 0x1F, 0xFF, 0xE0, 0],
                                     clusters: [EBMLBuilder.cluster(0, group(2, longest), group(1, longest), group(0, 1))])
        let url = Fixtures.path("mkvnative-hostile.mkv")
        try Data(bytes).write(to: url)
        let error = #expect(throws: MediaError.self) { try MatroskaSource.load(try ReadOnlyFile(path: url.path)) }
        #expect(error?.code == .unsupported && error?.message.contains("decode times") == true, "\(String(describing: error))")
        _ = try? Asset(url: url)   // libavformat's turn: an asset or an error, never a trap
    }

    private func samples(of track: AssetTrack, in source: any AssetSource) throws -> [SampleBuffer] {
        let cursor = try source.makeSession(reading: [track], timeRange: .everything).makeCursor(for: track, span: .all, copiesSampleData: true)
        var all: [SampleBuffer] = []
        while let s = try cursor.next() { all.append(s) }
        return all
    }
}
