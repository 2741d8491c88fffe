#if canImport(Glibc)
import Glibc
#endif

/// The system calls of Splice's file layer, checked in one place (the way swift-system wraps
/// them): a call interrupted by a signal (`EINTR`) is made again, a failure throws its `errno`
/// as an `Errno`, and `MediaError.io(_:_:file:)` keeps that `Errno` as the error's cause.
/// No other file retries or reads `errno` by hand.

/// An `errno` value: the cause underneath a failed file operation.
public struct Errno: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `errno` number.
    public let code: Int32
    /// The error with `errno` number `code`.
    public init(_ code: Int32) { self.code = code }
    /// `strerror`'s text: "No space left on device".
    public var description: String { String(cString: strerror(code)) }

    /// `EINTR`: interrupted by a signal.
    public static let interrupted = Errno(EINTR)
    /// `EEXIST`: the file exists.
    public static let exists = Errno(EEXIST)
    /// `ENOENT`: no such file or directory.
    public static let noSuchFile = Errno(ENOENT)
    /// `ENOTDIR`: a part of the path is not a directory.
    public static let notDirectory = Errno(ENOTDIR)
}

enum SystemCall {
    /// Makes `call` until it is not interrupted; returns its result, or throws the `errno` of a
    /// failure (a negative result).
    @discardableResult
    static func retrying<T: FixedWidthInteger & SignedInteger>(_ call: () -> T) throws(Errno) -> T {
        while true {
            let result = call()
            if result >= 0 { return result }
            let code = errno
            if code != EINTR { throw Errno(code) }
        }
    }

    /// The most bytes one write system call is given. The kernel sizes the page-cache folios of
    /// a write by its length: multi-megabyte writes ask for high-order pages, which a busy or
    /// virtualised machine sometimes supplies slowly (measured: 4 MiB writes of a 290 MB file
    /// took 0.09–2.6 s of system time run to run; 512 KiB writes 0.08–0.09 s every time).
    static let maximumWrite = 512 << 10

    /// Writes all of `buffer` to `fd`: at its position, or at `offset` (`pwrite`); short writes
    /// are continued. No call is given more than `maximumWrite` bytes.
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, at offset: UInt64? = nil) throws(Errno) {
        guard let base = buffer.baseAddress else { return }
        var done = 0
        while done < buffer.count {
            let count = min(buffer.count - done, maximumWrite)
            let n = try retrying {
                if let offset { pwrite(fd, base + done, count, off_t(offset) + off_t(done)) }
                else { Glibc.write(fd, base + done, count) }
            }
            done += n
        }
    }

    /// Writes all of `vectors`' bytes to `fd` at its position, up to `maximumWrite` bytes a
    /// `writev` (a piece longer than that goes in parts); short writes are continued from where
    /// they stopped.
    static func writeAll(_ fd: Int32, _ vectors: inout [iovec]) throws(Errno) {
        var first = 0
        while first < vectors.count {
            var count = 0, bytes = 0
            while first + count < vectors.count, count < 1024, bytes + vectors[first + count].iov_len <= maximumWrite {
                bytes += vectors[first + count].iov_len
                count += 1
            }
            let n: Int
            if count == 0 {
                let piece = vectors[first]
                n = try retrying { Glibc.write(fd, piece.iov_base, maximumWrite) }
            } else {
                n = try vectors.withUnsafeBufferPointer { v throws(Errno) in
                    try retrying { writev(fd, v.baseAddress! + first, Int32(clamping: count)) }
                }
            }
            var left = n
            while first < vectors.count && left >= vectors[first].iov_len {
                left -= vectors[first].iov_len
                first += 1
            }
            if left > 0 {
                vectors[first].iov_base += left
                vectors[first].iov_len -= left
            }
        }
    }

    /// Reads exactly `buffer.count` bytes at `offset`; returns how many were read before the
    /// file ended (fewer than asked only at the end of the file).
    static func readAll(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(Errno) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var done = 0
        while done < buffer.count {
            let n = try retrying { pread(fd, base + done, buffer.count - done, off_t(offset) + off_t(done)) }
            if n == 0 { break }
            done += n
        }
        return done
    }
}

extension MediaError {
    /// An I/O failure: `what` and the system's reason, with the `Errno` kept as the cause.
    public static func io(_ what: String, _ cause: Errno, file: String?) -> MediaError {
        MediaError(.io, "\(what): \(cause)", file: file, underlying: cause)
    }
}
