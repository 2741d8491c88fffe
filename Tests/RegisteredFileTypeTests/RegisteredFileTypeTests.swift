import Foundation
import Splice
import Testing
import TestSupport

/// A container added from outside Splice: a WAV row for libavformat's `wav` muxer, registered
/// by this test target, written by Splice's copy and export like its own rows.
@Suite("A registered file type")
struct RegisteredFileTypeTests {
    /// The WAV row, registered once for the whole process.
    static let wav: Result<FileType, Error> = Result {
        let row = FileType("wav", title: "WAV", extensions: ["wave"], muxer: "wav", holdsSoundOnly: true,
                           codecs: ["pcm_s16le", "pcm_s24le", "pcm_f32le"], audio: .flac)
        try FileType.register(row)
        return row
    }

    static func streamHash(_ url: URL) throws -> String {
        try Tool.check("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:a", "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]).stdout
    }

    @Test("a registered row names its files, and is one of allCases")
    func registeredRowIsARow() throws {
        let wav = try Self.wav.get()
        #expect(FileType(pathExtension: "WAVE") == wav)
        #expect(FileType(rawValue: "wav") == wav)
        #expect(FileType.allCases.last == wav)
        #expect(wav.holdsSoundOnly && !wav.hasEditLists && wav.canHold("pcm_s16le") && !wav.canHold("aac"))
        // (a second row of the same name, or a muxer this libavformat lacks, is refused)
        #expect(throws: MediaError.self) { try FileType.register(FileType("wav", title: "WAV", muxer: "wav")) }
        #expect(throws: MediaError.self) { try FileType.register(FileType("nope", title: "Nope", muxer: "no-such-muxer")) }
    }

    @Test("a PCM movie's sound is copied into the registered row, packet for packet, and the video left out by an export")
    func copiesIntoTheRegisteredRow() throws {
        let wav = try Self.wav.get()
        let movie = Fixtures.path("registered-source.mov")
        try Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
                         "-c:v", "libx264", "-c:a", "pcm_s16le", movie.path])
        let copied = Fixtures.path("registered-copy.wav")
        let source = try Asset(url: movie)
        let audio = try #require(source.tracks(withMediaType: .audio).first)
        try SamplePipe.mirroring(source, to: copied, keeping: TrackSelection(including: [.trackID(audio.trackID)])).run()
        let streams = try Tool.ffprobeStreams(copied)
        #expect(streams.count == 1 && streams.first?["codec_name"] as? String == "pcm_s16le")
        #expect(try Self.streamHash(copied) == Self.streamHash(movie))

        // An export: the video is left out (sound only), the sound copied; FLAC where it is encoded.
        let session = ExportSession(asset: source, preset: .passthrough)
        #expect(session.supportedFileTypes.contains(wav))
        session.outputURL = Fixtures.path("registered-export.wav")
        session.replacesExistingFile = true
        try session.run()
        #expect(try Self.streamHash(Fixtures.path("registered-export.wav")) == Self.streamHash(movie))
        #expect(session.warnings.contains { $0.contains("track 1 (video) is left out: .wav files hold sound only") }, "\(session.warnings)")
    }
}
