import Foundation
import Testing
import TestSupport

/// A track whose sample descriptions differ (clips encoded with different settings, joined):
/// written to Matroska and MPEG-TS, which have one configuration per stream, every frame still
/// decodes to the source's in ffmpeg, GStreamer and mpv.
@Suite("Parameter-set changes")
struct ParameterSetChangeTests {
    /// Two 1 s clips per codec whose SPS/PPS differ (GOP, preset, B-frames), and the raw
    /// yuv420p frames of both, one after the other (ffmpeg's decoding of the sources).
    /// `bFrames`: whether the first has B-frames (its edit then starts after a composition delay).
    static func clips(_ codec: String, bFrames: Bool = true, for caller: String) throws -> (URL, URL, Data) {
        let a = Fixtures.path("ps-\(caller)-\(codec)-a\(bFrames).mp4"), b = Fixtures.path("ps-\(caller)-\(codec)-b.mp4")
        let (encoder, quiet) = codec == "h264" ? ("libx264", [String]()) : ("libx265", ["-x265-params", "log-level=error"])
        if !FileManager.default.fileExists(atPath: a.path) {
            try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=24:duration=1", "-c:v", encoder, "-preset", "veryfast",
                             "-g", "12", "-pix_fmt", "yuv420p"] + (bFrames ? [] : ["-bf", "0"]) + quiet + [a.path])
        }
        if !FileManager.default.fileExists(atPath: b.path) {
            try Tool.ffmpeg(["-f", "lavfi", "-i", "mandelbrot=size=320x240:rate=24", "-t", "1", "-c:v", encoder, "-bf", "0",
                             "-pix_fmt", "yuv420p"] + quiet + [b.path])
        }
        return (a, b, try Player.ffmpeg.frames(a) + Player.ffmpeg.frames(b))
    }

    static func splice(_ args: [String]) throws {
        let r = try Tool.splice(args)
        guard r.status == 0 else { throw ToolError(message: "splice \(args.joined(separator: " ")): \(r.stderr)") }
    }

    /// The entry count of the (only) `stsd` box, read from the bytes.
    static func sampleEntryCount(_ url: URL) throws -> Int {
        let bytes = [UInt8](try Data(contentsOf: url))
        let name: [UInt8] = Array("stsd".utf8)
        guard let i = (4..<(bytes.count - 12)).first(where: { Array(bytes[$0..<($0 + 4)]) == name }) else { return 0 }
        return bytes[(i + 8)..<(i + 12)].reduce(0) { $0 << 8 | Int($1) }
    }

    @Test(arguments: ["h264", "hevc"], ["mkv", "ts"])
    func concatAndRemuxDecodeEveryFrame(codec: String, ext: String) throws {
        let (a, b, source) = try Self.clips(codec, for: ext)
        let joined = Fixtures.path("ps-\(codec)-joined.\(ext)")
        try Self.splice(["concat", a.path, b.path, "-o", joined.path, "--force"])
        // An MP4 with two descriptions, remuxed. (Its first clip has no B-frames: an MP4 whose
        // edits do not follow one another is not what this is about.)
        let (plainA, _, plainSource) = try Self.clips(codec, bFrames: false, for: ext)
        let mp4 = Fixtures.path("ps-\(codec)-\(ext)-two.mp4"), remuxed = Fixtures.path("ps-\(codec)-remuxed.\(ext)")
        try Self.splice(["concat", "--cut", "exact", plainA.path, b.path, "-o", mp4.path, "--force"])
        #expect(try Self.sampleEntryCount(mp4) == 2)
        // Cut smart (the default): one entry, each sync sample with its own parameter sets.
        let smart = Fixtures.path("ps-\(codec)-\(ext)-smart.mp4")
        try Self.splice(["concat", plainA.path, b.path, "-o", smart.path, "--force"])
        #expect(try Self.sampleEntryCount(smart) == 1)
        for player in Player.allCases {
            #expect(try player.frames(smart) == plainSource, "\(player) shows other frames than the sources' in \(smart.lastPathComponent)")
        }
        try Self.splice(["remux", mp4.path, remuxed.path, "--force"])
        for (file, source) in [(joined, source), (remuxed, plainSource)] {
            for player in Player.allCases {
                let frames = try player.frames(file)
                #expect(frames.count == source.count, "\(player): \(frames.count / (320 * 240 * 3 / 2)) frames of \(file.lastPathComponent)")
                #expect(frames == source, "\(player) shows other frames than the sources' in \(file.lastPathComponent)")
            }
        }
    }

    /// AAC whose AudioSpecificConfig changes (LC, then Main) cannot be carried in Matroska:
    /// refused, naming the track, with nothing written.
    @Test func otherCodecsWhoseConfigurationChangesAreRefused() throws {
        let lc = Fixtures.path("ps-lc.m4a"), main = Fixtures.path("ps-main.m4a")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=r=48000:d=1", "-ac", "2", "-c:a", "aac", lc.path])
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=r=48000:d=1", "-ac", "2", "-c:a", "aac", "-profile:a", "aac_main", main.path])
        let both = Fixtures.path("ps-aac-two.mp4"), mkv = Fixtures.path("ps-aac-two.mkv")
        try Self.splice(["concat", lc.path, main.path, "-o", both.path, "--audio-only", "--reencode", "never", "--force"])
        let r = try Tool.splice(["remux", both.path, mkv.path])
        #expect(r.status == 65)
        #expect(r.stderr.contains("track 1: its aac configuration changes partway"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: mkv.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: Fixtures.directory.path).filter { $0.contains("ps-aac-two.mkv") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
