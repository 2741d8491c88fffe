// The libFuzzer plumbing every fuzz target shares: libFuzzer calls LLVMFuzzerTestOneInput,
// which calls the target's function; each target's main hands its function to `runFuzzer`.
import Foundation

nonisolated(unsafe) private var target: ((UnsafePointer<UInt8>, Int) -> CInt)?

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    target?(data, size) ?? 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

/// Runs libFuzzer's driver (with this process's arguments) on `fuzz`.
public func runFuzzer(_ fuzz: @escaping (UnsafePointer<UInt8>, Int) -> CInt) -> Never {
    target = fuzz
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(runFuzzerDriver(&argc, &argv) { data, size in fuzzerTestOneInput(data, size) })
}
