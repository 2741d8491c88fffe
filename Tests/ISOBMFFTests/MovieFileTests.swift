import Foundation
import MediaCore
import Testing
@testable import ISOBMFF

/// A minimal movie assembled in code: one audio track of `sizes.count` samples in one chunk.
struct MovieBuilder {
    var sizes: [UInt32] = [10, 20, 30]
    var stsz: [UInt8]? = nil
    var stsc: [UInt8]? = nil
    var stco: [UInt8]? = nil
    var extraStbl: [UInt8] = []
    var mvex: [UInt8]? = nil
    var trailing: [UInt8] = []
    var mdatSize: Int? = nil

    func stbl() -> [UInt8] {
        box("stbl") { w in
            w.append(fullBox("stsd") { w in
                w.u32(1)
                w.append(box("mp4a") { w in
                    w.zeros(6); w.u16(1); w.u16(0); w.zeros(6); w.u16(2); w.u16(16); w.zeros(4); w.u32(48000 << 16)
                })
            })
            w.append(fullBox("stts") { w in w.u32(1); w.u32(UInt32(sizes.count)); w.u32(1024) })
            w.append(stsc ?? fullBox("stsc") { w in w.u32(1); w.u32(1); w.u32(UInt32(sizes.count)); w.u32(1) })
            w.append(stsz ?? fullBox("stsz") { w in w.u32(0); w.u32(UInt32(sizes.count)); for s in sizes { w.u32(s) } })
            w.append(stco ?? fullBox("stco") { w in w.u32(1); w.u32(32) })  // mdat payload, after ftyp
            w.append(extraStbl)
        }
    }

    func bytes() -> [UInt8] {
        var w = BoxWriter()
        w.box("ftyp") { w in w.fourCC("isom"); w.u32(512); w.fourCC("isom"); w.fourCC("mp41") }
        w.box("mdat") { w in w.zeros(mdatSize ?? Int(sizes.reduce(0, +))) }
        w.box("moov") { w in
            w.append(fullBox("mvhd") { w in
                w.u32(0); w.u32(0); w.u32(1000); w.u32(64); w.u32(0x10000); w.u16(0x100); w.zeros(10)
                for v in identityMatrix { w.i32(v) }
                w.zeros(24); w.u32(2)
            })
            w.append(box("trak") { w in
                w.append(fullBox("tkhd", flags: 3) { w in
                    w.u32(0); w.u32(0); w.u32(1); w.u32(0); w.u32(64); w.zeros(8); w.i16(0); w.i16(1); w.i16(0x100); w.zeros(2)
                    for v in identityMatrix { w.i32(v) }
                    w.u32(0); w.u32(0)
                })
                w.append(box("mdia") { w in
                    w.append(fullBox("mdhd") { w in w.u32(0); w.u32(0); w.u32(48000); w.u32(3072); w.u16(Language.packed("spa")); w.u16(0) })
                    w.append(fullBox("hdlr") { w in w.u32(0); w.fourCC("soun"); w.zeros(12); w.append(Array("Sound".utf8) + [0]) })
                    w.append(fullBox("elng") { w in w.append(Array("es-MX".utf8) + [0]) })
                    w.append(box("minf") { w in
                        w.append(fullBox("smhd") { $0.u32(0) })
                        w.append(stbl())
                    })
                })
            })
            if let mvex { w.append(mvex) }
        }
        w.append(trailing)
        return w.bytes
    }

    func write() throws -> ReadOnlyFile {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("isobmff-\(UUID().uuidString).mp4")
        try Data(bytes()).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try ReadOnlyFile(path: url.path)
    }
}

@Suite("Movie files and sample tables")
struct MovieFileTests {
    @Test func minimalMovie() throws {
        let movie = try MovieFile(file: try MovieBuilder().write())
        #expect(movie.fileType?.majorBrand == "isom")
        #expect(movie.movieHeader.timescale == 1000 && movie.movieHeader.nextTrackID == 2)
        #expect(movie.topLevelBoxes.map(\.type) == ["ftyp", "mdat", "moov"])
        let t = try #require(movie.tracks.first)
        #expect(t.trackID == 1 && t.mediaType == .audio && t.header.alternateGroup == 1)
        #expect(t.mediaHeader.language == "spa" && t.extendedLanguage == "es-MX" && t.handler.name == "Sound")
        #expect(t.sampleCount == 3 && t.sampleTable.size(ofSample: 2) == 30 && t.sampleTable.totalDuration == 3072)
        #expect(t.sampleTable.sampleEntries.first?.sampleRate == 48000)
        #expect(t.sampleTable.sampleEntries.first?.channelCount == 2)
        #expect(t.mediaInformationBoxes.map(\.type) == ["smhd"])
        #expect(!movie.isQuickTime && !movie.isFragmented)
    }

    @Test func sampleSizeCountLargerThanTheBox() throws {
        var b = MovieBuilder()
        b.stsz = fullBox("stsz") { w in w.u32(0); w.u32(0xFFFF_FFFF); w.u32(1) }
        expectError(.invalidData, path: "moov/trak[1]/mdia/minf/stbl/stsz", containing: "sample count 4294967295") {
            _ = try MovieFile(file: try b.write())
        }
    }

    @Test func compactSampleSizes() throws {
        var b = MovieBuilder()
        b.stsz = fullBox("stz2") { w in w.zeros(3); w.u8(4); w.u32(3); w.u8(0xAB); w.u8(0xC0) }
        let t = try #require(try MovieFile(file: try b.write()).tracks.first)
        #expect(t.sampleTable.sampleSizes == [0xA, 0xB, 0xC])
        b.stsz = fullBox("stz2") { w in w.zeros(3); w.u8(16); w.u32(3); w.u16(300); w.u16(2); w.u16(1) }
        #expect(try MovieFile(file: try b.write()).tracks.first?.sampleTable.sampleSizes == [300, 2, 1])
        b.stsz = fullBox("stz2") { w in w.zeros(3); w.u8(5); w.u32(3) }
        expectError(.invalidData, containing: "field size 5") { _ = try MovieFile(file: try b.write()) }
    }

    @Test func sampleToChunkMustReferenceRealChunks() throws {
        var b = MovieBuilder()
        b.stsc = fullBox("stsc") { w in w.u32(1); w.u32(5); w.u32(3); w.u32(1) }
        expectError(.invalidData, path: "moov/trak[1]/mdia/minf/stbl/stsc", containing: "must start at chunk 1") {
            _ = try MovieFile(file: try b.write())
        }
        b.stsc = fullBox("stsc") { w in w.u32(1); w.u32(1); w.u32(1); w.u32(1) }
        expectError(.invalidData, containing: "chunks hold 1 samples") { _ = try MovieFile(file: try b.write()) }
        b.stsc = fullBox("stsc") { w in w.u32(1); w.u32(1); w.u32(3); w.u32(9) }
        expectError(.invalidData, containing: "sample description index 9") { _ = try MovieFile(file: try b.write()) }
    }

    /// Entries giving chunks 0 samples (some muxers write them) are empty chunks, as players
    /// read them; an empty table is named as the fault, not the table that refers to it.
    @Test func emptyChunksAndEmptyTables() throws {
        var b = MovieBuilder()
        b.stsc = fullBox("stsc") { w in w.u32(3); for e: [UInt32] in [[1, 2, 1], [2, 0, 1], [3, 1, 1]] { for v in e { w.u32(v) } } }
        b.stco = fullBox("stco") { w in w.u32(3); w.u32(32); w.u32(1000); w.u32(62) }
        let t = try #require(try MovieFile(file: try b.write()).tracks.first)
        var it = SampleIterator(track: t, trackExtends: nil)
        var offsets: [UInt64] = []
        while let s = it.next() { offsets.append(s.offset) }
        #expect(offsets == [32, 42, 62])
        b.stsc = fullBox("stsc") { w in w.u32(2); for e: [UInt32] in [[1, 2, 1], [2, 0, 1]] { for v in e { w.u32(v) } } }
        expectError(.invalidData, containing: "its 3 chunks hold 2 samples, stsz has 3 (1 of its 2 entries give chunks 0 samples)") {
            _ = try MovieFile(file: try b.write())
        }
        b.stsc = nil
        b.stco = fullBox("stco") { $0.u32(0) }
        expectError(.invalidData, path: "moov/trak[1]/mdia/minf/stbl/stco", containing: "has no chunk offsets, but the track has 3 samples") {
            _ = try MovieFile(file: try b.write())
        }
    }

    @Test func negativeCompositionOffsetsAndDependencies() throws {
        var b = MovieBuilder()
        b.extraStbl = fullBox("ctts", version: 1) { w in w.u32(2); w.u32(1); w.i32(-1024); w.u32(2); w.i32(512) }
            + fullBox("sdtp") { w in w.u8(0x20); w.u8(0x10); w.u8(0x18) }
            + fullBox("stss") { w in w.u32(1); w.u32(1) }
            + box("sgpd") { $0.u32(0xDEAD) }
        let t = try #require(try MovieFile(file: try b.write()).tracks.first)
        #expect(t.sampleTable.compositionOffsetsVersion == 1)
        #expect(t.sampleTable.compositionOffsets?.first?.offset == -1024)
        #expect(t.sampleTable.dependencies == [0x20, 0x10, 0x18])
        #expect(t.sampleTable.syncSamples == [1])
        #expect(t.sampleTable.otherBoxes.map(\.type) == ["sgpd"])
        #expect(t.sampleTable.otherBoxes.first?.bytes == box("sgpd") { $0.u32(0xDEAD) })
        b.extraStbl = fullBox("stss") { w in w.u32(1); w.u32(4) }
        expectError(.invalidData, containing: "sync sample 4") { _ = try MovieFile(file: try b.write()) }
    }

    @Test func fragments() throws {
        var b = MovieBuilder()
        b.sizes = []
        b.stsc = fullBox("stsc") { $0.u32(0) }
        b.mvex = box("mvex") { w in
            w.append(fullBox("trex") { w in w.u32(1); w.u32(1); w.u32(1024); w.u32(7); w.u32(0x10000) })
        }
        b.trailing = box("moof") { w in
            w.append(fullBox("mfhd") { $0.u32(1) })
            w.append(box("traf") { w in
                w.append(fullBox("tfhd", flags: 0x20000) { $0.u32(1) })
                w.append(fullBox("tfdt", version: 1) { $0.u64(0) })
                w.append(fullBox("trun", flags: 0x1 | 0x4 | 0x200) { w in
                    w.u32(3); w.i32(0); w.u32(0); w.u32(11); w.u32(12); w.u32(13)
                })
            })
        }
        let movie = try MovieFile(file: try b.write())
        #expect(movie.isFragmented)
        let t = try #require(movie.tracks.first)
        #expect(t.sampleCount == 3 && t.mediaDuration == 3072)
        let run = try #require(t.fragments.first?.runs.first)
        #expect(run.samples.map(\.size) == [11, 12, 13])
        #expect(run.samples.map { SampleFlags.isNonSync($0.flags) } == [false, true, true])

        b.trailing = box("moof") { w in
            w.append(box("traf") { w in
                w.append(fullBox("tfhd") { $0.u32(1) })
                w.append(fullBox("trun", flags: 0x100) { w in w.u32(0x4000_0000); w.u32(1) })
            })
        }
        expectError(.invalidData, path: "moof[1]/traf[1]/trun[1]", containing: "sample count 1073741824") {
            _ = try MovieFile(file: try b.write())
        }
    }

    @Test func notAMovie() throws {
        var b = MovieBuilder()
        b.trailing = [1, 2, 3]
        expectError(.truncated, containing: "3 trailing bytes") { _ = try MovieFile(file: try b.write()) }
        b.trailing = []
        b.mdatSize = 30
        b.sizes = [10, 20, 1_000_000]
        expectError(.invalidData, path: "moov/trak[1]/mdia/minf/stbl/stco", containing: "past the end of the file") {
            _ = try MovieFile(file: try b.write())
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("isobmff-text-\(UUID()).mp4")
        try Data("hello, world\n".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        expectError(.invalidData, containing: "not an MP4") { _ = try MovieFile(file: try ReadOnlyFile(path: url.path)) }
    }

    /// Every prefix of a valid movie fails cleanly.
    @Test func everyTruncationFailsCleanly() throws {
        let bytes = MovieBuilder().bytes()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("isobmff-trunc-\(UUID()).mp4")
        defer { try? FileManager.default.removeItem(at: url) }
        for n in 1..<bytes.count {
            try Data(bytes.prefix(n)).write(to: url)
            #expect(throws: MediaError.self) { _ = try MovieFile(file: try ReadOnlyFile(path: url.path)) }
        }
    }

    /// A million tiny boxes and deep nesting inside `moov` are bounded work, not a crash.
    @Test func manyAndDeeplyNestedBoxes() throws {
        var deep: [UInt8] = box("free") { _ in }
        for _ in 0..<2000 { deep = box("udta") { $0.append(deep) } }
        var b = MovieBuilder()
        b.extraStbl = deep
        let movie = try MovieFile(file: try b.write())
        #expect(movie.tracks.first?.sampleTable.otherBoxes.first?.bytes.count == deep.count)

        var nested = box("trak") { _ in }
        for _ in 0..<100 { nested = box("trak") { $0.append(nested) } }
        expectError(.unsupported, containing: "nested") { _ = try Box.parseAll(nested) }
    }
}
