import Foundation
import Splice
import SpliceCLI
#if canImport(Glibc)
import Glibc
#endif

// A file-size limit (ulimit -f) must fail a write with EFBIG, not kill the process.
signal(SIGXFSZ, SIG_IGN)
Signals.install()
SystemMemory.tuneForStreaming()
let host = CommandHost.terminal(cancellation: Signals.cancellation, interruption: Signals.reportInterruption)
let status = CommandHost.$current.withValue(host) { CommandLine.run(Array(CommandLine.arguments.dropFirst())) }
if Signals.received != nil {
    // A job stopped by a signal does not wait for a decode in progress (a cancel never does): its
    // thread may still be inside libav's libraries, loading or running them, and exit()'s
    // destructors must not run under it (libgomp asserted so, in 2 of 160 interrupted exports).
    // The output is already discarded; nothing else is left for exit to do.
    fflush(nil)
    _exit(status)
}
exit(status)
