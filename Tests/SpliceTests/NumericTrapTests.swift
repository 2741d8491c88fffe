import Foundation
import ISOBMFF
import MediaCore
import Testing
import TestSupport

/// Numbers from a file that once made Splice trap (a bare conversion of a value that does not
/// fit): each is read, inspected and copied with exit 0, or refused with one line naming the box.
@Suite("Numbers that do not fit")
struct NumericTrapTests {
    /// An ffmpeg movie whose `mvhd`, `tkhd`s and `mdhd`s are made version 1 with creation and
    /// modification times of all ones (2^64 − 1).
    static let allOnesTimes: Result<URL, Error> = Result {
        let url = Fixtures.path("times-all-ones.mov")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1", "-f", "lavfi", "-i", "sine=duration=1",
                         "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", url.path])
        try MoovPatch.apply(to: url) { moov in
            moov.modifyChild("mvhd") { $0.payload = versionOne($0.payload, trackHeader: false) }
            for id: UInt32 in [1, 2] {
                moov.modifyTrack(id) { trak in
                    trak.modifyChild("tkhd") { $0.payload = versionOne($0.payload, trackHeader: true) }
                    trak.modifyChild("mdia") { $0.modifyChild("mdhd") { $0.payload = versionOne($0.payload, trackHeader: false) } }
                }
            }
        }
        return url
    }

    /// A version-0 `mvhd`/`mdhd` (or `tkhd`) payload as version 1, times all ones, duration kept.
    static func versionOne(_ p: [UInt8], trackHeader: Bool) -> [UInt8] {
        precondition(p[0] == 0)
        let ones = [UInt8](repeating: 0xFF, count: 16)
        let duration = trackHeader ? 20 : 16
        return [1] + p[1..<4] + ones + p[12..<duration] + [0, 0, 0, 0] + p[duration..<(duration + 4)] + p[(duration + 4)...]
    }

    @Test func versionOneTimesOfAllOnes() throws {
        let url = try Self.allOnesTimes.get()
        let inspect = try Tool.splice(["inspect", url.path])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let out = Fixtures.path("times-all-ones-copy.mov")
        let remux = try Tool.splice(["remux", url.path, out.path, "--force"])
        #expect(remux.status == 0, "\(remux.stderr)")
        // The copy keeps the media headers' times as they were: 64-bit, all ones.
        let copy = try MovieFile(file: InMemoryBytes([UInt8](try Data(contentsOf: out))))
        for track in copy.tracks {
            #expect(track.mediaHeader.creationTime == .max)
            #expect(track.mediaHeader.modificationTime == .max)
        }
        #expect(try Tool.run("ffprobe", ["-v", "error", out.path]).status == 0)
        #expect(try Self.streamHashes(url) == Self.streamHashes(out))
    }

    /// 16-bit PCM at 96 kHz in MOV, which ffmpeg writes with a version-2 sound description.
    /// Made once (the cases run in parallel: each making it when missing read it half-written).
    static let pcm96k: Result<URL, Error> = Result {
        let source = Fixtures.path("pcm96k.mov")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=duration=0.5:sample_rate=96000", "-c:a", "pcm_s16le", source.path])
        return source
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, -48000, 1e300])
    func soundDescriptionVersionTwoRate(_ rate: Double) throws {
        let source = try Self.pcm96k.get()
        var bytes = [UInt8](try Data(contentsOf: source))
        // The entry: size, type, 6 reserved, data reference index, then version 2's fields; the
        // float64 rate follows version, revision, vendor, 3, 16, -2, 0, 65536 and the struct size.
        let type = try #require(bytes.firstRange(of: Array("stsd".utf8)))
        let entry = type.upperBound + 8
        #expect(bytes[(entry + 16)..<(entry + 18)] == [0, 2], "not a version-2 sound description")
        let at = entry + 40
        bytes.replaceSubrange(at..<(at + 8), with: withUnsafeBytes(of: rate.bitPattern.bigEndian, Array.init))
        let url = Fixtures.path("pcm96k-rate-\(rate).mov")
        try Data(bytes).write(to: url)
        let inspect = try Tool.splice(["inspect", url.path])
        #expect(inspect.status == 0 || (inspect.status == 65 && inspect.stderr.split(separator: "\n").count == 1), "\(inspect.stderr)")
        let out = Fixtures.path("pcm96k-rate-\(rate)-copy.mov")
        let remux = try Tool.splice(["remux", url.path, out.path, "--force"])
        #expect(remux.status == 0, "\(remux.stderr)")
        // The copy is lossless: the entry as it was, every sample the same. (ffmpeg refuses the
        // rate, so the copy's rate is set back to 96 kHz and compared with the source before the change.)
        var copied = [UInt8](try Data(contentsOf: out))
        let kept = try #require(copied.firstRange(of: bytes[entry..<(entry + 64)]))
        let original = [UInt8](try Data(contentsOf: source))
        copied.replaceSubrange((kept.lowerBound + 40)..<(kept.lowerBound + 48), with: original[at..<(at + 8)])
        let restored = Fixtures.path("pcm96k-rate-\(rate)-restored.mov")
        try Data(copied).write(to: restored)
        #expect(try Self.streamHashes(source) == Self.streamHashes(restored))
    }

    /// Numbers typed on the command line are untrusted too: a bit rate of 1e300 is a usage error.
    @Test func hugeNumbersOnTheCommandLine() throws {
        let url = try Self.allOnesTimes.get()
        let out = Fixtures.path("huge-bitrate.mp4")
        for rate in ["1e300", "inf", "nan", "9223372036854775808k"] {
            let r = try Tool.splice(["export", url.path, "-o", out.path, "--audio-bitrate", rate])
            #expect(r.status == 64, "--audio-bitrate \(rate): status \(r.status): \(r.stderr)")
            #expect(r.stderr.hasPrefix("error: "), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }

    static func streamHashes(_ url: URL) throws -> String {
        try Tool.check("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:v?", "-map", "0:a?", "-c", "copy",
                                  "-f", "streamhash", "-hash", "md5", "-"]).stdout
    }

    /// A fragmented movie whose version-1 `tfdt`s all start at 2^64 − 1 or 2^64 − 2 (once an
    /// arithmetic-overflow trap in the fragment timing check): inspected with exit 0, and refused
    /// by a copy with one line naming the fragment, nothing written.
    @Test(arguments: [UInt64.max, UInt64.max - 1])
    func fragmentDecodeTimeNearTheEnd(_ tfdt: UInt64) throws {
        let url = Fixtures.path("tfdt-\(tfdt).mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=2", "-c:v", "libx264", "-preset", "ultrafast",
                         "-g", "5", "-movflags", "+frag_keyframe+empty_moov", url.path])
        var bytes = [UInt8](try Data(contentsOf: url))
        var patched = 0
        var i = 4
        while i + 16 <= bytes.count {
            if bytes[i..<(i + 4)].elementsEqual("tfdt".utf8) {
                #expect(bytes[i + 4] == 1, "ffmpeg writes version-1 tfdt boxes")
                for k in 0..<8 { bytes[i + 8 + k] = UInt8(truncatingIfNeeded: tfdt >> (56 - 8 * UInt64(k))) }
                patched += 1
            }
            i += 1
        }
        #expect(patched > 1)
        try Data(bytes).write(to: url)
        let inspect = try Tool.splice(["inspect", url.path])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let out = Fixtures.path("tfdt-\(tfdt)-copy.mp4")
        try? FileManager.default.removeItem(at: out)
        let remux = try Tool.splice(["remux", url.path, out.path])
        #expect(remux.status == 65)
        #expect(remux.stderr.contains("starts its decode times at \(tfdt) (tfdt)"), "\(remux.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
