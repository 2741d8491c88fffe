import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Bytes that can be read at any offset: a file, or memory.
public protocol RandomAccessBytes: Sendable {
    /// The number of bytes.
    var size: UInt64 { get }
    /// Exactly `count` bytes at `offset`; `.truncated` when fewer exist.
    func read(at offset: UInt64, count: Int) throws -> [UInt8]
}

/// Bytes in memory, read like a file (for parsing what is not on disk, and for fuzzing).
public struct InMemoryBytes: RandomAccessBytes {
    /// The bytes.
    public let bytes: [UInt8]
    /// Bytes to read like a file.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    /// The number of bytes.
    public var size: UInt64 { UInt64(clamping: bytes.count) }
    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count >= 0, offset <= size, UInt64(clamping: count) <= size - offset else {
            throw MediaError(.truncated, "wanted \(count) bytes at offset \(offset), have \(size)")
        }
        return Array(bytes[Int(clamping: offset)..<(Int(clamping: offset) + count)])
    }
}

/// A file opened read-only for random access (`pread`), safe to share between threads.
///
/// Inputs are only ever opened through this type, so Splice cannot modify them.
public final class ReadOnlyFile: RandomAccessBytes, @unchecked Sendable {   // immutable after init (reads are pread)
    /// The path the file was opened at.
    public let path: String
    /// The file's size in bytes when it was opened.
    public let size: UInt64
    /// The open descriptor (read-only), for zero-copy transfers.
    public let fileDescriptor: Int32
    private var fd: Int32 { fileDescriptor }

    /// Opens `path` for reading.
    /// - Throws: `MediaError` `.fileNotFound` for a missing path, `.invalidData` for a directory or
    ///   something that is not a regular file, `.io` for other failures.
    public init(path: String) throws {
        self.path = path
        let fd: Int32
        do {
            fd = try SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC) }
        } catch where error == .noSuchFile || error == .notDirectory {
            throw MediaError(.fileNotFound, "no such file", file: path, underlying: error)
        } catch {
            throw MediaError.io("cannot open", error, file: path)
        }
        var st = stat()
        do { try SystemCall.retrying { fstat(fd, &st) } } catch {
            close(fd)
            throw MediaError.io("cannot stat", error, file: path)
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw MediaError(.invalidData, "is a directory, not a file", file: path)
        }
        if (st.st_mode & S_IFMT) != S_IFREG {
            close(fd)
            throw MediaError(.invalidData, "is not a regular file", file: path)
        }
        self.fileDescriptor = fd
        self.size = UInt64(clamping: st.st_size)
    }

    deinit { close(fd) }

    /// Reads exactly `count` bytes at `offset` into `buffer` (which must hold them).
    public func read(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws {
        let done: Int
        do { done = try SystemCall.readAll(fd, into: buffer, at: offset) } catch {
            throw MediaError.io("read failed at offset \(offset)", error, file: path)
        }
        if done < buffer.count {
            throw MediaError(.truncated, "file ends at \(offset + UInt64(done)), wanted \(buffer.count - done) more bytes", file: path)
        }
    }

    /// Reads exactly `count` bytes at `offset`.
    /// - Throws: `.truncated` when the file ends first. The caller bounds `count` by `size`.
    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count > 0 else { return [] }
        guard offset <= size, UInt64(clamping: count) <= size - offset else {
            throw MediaError(.truncated, "wanted \(count) bytes at offset \(offset), file has \(size)", file: path)
        }
        return try [UInt8](unsafeUninitializedCapacity: count) { buf, initialized in
            try read(at: offset, into: UnsafeMutableRawBufferPointer(buf))
            initialized = count
        }
    }

    /// Reads `count` bytes at `offset` as `Data`.
    public func readData(at offset: UInt64, count: Int) throws -> Data {
        guard count > 0 else { return Data() }
        guard offset <= size, UInt64(clamping: count) <= size - offset else {
            throw MediaError(.truncated, "wanted \(count) bytes at offset \(offset), file has \(size)", file: path)
        }
        var data = Data(count: count)
        try data.withUnsafeMutableBytes { try read(at: offset, into: $0) }
        return data
    }
}
