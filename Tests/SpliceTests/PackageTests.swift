import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// `splice package`: HLS and DASH over one set of CMAF media, played where people watch them
/// (ffmpeg, GStreamer's hlsdemux2 and dashdemux2), the structure in the manifests, the media
/// lossless, encryption carried, renditions aligned or refused, and nothing left on failure.
/// (The manifests' attribute rules are checked against the media in python/tests/test_package.py,
/// with PyPI's m3u8 and mpegdash.)
@Suite("Packaging for streaming")
struct PackageTests {
    /// 6 s of 320x240 at 25 fps (a sync sample every second), English AAC stereo (enabled,
    /// group 1), French AC-3 5.1 (disabled, group 1, elng fr-CA), English subtitles (enabled,
    /// group 2) and forced English subtitles (group 2, the `forc` target of the full ones).
    static func movie(_ name: String, size: String = "320x240", gop: Int = 25, sound: Bool = true) throws -> URL {
        let url = Fixtures.path(name)
        let full = Fixtures.path("package-full.srt"), forced = Fixtures.path("package-forced.srt")
        try "1\n00:00:00,500 --> 00:00:02,000\nHello there\n\n2\n00:00:03,000 --> 00:00:05,500\nSecond line\n".write(to: full, atomically: true, encoding: .utf8)
        try "1\n00:00:01,000 --> 00:00:02,500\nForced words\n".write(to: forced, atomically: true, encoding: .utf8)
        var arguments = ["-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25:duration=6"]
        if sound {
            arguments += ["-f", "lavfi", "-i", "sine=f=440:sample_rate=48000:duration=6", "-f", "lavfi", "-i", "sine=f=880:sample_rate=48000:duration=6",
                          "-i", full.path, "-i", forced.path, "-map", "0", "-map", "1", "-map", "2", "-map", "3", "-map", "4",
                          "-c:a:0", "aac", "-ac:a:0", "2", "-c:a:1", "ac3", "-ac:a:1", "6", "-c:s", "mov_text",
                          "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", "-metadata:s:s:0", "language=eng",
                          "-metadata:s:s:1", "language=eng"]
        }
        try Tool.ffmpeg(arguments + ["-c:v", "libx264", "-g", "\(gop)", "-keyint_min", "\(gop)", "-sc_threshold", "0", "-pix_fmt", "yuv420p", url.path])
        guard sound else { return url }
        try MoovPatch.apply(to: url) { moov in
            for (id, enabled, group) in [(2, true, 1), (3, false, 1), (4, true, 2), (5, false, 2)] as [(UInt32, Bool, Int16)] {
                moov.modifyTrack(id) { $0.setTrackHeader(enabled: enabled, alternateGroup: group) }
            }
            moov.modifyTrack(3) { $0.addExtendedLanguage("fr-CA") }
            moov.modifyTrack(4) { $0.addReference("forc", to: [5]) }
        }
        return url
    }

    static func package(_ inputs: [URL], _ name: String, _ options: [String] = []) throws -> URL {
        let out = Fixtures.path(name)
        let r = try Tool.splice(["package"] + inputs.map(\.path) + ["-o", out.path, "--segment", "2", "--force"] + options)
        #expect(r.status == 0, "\(r.stderr)")
        return out
    }

    /// What GStreamer's playbin (hlsdemux2, dashdemux2) presents from a manifest: the pictures
    /// as I420 bytes, and how many bytes of 16-bit sound (48 kHz: the channels of the track it
    /// chose times 6 s). Written to files (printing each buffer from two streaming threads
    /// drops and repeats some).
    static func gstreamer(_ manifest: URL) throws -> (pictures: Data, soundBytes: Int) {
        let video = Fixtures.path("gst-\(UUID().uuidString).yuv"), sound = Fixtures.path("gst-\(UUID().uuidString).pcm")
        defer { for f in [video, sound] { try? FileManager.default.removeItem(at: f) } }
        try Tool.check("timeout", ["120", "gst-launch-1.0", "-q", "playbin", "uri=file://\(manifest.path)",
                                   "video-sink=videoconvert ! video/x-raw,format=I420 ! filesink location=\(video.path)",
                                   "audio-sink=audioconvert ! audio/x-raw,format=S16LE ! filesink location=\(sound.path)",
                                   "text-sink=fakesink sync=false"])
        return (try Data(contentsOf: video), (try FileManager.default.attributesOfItem(atPath: sound.path)[.size] as? Int) ?? 0)
    }

    /// The frames ffmpeg decodes from the first video stream (framemd5 hashes).
    static func frames(_ url: URL, _ extra: [String] = []) throws -> [String] {
        try Tool.check("ffmpeg", ["-nostdin", "-v", "error"] + extra + ["-i", url.path, "-map", "0:v:0", "-f", "framemd5", "-"]).stdout
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// A track's init segment and media segments joined into one file.
    static func joined(_ dir: URL, _ key: String, _ name: String) throws -> URL {
        var data = try Data(contentsOf: dir.appendingPathComponent("\(key)/init.mp4"))
        var n = 1
        while let segment = try? Data(contentsOf: dir.appendingPathComponent("\(key)/\(n).m4s")) { data += segment; n += 1 }
        let url = Fixtures.path(name)
        try data.write(to: url)
        return url
    }

    @Test func aPackagePlaysWithItsStructure() throws {
        let source = try Self.movie("package-source.mp4")
        let out = try Self.package([source], "package-segments")
        let master = try String(contentsOf: out.appendingPathComponent("master.m3u8"), encoding: .utf8)
        // Structure: the group's default sound, the elng tag, the forced subtitles.
        #expect(master.contains("TYPE=AUDIO,GROUP-ID=\"audio1\",NAME=\"en\",LANGUAGE=\"en\",DEFAULT=YES,AUTOSELECT=YES,CHANNELS=\"2\",URI=\"1-2.m3u8\""))
        #expect(master.contains("LANGUAGE=\"fr-CA\",DEFAULT=NO,AUTOSELECT=YES,CHANNELS=\"6\",URI=\"1-3.m3u8\""))
        #expect(master.contains("TYPE=SUBTITLES,GROUP-ID=\"subtitles\",NAME=\"en\",LANGUAGE=\"en\",DEFAULT=YES,AUTOSELECT=YES,FORCED=NO,URI=\"1-4.m3u8\""))
        #expect(master.contains("NAME=\"en (forced)\",LANGUAGE=\"en\",DEFAULT=NO,AUTOSELECT=YES,FORCED=YES,URI=\"1-5.m3u8\""))
        let mpd = try String(contentsOf: out.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        #expect(mpd.contains("value=\"forced-subtitle\"") && mpd.contains("lang=\"fr-CA\"") && mpd.contains("value=\"F801\""))
        // Played: every frame once, the default sound.
        let pictures = try Player.gstreamer.frames(source)
        for manifest in ["master.m3u8", "manifest.mpd"] {
            let url = out.appendingPathComponent(manifest)
            let decoded = try Tool.run("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:v", "-map", "0:a", "-f", "null", "-"])
            #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(manifest): \(decoded.stderr)")
            #expect(try Self.frames(url) == Self.frames(source), "\(manifest)")
            let played = try Self.gstreamer(url)
            #expect(played.pictures.count == 150 * 320 * 240 * 3 / 2 && played.pictures == pictures, "\(manifest)")
            // The default: English stereo AAC (6 s at 48 kHz, 2 channels of 2 bytes; the French is 5.1).
            #expect(abs(played.soundBytes - 6 * 48_000 * 2 * 2) < 48_000, "\(manifest): \(played.soundBytes) bytes of sound")
        }
        // Lossless: each track's joined segments hold the source track's packets.
        for (key, stream) in [("1-1", "0:v:0"), ("1-2", "0:a:0"), ("1-3", "0:a:1")] {
            let joined = try Self.joined(out, key, "package-joined-\(key).mp4")
            func hash(_ url: URL, _ map: String) throws -> String {
                try Tool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", map, "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]).stdout
                    .split(separator: ",").last.map(String.init) ?? ""
            }
            #expect(try hash(joined, "0:0") == hash(source, stream), "\(key)")
        }
    }

    /// DASH's subtitles are `wvtt` in CMAF (ffmpeg 5.1 reads none): GStreamer's qtdemux and
    /// Splice's reader give the source's cues (a cue that spans a segment's start is split
    /// there, the same cue in both segments: joined back, the times are the source's).
    @Test func dashSubtitlesAreTheSourceCues() throws {
        let source = try Self.movie("package-subtitles.mp4")
        let out = try Self.package([source], "package-subtitles")
        let joined = try Self.joined(out, "1-4", "package-joined-text.mp4")
        let gst = try Tool.check("gst-launch-1.0", ["-v", "filesrc", "location=\(joined.path)", "!", "qtdemux", "!", "identity", "name=t", "silent=false", "!", "fakesink"]).stdout
        var spans: [(Double, Double)] = []
        for line in gst.split(separator: "\n") where line.contains("chain   ******* (t:sink)") && !line.contains("(8 bytes") {
            func time(_ key: String) -> Double? {
                guard let r = line.range(of: "\(key): [0-9:.]+", options: .regularExpression) else { return nil }
                let parts = line[r].dropFirst(key.count + 2).split(separator: ":").compactMap { Double($0) }
                return parts.count == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2] : nil
            }
            if let pts = time("pts"), let d = time("duration") {
                if let last = spans.last, abs(last.1 - pts) < 0.0005 { spans[spans.count - 1].1 = pts + d } else { spans.append((pts, pts + d)) }
            }
        }
        #expect(spans.count == 2 && abs(spans[0].0 - 0.5) < 0.001 && abs(spans[0].1 - 2.0) < 0.001
                && abs(spans[1].0 - 3.0) < 0.001 && abs(spans[1].1 - 5.5) < 0.001, "\(spans)")
        let read = try Asset(url: joined)
        let cues = try SubtitleExtraction.cues(of: try #require(read.tracks.first))
        let original = try SubtitleExtraction.cues(of: try #require(try Asset(url: source).track(withTrackID: 4)))
        #expect(cues.map { "\($0.start)-\($0.end) \($0.text)" } == original.map { "\($0.start)-\($0.end) \($0.text)" })
        // HLS: WebVTT segments with the timestamp map.
        let vtt = try String(contentsOf: out.appendingPathComponent("1-4/2.vtt"), encoding: .utf8)
        #expect(vtt.hasPrefix("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n") && vtt.contains("00:00:03.000 --> 00:00:05.500"))
    }

    @Test func oneFilePerTrackByByteRanges() throws {
        let source = try Self.movie("package-single-source.mp4")
        let out = try Self.package([source], "package-single", ["--single-file"])
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(files == ["1-1.m3u8", "1-1.mp4", "1-2.m3u8", "1-2.mp4", "1-3.m3u8", "1-3.mp4", "1-4", "1-4.m3u8", "1-4.mp4",
                          "1-5", "1-5.m3u8", "1-5.mp4", "manifest.mpd", "master.m3u8"])
        let playlist = try String(contentsOf: out.appendingPathComponent("1-1.m3u8"), encoding: .utf8)
        #expect(playlist.contains("#EXT-X-MAP:URI=\"1-1.mp4\",BYTERANGE=") && playlist.contains("#EXT-X-BYTERANGE:"))
        let mpd = try String(contentsOf: out.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        #expect(mpd.contains("isoff-on-demand") && mpd.contains("<BaseURL>1-1.mp4</BaseURL>") && mpd.contains("indexRange="))
        // The index range is the file's sidx.
        let data = try Data(contentsOf: out.appendingPathComponent("1-1.mp4"))
        let range = try #require(mpd.range(of: "indexRange=\"[0-9]+-[0-9]+\"", options: .regularExpression))
        let bounds = mpd[range].dropFirst(12).dropLast().split(separator: "-").compactMap { Int($0) }
        #expect(bounds.count == 2 && String(decoding: data[(bounds[0] + 4)..<(bounds[0] + 8)], as: UTF8.self) == "sidx")
        for manifest in ["master.m3u8", "manifest.mpd"] {
            let url = out.appendingPathComponent(manifest)
            #expect(try Self.frames(url) == Self.frames(source), "\(manifest)")
            #expect(try Self.gstreamer(url).pictures == Player.gstreamer.frames(source), "\(manifest)")
        }
    }

    /// An encrypted source stays encrypted, signalled in both manifests; ffmpeg decrypts the
    /// package's media with the key to the source's frames (each segment with its init segment:
    /// FFmpeg 5.1 finds a later fragment's sample auxiliary information only through a `sidx`,
    /// which the one file per track has).
    @Test func encryptionIsCarriedAndSignalled() throws {
        let clear = try Self.movie("package-clear.mp4", sound: false)
        let encrypted = Fixtures.path("package-encrypted.mp4")
        try Tool.ffmpeg(["-i", clear.path, "-c", "copy", "-encryption_scheme", "cenc-aes-ctr", "-encryption_key", EncryptionTests.key,
                         "-encryption_kid", EncryptionTests.keyID, encrypted.path])
        let original = try Self.frames(clear)
        let out = try Self.package([encrypted], "package-encrypted")
        let playlist = try String(contentsOf: out.appendingPathComponent("1-1.m3u8"), encoding: .utf8)
        #expect(playlist.contains("#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI=\"data:text/plain;base64,")
                && playlist.contains("KEYFORMAT=\"urn:uuid:1077efec-c0b2-4d02-ace3-3c1e52e2fb4b\",KEYFORMATVERSIONS=\"1\""))
        let mpd = try String(contentsOf: out.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        #expect(mpd.contains("<ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"cenc\" cenc:default_KID=\"01234567-89ab-cdef-0123-456789abcdef\"/>"))
        var frames: [String] = []
        for n in 1...3 {
            let piece = Fixtures.path("package-encrypted-\(n).mp4")
            try (Data(contentsOf: out.appendingPathComponent("1-1/init.mp4")) + Data(contentsOf: out.appendingPathComponent("1-1/\(n).m4s"))).write(to: piece)
            frames += try Self.frames(piece, ["-decryption_key", EncryptionTests.key])
        }
        #expect(frames == original && frames.count == 150)
        let single = try Self.package([encrypted], "package-encrypted-single", ["--single-file"])
        #expect(try Self.frames(single.appendingPathComponent("1-1.mp4"), ["-decryption_key", EncryptionTests.key]) == original)
    }

    /// Renditions: a variant each, the sound packaged once; a rendition whose sync samples are
    /// elsewhere is refused by name, and nothing is left.
    @Test func renditionsAreAlignedOrRefused() throws {
        let high = try Self.movie("package-high.mp4")
        let low = try Self.movie("package-low.mp4", size: "160x120")
        let out = Fixtures.path("package-ladder")
        let r = try Tool.splice(["package", high.path, low.path, "-o", out.path, "--segment", "2", "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("track 2 is the same kind of track as input 1's track 2; packaged once"))
        let master = try String(contentsOf: out.appendingPathComponent("master.m3u8"), encoding: .utf8)
        #expect(master.contains("RESOLUTION=320x240") && master.contains("RESOLUTION=160x120") && master.contains("\n2-1.m3u8\n"))
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("2-2.m3u8").path))
        let mpd = try String(contentsOf: out.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        #expect(mpd.components(separatedBy: "contentType=\"video\"").count == 2 && mpd.contains("<Representation id=\"2-1\""))

        let odd = try Self.movie("package-odd.mp4", size: "160x120", gop: 30)
        let refused = Fixtures.path("package-refused")
        let f = try Tool.splice(["package", high.path, odd.path, "-o", refused.path, "--segment", "2"])
        #expect(f.status == 65)
        #expect(f.stderr.contains("package-odd.mp4") && f.stderr.contains("segments do not start where the package's do"), "\(f.stderr)")
        #expect(!FileManager.default.fileExists(atPath: refused.path))
        let debris = try FileManager.default.contentsOfDirectory(atPath: Fixtures.directory.path).filter { $0.contains(".package-refused.packaging") }
        #expect(debris.isEmpty)
    }

    /// File names are Splice's: a track named like a path, and quotes in its name, reach
    /// neither the file system nor a manifest's syntax; an existing directory is kept without
    /// --force and replaced whole with it.
    @Test func namesAreOurs() throws {
        let source = Fixtures.path("package-names.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-f", "lavfi", "-i", "sine=duration=2",
                         "-c:v", "libx264", "-g", "25", "-c:a", "aac", "-metadata:s:a:0", "handler_name=../../escape\"x\",URI=\"evil",
                         "-metadata:s:a:0", "language=eng", source.path])
        let out = Fixtures.path("package-names")
        try? FileManager.default.removeItem(at: out)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
        let kept = try Tool.splice(["package", source.path, "-o", out.path])
        #expect(kept.status != 0 && kept.stderr.contains("exists"))
        let r = try Tool.splice(["package", source.path, "-o", out.path, "--force"])
        #expect(r.status == 0, "\(r.stderr)")
        let files = try FileManager.default.subpathsOfDirectory(atPath: out.path)
        #expect(files.allSatisfy { $0.range(of: "^([0-9]+-[0-9]+(\\.m3u8|\\.mp4|/init\\.mp4|/[0-9]+\\.(m4s|vtt))?|master\\.m3u8|manifest\\.mpd)$",
                                            options: .regularExpression) != nil }, "\(files)")
        let master = try String(contentsOf: out.appendingPathComponent("master.m3u8"), encoding: .utf8)
        let media = try #require(master.split(separator: "\n").first { $0.hasPrefix("#EXT-X-MEDIA:TYPE=AUDIO") })
        #expect(media.filter { $0 == "\"" }.count % 2 == 0 && media.components(separatedBy: "URI=\"").count == 2
                && media.hasSuffix("URI=\"1-2.m3u8\""), "\(media)")
    }

    /// The library call: progress from 0 to 1; a cancel from the progress handler stops it with
    /// `.cancelled`, leaving neither the directory nor the one it was being made in.
    @Test func theLibraryCallReportsAndCancels() throws {
        let source = try Self.movie("package-library.mp4")
        let out = Fixtures.path("package-library")
        let packager = Packager(inputURLs: [source], outputDirectory: out)
        packager.options.segmentDuration = MediaTime(value: 2, timescale: 1)
        packager.options.writesDASH = false
        packager.replacesExistingDirectory = true
        let seen = Locked<[Double]>([])
        packager.progressHandler = { f in seen.withLock { $0.append(f) } }
        let package = try packager.run()
        #expect(package.files.contains("master.m3u8") && !package.files.contains("manifest.mpd") && package.segments["1-1"] == 3)
        #expect(seen.withLock { $0.last } == 1 || seen.withLock { $0.max() ?? 0 } > 0.9)

        let cancelled = Fixtures.path("package-cancelled")
        let second = Packager(inputURLs: [source], outputDirectory: cancelled)
        second.progressHandler = { [weak second] f in if f > 0.3 { second?.cancel() } }
        #expect(throws: MediaError.self) { try second.run() }
        do { try second.run() } catch let e as MediaError { #expect(e.code == .cancelled) }
        #expect(!FileManager.default.fileExists(atPath: cancelled.path))
        let debris = try FileManager.default.contentsOfDirectory(atPath: Fixtures.directory.path).filter { $0.contains("package-cancelled.packaging") }
        #expect(debris.isEmpty)
    }

    /// A track that starts after the movie (ffmpeg's Matroska of a B-frame movie: the video
    /// 21 ms after the sound) has an empty edit first, which CMAF has not: its delay goes into
    /// its decode times. The package's video and a CMAF remux show it where the plain remux
    /// does (ffprobe's packet times), and the MPD's timeline says so (`t` less the offset).
    @Test func aLateTrackStartsLateByItsDecodeTimes() throws {
        let source = try Self.movie("package-late-source.mp4")
        let mkv = Fixtures.path("package-late.mkv")
        try Tool.ffmpeg(["-i", source.path, "-map", "0", "-c", "copy", "-c:s", "srt", mkv.path])
        func times(_ url: URL) throws -> [String] {
            try Tool.check("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", url.path])
                .stdout.split(separator: "\n").map(String.init)
        }
        let plain = Fixtures.path("package-late-plain.mp4"), cmaf = Fixtures.path("package-late-cmaf.mp4")
        for (out, options) in [(plain, [String]()), (cmaf, ["--cmaf", "--exclude-tracks", "subtitle"])] {
            let r = try Tool.splice(["remux", mkv.path, out.path, "--force"] + options)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let expected = try times(plain)
        #expect(expected.first.flatMap(Double.init).map { $0 > 0.01 } == true, "\(expected.prefix(2))")
        #expect(try times(cmaf) == expected)
        let out = try Self.package([mkv], "package-late")
        #expect(try times(Self.joined(out, "1-1", "package-late-video.mp4")) == expected)
        let mpd = try String(contentsOf: out.appendingPathComponent("manifest.mpd"), encoding: .utf8)
        let video = try #require(mpd.range(of: "(?s)<Representation id=\"1-1\".*?</Representation>", options: .regularExpression).map { String(mpd[$0]) })
        func number(_ pattern: String) -> Double? {
            video.range(of: pattern + "\"[0-9]+\"", options: .regularExpression).flatMap { Double(video[$0].split(separator: "\"")[1]) }
        }
        let (t, offset, scale) = (number(" t="), number("presentationTimeOffset="), number("timescale="))
        #expect(t != nil && offset != nil && scale != nil)
        if let t, let offset, let scale, let first = expected.first.flatMap(Double.init) { #expect(abs((t - offset) / scale - first) < 0.001) }
    }
}
