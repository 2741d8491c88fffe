import Foundation
import MediaCore
import Testing
import TestSupport

/// `CodecFacts` against libavcodec's own answers: each row's frame size is what its encoder
/// (the one Splice encodes with) makes, its losslessness what libavcodec's descriptor says,
/// and its coded rate what the decoder gives back.
@Suite("Codec facts")
struct CodecFactsTests {
    /// The encoder Splice uses for each row's codec.
    static let encoders = ["aac": "aac", "opus": "libopus", "mp3": "libmp3lame", "flac": "flac", "alac": "alac"]

    @Test("every row says what libavcodec says", arguments: CodecFacts.rows.keys.sorted())
    func rowMatchesLibavcodec(codec: String) throws {
        let facts = try #require(CodecFacts.of(codec))
        let encoder = try #require(Self.encoders[codec], "a row without an encoder to check it by")
        // libavcodec's descriptor flags: "S" lossless, "L" lossy (`ffmpeg -codecs`).
        let line = try #require(try Tool.check("ffmpeg", ["-hide_banner", "-codecs"]).stdout.split(separator: "\n")
            .first { $0.split(separator: " ").dropFirst().first == Substring(codec) })
        let flags = Array(line.split(separator: " ")[0])
        #expect((flags[5] == "S") == facts.isLossless, "\(line)")

        let url = Fixtures.path("codec-facts-\(codec).mkv")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=1", "-c:a", encoder, url.path])
        let probe = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=sample_rate", "-of", "csv=p=0", url.path])
        let rate = Int(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(rate == facts.sampleRate ?? 44100)
        if let samples = facts.frameSamples {
            // (Matroska times in milliseconds: a packet's duration in samples is rounded; take the whole stream's)
            let packets = try Tool.check("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "packet=pts_time",
                                                     "-of", "csv=p=0", url.path]).stdout.split(separator: "\n").compactMap { Double($0) }
            let first = try #require(packets.dropFirst().first), last = try #require(packets.dropLast().last)
            let measured = (last - first) / Double(packets.count - 3) * Double(rate)
            #expect(abs(measured - Double(samples)) < 2, "\(codec): \(measured) samples a packet")
        }
    }
}
