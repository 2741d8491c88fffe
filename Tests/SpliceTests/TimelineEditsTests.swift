import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// The reader honours every edit of every track type on the asset's timeline (empty edits,
/// several media edits), and copies keep a track's zero-length last sample.
@Suite("Timeline edits")
struct TimelineEditsTests {
    /// A 4 s clip at 25 fps (H.264 with B-frames, a key frame every 25 frames) whose video has
    /// three edits: media 0.2–1.2 s at 0, 0.5 s empty, media 2.6–3.4 s at 1.5 s.
    static let edited: Result<URL, Error> = Result {
        let url = Fixtures.path("three-edits.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-c:v", "libx264", "-preset", "veryfast",
                         "-pix_fmt", "yuv420p", "-g", "25", "-bf", "2", url.path])
        try MoovPatch.apply(to: url) { moov in
            moov.modifyTrack(1) { trak in
                let scale = Int64(trak.mediaTimescale)
                // (ffmpeg's first sample presents at the composition offset of its B-frame delay)
                trak.setEditList([(1000, scale / 5 + scale * 2 / 25, 1), (500, -1, 1), (800, scale * 13 / 5 + scale * 2 / 25, 1)])
            }
        }
        return url
    }

    /// The forced subtitle of the grouped movie (edits: 1 s empty, media 0–1 s, media 1.5–2 s):
    /// its cue at 2.0–2.5 s, not at 1.5 s over the cue before, ended there by the track's
    /// zero-length last sample.
    @Test func subtitleEditsInTheMiddle() throws {
        let asset = try Asset(url: try Fixtures.grouped.get())
        let track = try #require(asset.track(withTrackID: 6))
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: track)
        try reader.add(output)
        #expect(reader.startReading())
        var cues: [(Double, Double, Int)] = []
        while let s = output.copyNextSampleBuffer() {
            cues.append((s.presentationTimeStamp.seconds, (s.presentationTimeStamp + s.duration).seconds, try s.data.count))
        }
        #expect(reader.status == .completed)
        #expect(cues.map(\.0) == [1.0, 2.0, 2.5])
        #expect(cues.map(\.1) == [2.0, 2.5, 2.5])
        #expect(cues.map(\.2) == [2, 8, 2])
    }

    /// Decoded frames of a video with three edits, against ffmpeg's decode of the media
    /// (`-ignore_editlist 1`) with the edits applied here.
    @Test func videoWithThreeEditsDecodedFrameExactly() throws {
        let url = try Self.edited.get()
        let media = try Tool.check("ffmpeg", ["-v", "error", "-ignore_editlist", "1", "-i", url.path, "-map", "0:v", "-f", "framemd5", "-"])
            .stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",").last!).trimmingCharacters(in: .whitespaces) }
        #expect(media.count == 100)
        // 0.2–1.2 s is frames 5..<30; 2.6–3.4 s is frames 65..<85.
        let expected = Array(media[5..<30]) + Array(media[65..<85])

        let asset = try Asset(url: url)
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: asset.tracks[0], outputSettings: .video(VideoOutputSettings(pixelFormat: .yuv420p)))
        try reader.add(output)
        #expect(reader.startReading())
        var raw: [UInt8] = []
        var times: [Double] = []
        while let s = output.copyNextSampleBuffer() {
            let picture = try #require(s.imageBuffer)
            raw += picture.packedBytes
            times.append(s.presentationTimeStamp.seconds)
        }
        #expect(reader.status == .completed, "\(reader.error.map { "\($0)" } ?? "")")
        let rawURL = Fixtures.path("three-edits.yuv")
        try Data(raw).write(to: rawURL)
        let ours = try Tool.check("ffmpeg", ["-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "320x240", "-i", rawURL.path, "-f", "framemd5", "-"])
            .stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",").last!).trimmingCharacters(in: .whitespaces) }
        #expect(ours == expected)
        // On the timeline: 0–1 s, then 1.5–2.3 s.
        let want = (0..<25).map { Double($0) / 25 } + (0..<20).map { 1.5 + Double($0) / 25 }
        #expect(times.count == want.count && zip(times, want).allSatisfy { abs($0 - $1) < 0.001 }, "\(times)")
    }
}

extension TimelineEditsTests {
    /// Each track's per-sample durations as its `stts` stores them, in track order, read by
    /// mediainfo's box trace (ffprobe fills in a zero-length last sample's duration).
    static func sampleDurations(_ url: URL) throws -> [[Int]] {
        let lines = try Tool.check("mediainfo", ["--Details=1", url.path]).stdout.split(separator: "\n")
        func value(_ line: Substring) -> Int? { line.split(separator: ":").dropFirst().first?.split(separator: " ").first.flatMap { Int($0) } }
        var tracks: [[Int]] = []
        var count: Int?
        var inside = false
        for line in lines {
            if line.contains("Time to Sample (") { tracks.append([]); inside = true; continue }
            guard inside else { continue }
            if line.contains("Sample Count:") { count = value(line) } else if line.contains("Sample Duration:"), let n = count, let d = value(line) {
                tracks[tracks.count - 1] += Array(repeating: d, count: n)
            } else if !line.contains("Header") && !line.contains("Size:") && !line.contains("Name:") && !line.contains("Version:")
                        && !line.contains("Flags:") && !line.contains("Number of entries:") {
                inside = false
            }
        }
        return tracks
    }

    /// `(presentation time, duration, size)` of each packet of stream `index`, as stored
    /// (ffprobe with `-ignore_editlist 1`).
    static func packets(_ url: URL, stream index: Int) throws -> [String] {
        try Tool.check("ffprobe", ["-v", "error", "-ignore_editlist", "1", "-select_streams", "\(index)", "-show_entries",
                                   "packet=pts_time,duration_time,size", "-of", "csv=p=0", url.path]).stdout
            .split(separator: "\n").map(String.init)
    }

    /// The subtitle tracks of the grouped movie copied by hand (AssetReader passthrough on the
    /// timeline → AssetWriter): track 5 keeps its zero-length last sample, so the last cue
    /// still ends at 2.8 s; track 6's edits become its samples' times, ending at 2.5 s.
    @Test func copiedSubtitlesKeepTheirEnd() async throws {
        let asset = try Asset(url: try Fixtures.grouped.get())
        let out = Fixtures.path("subtitles-copied.mp4")
        try? FileManager.default.removeItem(at: out)
        let reader = try AssetReader(asset: asset)
        let writer = try AssetWriter(outputURL: out)
        var pairs: [(AssetReaderTrackOutput, AssetWriterInput)] = []
        for id in [5, 6] {
            let track = try #require(asset.track(withTrackID: id))
            let output = AssetReaderTrackOutput(track: track)
            try reader.add(output)
            let input = AssetWriterInput(mediaType: track.mediaType, outputSettings: nil, sourceFormatHint: track.formatDescriptions.first)
            try writer.add(input)
            pairs.append((output, input))
        }
        #expect(reader.startReading())
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        for (output, input) in pairs {
            while let s = output.copyNextSampleBuffer() { #expect(input.append(s)) }
            input.markAsFinished()
        }
        try await writer.finishWriting()
        // Track 5: every sample's duration as stored, the zero-length last one included; the
        // same bytes.
        let source = try Self.sampleDurations(try Fixtures.grouped.get())
        let copy = try Self.sampleDurations(out)
        #expect(source[4] == [500_000, 1_000_000, 500_000, 800_000, 0])
        #expect(copy.first == source[4])
        #expect(try Self.packets(out, stream: 0).map { $0.split(separator: ",").last! } == Self.packets(try Fixtures.grouped.get(), stream: 4).map { $0.split(separator: ",").last! })
        // Track 6 on the timeline: an empty edit to 1 s, then the empty cue for 1 s, the forced
        // cue for 0.5 s and the zero-length sample that ends it (at 2.5 s).
        #expect(copy.last == [1_000_000, 500_000, 0])
        let start = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "1", "-show_entries", "packet=pts_time", "-of", "csv=p=0",
                                               "-read_intervals", "%+#1", out.path]).stdout
        #expect(start.hasPrefix("1.000000"), "\(start)")
    }
}

extension TimelineEditsTests {
    /// Every packet of a file as stored, by stream index: "pts,dts,size,md5" in file order.
    static func storedPackets(_ url: URL) throws -> [Int: [String]] {
        let lines = try Tool.check("ffprobe", ["-v", "error", "-ignore_editlist", "1", "-show_data_hash", "md5", "-show_entries",
                                               "packet=stream_index,pts,dts,size,data_hash", "-of", "csv=p=0", url.path]).stdout.split(separator: "\n")
        return Dictionary(grouping: lines, by: { Int($0.split(separator: ",")[0]) ?? -1 }).mapValues { $0.map { String($0.drop { $0 != "," }) } }
    }

    /// `splice subtitles add` leaves the movie's own tracks' samples exactly as they were: times,
    /// durations (the zero-length last samples of the subtitle tracks too) and bytes.
    @Test func addingSubtitlesLeavesTheOtherTracksAsTheyWere() throws {
        let input = try Fixtures.grouped.get()
        let srt = Fixtures.path("added.srt")
        try "1\n00:00:00,500 --> 00:00:01,000\nAdded\n".write(to: srt, atomically: true, encoding: .utf8)
        let out = Fixtures.path("subtitles-added.mp4")
        let r = try Tool.splice(["subtitles", "add", input.path, srt.path, "-o", out.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let before = try Self.sampleDurations(input), after = try Self.sampleDurations(out)
        #expect(after.count == before.count + 1)
        #expect(Array(after.prefix(before.count)) == before)
        #expect(before[4].last == 0 && before[5].last == 0)
        var copied = try Self.storedPackets(out)
        #expect(copied.removeValue(forKey: before.count) != nil)   // the new track
        #expect(copied == (try Self.storedPackets(input)))
    }
}
