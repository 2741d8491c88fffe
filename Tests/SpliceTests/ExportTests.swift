import Dispatch
import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// `ExportSession` and `splice export`: each preset checked with ffprobe, ffmpeg's ssim filter and
/// packet hashes.
@Suite("Export")
struct ExportTests {
    /// 1024x576 at 25 fps for 1 s, with AAC at 256 kb/s (above every preset's rate, so that each
    /// encodes it), a creation date and a location.
    static let source: Result<URL, Error> = Result {
        let url = Fixtures.path("export-source.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1024x576:rate=25:duration=1", "-f", "lavfi",
                         "-i", "sine=frequency=440:sample_rate=48000:duration=1", "-ac", "2", "-c:v", "libx264", "-preset", "ultrafast",
                         "-crf", "16", "-c:a", "aac", "-b:a", "256k", "-metadata", "creation_time=2020-05-01T10:00:00Z",
                         "-metadata", "location=+48.8584+002.2945/", url.path])
        return url
    }

    /// The same picture with AAC at 128 kb/s, 3 s, a key frame every 25 frames.
    static let aac128: Result<URL, Error> = Result {
        let url = Fixtures.path("export-aac128.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=3", "-f", "lavfi",
                         "-i", "sine=frequency=440:sample_rate=48000:duration=3", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25",
                         "-c:a", "aac", "-b:a", "128k", url.path])
        return url
    }

    static func export(_ source: URL, _ preset: ExportPreset, to name: String, configure: (ExportSession) -> Void = { _ in }) throws -> ExportSession {
        let session = ExportSession(asset: try Asset(url: source), preset: preset)
        session.outputURL = Fixtures.path(name)
        session.replacesExistingFile = true
        configure(session)
        try session.run()
        return session
    }

    static func streams(_ url: URL) throws -> [[String: Any]] { try Tool.ffprobeStreams(url) }

    /// The size `w`x`h` takes inside `box`: aspect kept, never upscaled, even.
    static func fit(_ w: Int, _ h: Int, in box: (Int, Int)?) -> (Int, Int) {
        guard let box else { return (w, h) }
        let scale = min(1, Double(box.0) / Double(w), Double(box.1) / Double(h))
        guard scale < 1 else { return (w, h) }
        return (Int((Double(w) * scale / 2).rounded()) * 2, Int((Double(h) * scale / 2).rounded()) * 2)
    }

    @Test(.enabled(if: EncodingTests.notUnderTSan), arguments: ExportPreset.allCases)
    func eachPresetGivesWhatTheTableSays(_ preset: ExportPreset) throws {
        let source = try ExportTests.source.get()
        let name = "export-\(preset.rawValue).\(preset == .appleM4A ? "m4a" : "mp4")"
        let session = try ExportTests.export(source, preset, to: name)
        let url = Fixtures.path(name)
        #expect(session.status == .completed && session.progress == 1)
        let streams = try ExportTests.streams(url)
        if preset == .passthrough {
            #expect(try RemuxTests.streamHash(url) == RemuxTests.streamHash(source))
            return
        }
        let video = streams.first { $0["codec_type"] as? String == "video" }
        let audio = try #require(streams.first { $0["codec_type"] as? String == "audio" })
        let boxes: [ExportPreset: (Int, Int)] = [.lowQuality: (640, 360), .mediumQuality: (1280, 720), .preset640x480: (640, 480),
                                                 .preset960x540: (960, 540), .preset1280x720: (1280, 720), .preset1920x1080: (1920, 1080),
                                                 .preset3840x2160: (3840, 2160), .hevc1920x1080: (1920, 1080), .hevc3840x2160: (3840, 2160)]
        if preset == .appleM4A {
            #expect(video == nil && streams.count == 1)
        } else {
            let v = try #require(video)
            let hevc = preset.rawValue.hasPrefix("hevc")
            #expect(v["codec_name"] as? String == (hevc ? "hevc" : "h264"))
            #expect(v["profile"] as? String == (hevc ? "Main" : "High"))
            #expect(v["codec_tag_string"] as? String == (hevc ? "hvc1" : "avc1"))
            let (w, h) = ExportTests.fit(1024, 576, in: boxes[preset])
            #expect(v["width"] as? Int == w && v["height"] as? Int == h, "\(preset): \(v["width"] ?? "-")x\(v["height"] ?? "-"), expected \(w)x\(h)")
            #expect(v["nb_frames"] as? String == "25")
        }
        #expect(audio["codec_name"] as? String == "aac" && audio["sample_rate"] as? String == "48000" && audio["channels"] as? Int == 2)
        let rate = Double(audio["bit_rate"] as? String ?? "") ?? 0, expected = Double(preset.audioBitRate!)
        #expect(abs(rate - expected) / expected <= 0.10, "\(preset): audio at \(rate) b/s, expected \(expected)")
        let decode = try Tool.run("ffmpeg", ["-v", "error", "-i", url.path, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
    }

    /// HEVC presets keep 10 bits from a 10-bit source; what a session can write and how big.
    @Test(.enabled(if: EncodingTests.notUnderTSan)) func tenBitsFileTypesAndSize() throws {
        let tenBit = Fixtures.path("export-10bit.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1", "-pix_fmt", "yuv420p10le", "-c:v", "libx265",
                         "-preset", "ultrafast", "-x265-params", "log-level=error", tenBit.path])
        _ = try ExportTests.export(tenBit, .hevc1920x1080, to: "export-10bit-out.mp4")
        let v = try #require(try ExportTests.streams(Fixtures.path("export-10bit-out.mp4")).first)
        #expect(v["pix_fmt"] as? String == "yuv420p10le" && v["profile"] as? String == "Main 10", "\(v)")
        _ = try ExportTests.export(tenBit, .preset1280x720, to: "export-10bit-h264.mp4")
        #expect(try ExportTests.streams(Fixtures.path("export-10bit-h264.mp4")).first?["pix_fmt"] as? String == "yuv420p")

        let source = try ExportTests.aac128.get()
        let session = ExportSession(asset: try Asset(url: source), preset: .lowQuality)
        // Every container: WebM with its own codecs (VP9, Opus), sound-only files without the video.
        // (RegisteredFileTypeTests adds a WAV row, which holds PCM only)
        #expect(session.supportedFileTypes == FileType.allCases.filter { $0.rawValue != "wav" })
        session.videoCodec = .vp9
        session.audioCodec = .opus
        #expect(session.supportedFileTypes.contains(.webm) && !session.supportedFileTypes.contains(.ts))
        #expect(ExportSession(asset: try Asset(url: source), preset: .appleM4A).supportedFileTypes == [.m4a])
        #expect(ExportSession.exportPresets(compatibleWith: try Asset(url: source)) == ExportPreset.allCases)
        // The estimate: passthrough within 5 % of the bytes written, an encode within a factor of 3.
        for preset in [ExportPreset.passthrough, .lowQuality] {
            let s = try ExportTests.export(source, preset, to: "export-size-\(preset).mp4")
            let size = Double(try FileManager.default.attributesOfItem(atPath: Fixtures.path("export-size-\(preset).mp4").path)[.size] as? Int ?? 0)
            let estimate = Double(s.estimatedOutputFileLength)
            #expect(preset == .passthrough ? abs(estimate - size) / size < 0.05 : (estimate / size > 1 / 3 && estimate / size < 3),
                    "\(preset): estimated \(estimate), wrote \(size)")
        }
    }

    /// A quarter-turned source keeps its matrix and fits the box as shown (portrait in a landscape box).
    @Test func aRotatedSourceKeepsItsMatrixAndFitsAsShown() throws {
        let url = Fixtures.path("export-rotated.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=1", "-c:v", "libx264", "-preset", "ultrafast", url.path])
        try MoovPatch.apply(to: url) { moov in
            moov.modifyTrack(1) { $0.setMatrix([0, 0x10000, 0, -0x10000, 0, 0, 360 << 16, 0, 0x4000_0000]) }
        }
        #expect(try Asset(url: url).tracks[0].preferredTransform.rotationDegrees == 90)
        _ = try ExportTests.export(url, .lowQuality, to: "export-rotated-low.mp4")
        let out = Fixtures.path("export-rotated-low.mp4")
        let v = try #require(try ExportTests.streams(out).first)
        // Shown as 360x640, fitted into 640x360: 202x360 shown, stored 360x202.
        let (shownW, shownH) = ExportTests.fit(360, 640, in: (640, 360))
        #expect(v["width"] as? Int == shownH && v["height"] as? Int == shownW, "\(v["width"] ?? "-")x\(v["height"] ?? "-")")
        let probe = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_streams", out.path]).stdout
        #expect(probe.contains("rotation=-90"), "\(probe)")
        #expect(try Asset(url: out).tracks[0].preferredTransform.rotationDegrees == 90)
    }

    /// 1920x1080 to the 1280x720 preset: SSIM against the source scaled by ffmpeg.
    @Test(.enabled(if: EncodingTests.notUnderTSan)) func presetQualityAgainstTheScaledSource() throws {
        let source = Fixtures.path("export-1080p.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=25:duration=1", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "12",
                         source.path])
        _ = try ExportTests.export(source, .preset1280x720, to: "export-720p.mp4")
        let out = Fixtures.path("export-720p.mp4")
        let r = try Tool.check("ffmpeg", ["-v", "info", "-nostats", "-i", out.path, "-i", source.path,
                                          "-lavfi", "[1:v]scale=1280:720[s];[0:v][s]ssim", "-f", "null", "-"])
        let line = r.stderr.split(separator: "\n").last { $0.contains("SSIM") } ?? ""
        let ssim = line.split(separator: " ").first { $0.hasPrefix("All:") }.flatMap { Double($0.dropFirst(4)) } ?? 0
        #expect(ssim >= 0.95, "SSIM \(ssim)")
    }

    /// AAC at or below the preset's rate is copied (same packets); above it, or cut inside a
    /// frame, it is encoded.
    @Test func theAudioCopyRule() throws {
        let source = try ExportTests.aac128.get()
        func audioHash(_ url: URL) throws -> String {
            try Tool.check("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:a", "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]).stdout
        }
        _ = try ExportTests.export(source, .mediumQuality, to: "export-copied.mp4")
        #expect(try audioHash(Fixtures.path("export-copied.mp4")) == audioHash(source))
        _ = try ExportTests.export(source, .lowQuality, to: "export-encoded.mp4")
        #expect(try audioHash(Fixtures.path("export-encoded.mp4")) != audioHash(source))
        let rate = Double(try ExportTests.streams(Fixtures.path("export-encoded.mp4"))[1]["bit_rate"] as? String ?? "") ?? 0
        #expect(abs(rate - 64_000) / 64_000 <= 0.1, "\(rate)")
        // 1.01 s is 48,480 samples from the start: inside a frame, so the audio is encoded.
        _ = try ExportTests.export(source, .mediumQuality, to: "export-cut.mp4") {
            $0.timeRange = TimeRange(start: MediaTime(value: 101, timescale: 100), end: MediaTime(value: 2, timescale: 1))
        }
        #expect(try audioHash(Fixtures.path("export-cut.mp4")) != audioHash(source))
    }

    /// Groups, enabled flags, languages, associations and chapters survive an encoding preset.
    @Test(.enabled(if: EncodingTests.notUnderTSan)) func structureIsKept() throws {
        let source = try Fixtures.grouped.get()
        let session = try ExportTests.export(source, .mediumQuality, to: "export-grouped.mp4")
        #expect(session.status == .completed)
        let out = Fixtures.path("export-grouped.mp4")
        #expect(try RemuxTests.mediainfoTracks(out) == RemuxTests.mediainfoTracks(source))
        var a = try RemuxTests.structure(source), b = try RemuxTests.structure(out)
        // The same tracks, groups, languages and associations; codecs and edits of encoded
        // tracks change (and the sizes, durations and counts that follow).
        func shape(_ s: inout [String: Any]) -> [[String: String]] {
            (s["tracks"] as? [[String: Any]] ?? []).map { t in
                ["id", "mediaType", "language", "extendedLanguage", "enabled", "alternateGroup", "name", "associations"]
                    .reduce(into: [String: String]()) { shape, key in
                        let value = t[key] ?? NSNull()
                        let json = try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys])
                        shape[key] = json.map { String(decoding: $0, as: UTF8.self) } ?? "\(value)"
                    }
            }
        }
        #expect(shape(&a) == shape(&b))
        #expect(RemuxTests.equalJSON(a["groups"] ?? [], b["groups"] ?? []))
        let probe = try Tool.check("ffprobe", ["-v", "error", "-show_chapters", "-of", "csv=p=0", out.path]).stdout
        #expect(probe == (try Tool.check("ffprobe", ["-v", "error", "-show_chapters", "-of", "csv=p=0", source.path]).stdout))
    }

    /// The movie's metadata (creation date, ©xyz location) is kept.
    @Test func metadataIsKept() throws {
        let source = try ExportTests.aac128.get()
        let tagged = Fixtures.path("export-tagged.mp4")
        try Tool.ffmpeg(["-i", source.path, "-c", "copy", "-metadata", "creation_time=2020-05-01T10:00:00Z",
                         "-metadata", "location=+48.8584+002.2945/", "-metadata", "title=Tour", tagged.path])
        _ = try ExportTests.export(tagged, .lowQuality, to: "export-tagged-low.mp4")
        let tags = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "default=nw=1",
                                              Fixtures.path("export-tagged-low.mp4").path]).stdout
        for tag in ["TAG:creation_time=2020-05-01T10:00:00", "TAG:location=+48.8584+002.2945/", "TAG:title=Tour"] {
            #expect(tags.contains(tag), "\(tags)")
        }
        // Read through the library: ffmpeg's ilst title, udta ©xyz and mvhd date.
        let items = Dictionary(uniqueKeysWithValues: try Asset(url: tagged).metadata.map { ($0.commonKey, $0.value) })
        #expect(items["title"] == "Tour" && items["location"] == "+48.8584+002.2945/" && items["creationDate"]?.hasPrefix("2020-05-01T10:00:00") == true, "\(items)")

        // From Matroska's tags (upper-case there) into MP4, and replaced by the session's own.
        let mkv = Fixtures.path("export-tagged.mkv")
        try Tool.ffmpeg(["-i", tagged.path, "-map", "0", "-c", "copy", mkv.path])
        _ = try ExportTests.export(mkv, .lowQuality, to: "export-from-mkv.mp4")
        let fromMKV = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "default=nw=1",
                                                 Fixtures.path("export-from-mkv.mp4").path]).stdout
        // (ffmpeg's Matroska copy keeps no date: title and location are what there is to carry.)
        for tag in ["TAG:location=+48.8584+002.2945/", "TAG:title=Tour"] {
            #expect(fromMKV.contains(tag), "\(fromMKV)")
        }
        _ = try ExportTests.export(tagged, .passthrough, to: "export-retitled.mkv") {
            $0.metadata = [MetadataItem(commonKey: "title", value: "Retitled"), MetadataItem(commonKey: "creationDate", value: "2021-02-03T04:05:06Z")]
        }
        _ = try ExportTests.export(tagged, .passthrough, to: "export-retitled.mp4") {
            $0.metadata = [MetadataItem(commonKey: "title", value: "Retitled"), MetadataItem(commonKey: "creationDate", value: "2021-02-03T04:05:06Z")]
        }
        for name in ["export-retitled.mkv", "export-retitled.mp4"] {
            let retitled = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "default=nw=1",
                                                      Fixtures.path(name).path]).stdout
            #expect(retitled.contains("TAG:title=Retitled") && retitled.contains("TAG:creation_time=2021-02-03T04:05:06"), "\(name): \(retitled)")
            #expect(!retitled.contains("location"), "\(name): \(retitled)")
        }
    }

    /// Progress only goes forward and ends at 1; a cancelled export leaves nothing.
    @Test func progressAndCancellation() throws {
        let source = try ExportTests.aac128.get()
        let seen = Locked<[Double]>([])
        let session = try ExportTests.export(source, .lowQuality, to: "export-progress.mp4") { s in
            s.progressHandler = { p in seen.withLock { $0.append(p) } }
        }
        let values = seen.withLock { $0 }
        #expect(values.count >= 1 && values.last == 1 && session.progress == 1)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 }, "\(values)")

        let long = Fixtures.path("export-long.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25:duration=20", "-c:v", "libx264", "-preset", "ultrafast", long.path])
        let out = Fixtures.path("export-cancelled.mp4")
        try? FileManager.default.removeItem(at: out)
        let cancelling = ExportSession(asset: try Asset(url: long), preset: .hevcHighestQuality)
        cancelling.outputURL = out
        let started = DispatchSemaphore(value: 0)
        let once = Locked(false)
        cancelling.progressHandler = { p in
            if p > 0.02, once.withLock({ let first = !$0; $0 = true; return first }) { started.signal() }
        }
        let done = DispatchSemaphore(value: 0)
        cancelling.exportAsynchronously { done.signal() }
        #expect(started.wait(timeout: .now() + 120) == .success)
        cancelling.cancelExport()
        #expect(done.wait(timeout: .now() + 120) == .success)
        #expect(cancelling.status == .cancelled)
        #expect(cancelling.error?.code == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try leftovers(of: out).isEmpty)
    }

    /// Passthrough with a range: every packet is a source packet, byte for byte, and the first
    /// frame shown is the source's frame at the range's start.
    @Test func passthroughWithARangeIsFrameExact() throws {
        let source = try ExportTests.aac128.get()
        _ = try ExportTests.export(source, .passthrough, to: "export-range.mp4") {
            $0.timeRange = TimeRange(start: MediaTime(value: 13, timescale: 10), end: MediaTime(value: 22, timescale: 10))
        }
        let out = Fixtures.path("export-range.mp4")
        func packets(_ url: URL) throws -> [String] {
            try Tool.check("ffprobe", ["-v", "error", "-show_packets", "-show_data_hash", "md5", "-show_entries", "packet=data_hash",
                                       "-of", "csv=p=0", url.path]).stdout
                .split(separator: "\n").compactMap { line in line.split(separator: ",").first { $0.hasPrefix("MD5:") }.map(String.init) }
        }
        let ours = try packets(out), theirs = Set(try packets(source))
        #expect(!ours.isEmpty && ours.allSatisfy(theirs.contains))
        let first = try #require(try frameHashes(out).first)
        let reference = try Tool.check("ffmpeg", ["-v", "error", "-ss", "1.3", "-i", source.path, "-map", "0:v:0", "-frames:v", "1",
                                                  "-f", "framemd5", "-"]).stdout
        #expect(reference.contains(first.md5), "first frame \(first.md5); ffmpeg at 1.3 s: \(reference)")
        let duration = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out.path]).stdout
        #expect(abs((Double(duration.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 0.9) < 0.03, "\(duration)")
        #expect(try frameHashes(out).count == 23 || (try frameHashes(out).count) == 22)
    }

    // MARK: The command line

    @Test func cliPresetsAndErrors() throws {
        let list = try Tool.splice(["export", "--list-presets", "--json"])
        #expect(list.status == 0)
        let presets = try JSONSerialization.jsonObject(with: list.stdoutData) as? [[String: Any]]
        #expect(presets?.map { $0["name"] as? String } == ExportPreset.allCases.map(\.rawValue))

        let source = try ExportTests.aac128.get()
        let out = Fixtures.path("cli-export.mp4")
        let unknown = try Tool.splice(["export", source.path, "-o", out.path, "--preset", "ultra"])
        #expect(unknown.status == 64 && unknown.stderr.contains("mediumQuality, highestQuality"), "\(unknown.stderr)")
        let silent = Fixtures.path("export-silent.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1", "-c:v", "libx264", "-preset", "ultrafast", silent.path])
        let m4a = try Tool.splice(["export", silent.path, "-o", Fixtures.path("silent.m4a").path, "--preset", "appleM4A"])
        #expect(m4a.status == 65 && m4a.stderr.contains("appleM4A") && m4a.stderr.contains("export-silent.mp4"), "\(m4a.stderr)")
        // WebM cannot hold the preset's H.264 and AAC: its own VP9 and Opus are encoded instead.
        let webm = try Tool.splice(["export", source.path, "-o", Fixtures.path("default.webm").path])
        #expect(webm.status == 0, "\(webm.stderr)")
        let webmStreams = try ExportTests.streams(Fixtures.path("default.webm"))
        #expect(webmStreams.map { $0["codec_name"] as? String } == ["vp9", "opus"], "\(webmStreams)")
        // A movie into a sound-only file: its sound, the video left out with a note.
        let mka = try Tool.splice(["export", source.path, "-o", Fixtures.path("sound.mka").path])
        #expect(mka.status == 0 && mka.stderr.contains("(video) is left out: .mka files hold sound only"), "\(mka.stderr)")
        #expect(try ExportTests.streams(Fixtures.path("sound.mka")).map { $0["codec_type"] as? String } == ["audio"])

        // No video under a video preset: the audio alone; progress as JSON lines.
        let sound = Fixtures.path("export-sound.m4a")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=duration=2:sample_rate=44100", "-c:a", "aac", "-b:a", "256k", sound.path])
        let r = try Tool.splice(["export", sound.path, "-o", out.path, "--preset", "mediumQuality", "--progress", "json", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        let fractions = lines.compactMap { line -> Double? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Double])?["progress"]
        }
        #expect(!fractions.isEmpty && fractions.count == lines.count && fractions.last == 1, "\(r.stderr)")
        let streams = try ExportTests.streams(out)
        #expect(streams.count == 1 && streams[0]["codec_name"] as? String == "aac")

        // Overrides: VP9 and Opus into WebM.
        let vp9 = Fixtures.path("export-vp9.webm")
        let o = try Tool.splice(["export", source.path, "-o", vp9.path, "--preset", "lowQuality", "--video-codec", "vp9", "--crf", "40",
                                 "--audio-codec", "opus", "--audio-bitrate", "48k", "--range", "0:01,0:02.5"])
        #expect(o.status == 0, "\(o.stderr)")
        #expect(try ExportTests.streams(vp9).map { $0["codec_name"] as? String } == ["vp9", "opus"])
    }

    @Test func interruptLeavesNothing() throws {
        let source = Fixtures.path("export-interrupt.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25:duration=20", "-c:v", "libx264", "-preset", "ultrafast", source.path])
        let out = Fixtures.path("export-interrupted.mp4")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tool.spliceBinary)
        process.arguments = ["export", source.path, "-o", out.path, "--preset", "hevcHighestQuality", "--progress", "json"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Wait for the first progress line: the export is under way.
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("{\"progress\"") {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        let rest = String(decoding: seen + err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(rest.hasSuffix("error: interrupted (SIGINT); \(out.path) was not written\n"), "\(rest)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try leftovers(of: out).isEmpty)
    }
}
