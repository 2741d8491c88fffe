// The C interface (splice.h) on mutated movies: splice_inspect_json, then splice_remux into MP4
// and into Matroska, through the same calls a C program makes. Every input must give a status
// and, on failure, an error whose message names the file; a failed remux leaves nothing.
//
// With FUZZ_EXTREMES=<dir>, it runs no fuzzer: every seed in <dir> goes through the
// structure-aware sweep (Extremes: every numeric field of every box or element at its
// extremes), each mutant through the same calls; the mutant being tried is kept in
// Fuzz/crashes/CAPI-extremes-current (a crash leaves it there), and removed when all pass.
import CSplice
import Foundation
import FuzzSupport

let directory = URL(fileURLWithPath: FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory())
    .appendingPathComponent("fuzz-capi-\(getpid())")
try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
let input = directory.appendingPathComponent("in.mov").path

/// One call's status and message, checked: an error names the input or output, and is freed.
func checked(_ status: Int32, _ error: OpaquePointer?, _ call: String, names files: [String]) {
    guard status != 0 else {
        if error != nil { fatalError("\(call): an error object with status 0") }
        return
    }
    guard let error, splice_error_status(error) == status, let message = splice_error_message(error).map({ String(cString: $0) }) else {
        fatalError("\(call): status \(status) without its error")
    }
    if !files.contains(where: { message.contains($0) }) { fatalError("\(call): the message names no file: \(message)") }
    splice_free(UnsafeMutableRawPointer(error))
}

/// - Parameters:
///   - remuxingUnread: Whether to remux an input `inspect` refused (the fuzzer does; the sweep
///     does not: the remux reads it with the same parser, and fails the same way).
///   - outputs: The containers to remux into.
func run(_ bytes: UnsafeRawBufferPointer, remuxingUnread: Bool = true, into outputs: [String] = ["mp4", "mkv"]) {
    guard (try? Data(bytes).write(to: URL(fileURLWithPath: input))) != nil else { return }
    var json: UnsafeMutablePointer<CChar>?
    var error: OpaquePointer?
    let status = splice_inspect_json(input, &json, &error)
    checked(status, error, "inspect", names: [input])
    if status == 0 {
        guard let json else { fatalError("inspect: success without JSON") }
        guard (try? JSONSerialization.jsonObject(with: Data(String(cString: json).utf8))) != nil else { fatalError("inspect: not JSON") }
        splice_free(json)
    } else if !remuxingUnread {
        return
    }
    for ext in outputs {
        let output = directory.appendingPathComponent("out.\(ext)").path
        error = nil
        let s = input.withCString { i in
            withUnsafePointer(to: Optional(i)) { splice_remux($0, 1, output, "{\"force\": true}", nil, &error) }
        }
        checked(s, error, "remux to .\(ext)", names: [input, output])
        if s != 0 && FileManager.default.fileExists(atPath: output) { fatalError("a failed remux left \(output)") }
        unlink(output)
    }
}

if let seeds = ProcessInfo.processInfo.environment["FUZZ_EXTREMES"] {
    let current = URL(fileURLWithPath: "Fuzz/crashes/CAPI-extremes-current")
    try? FileManager.default.createDirectory(at: current.deletingLastPathComponent(), withIntermediateDirectories: true)
    let files = ((try? FileManager.default.contentsOfDirectory(atPath: seeds)) ?? []).sorted()
    var total = 0
    for name in files {
        guard let seed = FileManager.default.contents(atPath: seeds + "/" + name) else { continue }
        var count = 0
        Extremes.forEachMutant(of: [UInt8](seed)) { mutant in
            try? Data(mutant.bytes).write(to: current)
            // Into the seed's own kind of container: the sweep's cost is in its count.
            mutant.bytes.withUnsafeBytes { run($0, remuxingUnread: false, into: [name.hasSuffix(".mkv") ? "mkv" : "mp4"]) }
            count += 1
            if count % 5000 == 0 { FileHandle.standardError.write(Data("extremes: \(name): \(count) mutants…\n".utf8)) }
        }
        print("extremes: \(name): \(count) mutants through inspect and remux (C interface)")
        fflush(nil)
        total += count
    }
    try? FileManager.default.removeItem(at: current)
    try? FileManager.default.removeItem(at: directory)
    print("extremes: \(total) mutants of \(files.count) seeds, no crash")
    exit(files.isEmpty ? 1 : 0)
}

runFuzzer { data, size in
    run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
