import Foundation
import Splice
#if canImport(Glibc)
import Glibc
#endif

// A file-size limit (ulimit -f) must fail a write with EFBIG, not kill the process.
signal(SIGXFSZ, SIG_IGN)
Signals.install()
let status = CommandLine.run(Array(CommandLine.arguments.dropFirst()))
exit(status)
