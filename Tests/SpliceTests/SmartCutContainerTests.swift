import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// Smart cuts into files without edit lists (Matroska, MPEG-TS), where no player can be told to
/// hide a frame: only a smart cut is frame-exact there. And the fallback of codecs smart cut
/// does not re-encode.
@Suite("Smart cut into other containers", .enabled(if: EncodingTests.notUnderTSan))
struct SmartCutContainerTests {
    static func seconds(_ s: Double) -> MediaTime { CompositionTests.seconds(s) }

    @Test(arguments: ["mkv", "ts"])
    func concatIntoAFileWithoutEditLists(_ suffix: String) throws {
        let clips = try SmartCutTests.clips.get()
        let session = try SmartCutTests.concat("smart-concat.\(suffix)", clips: clips)
        let out = try #require(session.outputURL)
        #expect(session.notes.isEmpty, "\(session.notes)")
        #expect(try Tool.check("ffmpeg", ["-v", "error", "-xerror", "-i", out.path, "-f", "null", "-"]).stderr.isEmpty)
        // Exactly the frames of the ranges, the first at the file's start (no frame to hide).
        let packets = try SmartCutTests.packets(out, annexB: true)
        #expect(packets.count == 270, "\(packets.count) frames")
        let starts = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,start_time", "-of", "csv=p=0", out.path]).stdout
        let video = starts.split(separator: "\n").first { $0.hasPrefix("video") }?.split(separator: ",").last.flatMap { Double($0) }
        let audio = starts.split(separator: "\n").first { $0.hasPrefix("audio") }?.split(separator: ",").last.flatMap { Double($0) }
        #expect(video != nil && video == audio, "video starts at \(video ?? -1) s, audio at \(audio ?? -1) s")
        let copied = try SmartCutTests.checkCopiedAndReencoded(out, packets: packets, clips: clips, annexB: true)
        #expect(copied >= 3 * 48 && session.cutSummary.first == "track 1 (smart cut): \(270 - copied) frames re-encoded, \(copied) copied",
                "\(session.cutSummary)")
        try SmartCutTests.checkSound(out)
        #expect(try Player.gstreamer.frames(out).count == 270 * 320 * 240 * 3 / 2)
        // Same inputs, same bytes.
        let again = try SmartCutTests.concat("smart-concat-2.\(suffix)", clips: clips)
        #expect(try Data(contentsOf: out) == Data(contentsOf: try #require(again.outputURL)))
    }

    /// A trim into Matroska: the default is smart (`.exact`, which cannot be exact there, is refused).
    @Test func trimIntoMatroskaIsFrameExact() throws {
        let clips = try SmartCutTests.clips.get()
        let clip = Clip(url: clips[0], start: Self.seconds(1.5), end: Self.seconds(4))
        let exact = try ExportSession.trimming(clip, to: Fixtures.path("smart-trim.mkv"), cutMode: .exact)
        exact.replacesExistingFile = true
        #expect(throws: MediaError.self) { try exact.run() }
        let session = try ExportSession.trimming(clip, to: Fixtures.path("smart-trim.mkv"))
        session.replacesExistingFile = true
        try session.run()
        let out = try #require(session.outputURL)
        let packets = try SmartCutTests.packets(out, annexB: true)
        #expect(packets.count == 60 && packets.map(\.time).min() == 0, "\(packets.count) frames from \(packets.map(\.time).min() ?? -1) s")
        let source = Set(try SmartCutTests.slices(clips[0], annexB: true)[48..<96])
        #expect(packets.filter { source.contains($0.md5) }.count == 48)
        #expect(try SmartCutTests.ssim(out, 0, 0.5, clips[0], 1.5) >= 0.98)
        #expect(try SmartCutTests.ssim(out, 0.5, 2.5, clips[0], 2) > 0.99)
    }

    /// MPEG-4 Part 2 has no smart cut: into Matroska the clips are re-encoded (`auto`) or cut
    /// at sync samples (`keyframe`, a trim), into MP4 cut with edit lists; one line says which and why.
    @Test func codecsWithoutSmartCutFallBack() throws {
        let part2 = Fixtures.path("smart-mpeg4.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=24:duration=4", "-f", "lavfi", "-i", "sine=frequency=440:duration=4",
                         "-c:v", "mpeg4", "-g", "24", "-bf", "2", "-c:a", "aac", part2.path])
        let clips = [Clip(url: part2, start: Self.seconds(0.5), end: Self.seconds(2.5)), Clip(url: part2, start: Self.seconds(1.25), end: Self.seconds(3))]
        let joined = try ExportSession.concatenating(clips, to: Fixtures.path("smart-mpeg4-concat.mkv"))
        #expect(joined.notes == ["re-encoding every clip: \(clips[0])'s video cannot be cut smart (smart cut re-encodes H.264, HEVC, VP9 and AV1 (this is mpeg4)); "
                                 + "\(clips[0]) is not cut at sync samples, and .mkv files have no edit lists to hide the rest"], "\(joined.notes)")
        #expect(joined.preset != .passthrough)

        let keyframes = try ExportSession.concatenating(clips, to: Fixtures.path("smart-mpeg4-keyframe.mkv"), options: ConcatenationOptions(cut: .keyframe))
        #expect(keyframes.notes.count == 2 && keyframes.notes[0].contains("cut at sync samples, 0.000–2.917 s"), "\(keyframes.notes)")

        let trim = try ExportSession.trimming(clips[1], to: Fixtures.path("smart-mpeg4-trim.mkv"))
        trim.replacesExistingFile = true
        try trim.run()
        // (an open GOP: the frames before the sync sample at 3 s need it, and it would be shown)
        let moved = "smart-mpeg4.mp4: cut at sync samples, 1.000–2.917 s (start 0.250 s earlier, end 0.083 s earlier): track 1 cannot be cut smart "
            + "(smart cut re-encodes H.264, HEVC, VP9 and AV1 (this is mpeg4)), and .mkv files have no edit lists"
        #expect(trim.warnings.contains(moved), "\(trim.warnings)")
        let frames = try Tool.check("ffprobe", ["-v", "error", "-count_packets", "-select_streams", "v", "-show_entries", "stream=nb_read_packets",
                                                "-of", "csv=p=0", try #require(trim.outputURL).path]).stdout
        #expect(frames.trimmingCharacters(in: .whitespacesAndNewlines) == "46")

        let mp4 = try ExportSession.trimming(clips[1], to: Fixtures.path("smart-mpeg4-trim.mp4"))
        mp4.replacesExistingFile = true
        try mp4.run()
        #expect(mp4.warnings.contains { $0.hasPrefix("track 1 is cut with edit lists (not smart): smart cut re-encodes H.264, HEVC, VP9 and AV1") }, "\(mp4.warnings)")
    }
}

/// VP9 and AV1 (WebM's codecs): the frames before each cut's first key frame re-encoded with
/// libvpx-vp9 and SVT-AV1 in the source's profile and bit depth, the rest copied — into WebM,
/// Matroska and MP4.
@Suite("Smart cut of VP9 and AV1", .enabled(if: EncodingTests.notUnderTSan))
struct SmartCutVP9AV1Tests {
    /// Three 6 s clips per codec at 24 fps, 2 s GOPs, Opus, the picture from 0.
    static let clips: Result<[String: [URL]], Error> = Result {
        var out: [String: [URL]] = [:]
        for codec in ["vp9", "av1"] {
            out[codec] = try [("a", "testsrc2"), ("b", "testsrc"), ("c", "rgbtestsrc")].map { name, picture in
                let url = Fixtures.path("smart-\(codec)-\(name).webm")
                let video = codec == "vp9" ? ["-c:v", "libvpx-vp9", "-crf", "30", "-b:v", "0", "-deadline", "good", "-cpu-used", "4", "-keyint_min", "48"]
                    : ["-c:v", "libsvtav1", "-crf", "35", "-preset", "8"]
                try Tool.ffmpeg(["-f", "lavfi", "-i", "\(picture)=size=320x240:rate=24:duration=6", "-f", "lavfi", "-i", "sine=frequency=440:duration=6"]
                                + video + ["-pix_fmt", "yuv420p", "-g", "48", "-c:a", "libopus", "-avoid_negative_ts", "disabled", url.path])
                return url
            }
        }
        return out
    }

    @Test(arguments: [("vp9", "webm"), ("vp9", "mkv"), ("vp9", "mp4"), ("av1", "webm"), ("av1", "mkv"), ("av1", "mp4")])
    func concat(_ codec: String, _ suffix: String) throws {
        let clips = try #require(try Self.clips.get()[codec])
        let session = try SmartCutTests.concat("smart-\(codec).\(suffix)", clips: clips)
        let out = try #require(session.outputURL)
        #expect(try Tool.check("ffmpeg", ["-v", "error", "-xerror", "-i", out.path, "-f", "null", "-"]).stderr.isEmpty)
        let packets = try SmartCutTests.packets(out, nal: false)
        #expect(packets.count == 270, "\(packets.count) frames")
        // Only the heads are re-encoded: no frame waits for a later one, so every run copies to
        // its clip's end (2–5.25 s, 2–4.25 s, 4–6 s). (AV1's shown-again frames are a few bytes
        // alike: some re-encoded ones match the source's.)
        let copied = try SmartCutTests.checkCopiedAndReencoded(out, packets: packets, clips: clips, nal: false, exactCount: codec == "vp9")
        #expect(copied >= 78 + 54 + 48, "\(copied) copied")
        #expect(session.cutSummary.first == "track 1 (smart cut): 90 frames re-encoded, 180 copied", "\(session.cutSummary)")
        #expect(try Player.gstreamer.frames(out).count == 270 * 320 * 240 * 3 / 2)
        // The source's profile and bit depth, one description.
        let stream = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream=profile,pix_fmt", "-of", "csv=p=0", out.path])
        let source = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream=profile,pix_fmt", "-of", "csv=p=0", clips[0].path])
        #expect(stream.stdout == source.stdout)
        if suffix == "mp4" {
            #expect(try Asset(url: out).tracks(withMediaType: .video)[0].formatDescriptions.count == 1)
        }
    }

    /// A 10-bit VP9 (profile 2) trim into WebM: re-encoded in profile 2.
    @Test func tenBitVP9() throws {
        let source = Fixtures.path("smart-vp9-10bit.webm")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=24:duration=4", "-c:v", "libvpx-vp9", "-pix_fmt", "yuv420p10le", "-crf", "30",
                         "-b:v", "0", "-deadline", "realtime", "-g", "48", source.path])
        let session = try ExportSession.trimming(Clip(url: source, start: CompositionTests.seconds(1.5), end: CompositionTests.seconds(3.5)),
                                                 to: Fixtures.path("smart-vp9-10bit-cut.webm"))
        session.replacesExistingFile = true
        try session.run()
        let out = try #require(session.outputURL)
        let probe = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "stream=profile,pix_fmt", "-of", "csv=p=0", out.path]).stdout
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "Profile 2,yuv420p10le", "\(probe)")
        #expect(try SmartCutTests.packets(out, nal: false).count == 48)
        #expect(try SmartCutTests.ssim(out, 0, 0.5, source, 1.5) >= 0.98)
        #expect(session.cutSummary.first == "track 1 (smart cut): 12 frames re-encoded (12 at the start, 0 at the end), 36 copied", "\(session.cutSummary)")
    }
}

/// 10-bit HEVC with x265's open GOPs (CRA pictures whose leading pictures refer across them)
/// trimmed into Matroska and MPEG-TS: the copied run's CRA becomes a BLA, its leading pictures
/// are left out, and every other copied packet is the source's.
@Suite("Smart cut of HEVC into other containers", .enabled(if: EncodingTests.notUnderTSan))
struct SmartCutHEVCContainerTests {
    /// 6 s at 24 fps, 2 s GOPs, made once for both cases (which run at the same time).
    static let source: Result<URL, Error> = Result {
        let source = Fixtures.path("smart-hevc-open.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=24:duration=6", "-pix_fmt", "yuv420p10le", "-c:v", "libx265",
                         "-preset", "fast", "-x265-params", "keyint=48:min-keyint=48:scenecut=0:log-level=error", source.path])
        return source
    }

    @Test(arguments: ["mkv", "ts"])
    func openGOPTrim(_ suffix: String) throws {
        let source = try Self.source.get()
        let session = try ExportSession.trimming(Clip(url: source, start: CompositionTests.seconds(1.5), end: CompositionTests.seconds(5.25)),
                                                 to: Fixtures.path("smart-hevc-open.\(suffix)"))
        session.replacesExistingFile = true
        try session.run()
        let out = try #require(session.outputURL)
        #expect(try Tool.check("ffmpeg", ["-v", "error", "-xerror", "-i", out.path, "-f", "null", "-"]).stderr.isEmpty)
        let packets = try SmartCutTests.packets(out, hevc: true, annexB: true)
        #expect(packets.count == 90, "\(packets.count) frames")
        let known = Set(try SmartCutTests.slices(source, hevc: true, annexB: true))
        let copied = packets.filter { known.contains($0.md5) }.count
        // (the run's first picture, rewritten CRA → BLA, is not the source's bytes; the other
        // sync samples carry the record's VPS/SPS/PPS, not its SEI)
        let summary = session.cutSummary.first ?? ""
        #expect(summary.hasPrefix("track 1 (smart cut): \(90 - copied - 1) frames re-encoded (") && summary.hasSuffix(" at the end), \(copied + 1) copied"),
                "\(session.cutSummary)")
        #expect(copied >= 40, "\(copied) copied")
        #expect(try SmartCutTests.ssim(out, 0, 3.75, source, 1.5) >= 0.98)
        #expect(try Player.gstreamer.frames(out).count == 90 * 320 * 240 * 3 / 2)
    }
}
