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

    /// Every encoder but H.264/AAC (above), in MP4, Matroska and MPEG-TS wherever the container
    /// can hold the codec (TS: not VP9, AV1, FLAC or ALAC; MP4 holds them all).
    static let encoderCases: [(file: String, codec: String, video: VideoEncodingSettings?, audio: AudioEncodingSettings?)] = {
        let hevc = VideoEncodingSettings(codec: .hevc, quality: .crf(20), preset: "ultrafast")
        let vp9 = VideoEncodingSettings(codec: .vp9, quality: .crf(30), options: ["deadline": "realtime", "cpu-used": "8"])
        let av1 = VideoEncodingSettings(codec: .av1, quality: .crf(40), preset: "12")
        let opus = AudioEncodingSettings(codec: .opus, bitRate: 96_000), mp3 = AudioEncodingSettings(codec: .mp3, bitRate: 128_000)
        let flac = AudioEncodingSettings(codec: .flac), alac = AudioEncodingSettings(codec: .alac)
        return [
            ("hevc.mp4", "hevc", hevc, nil), ("hevc.mkv", "hevc", hevc, nil), ("hevc.ts", "hevc", hevc, nil),
            ("vp9.mp4", "vp9", vp9, nil), ("vp9.webm", "vp9", vp9, nil),
            ("av1.mp4", "av1", av1, nil), ("av1.mkv", "av1", av1, nil),
            ("opus.mp4", "opus", nil, opus), ("opus.mka", "opus", nil, opus), ("opus.ts", "opus", nil, opus),
            ("mp3.mp4", "mp3", nil, mp3), ("mp3.mka", "mp3", nil, mp3), ("mp3.ts", "mp3", nil, mp3),
            ("flac.mp4", "flac", nil, flac), ("flac.mka", "flac", nil, flac),
            ("alac.mov", "alac", nil, alac), ("alac.m4a", "alac", nil, alac), ("alac.mka", "alac", nil, alac),
        ]
    }()

    /// Slow encodes stay out of the ThreadSanitizer run (the H.264/AAC ones cover the same paths there).
    static let notUnderTSan = ProcessInfo.processInfo.environment["SPLICE_SANITIZER"] != "thread"

    @Test(.enabled(if: EncodingTests.notUnderTSan), arguments: EncodingTests.encoderCases.map(\.file))
    func theOtherEncoders(_ name: String) throws {
        let c = try #require(EncodingTests.encoderCases.first { $0.file == name })
        let source = try Fixtures.grouped.get()
        let url = Fixtures.path("encoder-" + name)
        _ = try EncodingTests.transcode(source, to: url, video: c.video, audio: c.audio)
        let stream = try EncodingTests.probe(url, c.video != nil ? "stream=codec_name,width,height,pix_fmt" : "stream=codec_name,sample_rate,channels")
        let expected = c.video != nil ? "\(c.codec),320,240,yuv420p" : "\(c.codec),\(c.codec == "opus" ? 48000 : 44100),1"
        #expect(stream.first == expected, "\(name): \(stream)")
        let decode = try Tool.run("ffmpeg", ["-v", "error", "-i", url.path, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(name): \(decode.stderr)")
        // As long as the source's 3 s, within a frame (decoded: the container's own figure varies).
        let time = try Tool.check("ffmpeg", ["-v", "info", "-nostats", "-i", url.path, "-f", "null", "-"]).stderr
            .split(separator: "\n").last { $0.contains("time=") }
        let clock = time.flatMap { $0.split(separator: " ").first { $0.hasPrefix("time=") } }.map { String($0.dropFirst(5)) } ?? ""
        let seconds = clock.split(separator: ":").compactMap { Double($0) }.reduce(0) { $0 * 60 + $1 }
        #expect(abs(seconds - 3) <= 0.05, "\(name): decodes \(clock)")
        if c.video != nil {
            let frames = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                                                    "stream=nb_read_frames", "-of", "csv=p=0", url.path]).stdout
            #expect(frames.hasPrefix("75"), "\(name): \(frames) frames")
            #expect(try EncodingTests.ssim(url, source) >= 0.9, "\(name)")
        } else if let rate = c.audio?.bitRate {
            // Lossy: as loud as ffmpeg's own encode with the same encoder and rate (LAME's
            // low-pass takes 0.5 dB off this fixture's noise-like track in both).
            let ref = Fixtures.path("reference-" + name + ".mka")
            try Tool.ffmpeg(["-i", source.path, "-map", "0:a:0", "-c:a", c.codec == "mp3" ? "libmp3lame" : "libopus", "-b:a", String(rate), ref.path])
            let level = try EncodingTests.meanVolume(url), reference = try EncodingTests.meanVolume(ref)
            #expect(abs(level - reference) <= 0.15, "\(name): mean volume \(level) dB against ffmpeg's \(reference) dB")
        } else {
            let level = try EncodingTests.meanVolume(url), reference = try EncodingTests.meanVolume(source)
            #expect(abs(level - reference) <= 0.05, "\(name): mean volume \(level) dB against \(reference) dB")
        }
        // MP4 sample entries: hvc1 as Apple's players want it, and the ISO bindings' types.
        if name.hasSuffix(".mp4") || name.hasSuffix(".mov") || name.hasSuffix(".m4a") {
            let entry = ["hevc": "hvc1", "vp9": "vp09", "av1": "av01", "opus": "Opus", "mp3": "mp4a", "flac": "fLaC", "alac": "alac"][c.codec]
            #expect(try Asset(url: url).tracks[0].codec.map { "\($0)" } == entry, "\(name)")
        }
    }

    /// A codec the container cannot hold: a clear error before anything is written, no output.
    @Test func aCodecTheContainerCannotHoldIsRefused() throws {
        let url = Fixtures.path("av1.ts")
        try? FileManager.default.removeItem(at: url)
        let asset = try Asset(url: try Fixtures.grouped.get())
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(track: asset.tracks.first { $0.mediaType == .video }!, outputSettings: .video(VideoOutputSettings()))
        try reader.add(output)
        let writer = try AssetWriter(outputURL: url)
        let input = AssetWriterInput(mediaType: .video, outputSettings: .video(VideoEncodingSettings(codec: .av1, preset: "12")))
        try writer.add(input)
        #expect(reader.startReading())
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        _ = feed([(output, input)])
        writer.finish()
        #expect(writer.status == .failed)
        #expect(writer.error?.message.contains("av1") == true, "\(String(describing: writer.error))")
        #expect(!FileManager.default.fileExists(atPath: url.path))
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

    /// HDR10 static metadata on a 10-bit PQ encode: in the HEVC bitstream (SEI, which ffprobe's
    /// decoder reports on the frames) and in the container (`mdcv`/`clli`, Matroska's
    /// MasteringMetadata, which libavformat reports on the stream), in MP4 and MKV.
    @Test(.enabled(if: EncodingTests.notUnderTSan), arguments: ["mp4", "mkv"])
    func hdr10MetadataIsCarried(_ container: String) throws {
        let url = Fixtures.path("hdr10.\(container)")
        let pq = PixelBuffer.Color(primaries: 9, transfer: 16, matrix: 9, isFullRange: false)
        let settings = VideoEncodingSettings(codec: .hevc, quality: .crf(24), preset: "ultrafast", pixelFormat: .yuv420p10le, color: pq,
                                             masteringDisplay: .displayP3(maxNits: 1000, minNits: 0.0001),
                                             contentLightLevel: ContentLightLevel(maxContentLightLevel: 1000, maxFrameAverageLightLevel: 400))
        _ = try EncodingTests.transcode(try Fixtures.grouped.get(), to: url, video: settings, audio: nil)
        let expected = ["red_x": 0.68, "green_y": 0.69, "white_point_x": 0.3127, "max_luminance": 1000, "min_luminance": 0.0001,
                        "max_content": 1000, "max_average": 400]
        let stream = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_streams", url.path]).stdout
        #expect(EncodingTests.sideData(stream, matches: expected), "stream side data: \(stream)")
        #expect(stream.contains("color_transfer=smpte2084") && stream.contains("color_primaries=bt2020"), "\(stream)")
        let frame = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1", "-show_frames", url.path]).stdout
        #expect(EncodingTests.sideData(frame, matches: expected), "the bitstream's SEI: \(frame)")
        if container == "mp4" {
            let entry = [UInt8](try #require(try Asset(url: url).tracks[0].formatDescriptions.first?.sampleEntry))
            #expect(entry.indices.contains { Array(entry.dropFirst($0).prefix(8)) == [0, 0, 0, 12] + Array("clli".utf8) })
            #expect(try Asset(url: url).tracks[0].formatDescriptions.first?.parameters.masteringDisplay == .displayP3(maxNits: 1000, minNits: 0.0001))
        }
    }

    /// A decoded HDR10 source's metadata (the decoder's side data) goes on into an encode that
    /// does not set its own, and through a remux from MP4 to Matroska.
    @Test(.enabled(if: EncodingTests.notUnderTSan)) func hdr10MetadataFollowsTheSource() throws {
        let source = Fixtures.path("hdr10-source.mkv")
        if !FileManager.default.fileExists(atPath: source.path) {
            try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=1", "-pix_fmt", "yuv420p10le", "-c:v", "libx265",
                             "-preset", "ultrafast", "-x265-params",
                             "log-level=error:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(40000000,50):max-cll=4000,1000",
                             "-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc", source.path])
        }
        let url = Fixtures.path("hdr10-from-source.mp4"), back = Fixtures.path("hdr10-back.mkv")
        _ = try EncodingTests.transcode(source, to: url, video: VideoEncodingSettings(codec: .hevc, preset: "ultrafast", pixelFormat: .yuv420p10le),
                                        audio: nil)
        #expect(try Tool.splice(["remux", url.path, back.path, "--force"]).status == 0)
        for file in [url, back] {
            let stream = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_streams", file.path]).stdout
            #expect(EncodingTests.sideData(stream, matches: ["red_x": 0.68, "max_luminance": 4000, "min_luminance": 0.005, "max_content": 4000,
                                                             "max_average": 1000]), "\(file.lastPathComponent): \(stream)")
            #expect(stream.contains("color_transfer=smpte2084"), "\(file.lastPathComponent): \(stream)")
        }
    }

    /// Whether ffprobe's `key=value` lines (values plain or `a/b`) hold `expected`, each within 0.01 %.
    static func sideData(_ text: String, matches expected: [String: Double]) -> Bool {
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            let kv = line.split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else { continue }
            let parts = kv[1].split(separator: "/").compactMap { Double($0) }
            if parts.count == 1 { values[String(kv[0])] = parts[0] }
            if parts.count == 2, parts[1] != 0 { values[String(kv[0])] = parts[0] / parts[1] }
        }
        return expected.allSatisfy { key, value in values[key].map { abs($0 - value) <= abs(value) * 1e-4 } ?? false }
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
