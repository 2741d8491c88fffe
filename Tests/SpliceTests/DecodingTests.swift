import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// Decoded output through libavcodec, checked against ffmpeg's decode of the same file.
@Suite("Decoding")
struct DecodingTests {
    static func decode(_ track: AssetTrack, _ settings: OutputSettings, range: TimeRange = .everything) throws -> [SampleBuffer] {
        try readAll(track, settings: settings, range: range)
    }

    /// ffmpeg's decoded frames of the first video stream (in their own 8-bit 4:2:0, 4:2:2 or
    /// 4:4:4 format), one `Data` each.
    static func ffmpegFrames(_ url: URL, width: Int, height: Int, format: PixelBuffer.PixelFormat) throws -> [Data] {
        // Through a file: megabytes of frames are slow to take from a pipe as text.
        // A file of this call's own: tests running in parallel may decode the same movie.
        let raw = Fixtures.path(url.lastPathComponent + "-\(UUID().uuidString).\(format.rawValue).raw")
        defer { try? FileManager.default.removeItem(at: raw) }
        try Tool.ffmpeg(["-i", url.path, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", format.rawValue, raw.path])
        let data = try Data(contentsOf: raw)
        let size = (0..<format.planeCount).reduce(0) { let p = format.planeSize($1, width: width, height: height); return $0 + p.rowBytes * p.rows }
        return stride(from: 0, to: data.count - size + 1, by: size).map { data.subdata(in: $0..<($0 + size)) }
    }

    /// The PCM of an AAC track equals ffmpeg's decode (the same decoder) sample for sample over
    /// the edit's interval: priming removed, the trimmed end too.
    @Test func aacDecodesLikeFFmpeg() throws {
        let url = try Fixtures.grouped.get()
        let asset = try Asset(url: url)
        let samples = try DecodingTests.decode(asset.tracks[1], .audio(AudioOutputSettings(sampleFormat: .f32)))
        let ours = samples.flatMap { $0.pcmBuffer!.bytes }
        // ffmpeg skips the priming but decodes on past the edit's end: compare over the edit (3 s).
        let theirs = try Tool.check("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:a:0", "-f", "f32le", "-"]).stdoutData
        #expect(ours.count == 3 * 44100 * 4, "\(ours.count / 4) samples")
        #expect(Data(ours) == theirs.prefix(ours.count))
        #expect(samples.first?.presentationTimeStamp == .zero)
        #expect(samples.first?.pcmBuffer?.format.sampleRate == 44100)
        // Resampled and converted: 48 kHz stereo s16, about 3 s of it.
        let converted = try DecodingTests.decode(asset.tracks[1], .audio(AudioOutputSettings(sampleFormat: .s16, sampleRate: 48000, channelCount: 2)))
        let frames = converted.reduce(0) { $0 + $1.pcmBuffer!.frameCount }
        #expect(abs(frames - 144_000) < 1200, "\(frames) frames")
        #expect(converted.allSatisfy { $0.pcmBuffer!.format == PCMBuffer.Format(sampleFormat: .s16, isPlanar: false, sampleRate: 48000, channelCount: 2, channelLayoutMask: 3) })
    }

    /// A range that starts between sync samples gives exactly the source's frames of the range.
    @Test(arguments: ["grouped", "matroska", "transportStream"])
    func aRangeStartingMidGOPIsFrameExact(_ name: String) throws {
        let url = name == "transportStream" ? try DecodingTests.transportStream() : try fixture(name)
        let asset = try Asset(url: url)
        let video = asset.tracks.first { $0.mediaType == .video }!
        let size = video.naturalSize!
        let range = TimeRange(start: MediaTime(value: 1200, timescale: 1000), duration: MediaTime(value: 500, timescale: 1000))
        // The source's own pixel format, so that no conversion stands between the two decodes.
        let probe = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=pix_fmt", "-of", "csv=p=0", url.path])
        let format = try #require(PixelBuffer.PixelFormat(rawValue: String(probe.stdout.split(separator: "\n").first ?? "")))
        let ours = try DecodingTests.decode(video, .video(VideoOutputSettings(pixelFormat: format)), range: range)
        // ffprobe's frame times, on the asset's timeline (less the file's start time).
        let frames = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", url.path])
        let times = frames.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }
        let origin = asset.startTime.seconds
        let wanted = times.indices.filter { times[$0] - origin >= 1.2 - 1e-6 && times[$0] - origin < 1.7 - 1e-6 }
        #expect(ours.count == wanted.count, "\(ours.count) frames against \(wanted.count)")
        let theirs = try DecodingTests.ffmpegFrames(url, width: size.width, height: size.height, format: format)
        for (sample, k) in zip(ours, wanted) {
            #expect(Data(sample.imageBuffer!.packedBytes) == theirs[k], "frame at \(sample.presentationTimeStamp.seconds) s")
        }
        #expect(ours.first.map { abs($0.presentationTimeStamp.seconds - (times[wanted[0]] - origin)) < 0.001 } == true)
    }

    /// A range late in an 8 s MKV or TS: the demuxer seeks to a key frame before it; the frames
    /// are still exactly ffmpeg's frames of the range.
    @Test(arguments: ["mkv", "ts", "webm"])
    func aLateRangeOfALongFileSeeks(_ container: String) throws {
        let url = Fixtures.path("long.\(container)")
        if !FileManager.default.fileExists(atPath: url.path) {
            let codec = container == "webm" ? ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-pix_fmt", "yuv420p"]
                                             : ["-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-pix_fmt", "yuv420p"]
            try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=8"] + codec + ["-g", "25", url.path])
        }
        let asset = try Asset(url: url)
        let range = TimeRange(start: MediaTime(value: 5300, timescale: 1000), duration: MediaTime(value: 500, timescale: 1000))
        let ours = try DecodingTests.decode(asset.tracks[0], .video(VideoOutputSettings(pixelFormat: .yuv420p)), range: range)
        let frames = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", url.path])
        let times = frames.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }
        let origin = asset.startTime.seconds
        let wanted = times.indices.filter { times[$0] - origin >= 5.3 - 1e-6 && times[$0] - origin < 5.8 - 1e-6 }
        #expect(wanted.count == 12 || wanted.count == 13)
        #expect(ours.count == wanted.count, "\(ours.count) frames against \(wanted.count)")
        let theirs = try DecodingTests.ffmpegFrames(url, width: 160, height: 120, format: .yuv420p)
        for (sample, k) in zip(ours, wanted) {
            #expect(Data(sample.imageBuffer!.packedBytes) == theirs[k], "frame at \(sample.presentationTimeStamp.seconds) s")
        }
    }

    /// A damaged stream: frames keep coming, and what the decoder skipped is a warning.
    @Test func aDamagedStreamKeepsDecoding() throws {
        let url = Fixtures.path("damaged.ts")
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.copyItem(at: try DecodingTests.transportStream(), to: url)
        var bytes = [UInt8](try Data(contentsOf: url))
        // Scribble over the payload of packets in the middle (TS packets keep their 4-byte headers).
        // (A fixed pseudo-random scribble: random damage sometimes hit what libavformat needs to
        // open the stream at all, which made the test flaky.)
        var state: UInt32 = 0x2545_F491
        for packet in stride(from: bytes.count / 3, to: bytes.count / 3 + 188 * 40, by: 188) where packet + 188 <= bytes.count {
            for k in (packet + 8)..<(packet + 188) {
                state = state &* 1_664_525 &+ 1_013_904_223
                bytes[k] = UInt8(truncatingIfNeeded: state >> 24)
            }
        }
        try Data(bytes).write(to: url)
        let asset = try Asset(url: url)
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: asset.tracks[0], outputSettings: .video(VideoOutputSettings()))
        try reader.add(output)
        #expect(reader.startReading())
        var frames = 0
        while output.copyNextSampleBuffer() != nil { frames += 1 }
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        #expect(frames >= 60, "\(frames) frames")
    }

    /// An MPEG-TS made by ffmpeg (starts at 1.4 s): H.264 with a sync sample every second.
    static func transportStream() throws -> URL { try transportStreamFile.get() }

    /// Made once: tests running in parallel read it (checking for the file instead let a test
    /// read it while another was still writing it — "Invalid data" at open, now and then).
    private static let transportStreamFile: Result<URL, Error> = Result {
        let url = Fixtures.path("decode.ts")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=3", "-c:v", "libx264", "-preset", "ultrafast",
                         "-bf", "2", "-g", "25", url.path])
        return url
    }

    @Test func picturesAreScaledToFitAndConverted() throws {
        let asset = try Asset(url: try Fixtures.grouped.get())
        let frames = try DecodingTests.decode(asset.tracks[0], .video(VideoOutputSettings(pixelFormat: .rgba, maximumWidth: 160)),
                                              range: TimeRange(start: .zero, duration: MediaTime(value: 1, timescale: 5)))
        #expect(frames.count == 5)
        let first = try #require(frames.first?.imageBuffer)
        #expect(first.width == 160 && first.height == 120 && first.pixelFormat == .rgba)
        #expect(first.packedBytes.count == 160 * 120 * 4)
    }

    @Test func settingsOfTheWrongKindAreRefused() throws {
        let asset = try Asset(url: try Fixtures.grouped.get())
        let reader = try AssetReader(asset: asset)
        let error = #expect(throws: MediaError.self) {
            try reader.add(AssetReaderTrackOutput(track: asset.tracks[0], outputSettings: .audio(AudioOutputSettings())))
        }
        #expect(error?.message.contains("audio output settings are for audio tracks") == true)
    }
}

extension DecodingTests {
    /// A range that starts at an AAC packet boundary brings the packet before (AAC's pre-roll),
    /// so the first decoded samples are the tone at full level, not the decoder warming up.
    @Test func aacRangeStartsAtFullLevel() throws {
        let url = Fixtures.path("tone-range.m4a")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=3", "-c:a", "aac", url.path])
        for start in [0.0, 1024.0 / 44_100 * 40, 1.3] {
            let asset = try Asset(url: url)
            let reader = try AssetReader(asset: asset)
            reader.timeRange = TimeRange(start: MediaTime(seconds: start, preferredTimescale: 44_100), duration: MediaTime(value: 1, timescale: 1))
            let output = AssetReaderTrackOutput(track: asset.tracks[0], outputSettings: .audio(AudioOutputSettings(channelCount: 1)))
            try reader.add(output)
            #expect(reader.startReading())
            var x: [Float] = []
            while let s = output.copyNextSampleBuffer(), let p = s.pcmBuffer {
                p.withPlane(0) { x += Array($0.bindMemory(to: Float.self).prefix(p.frameCount)) }
            }
            func rms(_ r: Range<Int>) -> Double { sqrt(x[r].reduce(0) { $0 + Double($1 * $1) } / Double(r.count)) }
            #expect(x.count == 44_100, "\(x.count) samples from \(start) s")
            #expect(rms(0..<441) > rms(22_050..<23_373) * 0.9, "from \(start) s: first 10 ms at \(rms(0..<441)) against \(rms(22_050..<23_373))")
        }
    }
}
