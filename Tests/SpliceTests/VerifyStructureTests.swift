import Foundation
import ISOBMFF
import MediaCore
import Splice
import Testing
import TestSupport

/// `--verify` proves what Splice promises: a copy whose structure differs from its source's in
/// one property fails, naming it; handler names kept byte for byte; huge edit values compare
/// exactly.
@Suite("Verify the structure")
struct VerifyStructureTests {
    /// A faithful copy of the grouped movie (moov last, so that it can be patched).
    static func copy(_ name: String) throws -> (source: URL, copy: URL) {
        let source = try Fixtures.grouped.get()
        let copy = Fixtures.path("verify-\(name).mp4")
        let r = try Tool.splice(["remux", source.path, copy.path, "--force", "--verify"])
        guard r.status == 0 else { throw ToolError(message: r.stderr) }
        return (source, copy)
    }

    static func packed(_ language: String) -> UInt16 {
        language.utf8.reduce(0) { $0 << 5 | UInt16($1 - 0x60) }
    }

    static func changeHandlerName(_ trak: inout Box) {
        trak.modifyChild("mdia") { mdia in
            mdia.modifyChild("hdlr") { hdlr in
                let last = hdlr.payload.count - 2              // (before the terminating zero)
                hdlr.payload[last] = hdlr.payload[last] == UInt8(ascii: "X") ? UInt8(ascii: "Y") : UInt8(ascii: "X")
            }
        }
    }

    static func changeSampleEntry(_ trak: inout Box) {
        trak.modifyChild("mdia") { mdia in
            mdia.modifyChild("minf") { minf in
                minf.modifyChild("stbl") { stbl in
                    stbl.modifyChild("stsd") { stsd in
                        // The first entry's compressor name (visual entry: 8 + 6 + 2 + 16 + 4 + 4 + 4 + 2 = … byte 50 of the entry).
                        stsd.payload[8 + 50] ^= 0x20
                    }
                }
            }
        }
    }

    /// Each property changed in the copy: the comparison fails and says which.
    @Test(arguments: ["language", "group", "enabled", "tref", "handler", "description", "edit"])
    func aChangedPropertyFailsVerification(property: String) throws {
        let (source, copy) = try Self.copy(property)
        try MoovPatch.apply(to: copy) { moov in
            switch property {
            case "language": moov.modifyTrack(2) { $0.setMacintoshLanguage(Self.packed("deu")) }
            case "group": moov.modifyTrack(2) { $0.setTrackHeader(alternateGroup: 9) }
            case "enabled": moov.modifyTrack(3) { $0.setTrackHeader(enabled: true) }
            case "tref": moov.modifyTrack(3) { $0.addReference("hint", to: [1]) }
            case "handler": moov.modifyTrack(1) { Self.changeHandlerName(&$0) }
            case "description": moov.modifyTrack(1) { Self.changeSampleEntry(&$0) }
            default: moov.modifyTrack(1) { $0.setEditList([(2000, 2000, 1)]) }
            }
        }
        let expected = [
            "language": "track 2: the language is 'deu', the source's 'eng'",
            "group": "track 2: the alternate group is 9, the source's 2",
            "enabled": "track 3: the enabled flag is on, the source's off",
            "tref": "track 3: its track references (by position)",
            "handler": "track 1: the handler name is",
            "description": "track 1: sample description 1 ('avc1'",
            "edit": "track 1: edit 1 lasts",
        ][property]!
        do {
            _ = try SampleComparison.compare(try Asset(url: source), try Asset(url: copy))
            Issue.record("a copy with another \(property) verified")
        } catch let e as MediaError {
            #expect(e.message.hasPrefix(expected), "\(e.message)")
            #expect(e.file == copy.path)
        }
    }

    /// An `mp41` file whose handler names are Pascal strings (as GoPro cameras write them) is
    /// copied with every `hdlr` byte-identical, and ffprobe reads the same names.
    @Test func pascalHandlerNamesAreKeptByteForByte() throws {
        let source = Fixtures.path("verify-gopro.mp4"), out = Fixtures.path("verify-gopro-copy.mp4")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:duration=1", "-f", "lavfi", "-i", "sine=d=1",
                         "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-brand", "mp41", source.path])
        let names = ["GoPro AVC  ", "GoPro AAC  "]
        try MoovPatch.apply(to: source) { moov in
            for (k, id) in [UInt32(1), 2].enumerated() {
                moov.modifyTrack(id) { trak in
                    trak.modifyChild("mdia") { mdia in
                        mdia.modifyChild("hdlr") { hdlr in
                            let name = Array(names[k].utf8)
                            hdlr.payload = Array(hdlr.payload[0..<24]) + [UInt8(name.count)] + name
                        }
                    }
                }
            }
        }
        let r = try Tool.splice(["remux", source.path, out.path, "--force", "--verify"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.handlerBoxes(out) == Self.handlerBoxes(source))
        let probe = { (u: URL) in try Tool.check("ffprobe", ["-v", "error", "-show_entries", "stream_tags=handler_name", "-of", "csv=p=0", u.path]).stdout }
        #expect(try probe(out) == probe(source))
        #expect(try probe(source).contains("GoPro AVC"))
    }

    /// Every `hdlr` box's bytes, in file order.
    static func handlerBoxes(_ url: URL) throws -> [[UInt8]] {
        let bytes = [UInt8](try Data(contentsOf: url))
        var found: [[UInt8]] = []
        var i = 4
        while i + 4 <= bytes.count {
            if bytes[i..<(i + 4)].elementsEqual("hdlr".utf8) {
                let size = bytes[(i - 4)..<i].reduce(0) { $0 << 8 | Int($1) }
                if size >= 8, i - 4 + size <= bytes.count { found.append(Array(bytes[(i - 4)..<(i - 4 + size)])) }
            }
            i += 1
        }
        return found
    }

    /// A version-1 edit list with a media time near 2^62 and a huge duration copies and verifies.
    @Test func hugeEditValuesVerifyExactly() throws {
        let (_, copy) = try Self.copy("huge-source")
        let huge = Fixtures.path("verify-huge.mp4")
        try? FileManager.default.removeItem(at: huge)
        try FileManager.default.copyItem(at: copy, to: huge)
        try MoovPatch.apply(to: huge) { moov in
            moov.modifyTrack(5) { $0.setEditList([(1 << 62, -1, 1), (2800, 0, 1)], version: 1) }
        }
        let out = Fixtures.path("verify-huge-copy.mp4")
        let r = try Tool.splice(["remux", huge.path, out.path, "--force", "--verify"])
        #expect(r.status == 0, "\(r.stderr)")
    }
}
