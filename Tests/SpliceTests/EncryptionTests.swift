import Foundation
import MediaCore
import Splice
import Testing
import TestSupport

/// Encrypted and fragmented MP4: Common Encryption carried through remux and `subtitles add`
/// (checked with `scripts/cenc-boxes`, a reader of the boxes that is not Splice's, and by
/// ffmpeg decrypting the output), fragmented files defragmented with their auxiliary
/// information, open-ended edits and CMAF start times, `--verify`, and what is refused.
@Suite("Encryption and fragments")
struct EncryptionTests {
    static let key = "00112233445566778899aabbccddeeff"
    static let keyID = "0123456789abcdef0123456789abcdef"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/cenc-boxes").path

    /// A clear H.264 + AAC movie and the same encrypted by ffmpeg (`cenc-aes-ctr`: subsample
    /// maps for the video's NAL units, IVs alone for the audio).
    static let movies: Result<(clear: URL, encrypted: URL), Error> = Result {
        let clear = Fixtures.path("cenc-clear.mp4"), encrypted = Fixtures.path("cenc-progressive.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2", "-f", "lavfi", "-i", "sine=duration=2",
                         "-c:v", "libx264", "-preset", "ultrafast", "-g", "12", "-c:a", "aac", clear.path])
        try Tool.ffmpeg(["-i", clear.path, "-c", "copy", "-encryption_scheme", "cenc-aes-ctr", "-encryption_key", key,
                         "-encryption_kid", keyID, encrypted.path])
        return (clear, encrypted)
    }

    /// The movie cut into fragments of 10 samples by the script.
    static let fragmented: Result<URL, Error> = Result {
        let url = Fixtures.path("cenc-fragmented.mp4")
        try boxes(["fragment", try movies.get().encrypted.path, url.path])
        return url
    }
    /// The clear movie's frames, decoded by ffmpeg.
    static let clearFrames: Result<String, Error> = Result { try frames(try movies.get().clear) }

    /// Runs `scripts/cenc-boxes` (`command` `input` `output`? …) and returns its output.
    @discardableResult
    static func boxes(_ arguments: [String]) throws -> String {
        try Tool.check("python3", [script] + arguments).stdout
    }

    /// Every protected track's per-sample auxiliary information, as the script finds it.
    static func entries(_ url: URL) throws -> String { try boxes(["entries", url.path]) }

    /// The decoded frames' md5s (ffmpeg's framemd5 without its header).
    static func frames(_ url: URL, key: String? = nil) throws -> String {
        let out = Fixtures.path(url.deletingPathExtension().lastPathComponent + ".framemd5")
        try Tool.ffmpeg((key.map { ["-decryption_key", $0] } ?? []) + ["-i", url.path, "-map", "0:v", "-map", "0:a", "-f", "framemd5", out.path])
        return try String(contentsOf: out, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n")
    }

    /// The variants of the encrypted movie: progressive (ffmpeg's), fragmented (10 samples a
    /// fragment, `senc`/`saiz`/`saio` in each `traf`), `cbcs` and PIFF (`uuid` senc, no saiz/saio).
    static func variant(_ name: String) throws -> URL {
        let (encrypted, fragmented) = (try movies.get().encrypted, try Self.fragmented.get())
        switch name {
        case "progressive": return encrypted
        case "fragmented": return fragmented
        case "cbcs":
            let url = Fixtures.path("cenc-cbcs.mp4")
            try boxes(["scheme", fragmented.path, url.path, "cbcs"])
            return url
        default:
            let piff = Fixtures.path("cenc-piff-senc.mp4"), url = Fixtures.path("cenc-piff.mp4")
            try boxes(["to-piff", fragmented.path, piff.path])
            try boxes(["scheme", piff.path, url.path, "piff"])
            return url
        }
    }

    @Test(arguments: ["progressive", "fragmented", "cbcs", "piff"])
    func encryptionIsCarriedThrough(_ name: String) throws {
        let source = try Self.variant(name)
        let out = Fixtures.path("cenc-out-\(name).mp4")
        let r = try Tool.splice(["remux", source.path, out.path, "--force", "--verify"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("verified: 2 tracks, 138 samples"))
        let (a, b) = (try Self.entries(source), try Self.entries(out))
        #expect(a.hasPrefix("track 1: 50 entries\n") && a.contains("track 2: 88 entries\n"), "\(a.prefix(200))")
        #expect(a == b, "the copy's senc/saiz/saio hold other IVs or subsample maps")
        #expect(try Tool.run("ffprobe", ["-v", "quiet", out.path]).status == 0)
        if name == "progressive" || name == "fragmented" {
            #expect(try Self.frames(out, key: Self.key) == Self.clearFrames.get())
        }
        let report = try Tool.splice(["inspect", out.path]).stdout
        let scheme = ["progressive": "cenc", "fragmented": "cenc", "cbcs": "cbcs", "piff": "piff"][name]!
        #expect(report.contains("track 1: \(scheme), of avc1, key ID \(Self.keyID)"), "\(report)")
    }

    @Test func faststartAndSubtitlesKeepTheEncryption() throws {
        let encrypted = Fixtures.path("cenc-pssh.mp4")
        try Self.boxes(["add-pssh", try Self.movies.get().encrypted.path, encrypted.path])
        let fast = Fixtures.path("cenc-faststart.mp4"), subtitled = Fixtures.path("cenc-subtitled.mp4")
        #expect(try Tool.splice(["remux", encrypted.path, fast.path, "--faststart", "--force"]).status == 0)
        let srt = try Fixtures.write("cenc.srt", "1\n00:00:00,500 --> 00:00:01,500\nHello\n")
        #expect(try Tool.splice(["subtitles", "add", encrypted.path, srt.path, "-o", subtitled.path, "--force"]).status == 0)
        for url in [fast, subtitled] {
            #expect(try Self.entries(url) == Self.entries(encrypted))
            #expect(try Self.frames(url, key: Self.key) == Self.clearFrames.get())
            let (pssh, original) = (try Self.boxes(["pssh", url.path]), try Self.boxes(["pssh", encrypted.path]))
            #expect(!pssh.isEmpty && pssh == original, "the pssh box is kept as it is")
        }
    }

    @Test func damagedEncryptionDataFailsVerification() throws {
        let encrypted = try Self.movies.get().encrypted
        let damaged = Fixtures.path("cenc-damaged.mp4"), out = Fixtures.path("cenc-damaged-out.mp4")
        try Self.boxes(["damage-saio", encrypted.path, damaged.path])
        try? FileManager.default.removeItem(at: out)
        let r = try Tool.splice(["remux", damaged.path, out.path, "--verify"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("verification failed") && r.stderr.contains("encryption data is damaged"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let left = try FileManager.default.contentsOfDirectory(atPath: out.deletingLastPathComponent().path).filter { $0.hasPrefix(".cenc-damaged-out.verifying") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func whatCannotBeCarriedIsRefused() throws {
        let (clear, encrypted) = try Self.movies.get()
        let mkv = Fixtures.path("cenc-clear.mkv"), encryptedMKV = Fixtures.path("cenc-encrypted.mkv")
        try Tool.ffmpeg(["-i", clear.path, "-c", "copy", mkv.path])
        try Self.boxes(["encrypt-mkv", mkv.path, encryptedMKV.path, Self.keyID])
        let out = Fixtures.path("cenc-refused")
        let cases: [([String], String)] = [
            (["remux", encrypted.path, out.path + ".mkv"], ".mkv files cannot carry MP4's Common Encryption"),
            (["export", encrypted.path, "-o", out.path + ".mp4", "--preset", "passthrough", "--range", "0,1"], "only be copied whole"),
            (["export", encrypted.path, "-o", out.path + ".mp4"], "cannot be decoded without the key"),
            (["concat", encrypted.path, encrypted.path, "-o", out.path + ".mp4"], "joined from encrypted clips"),
            (["remux", encryptedMKV.path, out.path + ".mkv"], "ContentEncryption cannot be carried"),
            (["remux", encryptedMKV.path, out.path + ".mp4"], "still-encrypted frames would be written as a clear track"),
        ]
        for (args, text) in cases {
            let r = try Tool.splice(args)
            #expect(r.status == 65, "\(args): \(r.stderr)")
            #expect(r.stderr.contains(text) && r.stderr.contains("track 1 is encrypted"), "\(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1)
            for ext in ["mkv", "mp4"] { #expect(!FileManager.default.fileExists(atPath: out.path + "." + ext)) }
        }
        #expect(try Tool.splice(["inspect", encryptedMKV.path]).stdout.contains("track 1: ContentEncryption, key ID \(Self.keyID)"))
    }

    /// A clear lead: each track has an encrypted and a clear sample entry, and its first fragment
    /// names the clear one (`tfhd` sample description index 2, no `senc`/`saiz`/`saio`), its
    /// samples unencrypted. It is reported clear where it is, copied with both entries, and the
    /// copy verifies; the encrypted samples' IVs and subsample maps are carried as they are.
    @Test func aClearLeadIsClearAndCopies() throws {
        let (clear, encrypted) = try Self.movies.get()
        let source = Fixtures.path("cenc-clear-lead.mp4"), out = Fixtures.path("cenc-clear-lead-out.mp4")
        try Self.boxes(["fragment", encrypted.path, source.path, "--clear-lead", clear.path])
        let report = try Tool.splice(["inspect", source.path]).stdout
        #expect(report.contains("track 1: cenc, of avc1, key ID \(Self.keyID), 10 samples clear (of a clear sample entry)"), "\(report)")
        #expect(!report.contains("cannot be copied"), "\(report)")
        let r = try Tool.splice(["remux", source.path, out.path, "--force", "--verify"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("verified: 2 tracks, 138 samples"), "\(r.stdout)")
        // The copy's saiz gives the clear samples no information (size 0); the rest are the source's.
        let nonEmpty = { (u: URL) in try Self.entries(u).split(separator: "\n").filter { !$0.hasPrefix("track") } }
        #expect(try nonEmpty(out) == nonEmpty(source))
        #expect(try Tool.splice(["inspect", out.path]).stdout.contains("10 samples clear (of a clear sample entry)"))
        // (ffmpeg 5.1 does not read such a file — "Incorrect number of samples in encryption
        // info" — so the script and --verify are the independent checks here.)
    }

    /// Fragments whose `tfdt` disagrees with the durations before them: a later start is kept
    /// (decode times unchanged, the sample before it longer), said in a warning, and verifies;
    /// an earlier one (decode times going back) is refused, naming the fragment. A plain remux
    /// never changes a time that --verify would reject.
    @Test func fragmentsThatDisagreeWithTheirDurations() throws {
        let clear = try Self.movies.get().clear
        let gap = Fixtures.path("frag-gap.mp4"), overlap = Fixtures.path("frag-overlap.mp4")
        try Self.boxes(["fragment", clear.path, gap.path, "--tfdt-gap", "0.5"])
        try Self.boxes(["fragment", clear.path, overlap.path, "--tfdt-gap", "-0.1"])
        let out = Fixtures.path("frag-gap-out.mp4")
        let r = try Tool.splice(["remux", gap.path, out.path, "--force", "--verify"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("warning: \(gap.path): the fragment at byte") && r.stderr.contains("starts 0.500 s after the samples before it end"), "\(r.stderr)")
        // (Edit lists aside: the source's, copied, shows 2 s of what is now 2.5 s of media in both.)
        let dts = { (u: URL) in
            try Tool.check("ffprobe", ["-v", "error", "-ignore_editlist", "1", "-show_entries", "packet=stream_index,dts_time", "-of", "csv=p=0", u.path])
                .stdout.split(separator: "\n").sorted { $0.prefix(1) < $1.prefix(1) }
        }
        #expect(try dts(out) == dts(gap), "the copy's decode times are the source's")
        let plain = Fixtures.path("frag-gap-plain.mp4")
        #expect(try Tool.splice(["remux", gap.path, plain.path, "--force"]).status == 0)
        #expect(try Data(contentsOf: plain) == Data(contentsOf: out), "--verify checks what a plain remux writes")
        let refused = try Tool.splice(["remux", overlap.path, Fixtures.path("frag-overlap-out.mp4").path, "--force"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("starts its decode times at") && refused.stderr.contains("before the samples before it end"), "\(refused.stderr)")
    }

    /// A fragmented file whose last edit has a duration of 0 ("to the end of the media") is
    /// defragmented with that edit's real duration.
    @Test func openEndedEditBecomesTheRealDuration() throws {
        let clear = try Self.movies.get().clear
        let source = Fixtures.path("frag-open-edit.mp4"), out = Fixtures.path("frag-open-edit-out.mp4")
        try Self.boxes(["fragment", clear.path, source.path, "--open-edit"])
        let r = try Tool.splice(["remux", source.path, out.path, "--force", "--verify"])
        #expect(r.status == 0, "\(r.stderr)")
        let probe = try Tool.check("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out.path]).stdout
        #expect(abs((Double(probe.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 2) < 0.05, "\(probe)")
        #expect(try Tool.check("ffmpeg", ["-v", "error", "-i", out.path, "-map", "0:v", "-f", "framemd5", "-"]).stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 50)
    }

    /// A CMAF-style fragmented file (no edit list, the first `tfdt` at 10 s) passes `--verify`,
    /// and its copy starts at 10 s with the same packets.
    @Test func fragmentsStartingLaterVerify() throws {
        let clear = try Self.movies.get().clear
        let source = Fixtures.path("frag-late.mp4"), out = Fixtures.path("frag-late-out.mp4")
        try Self.boxes(["fragment", clear.path, source.path, "--tfdt-offset", "10"])
        let r = try Tool.splice(["remux", source.path, out.path, "--force", "--verify"])
        #expect(r.status == 0, "\(r.stderr)")
        let hashes = { (u: URL) in try Tool.check("ffmpeg", ["-v", "error", "-i", u.path, "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]).stdout }
        #expect(try hashes(out) == hashes(source))
        let start = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=start_time", "-of", "csv=p=0", out.path]).stdout
        #expect(abs((Double(start.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 10) < 0.01, "\(start)")
    }
}
