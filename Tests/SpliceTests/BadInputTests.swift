import Foundation
import Testing
import TestSupport

/// Bad input gets one line on stderr naming the file and what is wrong, exit 65 (66 when missing).
@Suite("Bad input to splice inspect")
struct BadInputTests {
    func expectDataError(_ url: URL, mentioning text: String? = nil, status: Int32 = 65,
                         sourceLocation: SourceLocation = #_sourceLocation) throws {
        let r = try Tool.splice(["inspect", url.path])
        #expect(r.status == status, "\(url.lastPathComponent): \(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stdout.isEmpty, sourceLocation: sourceLocation)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.hasPrefix("error: \(url.path)"), "\(r.stderr)", sourceLocation: sourceLocation)
        if let text { #expect(r.stderr.contains(text), "\(r.stderr)", sourceLocation: sourceLocation) }
    }

    @Test func missingDirectoryEmptyAndTextFiles() throws {
        try expectDataError(Fixtures.path("missing.mp4"), mentioning: "no such file", status: 66)
        try expectDataError(Fixtures.directory, mentioning: "directory")
        let empty = Fixtures.path("empty.mp4")
        try Data().write(to: empty)
        try expectDataError(empty, mentioning: "empty")
        let text = try Fixtures.write("notes.mp4", "These are not the boxes you are looking for.\n")
        try expectDataError(text, mentioning: "not an MP4")
        let textMKV = try Fixtures.write("notes.mkv", "Nor is this a Matroska file.\n")
        try expectDataError(textMKV)
    }

    /// Truncated anywhere — in `moov`, in `mdat` — the file is refused cleanly.
    @Test func truncationsAtManyOffsets() throws {
        let source = try Data(contentsOf: try Fixtures.grouped.get())
        let size = source.count
        var offsets = [1, 7, 8, 12, 40, size / 3, size / 2]
        offsets += stride(from: size - 9000, to: size - 1, by: 797).map { $0 }  // inside moov (at the end)
        for offset in offsets where offset > 0 && offset < size {
            let url = Fixtures.path("truncated-\(offset).mp4")
            try source.prefix(offset).write(to: url)
            try expectDataError(url)
        }
    }

    /// Flipped bytes through `moov` never crash: each gives a result or exit 65.
    @Test func byteFlipsInMoov() throws {
        var source = [UInt8](try Data(contentsOf: try Fixtures.grouped.get()))
        let moovStart = source.count - 9000
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for i in 0..<60 {
            var copy = source
            for _ in 0..<4 {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                let at = moovStart + Int(seed >> 33) % 9000
                copy[at] ^= UInt8(truncatingIfNeeded: seed >> 17) | 1
            }
            let url = Fixtures.path("flipped-\(i).mp4")
            try Data(copy).write(to: url)
            let r = try Tool.splice(["inspect", url.path, "--json"])
            #expect(r.status == 0 || r.status == 65, "\(url.lastPathComponent): status \(r.status) \(r.stderr)")
            if r.status != 0 { #expect(r.stderr.split(separator: "\n").count == 1) }
        }
        source.removeAll()
    }
}
