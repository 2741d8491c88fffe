import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// Smart cuts (`CutMode.smart`): only the partial GOPs at each cut are re-encoded, every other
/// packet is the source's, every stored frame is shown (one edit per track), the sound stays with
/// the picture and does not click at joins. Checked with ffmpeg (packet md5s with the parameter
/// sets filtered out, SSIM, decoded sound) and GStreamer.
@Suite("Smart cut", .enabled(if: EncodingTests.notUnderTSan))
struct SmartCutTests {
    static func seconds(_ s: Double) -> MediaTime { CompositionTests.seconds(s) }

    /// Clips of 6 s at 24 fps, x264 with 2 B-frames and closed 2 s GOPs (sync samples at 0, 2
    /// and 4 s), a tone each (440, 660, 880 Hz) in AAC at 48 kHz.
    static let clips: Result<[URL], Error> = Result {
        try [("a", "testsrc2", 440), ("b", "testsrc", 660), ("c", "rgbtestsrc", 880)].map { name, picture, tone in
            let url = Fixtures.path("smart-\(name).mp4")
            try Tool.ffmpeg(["-f", "lavfi", "-i", "\(picture)=size=320x240:rate=24:duration=6", "-f", "lavfi",
                             "-i", "sine=frequency=\(tone):sample_rate=48000:duration=6", "-c:v", "libx264", "-preset", "veryfast",
                             "-pix_fmt", "yuv420p", "-g", "48", "-keyint_min", "48", "-sc_threshold", "0", "-bf", "2",
                             "-c:a", "aac", "-b:a", "128k", url.path])
            return url
        }
    }

    /// The three-clip concat of the player matrix: each clip cut mid-GOP at both ends.
    static let ranges: [(Int, Double, Double)] = [(0, 1.5, 5.25), (1, 0.5, 4.25), (2, 2.25, 6)]

    static func concat(_ name: String, mode: CutMode? = nil, clips: [URL]) throws -> ExportSession {
        let session = try ExportSession.concatenating(ranges.map { Clip(url: clips[$0.0], start: seconds($0.1), end: seconds($0.2)) },
                                                      to: Fixtures.path(name), options: ConcatenationOptions(cut: mode))
        session.replacesExistingFile = true
        try session.run()
        return session
    }

    /// Each video packet in decode order: its presentation time and the md5 of its bytes without
    /// parameter sets and end-of-sequence units (ffmpeg's `filter_units`): what is left of a
    /// copied packet is the source's bytes.
    /// With `annexB`, every packet in start codes first (MPEG-TS holds them so), and access
    /// unit delimiters left out too (its muxer adds them).
    /// `nal` false: VP9 and AV1, whose packets are compared whole.
    static func packets(_ url: URL, hevc: Bool = false, annexB: Bool = false, nal: Bool = true) throws -> [(time: Double, md5: String)] {
        let types = hevc ? (annexB ? "32|33|34|35|36" : "32|33|34|36") : (annexB ? "7|8|9|10" : "7|8|10")
        let filters = (annexB ? "\(hevc ? "hevc" : "h264")_mp4toannexb," : "") + "filter_units=remove_types=\(types)"
        let lines = try Tool.check("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:v:0", "-c", "copy"] + (nal ? ["-bsf:v", filters] : [])
                                   + ["-f", "framemd5", "-"]).stdout.split(separator: "\n")
        let base = lines.first { $0.hasPrefix("#tb 0:") }.flatMap { $0.split(separator: "/").last }.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } ?? 1
        return lines.filter { !$0.hasPrefix("#") }.compactMap { line in
            let f = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard f.count >= 6, let pts = Double(f[2]) else { return nil }
            return (pts / base, f[5])
        }
    }
    static func slices(_ url: URL, hevc: Bool = false, annexB: Bool = false, nal: Bool = true) throws -> [String] {
        try packets(url, hevc: hevc, annexB: annexB, nal: nal).map(\.md5)
    }

    /// SSIM of `out`'s frames over [a, b) against `source`'s over [c, c + b − a) (ffmpeg's `ssim`).
    static func ssim(_ out: URL, _ a: Double, _ b: Double, _ source: URL, _ c: Double) throws -> Double {
        // (frames renumbered: Matroska's millisecond times would pair each with its predecessor)
        let graph = "[0:v]trim=start=\(a):end=\(b),settb=1/24,setpts=N[x];[1:v]trim=start=\(c):end=\(c + b - a),settb=1/24,setpts=N[y];[x][y]ssim"
        let r = try Tool.check("ffmpeg", ["-i", out.path, "-i", source.path, "-filter_complex", graph, "-f", "null", "-"])
        let line = try #require(r.stderr.split(separator: "\n").last { $0.contains("SSIM") && $0.contains("All:") })
        let all = try #require(line.range(of: "All:"))
        return Double(line[all.upperBound...].prefix { "0123456789.".contains($0) }) ?? 0
    }

    /// The decoded sound, mono, 48 kHz, from the output's time 0 (ffmpeg applies the edit).
    static func sound(_ url: URL) throws -> [Float] {
        let raw = Fixtures.path("sound-\(UUID().uuidString).f32")
        defer { try? FileManager.default.removeItem(at: raw) }
        try Tool.ffmpeg(["-i", url.path, "-map", "0:a:0", "-ac", "1", "-ar", "48000", "-f", "f32le", raw.path])
        let data = try Data(contentsOf: raw)
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// How strong `frequency` is over `count` samples from `start` (Goertzel, Hann-windowed so
    /// that the other clips' tones do not leak in).
    static func level(_ x: [Float], _ frequency: Double, at start: Int, count: Int = 960) -> Double {
        let w = 2 * Double.pi * frequency / 48000, c = 2 * cos(w)
        var (s1, s2) = (0.0, 0.0)
        for n in max(0, start)..<min(x.count, start + count) {
            let hann = 0.5 - 0.5 * cos(2 * Double.pi * Double(n - start) / Double(count))
            (s1, s2) = (hann * Double(x[n]) + c * s1 - s2, s1)
        }
        return sqrt(max(0, s1 * s1 + s2 * s2 - c * s1 * s2)) / Double(count)
    }

    /// Checks a concat of `ranges` (`packets`: the output's): the copied packets are the
    /// sources' own, in their order — at least each clip's whole GOP inside its range (2–4 s of
    /// the first two clips, 4–6 s of the third); the re-encoded frames, stretch by stretch, have
    /// SSIM ≥ 0.98 against the frames they replace. Returns how many packets are copied.
    /// - Parameter exactCount: false where re-encoded packets may equal a source's by chance.
    static func checkCopiedAndReencoded(_ out: URL, packets: [(time: Double, md5: String)], clips: [URL], annexB: Bool = false,
                                        nal: Bool = true, exactCount: Bool = true) throws -> Int {
        let sources = try clips.map { try Self.slices($0, annexB: annexB, nal: nal) }
        let md5s = packets.map(\.md5)
        for (k, (clip, _, _)) in Self.ranges.enumerated() {
            let gop = k == 2 ? Array(sources[clip][96..<144]) : Array(sources[clip][48..<96])
            #expect(md5s.firstRange(of: gop) != nil, "clip \(k + 1): its middle GOP is not copied whole")
        }
        let known = Set(sources.joined())
        let copied = md5s.filter(known.contains).count
        let origin = packets.map(\.time).min() ?? 0
        // (on the frame grid: Matroska keeps milliseconds)
        let reencoded = packets.filter { !known.contains($0.md5) }.map { (($0.time - origin) * 24).rounded() / 24 }.sorted()
        var stretches: [(Double, Double)] = []
        for t in reencoded {
            if let last = stretches.last, abs(t - last.1) < 0.001 { stretches[stretches.count - 1].1 = t + 1.0 / 24 } else { stretches.append((t, t + 1.0 / 24)) }
        }
        var measured = 0.0
        for (a, b) in stretches {
            var at = 0.0
            for (clip, s, e) in Self.ranges {
                // (a stretch across a join is measured on each side)
                let (from, to) = (max(a, at), min(b, at + e - s))
                if to - from > 0.001 {
                    let value = try Self.ssim(out, from, to, clips[clip], s + from - at)
                    #expect(value >= 0.98, "\(from)–\(to) s of the output: SSIM \(value)")
                    measured += to - from
                }
                at += e - s
            }
        }
        if exactCount { #expect(abs(measured - Double(packets.count - copied) / 24) < 0.01, "\(stretches)") }
        return copied
    }

    @Test func concatReencodesOnlyThePartialGOPs() throws {
        let clips = try Self.clips.get()
        let session = try Self.concat("smart-concat.mp4", clips: clips)
        let out = try #require(session.outputURL)
        let asset = try Asset(url: out)
        // Every stored frame shown: one edit per track, the frames the ranges hold.
        #expect(asset.tracks.allSatisfy { $0.segments.count == 1 && !$0.segments[0].isEmpty }, "\(asset.tracks.map(\.segments))")
        let video = try #require(asset.tracks(withMediaType: .video).first)
        #expect(video.formatDescriptions.first?.codec.description == "avc3")
        let packets = try Self.packets(out)
        #expect(packets.count == 270, "\(packets.count) frames")
        #expect(try Tool.check("ffmpeg", ["-v", "error", "-xerror", "-i", out.path, "-f", "null", "-"]).stderr.isEmpty)

        let copied = try Self.checkCopiedAndReencoded(out, packets: packets, clips: clips)
        #expect(session.cutSummary.first == "track 1 (smart cut): \(270 - copied) frames re-encoded, \(copied) copied", "\(session.cutSummary)")
        // GStreamer shows every frame (it never plays the last edit of a multi-edit track).
        #expect(try Player.gstreamer.frames(out).count == 270 * 320 * 240 * 3 / 2)

        // Same inputs, same bytes.
        let again = try Self.concat("smart-concat-2.mp4", clips: clips)
        #expect(try Data(contentsOf: out) == Data(contentsOf: try #require(again.outputURL)))
    }

    @Test func soundStaysWithThePictureWithoutClicks() throws {
        let clips = try Self.clips.get()
        try Self.checkSound(try #require(try Self.concat("smart-sound.mp4", clips: clips).outputURL))
    }

    /// The sound of a concat of `ranges`: each clip's tone, and only it; each join heard where
    /// the picture joins (within half an AAC frame and half the crossfade); no click.
    static func checkSound(_ out: URL) throws {
        let x = try Self.sound(out)
        let tones = [440.0, 660, 880]
        var joins: [Double] = []
        var at = 0.0
        for (_, a, b) in Self.ranges { at += b - a; joins.append(at) }
        #expect(abs(Double(x.count) / 48000 - at) < 1024.0 / 48000, "\(Double(x.count) / 48000) s")
        // Each clip's tone, and only it, from half an AAC frame (and half the crossfade) after its start to as much before its end.
        // (half an AAC frame of placement, half the crossfade, an AAC frame of the codec's
        // window over a change of tone, the analysis window)
        let margin = 512 + 128 + 1024 + 960
        var start = 0
        for (k, end) in joins.enumerated() {
            let (s, e) = (start, Int(end * 48000))
            for n in stride(from: s + margin, to: e - margin, by: 2400) {
                let own = Self.level(x, tones[k], at: n)
                let others = tones.indices.filter { $0 != k }.map { Self.level(x, tones[$0], at: n) }.max() ?? 0
                #expect(own > 0.01 && others < own / 10, "clip \(k + 1) at \(Double(n) / 48000) s: \(own) vs \(others)")
                if !(own > 0.01 && others < own / 10) { break }
            }
            start = e
        }
        // Each join is heard where the picture joins, within half an AAC frame (and half the
        // crossfade): where the next clip's tone becomes the louder one.
        for (k, join) in joins.dropLast().enumerated() {
            let j = Int(join * 48000)
            let crossing = stride(from: j - 2048, to: j + 2048, by: 8).first { n in
                Self.level(x, tones[k + 1], at: n - 240, count: 480) > Self.level(x, tones[k], at: n - 240, count: 480)
            }
            #expect(crossing.map { abs($0 - j) <= 512 + 128 + 24 } == true, "join at \(join) s heard at \(crossing.map { Double($0) / 48000 } ?? -1) s")
        }
        // No click: the largest step between samples at a join is at most 1.5 times the largest step nearby.
        for join in joins.dropLast() {
            let j = Int(join * 48000)
            let step = { (range: Range<Int>) in range.map { abs(x[$0 + 1] - x[$0]) }.max() ?? 0 }
            let atJoin = step((j - 1200)..<(j + 1200))
            let nearby = max(step((j - 9600)..<(j - 4800)), step((j + 4800)..<(j + 9600)))
            #expect(atJoin <= 1.5 * nearby, "join at \(join) s: step \(atJoin), nearby \(nearby)")
        }
    }

    @Test func aClipWithoutSoundBecomesEncodedSilence() throws {
        let clips = try Self.clips.get()
        let silent = Fixtures.path("smart-nosound.mp4")
        try Tool.ffmpeg(["-i", clips[1].path, "-an", "-c", "copy", silent.path])
        let session = try ExportSession.concatenating([Clip(url: clips[0], start: Self.seconds(0.5), end: Self.seconds(2.5)),
                                                       Clip(url: silent, start: Self.seconds(0), end: Self.seconds(2)),
                                                       Clip(url: clips[2], start: Self.seconds(1), end: Self.seconds(3))],
                                                      to: Fixtures.path("smart-gap.mp4"))
        session.replacesExistingFile = true
        try session.run()
        let out = try #require(session.outputURL)
        let audio = try #require(try Asset(url: out).tracks(withMediaType: .audio).first)
        #expect(audio.segments.count == 1 && !audio.segments[0].isEmpty, "\(audio.segments)")
        let x = try Self.sound(out)
        let rms = { (a: Double, b: Double) in sqrt(x[Int(a * 48000)..<Int(b * 48000)].map { Double($0 * $0) }.reduce(0, +) / ((b - a) * 48000)) }
        #expect(rms(2.05, 3.95) < 1e-4, "the gap: \(rms(2.05, 3.95))")
        #expect(rms(0.1, 1.9) > 0.05 && rms(4.1, 5.9) > 0.05, "\(rms(0.1, 1.9)) \(rms(4.1, 5.9))")
    }

    @Test func aClipWithoutPictureBecomesBlackFrames() throws {
        let clips = try Self.clips.get()
        let sound = Fixtures.path("smart-sound-only.m4a")
        try Tool.ffmpeg(["-i", clips[1].path, "-vn", "-c", "copy", sound.path])
        let session = try ExportSession.concatenating([Clip(url: clips[0], start: Self.seconds(1.5), end: Self.seconds(3)),
                                                       Clip(url: sound, start: Self.seconds(1), end: Self.seconds(2)),
                                                       Clip(url: clips[2], start: Self.seconds(2.25), end: Self.seconds(4))],
                                                      to: Fixtures.path("smart-black.mp4"))
        session.replacesExistingFile = true
        try session.run()
        let out = try #require(session.outputURL)
        let video = try #require(try Asset(url: out).tracks(withMediaType: .video).first)
        #expect(video.segments.count == 1 && !video.segments[0].isEmpty, "\(video.segments)")
        #expect(try Self.packets(out).count == 36 + 24 + 42)
        // The second clip's second is black (Y at video black), the others are not.
        let luma = try Tool.check("ffmpeg", ["-i", out.path, "-vf", "signalstats,metadata=print:key=lavfi.signalstats.YAVG:file=-", "-f", "null", "-"]).stdout
            .split(separator: "\n").compactMap { $0.split(separator: "=").last.flatMap { Double($0) } }
        #expect(luma.count == 102 && luma[36..<60].allSatisfy { abs($0 - 16) < 1 } && luma[..<36].allSatisfy { $0 > 30 }, "\(luma)")
    }

    /// Interlaced H.264 (`frame_mbs_only_flag` 0 in its SPS) is cut with edit lists, with a
    /// warning: re-encoded frames would not match its fields.
    @Test func interlacedSourcesAreCutExactly() throws {
        let interlaced = Fixtures.path("smart-interlaced.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-c:v", "libx264", "-flags", "+ildct+ilme",
                         "-x264-params", "interlaced=1", "-bf", "2", "-g", "50", interlaced.path])
        let session = try ExportSession.trimming(Clip(url: interlaced, start: Self.seconds(1.3), end: Self.seconds(3)), to: Fixtures.path("smart-interlaced-cut.mp4"))
        session.replacesExistingFile = true
        try session.run()
        #expect(session.warnings.contains { $0.contains("coded as fields") }, "\(session.warnings)")
        #expect(session.cutSummary.isEmpty)
        let progressive = try ExportSession.trimming(Clip(url: try Self.clips.get()[0], start: Self.seconds(1.3), end: Self.seconds(3)),
                                                     to: Fixtures.path("smart-progressive-cut.mp4"))
        progressive.replacesExistingFile = true
        try progressive.run()
        #expect(progressive.warnings.isEmpty && progressive.cutSummary.count == 2, "\(progressive.warnings) \(progressive.cutSummary)")
    }

    @Test func keyframeCutsReencodeNothing() throws {
        let clips = try Self.clips.get()
        let session = try Self.concat("keyframe-concat.mp4", mode: .keyframe, clips: clips)
        let out = try #require(session.outputURL)
        #expect(session.notes.count == 3 && session.notes[0].contains("cut at sync samples, 0.000–6.000 s"), "\(session.notes)")
        let sources = Set(try clips.flatMap { try Self.slices($0) })
        let video = try Self.slices(out)
        #expect(!video.isEmpty && video.allSatisfy(sources.contains))
        let sourceSound = Set(try clips.flatMap { try CompositionTests.packetHashes($0) })
        let audioOnly = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "a", "-show_packets", "-show_data_hash", "md5",
                                                   "-show_entries", "packet=data_hash", "-of", "csv=p=0", out.path]).stdout
            .split(separator: "\n").compactMap { line in line.split(separator: ",").first { $0.hasPrefix("MD5:") }.map(String.init) }
        #expect(!audioOnly.isEmpty && audioOnly.allSatisfy(sourceSound.contains), "\(audioOnly.filter { !sourceSound.contains($0) }.count) of \(audioOnly.count)")
        #expect(try Asset(url: out).tracks.allSatisfy { $0.segments.count == 1 })
    }

    @Test func exactCutsKeepEveryPacket() throws {
        let clips = try Self.clips.get()
        let out = try #require(try Self.concat("exact-concat.mp4", mode: .exact, clips: clips).outputURL)
        let expected = try Self.ranges.flatMap { try CompositionTests.frames(clips[$0.0], from: $0.1, to: $0.2) }
        #expect(try CompositionTests.frames(out) == expected)
        #expect(try Asset(url: out).tracks(withMediaType: .video)[0].segments.count == 3)
        // Into Matroska nothing can be hidden: exact is refused.
        #expect(throws: MediaError.self) {
            try ExportSession.concatenating([Clip(url: clips[0], start: Self.seconds(1), end: Self.seconds(3))], to: Fixtures.path("exact.mkv"),
                                            options: ConcatenationOptions(cut: .exact))
        }
        #expect(throws: MediaError.self) {
            try ExportSession.concatenating([Clip(url: clips[0], start: Self.seconds(1), end: Self.seconds(3))], to: Fixtures.path("never-smart.mp4"),
                                            options: ConcatenationOptions(reencode: .never, cut: .smart))
        }
    }
}
