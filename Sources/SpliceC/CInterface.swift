import CSplice
import Foundation
import Splice
import SpliceCLI

// splice.h's functions. Each is a thin door: the work is in JobCall (the jobs), Allocation
// (what the caller frees) and the subcommands of SpliceCLI.

// (splice_version and its parts are in C: Sources/CSplice/splice.c.)

@_cdecl("splice_free")
public func spliceFree(_ pointer: UnsafeMutableRawPointer?) {
    if let pointer { Allocation.free(pointer) }
}

@_cdecl("splice_error_status")
public func spliceErrorStatus(_ error: OpaquePointer?) -> Int32 {
    error.map { ErrorBlock.status(UnsafeRawPointer($0)) } ?? SPLICE_OK.rawValue.int32
}

@_cdecl("splice_error_message")
public func spliceErrorMessage(_ error: OpaquePointer?) -> UnsafePointer<CChar>? {
    error.flatMap { ErrorBlock.message(UnsafeRawPointer($0)) }
}

@_cdecl("splice_error_file")
public func spliceErrorFile(_ error: OpaquePointer?) -> UnsafePointer<CChar>? {
    error.flatMap { ErrorBlock.file(UnsafeRawPointer($0)) }
}

@_cdecl("splice_cancel_token_new")
public func spliceCancelTokenNew() -> OpaquePointer? {
    guard let block = Allocation.allocate(.token, size: MemoryLayout<UnsafeRawPointer>.size) else { return nil }
    block.storeBytes(of: UnsafeRawPointer(Unmanaged.passRetained(CancelSwitch()).toOpaque()), as: UnsafeRawPointer.self)
    return OpaquePointer(block)
}

@_cdecl("splice_cancel_token_cancel")
public func spliceCancelTokenCancel(_ token: OpaquePointer?) {
    token.map(CancelSwitch.token)?.cancel()
}

@_cdecl("splice_cancel_token_is_cancelled")
public func spliceCancelTokenIsCancelled(_ token: OpaquePointer?) -> Int32 {
    token.map(CancelSwitch.token)?.isCancelled == true ? 1 : 0
}

/// The global handler's C function and context, as one value the Swift closure can hold.
private struct LogHandler: @unchecked Sendable {   // the context is the caller's, passed back as it is
    var function: splice_log_fn
    var context: UnsafeMutableRawPointer?
}

@_cdecl("splice_set_log_handler")
public func spliceSetLogHandler(_ handler: splice_log_fn?, _ context: UnsafeMutableRawPointer?) {
    guard let handler else { return Diagnostics.setFFmpegMessageHandler(nil) }
    let h = LogHandler(function: handler, context: context)
    Diagnostics.setFFmpegMessageHandler { line, isError in
        ("ffmpeg: " + line).withCString { h.function((isError ? SPLICE_LOG_ERROR : SPLICE_LOG_WARNING).rawValue.int32, $0, h.context) }
    }
}

@_cdecl("splice_inspect_json")
public func spliceInspectJSON(_ path: UnsafePointer<CChar>?, _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                              _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    json?.pointee = nil
    error?.pointee = nil
    guard let path, let json else {
        return JobCall.fail(UsageError(message: path == nil ? "no path" : "nowhere to put the JSON (json is NULL)", command: "inspect"), error)
    }
    let text = Locked("")
    var host = CommandHost(write: { stream, t in if stream == .output { text.withLock { $0 += t } } })
    host.isQuiet = true
    do {
        _ = try CommandHost.$current.withValue(host) { try CommandLine.execute(["inspect", "--json", "--", String(cString: path)]) }
    } catch let e {
        return JobCall.fail(e, error)
    }
    var result = text.value
    if result.hasSuffix("\n") { result.removeLast() }
    guard let string = Allocation.string(result) else { return JobCall.fail(MediaError(.io, "out of memory"), error) }
    json.pointee = string
    return SPLICE_OK.rawValue.int32
}

/// The jobs: one signature, the subcommand each runs.
public typealias SpliceInputs = UnsafePointer<UnsafePointer<CChar>?>?

@_cdecl("splice_remux")
public func spliceRemux(_ i: SpliceInputs, _ n: Int, _ o: UnsafePointer<CChar>?, _ opts: UnsafePointer<CChar>?,
                        _ job: UnsafePointer<splice_job>?, _ e: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    JobCall(command: ["remux"], outputIsPositional: true).run(inputs: i, count: n, output: o, options: opts, job: job, error: e)
}

@_cdecl("splice_add_subtitles")
public func spliceAddSubtitles(_ i: SpliceInputs, _ n: Int, _ o: UnsafePointer<CChar>?, _ opts: UnsafePointer<CChar>?,
                               _ job: UnsafePointer<splice_job>?, _ e: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    JobCall(command: ["subtitles", "add"]).run(inputs: i, count: n, output: o, options: opts, job: job, error: e)
}

@_cdecl("splice_extract_subtitles")
public func spliceExtractSubtitles(_ i: SpliceInputs, _ n: Int, _ o: UnsafePointer<CChar>?, _ opts: UnsafePointer<CChar>?,
                                   _ job: UnsafePointer<splice_job>?, _ e: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    JobCall(command: ["subtitles", "extract"]).run(inputs: i, count: n, output: o, options: opts, job: job, error: e)
}

@_cdecl("splice_export")
public func spliceExport(_ i: SpliceInputs, _ n: Int, _ o: UnsafePointer<CChar>?, _ opts: UnsafePointer<CChar>?,
                         _ job: UnsafePointer<splice_job>?, _ e: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    JobCall(command: ["export"]).run(inputs: i, count: n, output: o, options: opts, job: job, error: e)
}

@_cdecl("splice_trim")
public func spliceTrim(_ i: SpliceInputs, _ n: Int, _ o: UnsafePointer<CChar>?, _ opts: UnsafePointer<CChar>?,
                       _ job: UnsafePointer<splice_job>?, _ e: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    JobCall(command: ["trim"]).run(inputs: i, count: n, output: o, options: opts, job: job, error: e)
}

@_cdecl("splice_concat")
public func spliceConcat(_ i: SpliceInputs, _ n: Int, _ o: UnsafePointer<CChar>?, _ opts: UnsafePointer<CChar>?,
                         _ job: UnsafePointer<splice_job>?, _ e: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    JobCall(command: ["concat"]).run(inputs: i, count: n, output: o, options: opts, job: job, error: e)
}

@_cdecl("splice_merge")
public func spliceMerge(_ i: SpliceInputs, _ n: Int, _ o: UnsafePointer<CChar>?, _ opts: UnsafePointer<CChar>?,
                        _ job: UnsafePointer<splice_job>?, _ e: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    JobCall(command: ["merge"]).run(inputs: i, count: n, output: o, options: opts, job: job, error: e)
}

@_cdecl("splice_mix")
public func spliceMix(_ i: SpliceInputs, _ n: Int, _ o: UnsafePointer<CChar>?, _ opts: UnsafePointer<CChar>?,
                      _ job: UnsafePointer<splice_job>?, _ e: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    JobCall(command: ["mix"]).run(inputs: i, count: n, output: o, options: opts, job: job, error: e)
}

@_cdecl("splice_images")
public func spliceImages(_ i: SpliceInputs, _ n: Int, _ o: UnsafePointer<CChar>?, _ opts: UnsafePointer<CChar>?,
                         _ job: UnsafePointer<splice_job>?, _ e: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    JobCall(command: ["images"]).run(inputs: i, count: n, output: o, options: opts, job: job, error: e)
}

@_cdecl("splice_thumbnail")
public func spliceThumbnail(_ i: SpliceInputs, _ n: Int, _ o: UnsafePointer<CChar>?, _ opts: UnsafePointer<CChar>?,
                            _ job: UnsafePointer<splice_job>?, _ e: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    JobCall(command: ["thumbnail"]).run(inputs: i, count: n, output: o, options: opts, job: job, error: e)
}

@_cdecl("splice_package")
public func splicePackage(_ i: SpliceInputs, _ n: Int, _ o: UnsafePointer<CChar>?, _ opts: UnsafePointer<CChar>?,
                          _ job: UnsafePointer<splice_job>?, _ e: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    JobCall(command: ["package"]).run(inputs: i, count: n, output: o, options: opts, job: job, error: e)
}
