import CSplice
import Foundation
import Testing
import TestSupport

/// splice.h's calls, made as a C program makes them (the functions of libsplice.so linked into
/// the test): options, statuses and errors, progress and logs on the calling thread, cancels
/// from a token and from the progress callback, and jobs at once on several threads. The
/// installed library, from C, under AddressSanitizer: scripts/check-c-api (`make c-api`).
@Suite struct CAPITests {
    /// A 3 s movie with video, audio and a subtitle track, made by ffmpeg once.
    static let movie: URL = {
        let url = Fixtures.path("capi-movie.mp4")
        if !FileManager.default.fileExists(atPath: url.path) {
            let srt = try! Fixtures.write("capi.srt", "1\n00:00:00,500 --> 00:00:01,500\nHello\n")
            try! Tool.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=3", "-f", "lavfi", "-i", "sine=duration=3",
                              "-i", srt.path, "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-preset", "ultrafast",
                              "-c:a", "aac", "-c:s", "mov_text", url.path])
        }
        return url
    }()

    /// What a call gave: its status, and its error's message and file.
    struct Outcome {
        var status: Int32
        var message: String?
        var file: String?
    }

    /// A job's callbacks as a C caller's context: what they saw, and what the progress callback answers.
    final class Recorder: @unchecked Sendable {   // touched only on the calling thread (the header's promise, checked)
        let thread = pthread_self()
        var fractions: [Double] = []
        var lines: [(Int32, String)] = []
        var otherThread = false
        var cancelAt: Double?
    }

    static func call(_ function: (UnsafePointer<UnsafePointer<CChar>?>?, Int, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
                                  UnsafePointer<splice_job>?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32,
                     _ inputs: [String], _ output: String, _ options: String?, recorder: Recorder? = nil,
                     token: OpaquePointer? = nil) -> Outcome {
        var job = splice_job()
        job.size = MemoryLayout<splice_job>.size
        job.cancel = token
        if let recorder {
            let context = Unmanaged.passUnretained(recorder).toOpaque()
            job.progress_context = context
            job.log_context = context
            job.progress = { fraction, context in
                let r = Unmanaged<Recorder>.fromOpaque(context!).takeUnretainedValue()
                if pthread_equal(r.thread, pthread_self()) == 0 { r.otherThread = true }
                r.fractions.append(fraction)
                return r.cancelAt.map { fraction >= $0 ? 1 : 0 } ?? 0
            }
            job.log = { level, line, context in
                let r = Unmanaged<Recorder>.fromOpaque(context!).takeUnretainedValue()
                if pthread_equal(r.thread, pthread_self()) == 0 { r.otherThread = true }
                r.lines.append((level, String(cString: line!)))
            }
        }
        var error: OpaquePointer?
        let cStrings = inputs.map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        let status = cStrings.map { UnsafePointer<CChar>($0) }.withUnsafeBufferPointer { buffer in
            withUnsafePointer(to: job) { function(buffer.baseAddress, buffer.count, output, options, $0, &error) }
        }
        defer { splice_free(UnsafeMutableRawPointer(error)) }
        if (status == 0) != (error == nil) { return Outcome(status: -1, message: "status \(status) with error \(String(describing: error))") }
        return Outcome(status: status, message: error.flatMap { splice_error_message($0) }.map { String(cString: $0) },
                       file: error.flatMap { splice_error_file($0) }.map { String(cString: $0) })
    }

    static func streamHash(_ url: URL) throws -> String {
        try Tool.check("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0", "-c", "copy", "-f", "streamhash", "-hash", "md5", "-"]).stdout
    }

    @Test func remuxReportsProgressAndItsLineOnTheCallingThread() throws {
        let out = Fixtures.path("capi-remux.mov")
        let recorder = Recorder()
        let r = Self.call(splice_remux, [Self.movie.path], out.path, #"{"force": true, "faststart": true}"#, recorder: recorder)
        #expect(r.status == SPLICE_OK.rawValue.int32, "\(r.message ?? "")")
        #expect(try Self.streamHash(out) == Self.streamHash(Self.movie))
        #expect(recorder.fractions.last == 1.0 && recorder.fractions == recorder.fractions.sorted(), "\(recorder.fractions)")
        #expect(recorder.lines.contains { $0.0 == SPLICE_LOG_INFO.rawValue.int32 && $0.1.hasPrefix(out.path + ": copied") }, "\(recorder.lines)")
        #expect(!recorder.otherThread)
    }

    @Test func optionsAreTheSubcommandsLongOptions() throws {
        let out = Fixtures.path("capi-tracks.mp4")
        let r = Self.call(splice_remux, [Self.movie.path], out.path, #"{"force": true, "tracks": ["video", 2], "verify": false}"#)
        #expect(r.status == 0, "\(r.message ?? "")")
        #expect(try Tool.ffprobeStreams(out).compactMap { $0["codec_type"] as? String } == ["video", "audio"])
    }

    @Test(arguments: [
        (#"{"bogus": 1}"#, "remux: unknown option '--bogus'"),
        (#"{"progress": "json"}"#, "option \"progress\" is not taken here"),
        (#"{"tracks": {"a": 1}}"#, "cannot be an object"),
        ("[1, 2]", "the options must be a JSON object"),
        ("{\"force\": tru", "the options are not JSON"),
    ])
    func wrongOptionsAreUsageErrors(options: String, message: String) {
        let out = Fixtures.path("capi-usage.mp4")
        let r = Self.call(splice_remux, [Self.movie.path], out.path, options)
        #expect(r.status == SPLICE_USAGE.rawValue.int32 && r.message?.contains(message) == true, "\(r)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func statusesNameTheFile() throws {
        let missing = Fixtures.path("capi-missing.mp4").path
        let r = Self.call(splice_remux, [missing], Fixtures.path("capi-x.mp4").path, nil)
        #expect(r.status == SPLICE_FILE_NOT_FOUND.rawValue.int32 && r.file == missing && r.message?.hasPrefix(missing) == true, "\(r)")
        let existing = Fixtures.path("capi-existing.mp4")
        try Data("keep".utf8).write(to: existing)
        let e = Self.call(splice_remux, [Self.movie.path], existing.path, nil)
        #expect(e.status == SPLICE_FILE_EXISTS.rawValue.int32 && e.file == existing.path, "\(e)")
        #expect(try Data(contentsOf: existing) == Data("keep".utf8))
        let damaged = Fixtures.path("capi-damaged.mp4")
        try Data([0, 0, 0, 24] + Array("ftypisom".utf8) + [0, 0, 0, 0] + Array("isom".utf8) + [0, 0, 0, 0xFF] + Array("moov".utf8)).write(to: damaged)
        var json: UnsafeMutablePointer<CChar>?
        var error: OpaquePointer?
        let status = splice_inspect_json(damaged.path, &json, &error)
        #expect(status == SPLICE_TRUNCATED.rawValue.int32 || status == SPLICE_INVALID_DATA.rawValue.int32)
        #expect(json == nil && error.flatMap { splice_error_message($0) }.map { String(cString: $0).contains(damaged.path) } == true)
        splice_free(UnsafeMutableRawPointer(error))
    }

    @Test func inspectJSONIsTheCommands() throws {
        var json: UnsafeMutablePointer<CChar>?
        #expect(splice_inspect_json(Self.movie.path, &json, nil) == 0)
        let text = String(cString: json!)
        splice_free(json)
        #expect(text + "\n" == (try Tool.splice(["inspect", "--json", Self.movie.path])).stdout)
    }

    @Test func aTokenCancelledBeforeTheCallCancelsIt() throws {
        let token = splice_cancel_token_new()
        defer { splice_free(UnsafeMutableRawPointer(token)) }
        splice_cancel_token_cancel(token)
        #expect(splice_cancel_token_is_cancelled(token) == 1)
        let out = Fixtures.path("capi-precancelled.mp4")
        let r = Self.call(splice_export, [Self.movie.path], out.path, #"{"preset": "640x480"}"#, token: token)
        #expect(r.status == SPLICE_CANCELLED.rawValue.int32, "\(r)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func aNonZeroProgressAnswerCancels() throws {
        let out = Fixtures.path("capi-progress-cancel.mp4")
        let recorder = Recorder()
        recorder.cancelAt = 0.1
        let r = Self.call(splice_export, [Self.movie.path], out.path, #"{"preset": "640x480"}"#, recorder: recorder)
        #expect(r.status == SPLICE_CANCELLED.rawValue.int32, "\(r)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(recorder.fractions.last.map { $0 < 1 } == true && !recorder.otherThread)
    }

    @Test func jobsRunAtOnceOnSeveralThreads() throws {
        let source = try Self.streamHash(Self.movie)
        let outcomes = Locked([Int: Outcome]())
        DispatchQueue.concurrentPerform(iterations: 4) { i in
            let out = Fixtures.path("capi-parallel-\(i).mp4")
            let r = Self.call(splice_remux, [Self.movie.path], out.path, #"{"force": true}"#, recorder: Recorder())
            outcomes.withLock { $0[i] = r }
        }
        for i in 0..<4 {
            #expect(outcomes.value[i]?.status == 0, "\(String(describing: outcomes.value[i]))")
            #expect(try Self.streamHash(Fixtures.path("capi-parallel-\(i).mp4")) == source)
        }
    }
}

extension UInt32 {
    var int32: Int32 { Int32(truncatingIfNeeded: self) }
}

/// A value under a lock, for the threads of one test.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&stored) } }
    var value: Value { withLock { $0 } }
}
