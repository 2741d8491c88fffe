import Foundation
import ISOBMFF
import MediaCore
import Testing
import TestSupport

/// Hostile input: every file below gets exit 65 (66 when missing) with one line on stderr,
/// no signal, within 10 s of CPU time and 200 MB, and `remux` leaves no output behind.
@Suite("Hostile input corpus")
struct HostileInputTests {
    struct Run {
        var status: Int32
        var stderr: String
        var seconds: Double
        var peakKB: Int
    }

    /// Runs `splice` under GNU time for its peak RSS and the CPU time it used (user + system):
    /// what a run costs, whatever else the machine is doing (the tests run in parallel with
    /// ffmpeg encodes). A run that does not end within a minute is killed: a hang.
    static func run(_ args: [String]) throws -> Run {
        let rss = Fixtures.path("rss-\(UUID().uuidString)")
        let r = try Tool.run("/usr/bin/time", ["-f", "%M %U %S", "-o", rss.path, "timeout", "-s", "KILL", String(Int(60 * slack)), Tool.spliceBinary] + args)
        let fields = (try? String(contentsOf: rss, encoding: .utf8))?.split(separator: "\n").last?.split(separator: " ") ?? []
        try? FileManager.default.removeItem(at: rss)
        let peak = fields.first.flatMap { Int($0) } ?? -1
        let cpu = fields.dropFirst().compactMap { Double($0) }.reduce(0, +)
        return Run(status: r.status, stderr: r.stderr, seconds: fields.count == 3 ? cpu : .infinity, peakKB: peak)
    }

    /// Sanitizer builds are several times slower and bigger; the limits scale with them.
    static let slack: Double = ProcessInfo.processInfo.environment["SPLICE_SANITIZER"] != nil ? 5 : 1

    /// A run on hostile input costs under 10 s of CPU time and 200 MB (times `slack`).
    static func expectWithinLimits(_ r: Run, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.seconds < 10 * slack, "\(what): \(r.seconds) s", sourceLocation: sourceLocation)
        #expect(r.peakKB > 0 && Double(r.peakKB) < 200_000 * slack, "\(what): \(r.peakKB) KB", sourceLocation: sourceLocation)
    }

    static func expectRefused(_ url: URL, status: Int32 = 65, allowSuccess: Bool = false,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        let output = Fixtures.path("hostile-out-\(url.lastPathComponent).mp4")
        for args in [["inspect", url.path], ["remux", url.path, output.path, "--force"]] {
            let r = try run(args)
            let ok = r.status == status || (allowSuccess && r.status == 0)
            #expect(ok, "\(url.lastPathComponent) \(args[0]): status \(r.status): \(r.stderr)", sourceLocation: sourceLocation)
            expectWithinLimits(r, url.lastPathComponent, sourceLocation: sourceLocation)
            if r.status != 0 {
                #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.hasPrefix("error: "), "\(r.stderr)",
                        sourceLocation: sourceLocation)
            }
            if args[0] == "remux" && r.status == 0 {
                // A best-effort read: what was damaged is said in warnings, and the output is valid.
                #expect(r.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("warning: ") }, "\(r.stderr)", sourceLocation: sourceLocation)
                #expect(try Tool.run("ffprobe", ["-v", "error", output.path]).status == 0, sourceLocation: sourceLocation)
            }
            if args[0] == "remux" && r.status != 0 {
                #expect(!FileManager.default.fileExists(atPath: output.path), sourceLocation: sourceLocation)
                #expect(try leftovers(of: output).isEmpty, sourceLocation: sourceLocation)
            }
            try? FileManager.default.removeItem(at: output)
        }
    }

    static func write(_ name: String, _ bytes: [UInt8]) throws -> URL {
        let url = Fixtures.path(name)
        try Data(bytes).write(to: url)
        return url
    }

    static func box(_ type: FourCC, _ body: (inout BoxWriter) -> Void) -> [UInt8] {
        var w = BoxWriter()
        w.box(type, body)
        return w.bytes
    }

    static let ftyp = box("ftyp") { w in w.fourCC("isom"); w.u32(0); w.fourCC("isom") }

    @Test func sizeFields() throws {
        let movie = [UInt8](try Data(contentsOf: try Fixtures.quickTime.get()))
        let moov = try #require(try MovieFile(file: InMemoryBytes(movie)).topLevelBoxes.first { $0.type == "moov" })
        let at = Int(moov.offset)
        // The first box's and moov's first child's size field set to 0, 1 (64-bit, huge), 7 and 0xFFFFFFFF.
        for (name, offset) in [("first", 0), ("mvhd", at + 8)] {
            for size: UInt32 in [0, 1, 7, 0xFFFF_FFFF] {
                var bytes = movie
                bytes.replaceSubrange(offset..<(offset + 4), with: [UInt8(size >> 24), UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size & 0xFF)])
                if size == 1 { bytes.replaceSubrange((offset + 8)..<(offset + 16), with: [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) }
                try HostileInputTests.expectRefused(try HostileInputTests.write("size-\(name)-\(size).mov", bytes))
            }
        }
    }

    @Test func hugeCounts() throws {
        let movie = [UInt8](try Data(contentsOf: try Fixtures.quickTime.get()))
        for type in ["stsz", "stco", "stts", "stsc", "elst", "stsd"] {
            // The entry count of the first such box (after version/flags; stsz has a sample size first).
            guard let r = movie.firstRange(of: Array(type.utf8)) else { continue }
            var bytes = movie
            let count = r.upperBound + 4 + (type == "stsz" ? 4 : 0)
            bytes.replaceSubrange(count..<(count + 4), with: [0x7F, 0xFF, 0xFF, 0xFF])
            if type == "stsz" { bytes.replaceSubrange((r.upperBound + 4)..<(r.upperBound + 8), with: [0, 0, 0, 0]) }
            try HostileInputTests.expectRefused(try HostileInputTests.write("count-\(type).mov", bytes))
        }
    }

    @Test func manyBoxesAndDeepNesting() throws {
        // A million 8-byte boxes at the top level.
        var many = HostileInputTests.ftyp
        many.reserveCapacity(8_000_100)
        let free: [UInt8] = [0, 0, 0, 8] + Array("free".utf8)
        for _ in 0..<1_000_001 { many += free }
        try HostileInputTests.expectRefused(try HostileInputTests.write("million-top.mp4", many))
        // A million boxes inside moov.
        let inner = HostileInputTests.box("moov") { w in for _ in 0..<1_000_000 { w.append(free) } }
        try HostileInputTests.expectRefused(try HostileInputTests.write("million-moov.mp4", HostileInputTests.ftyp + inner))
        // 100,000 nested boxes inside moov and inside a trak.
        let deep = HostileInputTests.nested(depth: 100_000, type: "udta")
        try HostileInputTests.expectRefused(try HostileInputTests.write("deep-moov.mp4", HostileInputTests.ftyp + HostileInputTests.box("moov") { $0.append(deep) }))
        let deepTrak = HostileInputTests.nested(depth: 100_000, type: "trak")
        try HostileInputTests.expectRefused(try HostileInputTests.write("deep-trak.mp4", HostileInputTests.ftyp + HostileInputTests.box("moov") { $0.append(deepTrak) }))
    }

    /// `depth` boxes of `type`, each holding the next.
    static func nested(depth: Int, type: String) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: depth * 8)
        for i in 0..<depth {
            let size = UInt32((depth - i) * 8)
            bytes.replaceSubrange((i * 8)..<(i * 8 + 8), with: [UInt8(size >> 24), UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size & 0xFF)] + [UInt8](type.utf8))
        }
        return bytes
    }

    @Test func notMovies() throws {
        try HostileInputTests.expectRefused(try HostileInputTests.write("empty.mp4", []))
        try HostileInputTests.expectRefused(try HostileInputTests.write("text.mp4", Array("just some text\n".utf8)))
        try HostileInputTests.expectRefused(Fixtures.directory)
        try HostileInputTests.expectRefused(Fixtures.path("nowhere.mp4"), status: 66)
        try HostileInputTests.expectRefused(try HostileInputTests.write("zeros.mp4", [UInt8](repeating: 0, count: 4096)))
    }

    /// Damaged Matroska and MPEG-TS (read through libavformat): an error (exit 65, no output), or
    /// a best-effort read whose warnings say what libavformat found damaged or skipped — never a
    /// crash or a hang.
    @Test func damagedMatroskaAndTS() throws {
        let ts = Fixtures.path("movie.ts")
        if !FileManager.default.fileExists(atPath: ts.path) {
            try Tool.ffmpeg(["-i", try Fixtures.matroska.get().path, "-map", "0:v", "-map", "0:a", "-c", "copy", ts.path])
        }
        for source in [try Fixtures.matroska.get(), ts] {
            let bytes = [UInt8](try Data(contentsOf: source))
            var flipped = bytes
            var seed: UInt64 = 42
            for _ in 0..<200 {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                flipped[Int(seed >> 33) % flipped.count] ^= 0xFF
            }
            for (name, damaged) in [("truncated", Array(bytes.prefix(bytes.count / 3))), ("flipped", flipped), ("head", Array(bytes.prefix(100)))] {
                let url = try HostileInputTests.write("\(name)-\(source.lastPathComponent)", damaged)
                try HostileInputTests.expectRefused(url, allowSuccess: true)
            }
        }
    }
}
