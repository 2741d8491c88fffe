import Foundation
import MediaCore
import Testing
@testable import ISOBMFF

/// Boxes assembled in code, including truncated and oversized ones.
func box(_ type: FourCC, _ body: (inout BoxWriter) -> Void) -> [UInt8] {
    var w = BoxWriter()
    w.box(type, body)
    return w.bytes
}

func fullBox(_ type: FourCC, version: UInt8 = 0, flags: UInt32 = 0, _ body: (inout BoxWriter) -> Void) -> [UInt8] {
    var w = BoxWriter()
    w.fullBox(type, version: version, flags: flags, body)
    return w.bytes
}

func expectError(_ code: MediaError.Code, path: String? = nil, containing text: String? = nil,
                 sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected a \(code) error", sourceLocation: sourceLocation)
    } catch let e as MediaError {
        #expect(e.code == code, "\(e)", sourceLocation: sourceLocation)
        if let path { #expect(e.location == path, "\(e)", sourceLocation: sourceLocation) }
        if let text { #expect(e.message.contains(text), "\(e)", sourceLocation: sourceLocation) }
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
}

@Suite("Box headers and the bounded reader")
struct BoxHeaderTests {
    func header(_ bytes: [UInt8], available: UInt64? = nil, top: Bool = false) throws -> BoxHeader {
        var r = ByteReader(bytes, path: "moov")
        return try BoxHeader.parse(&r, available: available ?? UInt64(bytes.count), allowToEnd: top)
    }

    @Test func compactAndLargeSizes() throws {
        let h = try header([0, 0, 0, 8] + Array("free".utf8))
        #expect(h.type == "free" && h.size == 8 && h.headerSize == 8)
        let large = try header([0, 0, 0, 1] + Array("mdat".utf8) + [0, 0, 0, 0, 0, 0, 0, 20] + [0, 0, 0, 0])
        #expect(large.size == 20 && large.headerSize == 16 && large.payloadSize == 4)
        let uuid = try header([0, 0, 0, 24] + Array("uuid".utf8) + Array(repeating: 7, count: 16))
        #expect(uuid.headerSize == 24 && uuid.userType == Array(repeating: 7, count: 16))
    }

    @Test func sizeZeroOnlyAtTopLevel() throws {
        let bytes: [UInt8] = [0, 0, 0, 0] + Array("mdat".utf8) + [1, 2, 3]
        #expect(try header(bytes, top: true).size == 11)
        expectError(.invalidData, path: "moov", containing: "size 0") { _ = try header(bytes) }
    }

    @Test(arguments: [UInt32(1), 7])
    func sizesSmallerThanTheHeader(_ size: UInt32) {
        var w = BoxWriter()
        w.u32(size); w.fourCC("free")
        if size == 1 { w.u64(12) }
        let bytes = w.bytes
        expectError(.invalidData, containing: "smaller than its") { _ = try header(bytes) }
    }

    @Test func sizePastTheParent() {
        expectError(.truncated, path: "moov", containing: "only 8 bytes remain") {
            _ = try header([0, 0, 0, 9] + Array("free".utf8))
        }
        expectError(.truncated) { _ = try header([0, 0, 0, 1] + Array("mdat".utf8) + [0xFF, 0, 0, 0, 0, 0, 0, 0]) }
    }

    @Test func readerNeverReadsPastItsEnd() {
        var r = ByteReader([1, 2, 3, 4, 5, 6], range: 1..<4, path: "x")
        #expect((try? r.u16()) == 0x0203)
        expectError(.truncated, path: "x") { _ = try r.u16("width") }
        #expect(r.remaining == 1)
        var table = ByteReader([0, 0, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8], path: "stco")
        expectError(.invalidData, path: "stco", containing: "entry count 3 needs 12 bytes, box has 8") {
            _ = try table.count(entrySize: 4)
        }
    }

    @Test func iteratorNamesPathsAndResumesAfterEachChild() throws {
        let trak1 = box("trak") { $0.append(box("abcd") { $0.u32(1) }) }
        let bytes = trak1 + trak1 + box("free") { _ in }
        var it = BoxIterator(ByteReader(bytes, path: "moov"))
        var paths: [String] = []
        while let (_, payload) = try it.next() { paths.append(payload.path) }
        #expect(paths == ["moov/trak[1]", "moov/trak[2]", "moov/free"])
    }

    @Test func boxTreeRoundTrips() throws {
        let bytes = box("moov") { w in
            w.append(box("mvhd") { $0.zeros(100) })
            w.append(box("trak") { w in w.append(box("tkhd") { $0.zeros(84) }); w.append(box("udta") { $0.u32(0) }) })
            w.append([0, 0, 0, 28] + Array("uuid".utf8) + Array(repeating: 9, count: 16) + [1, 2, 3, 4])
        }
        let tree = try Box.parseAll(bytes)
        #expect(tree.count == 1)
        #expect(tree[0].children?.map(\.type) == ["mvhd", "trak", "uuid"])
        #expect(tree[0].serialized == bytes)
    }

    @Test func writerUsesLargeSizeOnlyWhenNeeded() {
        var w = BoxWriter()
        w.box("free") { $0.zeros(4) }
        #expect(w.bytes == [0, 0, 0, 12] + Array("free".utf8) + [0, 0, 0, 0])
    }
}

@Suite("Typed boxes")
struct TypedBoxTests {
    func tkhd(version: UInt8, flags: UInt32, id: UInt32, group: Int16) -> [UInt8] {
        fullBox("tkhd", version: version, flags: flags) { w in
            if version == 1 { w.u64(1); w.u64(2); w.u32(id); w.u32(0); w.u64(5000) }
            else { w.u32(1); w.u32(2); w.u32(id); w.u32(0); w.u32(5000) }
            w.zeros(8); w.i16(0); w.i16(group); w.i16(0x100); w.zeros(2)
            for v in identityMatrix { w.i32(v) }
            w.u32(1920 << 16); w.u32(1080 << 16)
        }
    }

    @Test(arguments: [UInt8(0), 1])
    func trackHeader(_ version: UInt8) throws {
        var r = ByteReader(tkhd(version: version, flags: 0x3, id: 7, group: 3), range: 8..<(version == 1 ? 104 : 92))
        let h = try TrackHeader.parse(&r)
        #expect(h.trackID == 7 && h.duration == 5000 && h.alternateGroup == 3 && h.volume == 0x100)
        #expect(h.isEnabled && h.isInMovie && !h.isInPreview)
        #expect(h.width >> 16 == 1920 && h.height >> 16 == 1080)
        #expect(r.isAtEnd)
    }

    @Test func editListVersions() throws {
        for version in [UInt8(0), 1] {
            let bytes = fullBox("elst", version: version) { w in
                w.u32(2)
                if version == 1 { w.u64(1000); w.i64(-1); w.i16(1); w.i16(0); w.u64(1 << 33); w.i64(1024); w.i16(0); w.i16(-0x8000) }
                else { w.u32(1000); w.i32(-1); w.i16(1); w.i16(0); w.u32(3000); w.i32(1024); w.i16(0); w.i16(-0x8000) }
            }
            var r = ByteReader(bytes, range: 8..<bytes.count)
            let e = try EditList.parse(&r)
            #expect(e.entries.count == 2)
            #expect(e.entries[0].isEmpty && e.entries[0].segmentDuration == 1000)
            #expect(e.entries[1].mediaTime == 1024 && !e.entries[1].isEmpty)
            #expect(e.entries[1].segmentDuration == (version == 1 ? 1 << 33 : 3000))
            #expect(e.entries[1].rate == 0.5)  // 0x0000_8000 in 16.16
            #expect(EditListEntry.rateFields(-0.5) == (-1, -0x8000))
            #expect(EditListEntry.rateFields(1) == (1, 0))
        }
    }

    @Test func editListCountLargerThanTheBox() {
        let bytes = fullBox("elst") { w in w.u32(0x7FFF_FFFF); w.u32(1) }
        var r = ByteReader(bytes, range: 8..<bytes.count, path: "moov/trak[1]/edts/elst")
        expectError(.invalidData, path: "moov/trak[1]/edts/elst", containing: "entry count 2147483647") {
            _ = try EditList.parse(&r)
        }
    }

    @Test func mediaHeaderLanguages() throws {
        func mdhd(version: UInt8, language: UInt16, timescale: UInt32 = 48000) throws -> MediaHeader {
            let bytes = fullBox("mdhd", version: version) { w in
                if version == 1 { w.u64(0); w.u64(0); w.u32(timescale); w.u64(1 << 40) }
                else { w.u32(0); w.u32(0); w.u32(timescale); w.u32(96000) }
                w.u16(language); w.u16(0)
            }
            var r = ByteReader(bytes, range: 8..<bytes.count, path: "mdhd")
            return try MediaHeader.parse(&r)
        }
        #expect(try mdhd(version: 0, language: Language.packed("eng")).language == "eng")
        #expect(try mdhd(version: 1, language: Language.packed("fra")).duration == 1 << 40)
        #expect(try mdhd(version: 0, language: 0x55C4).language == "und")
        #expect(try mdhd(version: 0, language: 2).language == "deu")      // Macintosh: German
        #expect(try mdhd(version: 0, language: 11).language == "jpn")     // Macintosh: Japanese
        #expect(try mdhd(version: 0, language: 0x7FFF).language == "und") // QuickTime: unspecified
        expectError(.invalidData, containing: "timescale is 0") { _ = try mdhd(version: 0, language: 0, timescale: 0) }
        #expect(Language.packed("eng") == 0x15C7)
        #expect(Language.macintoshCode("deu") == 2)
    }

    @Test func handlerNames() throws {
        func hdlr(component: FourCC, name: [UInt8]) throws -> HandlerBox {
            let bytes = fullBox("hdlr") { w in
                w.fourCC(component); w.fourCC("soun"); w.zeros(12); w.append(name)
            }
            var r = ByteReader(bytes, range: 8..<bytes.count)
            return try HandlerBox.parse(&r)
        }
        let iso = try hdlr(component: FourCC(rawValue: 0), name: Array("SoundHandler".utf8) + [0])
        #expect(iso.name == "SoundHandler" && !iso.isPascalName && iso.handlerType == "soun")
        let qt = try hdlr(component: "mhlr", name: [12] + Array("Apple Sound!".utf8))
        #expect(qt.name == "Apple Sound!" && qt.isPascalName)
        let qtNoComponent = try hdlr(component: FourCC(rawValue: 0), name: [5] + Array("Audio".utf8))
        #expect(qtNoComponent.name == "Audio")
        let empty = try hdlr(component: FourCC(rawValue: 0), name: [])
        #expect(empty.name == "")
    }

    @Test func trackReferencesWithSeveralIDsAndTypes() throws {
        let bytes = box("tref") { w in
            w.append(box("fall") { $0.u32(2) })
            w.append(box("chap") { $0.u32(7); $0.u32(8) })
            w.append(box("xyzw") { $0.u32(1) })
        }
        let refs = try TrackReference.parseAll(ByteReader(bytes, range: 8..<bytes.count, path: "tref"))
        #expect(refs == [TrackReference(type: "fall", trackIDs: [2]), TrackReference(type: "chap", trackIDs: [7, 8]),
                         TrackReference(type: "xyzw", trackIDs: [1])])
        let odd = box("tref") { w in w.append(box("fall") { $0.u16(2) }) }
        expectError(.invalidData, path: "tref/fall", containing: "left over") {
            _ = try TrackReference.parseAll(ByteReader(odd, range: 8..<odd.count, path: "tref"))
        }
    }
}
