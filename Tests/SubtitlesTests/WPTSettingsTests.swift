import Foundation
@testable import Subtitles
import Testing

/// web-platform-tests' `webvtt/parsing/file-parsing` facts on cue settings, regions and style
/// sheets: which values the W3C parser takes, which it skips, and which region a cue is in.
@Suite("WebVTT settings, regions and style sheets (web-platform-tests' facts)")
struct WPTSettingsTests {
    typealias P = WPTFileParsingTests

    @Test func line() throws {
        let valid = ["line:-1", "line:0", "line:-0", "line:1", "line:100", "line:101", "line:65536", "line:4294967296",
                     "line:18446744073709552000", "line:10000000000000000000000000000000000", "line:1.5"]
        let invalid = ["line:65536%", "line:4294967296%", "line:-0%", "line:101%", "line:1%-", "line:1-", "line:%1", "line:1%%",
                       "line:0%0", "line: 0%", "line:0%x", "line:-", "line:%", "line:1..5", "line:.5", "line:5."]
        let extra = ["line:0%", "line:00%", "line:100%", "line:100%,start", "line:100%,center", "line:100%,end", "line:100%,middle"]
        let s = try P.settings(P.cues(withSettings: valid + invalid + extra))
        #expect(s.count == 34)
        #expect(s.prefix(11).map(\.line) == [-1, 0, 0, 1, 100, 101, 65536, 4_294_967_296, 18_446_744_073_709_551_616, 1e34, 1.5])
        #expect(s.prefix(11).allSatisfy { $0.snapToLines })
        #expect(s.dropFirst(11).prefix(16).allSatisfy { $0.line == nil && $0.snapToLines })
        let e = Array(s.suffix(7))
        #expect(e.map(\.line) == [0, 0, 100, 100, 100, 100, 100] && e.allSatisfy { !$0.snapToLines })
        #expect(e.dropFirst(3).map(\.lineAlign) == ["start", "center", "end", "start"])
    }

    @Test func position() throws {
        let valid = ["position:1%", "position:100%", "position:1% position:x", "position:1.5%", "position:1%,line-left",
                     "position:1%,center", "position:1%,line-right", "position:1%,middle", "position:1% ,center", "position:1%, center"]
        let invalid = ["position:-1%", "position:1", "position:1x", "position:1%x", "position:", "position: 1%", "position:101%",
                       "position:65536%", "position:4294967296%", "position:101%,line-left", "position:101%,center", "position:101%,line-right"]
        let s = try P.settings(P.cues(withSettings: valid + invalid))
        #expect(s.prefix(10).map(\.position) == [1, 100, 1, 1.5, 1, 1, 1, 1, 1, 1])
        #expect(s.prefix(10).map(\.positionAlign) == ["auto", "auto", "auto", "auto", "line-left", "center", "line-right", "auto", "auto", "auto"])
        #expect(s.dropFirst(10).allSatisfy { $0.position == nil && $0.positionAlign == "auto" } && s.count == 22)
    }

    @Test func sizeAlignAndVertical() throws {
        let sizes = try P.settings(P.cues(withSettings: ["", "size:1xx size:2%", "size:0%", "size:00%", "size:50% size:100%", "size:50% size:101%",
                                                          "size:1.5%", "size:", "size:x", "size:%", "size:%%", "size:1%%", "size:1%x",
                                                          "size:101%", "size:-3%", "size:200%"])).map(\.size)
        #expect(sizes == [100, 2, 0, 0, 100, 50, 1.5] + Array(repeating: 100, count: 9))
        let aligns = try P.settings(P.cues(withSettings: ["", "align:start", "align:center", "align:end", "align:left", "align:right",
                                                           "align:start align:end", "align:end align:CENTER", "align:end align: center",
                                                           "align:end align:", "align:end align:middle", "align:end align",
                                                           String(repeating: "align:end ", count: 500) + "align:center"])).map(\.align)
        #expect(aligns == ["center", "start", "center", "end", "left", "right", "end", "end", "end", "end", "end", "end", "center"])
        let verticals = try P.settings(P.cues(withSettings: ["", "vertical:lr", "vertical:rl", "vertical:rl vertical:lr", "vertical:",
                                                              "vertical:RL", "vertical: rl", "vertical:vertical-rl"])).map(\.vertical)
        #expect(verticals == ["", "lr", "rl", "lr", "", "", "", ""])
        // Several at once, with ids.
        let (cues, parser) = try P.parse("WEBVTT\n\nid1\n\(P.timing) align:start line:1% vertical:lr size:50% position:25%\ntext1\n\n"
                                         + "id2\n\(P.timing) align:center line:1 vertical:rl size:0% position:100%\ntext2")
        let s = cues.map { WebVTTCueSettings($0.settings, regions: parser.parsedRegions) }
        #expect(cues.map(\.identifier) == ["id1", "id2"] && cues.map(\.text) == ["text1", "text2"])
        #expect(s[0].align == "start" && s[0].line == 1 && !s[0].snapToLines && s[0].vertical == "lr" && s[0].size == 50 && s[0].position == 25)
        #expect(s[1].align == "center" && s[1].line == 1 && s[1].snapToLines && s[1].vertical == "rl" && s[1].size == 0 && s[1].position == 100)
    }

    @Test func cueRegions() throws {
        let header = "WEBVTT\n\nREGION\nid:foo\nlines:1\n\nREGION\nid:bar\n\nREGION\nid:foo\nlines:5\n\nREGION\nwidth:10%\n\n"
        let list = ["region:foo", "region:bar", "region:foo region:bar", "region:none", "region:none region:foo", "region:", "region: foo",
                    "region :foo", "region:foo line:0", "region:foo size:50%", "region:foo vertical:rl"]
        let s = try P.settings(header + list.map { "\(P.timing) \($0)\nx\n" }.joined(separator: "\n"))
        // The later `foo` replaces the earlier; line, size and vertical take a cue out of its region.
        #expect(s.map { $0.region?.identifier } == ["foo", "bar", "bar", nil, "foo", nil, nil, nil, nil, nil, nil])
        #expect(s[0].region?.lines == 5)
    }

    @Test func regionSettings() throws {
        func regions(_ blocks: [String]) throws -> [WebVTTRegion] {
            try P.parse("WEBVTT\n\n" + blocks.map { "REGION\n\($0)\n\n" }.joined() + "\(P.timing)\nx\n").1.parsedRegions
        }
        // Ids: the last id setting wins; `id:`, `id :x` and `id: x` are skipped; a vertical tab is not a space.
        #expect(try regions(["id:foo\nid:bar\nlines:1", "id:bar id:foo\nlines:2", "id:id\nid: foo\nid :bar\nlines:3", "id:\u{0B}\nlines:4"])
            .map { "\($0.identifier):\(Int($0.lines))" } == ["bar:1", "foo:2", "id:3", "\u{0B}:4"])
        let lines = try regions(["id:a lines:0", "id:b lines:1", "id:c lines:100", "id:d lines:101", "id:e lines:65536", "id:f lines:4294967296",
                                 "id:g lines:18446744073709552000", "id:h lines:10000000000000000000000000000000000", "id:i lines:1 lines:2",
                                 "id:j lines:-1", "id:k lines:1.5", "id:l lines:1%", "id:m lines: 1"]).map(\.lines)
        #expect(lines == [0, 1, 100, 101, 65536, 4_294_967_296, 18_446_744_073_709_551_616, 1e34, 2, 3, 3, 3, 3])
        let anchors = ["", "0%,0%", "1%,1%", "100%,0%", "0%,100%", "100%,100%", "0,0", "0%,0", "0,0%", "1%", ",1%", "101%,1%", "1%,101%",
                       "-0%,0%", "0%,-0%", "65536%,65536%", "4294967296%,4294967296%", " 100%,100%", "100% ,100%", "100%, 100%", "100 %,100%"]
        let expected: [[Double]] = [[0, 100], [0, 0], [1, 1], [100, 0], [0, 100], [100, 100]] + Array(repeating: [0, 100], count: 15)
        for name in ["regionanchor", "viewportanchor"] {
            let found = try regions(anchors.enumerated().map { "id:\($0.offset) \($0.element.isEmpty ? "" : "\(name):\($0.element)")" })
            let pairs = found.map { r in name == "regionanchor" ? [r.regionAnchor.x, r.regionAnchor.y] : [r.viewportAnchor.x, r.viewportAnchor.y] }
            #expect(pairs == expected, "\(name)")
        }
        #expect(try regions(["id:1", "id:2\nscroll:up", "id:3\nscroll:up scroll:up", "id:4\nscroll:down\nscroll:left", "id:5\nscroll: up\nscroll :up",
                             "id:6\nscroll:up scroll:"]).map(\.scroll) == ["", "up", "up", "", "", "up"])
        // The old header syntax defines no region.
        let old = try P.settings("WEBVTT\n\nREGION: id=foo width=40% lines=3\n\n\(P.timing) region:foo\ntext\n")
        #expect(old.count == 1 && old[0].region == nil)
    }

    @Test func styleSheets() throws {
        let file = "WEBVTT\n\nSTYLE\n::cue(#foo) {\n    width: 20px;\n} /*\nNOTE hello\n00:00:00.000 -- > 00:00:01.000\n*/\n.foo {\n    width: 19px;\n}\n\n"
            + ".bar {\n    width: 18px;\n}\n\nfoo\n\(P.timing)\ntext\n\nSTYLE\n::cue(::bar) {\n    width: 18px;\n}\n\nbar\n\(P.timing)\ntext\n"
        let (cues, parser) = try P.parse(file)
        #expect(cues.map(\.identifier) == ["foo", "bar"])
        #expect(parser.styleSheets.count == 1 && parser.styleSheets[0].contains("::cue(#foo)") && parser.styleSheets[0].contains(".foo {"))
        #expect(try P.parse("WEBVTT").1.styleSheets.isEmpty && P.parse("WEBVTT\n\nSTYLE\n\n\(P.timing)\nx").1.styleSheets.isEmpty)
        // A timing line as a STYLE block's second line makes it a cue whose id is STYLE.
        #expect(try P.parse("WEBVTT\n\nSTYLE\n\(P.timing)\nx").0.map(\.identifier) == ["STYLE"])
    }
}
