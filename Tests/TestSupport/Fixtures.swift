import Foundation
import ISOBMFF

/// Test movies, made once per test run with the ffmpeg CLI (an independent producer)
/// and, for what ffmpeg cannot write, patched box by box.
/// The fixture directory of this run (a global, so that the exit handler can name it).
private let fixtureDirectoryPath = FileManager.default.temporaryDirectory
    .appendingPathComponent("splice-fixtures-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path

public enum Fixtures {
    /// A directory of this test run's own, removed when the run exits (kept, to look into a
    /// failure, when SPLICE_KEEP_FIXTURES is set).
    public static let directory: URL = {
        let dir = URL(fileURLWithPath: fixtureDirectoryPath)
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        if ProcessInfo.processInfo.environment["SPLICE_KEEP_FIXTURES"] == nil {
            atexit { try? FileManager.default.removeItem(atPath: fixtureDirectoryPath) }
        }
        return dir
    }()

    public static func path(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// Writes a small text fixture. Atomically: fixtures made in parallel write the same
    /// inputs (`inputs(size:)`), and a reader must never see one half-rewritten.
    public static func write(_ name: String, _ text: String) throws -> URL {
        let url = path(name)
        try Data(text.utf8).write(to: url, options: .atomic)
        return url
    }

    /// Sources shared by the fixtures: video with B-frames, tones, subtitles, chapters.
    public static func inputs(size: String = "320x240") throws -> [String] {
        let en = try write("en.srt", "1\n00:00:00,500 --> 00:00:01,500\nHello\n\n2\n00:00:02,000 --> 00:00:02,800\nWorld\n")
        let forced = try write("forced.srt", "1\n00:00:01,000 --> 00:00:02,000\nForced\n")
        let chapters = try write("chapters.txt", """
            ;FFMETADATA1
            [CHAPTER]
            TIMEBASE=1/1000
            START=0
            END=1500
            title=One
            [CHAPTER]
            TIMEBASE=1/1000
            START=1500
            END=3000
            title=Two

            """)
        return [
            "-f", "lavfi", "-i", "testsrc=size=\(size):rate=25:duration=3",
            "-f", "lavfi", "-i", "sine=frequency=440:duration=3",
            "-f", "lavfi", "-i", "sine=frequency=660:duration=3",
            "-f", "lavfi", "-i", "sine=frequency=880:duration=3",
            "-i", en.path, "-i", forced.path, "-i", chapters.path,
        ]
    }

    public static let codecs = [
        "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g", "25",
        "-c:a:0", "aac", "-c:a:1", "aac", "-c:a:2", "ac3",
        "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", "-metadata:s:a:2", "language=eng",
    ]

    /// The grouped movie (ffmpeg made, moov patched):
    /// 1 video (B-frames) · 2 AAC eng, 3 AAC fra → group 2 (2 enabled) · 4 AC-3 → group 5
    /// (enabled) · 5 tx3g eng, 6 tx3g eng forced → group 7 (5 enabled) · 7 chapter text (ffmpeg's).
    /// References: every track `chap`→7 (ffmpeg's), 4 `fall`→2, 5 `forc`→6, 2 `folw`→5.
    /// `elng`: 3 `fr-CA`, 5 `en-US`. Track 6 edits: empty 1 s, media 0–1 s, media 1.5–2 s.
    public static let grouped: Result<URL, Error> = Result {
        let url = path("grouped.mp4")
        try makeGrouped(url)
        return url
    }

    /// Makes the grouped movie at `url` (also the bundled demo sample, at 160x120).
    public static func makeGrouped(_ url: URL, size: String = "320x240", extra: [String] = []) throws {
        try Tool.ffmpeg(try inputs(size: size) + [
            "-map_chapters", "6", "-map", "0", "-map", "1", "-map", "2", "-map", "3", "-map", "4", "-map", "5",
        ] + codecs + [
            "-c:s", "mov_text", "-metadata:s:s:0", "language=eng", "-metadata:s:s:1", "language=eng",
            "-metadata:s:s:1", "handler_name=Forced",
        ] + extra + [url.path])
        try MoovPatch.apply(to: url) { moov in
            let groups: [UInt32: (Bool, Int16)] = [2: (true, 2), 3: (false, 2), 4: (true, 5), 5: (true, 7), 6: (false, 7)]
            for (id, (enabled, group)) in groups {
                moov.modifyTrack(id) { $0.setTrackHeader(enabled: enabled, alternateGroup: group) }
            }
            moov.modifyTrack(4) { $0.addReference("fall", to: [2]) }
            moov.modifyTrack(5) { $0.addReference("forc", to: [6]) }
            moov.modifyTrack(2) { $0.addReference("folw", to: [5]) }
            moov.modifyTrack(3) { $0.addExtendedLanguage("fr-CA") }
            moov.modifyTrack(5) { $0.addExtendedLanguage("en-US") }
            // Movie timescale 1000 (ffmpeg's MP4 default); media times in the track's own timescale.
            moov.modifyTrack(6) { trak in
                let scale = Int64(trak.mediaTimescale)
                trak.setEditList([(1000, -1, 1), (1000, 0, 1), (500, scale * 3 / 2, 1)])
            }
        }
    }

    /// The grouped movie with its subtitle group all disabled (tracks 5 and 6).
    public static let allDisabled: Result<URL, Error> = Result {
        let url = path("all-disabled.mp4")
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.copyItem(at: try grouped.get(), to: url)
        try MoovPatch.apply(to: url) { moov in
            moov.modifyTrack(5) { $0.setTrackHeader(enabled: false) }
        }
        return url
    }

    /// H.264 with B-frames and negative composition offsets (`ctts` version 1), plus AAC.
    public static let negativeCTS: Result<URL, Error> = Result {
        let url = path("negative-cts.mp4")
        try Tool.ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=2",
            "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
            "-c:v", "libx264", "-preset", "ultrafast", "-bf", "3", "-g", "12", "-c:a", "aac",
            "-movflags", "negative_cts_offsets", url.path,
        ])
        return url
    }

    /// A fragmented MP4 (ffmpeg `frag_keyframe+empty_moov`): H.264 + AAC.
    public static let fragmented: Result<URL, Error> = Result {
        let url = path("fragmented.mp4")
        try Tool.ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=3",
            "-f", "lavfi", "-i", "sine=frequency=440:duration=3",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-c:a", "aac",
            "-movflags", "frag_keyframe+empty_moov+default_base_moof", url.path,
        ])
        return url
    }

    /// A QuickTime movie (ffmpeg, `.mov`): H.264, AAC in German (stored as a Macintosh language code).
    public static let quickTime: Result<URL, Error> = Result {
        let url = path("movie.mov")
        try Tool.ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=2",
            "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
            "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
            url.path,
        ])
        // ffmpeg leaves the MOV language unspecified; store German as Macintosh code 2.
        try MoovPatch.apply(to: url) { moov in
            moov.modifyTrack(2) { $0.setMacintoshLanguage(2) }
        }
        return url
    }

    /// A Matroska file (read through libavformat): H.264, two audio tracks, SRT subtitles.
    public static let matroska: Result<URL, Error> = Result {
        let url = path("movie.mkv")
        let en = try write("mkv.srt", "1\n00:00:00,500 --> 00:00:01,500\nHello\n")
        try Tool.ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=2",
            "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
            "-f", "lavfi", "-i", "sine=frequency=660:duration=2",
            "-i", en.path,
            "-map", "0", "-map", "1", "-map", "2", "-map", "3",
            "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-c:s", "srt",
            "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=spa",
            "-metadata:s:s:0", "language=fre", "-metadata:s:a:1", "title=Commentary",
            "-disposition:a:1", "0", "-disposition:s:0", "forced",
            url.path,
        ])
        return url
    }
}

/// A fixture by name, for parameterized tests: `grouped`, `fragmented`, `quickTime`, `matroska`.
public func fixture(_ name: String) throws -> URL {
    switch name {
    case "grouped": try Fixtures.grouped.get()
    case "fragmented": try Fixtures.fragmented.get()
    case "quickTime": try Fixtures.quickTime.get()
    case "matroska": try Fixtures.matroska.get()
    default: throw ToolError(message: "no fixture \(name)")
    }
}
