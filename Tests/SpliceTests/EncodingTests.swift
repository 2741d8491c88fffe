import Dispatch
import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// Decoded samples encoded through libavcodec, checked with ffprobe and ffmpeg's ssim and
/// volumedetect filters.
@Suite("Encoding")
struct EncodingTests {
    /// Re-encodes `tracks` of `source` into `url`: a reader output with decoded output settings
    /// per track, a writer input with encoding settings, the documented feeding loop.
    static func transcode(_ source: URL, to url: URL, video: VideoEncodingSettings?, audio: AudioEncodingSettings?) throws -> AssetWriter {
        try? FileManager.default.removeItem(at: url)
        let asset = try Asset(url: source)
        let reader = try AssetReader(asset: asset)
        let writer = try AssetWriter(outputURL: url)
        var pairs: [(any SampleBufferSource, AssetWriterInput)] = []
        if let video, let track = asset.tracks.first(where: { $0.mediaType == .video }) {
            let output = AssetReaderTrackOutput(track: track, outputSettings: .video(VideoOutputSettings(pixelFormat: .yuv420p)))
            try reader.add(output)
            let input = AssetWriterInput(mediaType: .video, outputSettings: .video(video))
            try writer.add(input)
            pairs.append((output, input))
        }
        if let audio, let track = asset.tracks.first(where: { $0.mediaType == .audio }) {
            let output = AssetReaderTrackOutput(track: track, outputSettings: .audio(AudioOutputSettings()))
            try reader.add(output)
            let input = AssetWriterInput(mediaType: .audio, outputSettings: .audio(audio))
            try writer.add(input)
            pairs.append((output, input))
        }
        #expect(reader.startReading())
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        #expect(feed(pairs))
        writer.finish()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        return writer
    }

    static func probe(_ url: URL, _ entries: String) throws -> [String] {
        try Tool.check("ffprobe", ["-v", "error", "-show_entries", entries, "-of", "csv=p=0", url.path]).stdout
            .split(separator: "\n").map(String.init)
    }

    /// SSIM of the first video stream of `a` against `b`'s (ffmpeg's ssim filter, "All").
    static func ssim(_ a: URL, _ b: URL) throws -> Double {
        let r = try Tool.check("ffmpeg", ["-v", "info", "-nostats", "-i", a.path, "-i", b.path, "-lavfi", "[0:v][1:v]ssim", "-f", "null", "-"])
        guard let line = r.stderr.split(separator: "\n").last(where: { $0.contains("SSIM") }),
              let all = line.split(separator: " ").first(where: { $0.hasPrefix("All:") }) else { return 0 }
        return Double(all.dropFirst(4)) ?? 0
    }

    /// Mean volume in dB of the first audio stream (ffmpeg's volumedetect).
    static func meanVolume(_ url: URL) throws -> Double {
        let r = try Tool.check("ffmpeg", ["-v", "info", "-nostats", "-i", url.path, "-map", "0:a:0", "-af", "volumedetect", "-f", "null", "-"])
        guard let line = r.stderr.split(separator: "\n").first(where: { $0.contains("mean_volume") }) else { return .nan }
        return Double(line.split(separator: " ").dropLast().last ?? "") ?? .nan
    }

    @Test(arguments: ["mp4", "mkv", "ts"])
    func h264AndAACAtHighQuality(_ container: String) throws {
        let source = try Fixtures.grouped.get()
        let url = Fixtures.path("encoded.\(container)")
        _ = try EncodingTests.transcode(source, to: url, video: VideoEncodingSettings(codec: .h264, quality: .crf(16), keyFrameInterval: 25, preset: "veryfast"),
                                        audio: AudioEncodingSettings(codec: .aac, bitRate: 192_000))
        let streams = try EncodingTests.probe(url, "stream=codec_name,width,height,pix_fmt,sample_rate,channels")
        #expect(streams.contains { $0.hasPrefix("h264,320,240,yuv420p") }, "\(streams)")
        #expect(streams.contains { $0.hasPrefix("aac,") && $0.contains("44100,1") }, "\(streams)")
        let frames = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=nb_read_frames",
                                                "-of", "csv=p=0", url.path]).stdout.split(separator: "\n").first.flatMap { Int($0) }
        #expect(frames == 75)
        let ssim = try EncodingTests.ssim(url, source)
        #expect(ssim >= 0.98, "SSIM \(ssim)")
        let level = try EncodingTests.meanVolume(url), reference = try EncodingTests.meanVolume(source)
        #expect(abs(level - reference) < 0.5, "mean volume \(level) dB against \(reference) dB")
        // Audio and video start together, within one AAC frame (MP4: priming is an edit; MKV and
        // TS shift it as ffmpeg's own encodes do).
        let starts = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "stream=start_time", "-of", "csv=p=0", url.path]).stdout
            .split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: ","))) }
        #expect(starts.max()! - starts.min()! <= 1024.0 / 44100 + 0.001, "start times \(starts)")
        if container == "mp4" { #expect(starts.allSatisfy { abs($0) < 0.001 }, "start times \(starts)") }
        let decode = try Tool.run("ffmpeg", ["-v", "error", "-i", url.path, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
    }

    @Test func theOtherEncoders() throws {
        let source = try Fixtures.grouped.get()
        let cases: [(String, VideoEncodingSettings?, AudioEncodingSettings?, String)] = [
            ("hevc.mp4", VideoEncodingSettings(codec: .hevc, quality: .crf(20), preset: "ultrafast"), nil, "hevc"),
            ("vp9.webm", VideoEncodingSettings(codec: .vp9, quality: .crf(30), options: ["deadline": "realtime", "cpu-used": "8"]), nil, "vp9"),
            ("opus.mka", nil, AudioEncodingSettings(codec: .opus, bitRate: 96_000), "opus"),
            ("flac.mka", nil, AudioEncodingSettings(codec: .flac), "flac"),
            ("mp3.mp4", nil, AudioEncodingSettings(codec: .mp3, bitRate: 128_000), "mp3"),
            ("av1.mp4", VideoEncodingSettings(codec: .av1, quality: .crf(40), preset: "12"), nil, "av1"),
            ("alac.mov", nil, AudioEncodingSettings(codec: .alac), "alac"),
        ]
        for (name, video, audio, codec) in cases {
            let url = Fixtures.path(name)
            _ = try EncodingTests.transcode(source, to: url, video: video, audio: audio)
            let names = try EncodingTests.probe(url, "stream=codec_name")
            #expect(names.first == codec, "\(name): \(names)")
            let decode = try Tool.run("ffmpeg", ["-v", "error", "-i", url.path, "-f", "null", "-"])
            #expect(decode.status == 0 && decode.stderr.isEmpty, "\(name): \(decode.stderr)")
            // As long as the source's 3 s, within a frame (decoded: the container's own figure varies).
            let time = try Tool.check("ffmpeg", ["-v", "info", "-nostats", "-i", url.path, "-f", "null", "-"]).stderr
                .split(separator: "\n").last { $0.contains("time=") }
            let clock = time.flatMap { $0.split(separator: " ").first { $0.hasPrefix("time=") } }.map { String($0.dropFirst(5)) } ?? ""
            let seconds = clock.split(separator: ":").compactMap { Double($0) }.reduce(0) { $0 * 60 + $1 }
            #expect(abs(seconds - 3) <= 0.05, "\(name): decodes \(clock)")
            if video != nil {
                let frames = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                                                        "stream=nb_read_frames", "-of", "csv=p=0", url.path]).stdout
                #expect(frames.hasPrefix("75"), "\(name): \(frames) frames")
            }
        }
        // hvc1, as Apple's players want it.
        #expect(try Asset(url: Fixtures.path("hevc.mp4")).tracks[0].codec == "hvc1")
        #expect(try Asset(url: Fixtures.path("av1.mp4")).tracks[0].codec == "av01")
    }

    /// Pictures and PCM made in code, through the adaptors: a moving gradient and a 440 Hz tone
    /// at half scale (−9.03 dB mean).
    @Test func adaptorsEncodePicturesAndPCMMadeInCode() throws {
        let url = Fixtures.path("made-in-code.mp4")
        try? FileManager.default.removeItem(at: url)
        let writer = try AssetWriter(outputURL: url)
        let video = AssetWriterInput(mediaType: .video, outputSettings: .video(VideoEncodingSettings(codec: .h264, quality: .crf(18),
                                                                                                      preset: "veryfast", options: ["no-such-option": "1"])))
        let audio = AssetWriterInput(mediaType: .audio, outputSettings: .audio(AudioEncodingSettings(codec: .aac, bitRate: 128_000)))
        try writer.add(video)
        try writer.add(audio)
        let pictures = AssetWriterInputPixelBufferAdaptor(assetWriterInput: video)
        let sound = AssetWriterInputPCMBufferAdaptor(assetWriterInput: audio)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        // Both inputs fed from their own queues, as the writer interleaves them.
        let (w, h, rate) = (320, 240, 48000)
        let group = DispatchGroup()
        group.enter()
        nonisolated(unsafe) var frame = 0
        video.requestMediaDataWhenReady(on: DispatchQueue(label: "pictures")) {
            while video.isReadyForMoreMediaData {
                guard frame < 50 else { video.markAsFinished(); group.leave(); return }
                let luma = (0..<(w * h)).map { UInt8(truncatingIfNeeded: ($0 % w) + frame * 4) }
                let chroma = [UInt8](repeating: 128, count: w * h / 4)
                let picture = PixelBuffer(pixelFormat: .yuv420p, width: w, height: h,
                                          storage: OwnedStorage(planes: [luma, chroma, chroma], strides: [w, w / 2, w / 2]))
                guard pictures.append(picture, withPresentationTime: MediaTime(value: Int64(frame), timescale: 25)) else {
                    video.markAsFinished(); group.leave(); return
                }
                frame += 1
            }
        }
        group.enter()
        nonisolated(unsafe) var block = 0
        audio.requestMediaDataWhenReady(on: DispatchQueue(label: "tone")) {
            while audio.isReadyForMoreMediaData {
                guard block < 20 else { audio.markAsFinished(); group.leave(); return }
                let n = rate / 10
                let tone = (0..<n).map { Float(0.5 * sin(2 * Double.pi * 440 * Double(block * n + $0) / Double(rate))) }
                let bytes = tone.withUnsafeBytes { Array($0) }
                let pcm = PCMBuffer(format: PCMBuffer.Format(sampleFormat: .f32, isPlanar: false, sampleRate: rate, channelCount: 1),
                                    frameCount: n, storage: OwnedStorage(planes: [bytes], strides: [bytes.count]))
                guard sound.append(pcm, withPresentationTime: MediaTime(value: Int64(block * n), timescale: Int32(rate))) else {
                    audio.markAsFinished(); group.leave(); return
                }
                block += 1
            }
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        writer.finish()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        #expect(writer.warnings.contains { $0.contains("did not take no-such-option") }, "\(writer.warnings)")
        let frames = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                                                "stream=nb_read_frames,duration", "-of", "csv=p=0", url.path]).stdout
        #expect(frames.hasPrefix("2.000000,50"), "\(frames)")
        let level = try EncodingTests.meanVolume(url)
        #expect(abs(level - -9.03) < 0.5, "mean volume \(level) dB")
        let audioDuration = try EncodingTests.probe(url, "stream=duration").last.flatMap(Double.init) ?? 0
        #expect(abs(audioDuration - 2) < 0.025, "audio lasts \(audioDuration) s")
    }

    /// A rate the encoder does not take becomes the nearest one it does, with a warning.
    @Test func anUnsupportedRateIsCorrected() throws {
        let url = Fixtures.path("rate.m4a")
        let writer = try EncodingTests.transcode(try Fixtures.grouped.get(), to: url, video: nil,
                                                 audio: AudioEncodingSettings(codec: .aac, sampleRate: 50_000))
        #expect(writer.warnings.contains { $0.contains("does not take 50000 Hz; the audio is resampled to 48000 Hz") }, "\(writer.warnings)")
        #expect(try EncodingTests.probe(url, "stream=sample_rate").first == "48000")
    }

    /// A 10-bit HEVC encode: Main 10, yuv420p10le, tagged `hvc1`.
    @Test func tenBitHEVC() throws {
        let url = Fixtures.path("main10.mp4")
        _ = try EncodingTests.transcode(try Fixtures.grouped.get(), to: url,
                                        video: VideoEncodingSettings(codec: .hevc, quality: .crf(22), preset: "ultrafast", pixelFormat: .yuv420p10le),
                                        audio: nil)
        let probe = try EncodingTests.probe(url, "stream=codec_name,profile,pix_fmt")
        #expect(probe.first == "hevc,Main 10,yuv420p10le", "\(probe)")
        #expect(try EncodingTests.ssim(url, try Fixtures.grouped.get()) >= 0.95)
    }

    /// Colour tags go into the stream and the sample entry's `colr`.
    @Test func colourTagsAreWritten() throws {
        let url = Fixtures.path("bt709.mp4")
        let bt709 = PixelBuffer.Color(primaries: 1, transfer: 1, matrix: 1, isFullRange: false)
        _ = try EncodingTests.transcode(try Fixtures.grouped.get(), to: url,
                                        video: VideoEncodingSettings(codec: .h264, preset: "ultrafast", color: bt709), audio: nil)
        let probe = try EncodingTests.probe(url, "stream=color_primaries,color_transfer,color_space,color_range")
        #expect(probe.first == "tv,bt709,bt709,bt709", "\(probe)")
        let entry = try #require(try Asset(url: url).tracks[0].formatDescriptions.first?.sampleEntry)
        let colr: [UInt8] = [0x63, 0x6F, 0x6C, 0x72, 0x6E, 0x63, 0x6C, 0x78, 0, 1, 0, 1, 0, 1, 0]   // colr nclx 1 1 1, limited
        #expect([UInt8](entry).indices.contains { Array([UInt8](entry).dropFirst($0).prefix(colr.count)) == colr })
        // …and `btrt`, whose average agrees with ffprobe's bit rate of the stream.
        let bytes = [UInt8](entry)
        let at = try #require(bytes.indices.first { Array(bytes.dropFirst($0).prefix(4)) == Array("btrt".utf8) })
        let average = bytes[(at + 12)..<(at + 16)].reduce(0) { $0 << 8 | Int($1) }
        let theirs = try #require(Int(try EncodingTests.probe(url, "stream=bit_rate").first ?? ""))
        #expect(abs(Double(average - theirs)) / Double(theirs) < 0.05, "btrt \(average) against ffprobe's \(theirs)")
        let entryBox = bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        #expect(entryBox == bytes.count)
    }

    @Test func settingsOfTheWrongKindAreRefused() throws {
        let writer = try AssetWriter(outputURL: Fixtures.path("bad-settings.mp4"))
        let error = #expect(throws: MediaError.self) {
            try writer.add(AssetWriterInput(mediaType: .audio, outputSettings: .video(VideoEncodingSettings())))
        }
        #expect(error?.message.contains("video encoding settings are for video inputs") == true)
    }
}

/// Non-square pixels: `pasp` written from the stream's sample aspect ratio and read back.
@Suite("Pixel aspect")
struct PixelAspectTests {
    @Test func anamorphicVideoKeepsItsAspectThroughRemuxAndEncode() throws {
        let source = Fixtures.path("anamorphic.mkv")
        if !FileManager.default.fileExists(atPath: source.path) {
            try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=1", "-c:v", "libx264", "-preset", "ultrafast",
                             "-aspect", "16:9", source.path])
        }
        func aspect(_ url: URL) throws -> String {
            try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=sample_aspect_ratio,display_aspect_ratio",
                                       "-of", "csv=p=0", url.path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try aspect(source) == "4:3,16:9")
        let mp4 = Fixtures.path("anamorphic.mp4"), back = Fixtures.path("anamorphic-back.mkv")
        #expect(try Tool.splice(["remux", source.path, mp4.path, "--force"]).status == 0)
        #expect(try aspect(mp4) == "4:3,16:9")
        let entry = try #require(try Asset(url: mp4).tracks[0].formatDescriptions.first?.sampleEntry)
        #expect([UInt8](entry).indices.contains { Array([UInt8](entry).dropFirst($0).prefix(12)) == Array("pasp".utf8) + [0, 0, 0, 4, 0, 0, 0, 3] })
        #expect(try Tool.splice(["remux", mp4.path, back.path, "--force"]).status == 0)
        #expect(try aspect(back) == "4:3,16:9")
        let encoded = Fixtures.path("anamorphic-encoded.mp4")
        _ = try EncodingTests.transcode(source, to: encoded, video: VideoEncodingSettings(codec: .h264, preset: "ultrafast"), audio: nil)
        #expect(try aspect(encoded) == "4:3,16:9")
    }
}
