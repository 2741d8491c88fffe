import Foundation
import ISOBMFF
import MediaCore
import Splice
import Testing
import TestSupport

/// Real-world timing into libavformat's muxers: Matroska's `DefaultDuration`, TS timestamp faults
/// (presentation before decode, a repeated decode time) repaired with a counted warning, codings a
/// container cannot describe refused by name, and a muxer's refusal told as the sample it refused.
@Suite("Real-world timing")
struct RealWorldTimingTests {
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts")

    /// H.264 with two B-frames + AAC in MPEG-TS, 2 s at 30000/1001, as HLS segments are.
    static let segment: Result<URL, Error> = Result {
        let url = Fixtures.path("timing-segment.ts")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=30000/1001:duration=2", "-f", "lavfi", "-i", "sine=duration=2",
                         "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-c:a", "aac", url.path])
        return url
    }

    static func mkvDefaultDurations(_ url: URL) throws -> [Int?] {
        let json = try Tool.check("mkvmerge", ["-J", url.path]).stdout
        let tracks = try #require((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["tracks"] as? [[String: Any]])
        return tracks.map { ($0["properties"] as? [String: Any])?["default_duration"] as? Int }
    }

    /// (pts, dts) of the first video stream's packets; nil where ffprobe says N/A.
    static func videoTimes(_ url: URL) throws -> [(pts: Int?, dts: Int?)] {
        try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,dts", "-of", "csv=p=0", url.path])
            .stdout.split(separator: "\n").compactMap { line in
                let f = line.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
                return f.count >= 2 ? (f[0], f[1]) : nil
            }
    }

    static func streamHash(_ url: URL) throws -> String {
        try Tool.check("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:v", "-map", "0:a?", "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]).stdout
    }

    @Test func matroskaOutputKeepsTheFrameRate() throws {
        let sources: [(String, [String])] = [
            ("timing-vp9.webm", ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "200k"]),
            ("timing-ffv1.mkv", ["-c:v", "ffv1"]),
            ("timing-mpeg4.avi", ["-c:v", "mpeg4"]),
            ("timing-ntsc.mp4", ["-c:v", "libx264", "-preset", "ultrafast", "-r", "30000/1001"]),
        ]
        for (name, codec) in sources {
            let source = Fixtures.path(name), out = Fixtures.path(name + ".out.mkv"), reference = Fixtures.path(name + ".ffmpeg.mkv")
            try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=24:duration=1"] + codec + [source.path])
            try Tool.ffmpeg(["-i", source.path, "-c", "copy", reference.path])
            let r = try Tool.splice(["remux", source.path, out.path, "--force"])
            #expect(r.status == 0, "\(name): \(r.stderr)")
            let expected = try Self.mkvDefaultDurations(reference)
            #expect(expected.first??.description != nil, "\(name): ffmpeg wrote no DefaultDuration")
            #expect(try Self.mkvDefaultDurations(out) == expected, "\(name)")
            #expect(try Self.videoTimes(out).count == Self.videoTimes(reference).count)
            let durations = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=duration", "-of", "csv=p=0", out.path]).stdout
            #expect(!durations.contains("N/A"), "\(name): blocks without a duration")
        }
        // Variable-rate video gets no default: readers take durations from the timestamps.
        let vfr = Fixtures.path("timing-vfr.mp4"), out = Fixtures.path("timing-vfr.mkv")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=24:duration=1", "-vf", "setpts=(N+floor(N/2))/24/TB",
                         "-fps_mode", "passthrough", "-c:v", "libx264", "-preset", "ultrafast", vfr.path])
        #expect(try Tool.splice(["remux", vfr.path, out.path, "--force"]).status == 0)
        #expect(try Self.mkvDefaultDurations(out) == [nil])
    }

    /// An MPEG-TS segment of H.264 at 60 fps whose SPS says no frame rate, with Opus: the
    /// demuxer gives the packets it read while probing no duration, and the segment's first gap
    /// is odd (cut out of a longer stream). The Matroska output still has a `DefaultDuration`
    /// (as ffmpeg's), so every video packet has a duration.
    @Test func transportStreamWithoutFrameDurationsGetsADefaultDuration() throws {
        let coded = Fixtures.path("timing-60fps.h264"), bare = Fixtures.path("timing-60fps-bare.h264")
        let mp4 = Fixtures.path("timing-60fps.mp4"), ts = Fixtures.path("timing-60fps.ts")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=60", "-t", "1.4", "-c:v", "libx264", "-preset", "veryfast",
                         "-bf", "2", "-g", "60", "-f", "h264", coded.path])
        try SPSTiming.removingTimingInfo(Data(contentsOf: coded)).write(to: bare)
        try Tool.ffmpeg(["-fflags", "+genpts", "-r", "60", "-i", bare.path, "-c", "copy", mp4.path])
        try Tool.ffmpeg(["-i", mp4.path, "-f", "lavfi", "-i", "sine=sample_rate=48000", "-t", "1.4", "-map", "0:v", "-map", "1:a",
                         "-c:v", "copy", "-c:a", "libopus", "-f", "mpegts", ts.path])
        let rate = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream=avg_frame_rate", "-of", "csv=p=0", ts.path])
        #expect(rate.stdout.split(separator: "\n").last == "0/0", "the demuxer knows no average frame rate: \(rate.stdout)")
        let out = Fixtures.path("timing-60fps.mkv")
        let r = try Tool.splice(["remux", ts.path, out.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.mkvDefaultDurations(out).first == 16_666_666)
        let durations = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=duration", "-of", "csv=p=0", out.path])
            .stdout.split(separator: "\n")
        #expect(durations.count >= 80 && !durations.contains("N/A"), "\(durations)")
    }

    @Test(arguments: [("pts-before-dts", "5", "moved by at most 33 ms"), ("repeat-dts", "8", "moved by less than 1 ms")])
    func transportStreamTimestampFaultsAreRepaired(fault: String, packet: String, moved: String) throws {
        let clean = try Self.segment.get(), damaged = Fixtures.path("timing-\(fault).ts")
        let patched = try Tool.check(Self.scripts.appendingPathComponent("ts-timestamps").path, [fault, clean.path, damaged.path, packet])
        #expect(patched.status == 0)
        let faulty = try Self.videoTimes(damaged)
        #expect(zip(faulty, faulty.dropFirst()).contains { a, b in (b.dts ?? b.pts!) <= (a.dts ?? a.pts!) } || faulty.contains { ($0.pts ?? 0) < ($0.dts ?? 0) })
        for ext in ["mkv", "ts", "mp4"] {
            let out = Fixtures.path("timing-\(fault)-out.\(ext)"), reference = Fixtures.path("timing-\(fault)-ffmpeg.\(ext)")
            let r = try Tool.splice(["remux", damaged.path, out.path, "--force"])
            #expect(r.status == 0, "\(ext): \(r.stderr)")
            #expect(r.stderr.contains("track 1: 1 packet had its times out of order") && r.stderr.contains(moved), "\(r.stderr)")
            let times = try Self.videoTimes(out)
            #expect(times.count == faulty.count, "\(ext): every packet is kept")
            if ext != "mkv" {   // (Matroska stores presentation times only.)
                #expect(zip(times, times.dropFirst()).allSatisfy { $1.dts! > $0.dts! }, "\(ext): decode times increase")
                #expect(times.allSatisfy { $0.pts! >= $0.dts! }, "\(ext): presentation is not before decode")
            }
            if ext != "ts" {   // (TS → TS rewrites H.264's trailing zero bytes; the other two are byte-exact.)
                try Tool.ffmpeg(["-i", damaged.path, "-c", "copy", reference.path])
                #expect(try Self.streamHash(out) == Self.streamHash(reference), "\(ext)")
            }
        }
    }

    /// An MP4 whose composition offsets are negative (`ctts` version 1, as Apple's and ffmpeg's
    /// `negative_cts_offsets` write) goes to Matroska and TS: decode times move earlier by the
    /// largest lead, as ffmpeg's reader does, instead of the muxer refusing pts < dts.
    @Test func negativeCompositionOffsetsGoToMatroskaAndTS() throws {
        let source = try Fixtures.negativeCTS.get()
        let hashes = { (u: URL) in
            try Tool.check("ffmpeg", ["-v", "error", "-i", u.path, "-map", "0:v", "-c", "copy", "-f", "framemd5", "-"]).stdout
                .split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last }
        }
        #expect(try Self.videoTimes(source).contains { ($0.pts ?? 0) < ($0.dts ?? 0) } == false)   // (ffmpeg's reader shifts them)
        for ext in ["mkv", "ts"] {
            let out = Fixtures.path("timing-negative-cts.\(ext)")
            let r = try Tool.splice(["remux", source.path, out.path, "--force"])
            #expect(r.status == 0, "\(ext): \(r.stderr)")
            if ext == "mkv" {
                #expect(try hashes(out) == hashes(source))
            } else {
                #expect(try hashes(out).count == hashes(source).count)   // (TS: Annex B)
            }
            #expect(try Tool.check("ffmpeg", ["-v", "error", "-i", out.path, "-f", "null", "-"]).stderr.isEmpty)
            if ext == "ts" {
                let times = try Self.videoTimes(out)
                #expect(times.allSatisfy { $0.pts! >= $0.dts! } && zip(times, times.dropFirst()).allSatisfy { $1.dts! > $0.dts! })
            }
        }
    }

    /// Subtitle cues that start together are overlapping cues, not a timestamp fault.
    @Test func cuesStartingTogetherAreNotRepaired() throws {
        let srt = try Fixtures.write("timing-same.srt", "1\n00:00:00,500 --> 00:00:01,000\nTop\n\n2\n00:00:00,500 --> 00:00:01,500\nBottom\n")
        let mkv = Fixtures.path("timing-same.mkv"), out = Fixtures.path("timing-same-out.mkv")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-i", srt.path,
                         "-c:v", "libx264", "-preset", "ultrafast", "-c:s", "srt", mkv.path])
        let r = try Tool.splice(["remux", mkv.path, out.path, "--force"])
        #expect(r.status == 0 && !r.stderr.contains("out of order"), "\(r.stderr)")
        let packets = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "s", "-show_entries", "packet=pts,duration", "-of", "csv=p=0", out.path])
        #expect(packets.stdout == "500,500\n500,1000\n", "\(packets.stdout)")
    }

    @Test func codingsAContainerCannotDescribeAreRefusedByName() throws {
        let script = Self.scripts.appendingPathComponent("iso-patch").path
        let aac = Fixtures.path("timing-aac.mp4"), usac = Fixtures.path("timing-usac.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac", aac.path])
        #expect(try Tool.check(script, ["usac", aac.path, usac.path]).status == 0)
        let hevc = Fixtures.path("timing-hevc.mp4"), mvhevc = Fixtures.path("timing-mvhevc.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=1", "-c:v", "libx265", "-x265-params", "log-level=error",
                         "-tag:v", "hvc1", "-vf", "setsar=2", hevc.path])
        #expect(try Tool.check(script, ["rename", hevc.path, mvhevc.path, "pasp", "lhvC"]).status == 0)
        // Messages name the source's track ID (5 here), not the track's position in the output.
        try MoovPatch.apply(to: mvhevc) { moov in
            moov.modifyTrack(1) { trak in
                trak.modifyChild("tkhd") { tkhd in
                    let o = tkhd.payload[0] == 1 ? 20 : 12
                    tkhd.payload.replaceSubrange(o..<o + 4, with: [0, 0, 0, 5])
                }
            }
        }
        let refused: [(URL, String, String)] = [
            (usac, "ts", "track 1: xHE-AAC (USAC, audio object type 42) cannot be carried in mpegts files"),
            (mvhevc, "ts", "track 5: MV-HEVC (a second view, configured in 'lhvC') cannot be carried in mpegts files"),
            (mvhevc, "mkv", "track 5: MV-HEVC (a second view, configured in 'lhvC') cannot be carried in matroska files"),
        ]
        for (source, ext, message) in refused {
            let out = Fixtures.path("timing-refused.\(ext)")
            try? FileManager.default.removeItem(at: out)
            let r = try Tool.splice(["remux", source.path, out.path])
            #expect(r.status == 65 && r.stderr.contains(message), "\(r.stderr)")
            #expect(!r.stderr.contains("Invalid argument") && !FileManager.default.fileExists(atPath: out.path))
        }
        // Matroska's A_AAC holds any AudioSpecificConfig; MP4 keeps the lhvC as it is.
        let mkv = Fixtures.path("timing-usac.mkv"), mp4 = Fixtures.path("timing-mvhevc-out.mp4")
        #expect(try Tool.splice(["remux", usac.path, mkv.path, "--force"]).status == 0)
        #expect(try Tool.check("mkvmerge", ["-J", mkv.path]).stdout.contains("\"codec\": \"AAC\""))
        #expect(try Tool.splice(["remux", mvhevc.path, mp4.path, "--force"]).status == 0)
        #expect(try Data(contentsOf: mp4).range(of: Data("lhvC".utf8)) != nil)
    }

    @Test func aMuxersRefusalNamesTheSample() async throws {
        let asset = try Asset(url: try Self.segment.get())
        let video = try #require(asset.tracks.first { $0.mediaType == .video })
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: video, outputSettings: nil)
        try reader.add(output)
        #expect(reader.startReading())
        let url = Fixtures.path("timing-refused-by-muxer.mkv")
        try? FileManager.default.removeItem(at: url)
        let writer = try AssetWriter(outputURL: url, fileType: .mkv)
        let input = AssetWriterInput(mediaType: .video, sourceFormatHint: video.formatDescriptions.first)
        try writer.add(input)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        var k = 0
        while let s = output.copyNextSampleBuffer() {
            var sample = s
            // A sample well after the first written is said to be shown a second before it is
            // decoded (the first ones set how far decode may lead presentation).
            if k == 50 { sample.presentationTimeStamp = sample.decodeTimeStamp - MediaTime(value: 1, timescale: 1) }
            k += 1
            while !input.isReadyForMoreMediaData && writer.status == .writing { usleep(1000) }
            if !input.append(sample) { break }
        }
        input.markAsFinished()
        try? await writer.finishWriting()
        #expect(writer.status == .failed)
        let message = writer.error?.message ?? ""
        #expect(message.contains("track 1: the matroska muxer refused the sample at decode time") && message.contains(#/: pts \(\d+\) < dts \(\d+\)$/#), "\(message)")
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }
}
