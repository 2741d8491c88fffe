import CSystem
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file being written: a temporary file in the destination's directory, put in place only
/// by `commit()`. Until then the destination is untouched; `discard()` (or deinit) removes the
/// temporary file, so a failed or cancelled job leaves nothing.
///
/// Where the file system can (`O_TMPFILE`: ext4, XFS, btrfs, tmpfs) the temporary file has no
/// name at all until `commit()` links it: a process killed outright (SIGKILL, a crash, power
/// loss) leaves nothing behind. Elsewhere it is a hidden `.<name>.splice-<random>.tmp`.
///
/// A file that replaces another is flushed to disk (`fsync`) before it takes the other's place,
/// so that a crash cannot leave the destination empty where it held the old content. A new
/// file is left to the kernel's writeback, as `cp` and `ffmpeg` leave theirs, unless
// it is made `syncing`.
public final class OutputFile: @unchecked Sendable {   // confined: used under its writer's lock
    /// The path the file gets on `commit()`.
    public let destination: String
    /// The temporary file's name; nil while it has none (`O_TMPFILE`).
    public private(set) var temporaryPath: String?
    /// Bytes written so far (the position of the next `write`).
    public private(set) var size: UInt64 = 0
    private var fd: Int32
    private let replacing: Bool
    private var done = false
    /// Whether `commit()` flushes the file to disk: a file made `syncing`, or one that replaces one.
    private let flushes: Bool

    /// Creates the temporary file in the destination's directory.
    /// - Parameters:
    ///   - replacing: whether `commit()` may replace an existing destination.
    ///   - syncing: flush the file to disk (`fsync`, and its directory's entry) before it is put
    ///     in place, so that it survives a power loss from then on: for a program that deletes a
    ///     job's inputs once it is done. Off by default: flushing costs a remux about a fifth of
    ///     its time (the bench's MKV → MP4), and a new file that a crash cuts short costs only a
    ///     rerun. A file that replaces another is flushed either way. The command line's `--sync`.
    /// - Throws: `.io` when the directory cannot be written, `.fileExists` when the
    ///   destination exists and `replacing` is false.
    public init(destination: String, replacing: Bool, syncing: Bool = false) throws {
        self.destination = destination
        self.replacing = replacing
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw MediaError(.invalidOperation, "is a directory", file: destination) }
            if !replacing { throw OutputFile.alreadyExists(destination) }
        }
        flushes = syncing || FileManager.default.fileExists(atPath: destination)
        (fd, temporaryPath) = try OutputFile.createTemporary(beside: destination)
    }

    private static func createTemporary(beside destination: String) throws -> (Int32, String?) {
        let directory = URL(fileURLWithPath: destination).deletingLastPathComponent().path
        if ProcessInfo.processInfo.environment["SPLICE_NO_UNNAMED_FILES"] == nil {
            do {
                return (try SystemCall.retrying { splice_open_unnamed(directory) }, nil)
            } catch where [EOPNOTSUPP, EISDIR, EINVAL, ENOSYS].contains(error.code) {
                // This file system cannot: a named temporary file instead.
            } catch {
                throw MediaError.io("cannot create a file in \(directory)", error, file: destination)
            }
        }
        let (fd, path) = try createNamed(beside: destination)
        return (fd, path)
    }

    /// A hidden name no other file has, beside `destination`: a new file of that name, opened (its
    /// descriptor), or — `linking` an unnamed file — that file given the name (descriptor -1).
    private static func createNamed(beside destination: String, linking unnamed: Int32? = nil) throws -> (Int32, String) {
        let url = URL(fileURLWithPath: destination)
        let directory = url.deletingLastPathComponent().path
        for _ in 0..<16 {
            let path = directory + "/." + url.lastPathComponent + ".splice-" + String(UInt32.random(in: 0...UInt32.max), radix: 36) + ".tmp"
            do {
                if let unnamed {
                    try SystemCall.retrying { splice_link_unnamed(unnamed, path) }
                    return (-1, path)
                }
                return (try SystemCall.retrying { open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o666) }, path)
            } catch where error != .exists {
                throw MediaError.io("cannot create a file in \(directory)", error, file: destination)
            } catch {}
        }
        throw MediaError(.io, "cannot create a temporary file in \(directory)", file: destination)
    }

    deinit { discard() }

    /// The one "output exists" error (`.fileExists`): a command line adds how to replace it.
    public static func alreadyExists(_ destination: String) -> MediaError {
        MediaError(.fileExists, "already exists", file: destination)
    }

    /// Refuses a destination that is one of a job's inputs (by device and inode: also through
    /// `../`, a symbolic or a hard link), whether or not it may be replaced, then one that exists
    /// when it may not. Jobs call it before reading anything.
    /// - Parameter inputs: the paths of every file the job reads.
    /// - Throws: `.invalidOperation` (an input), `.fileExists`.
    public static func checkDestination(_ destination: String, replacing: Bool, inputs: [String]) throws {
        try FileIdentity.checkOutput(destination, isNotAnyOf: inputs)
        if !replacing && FileManager.default.fileExists(atPath: destination) { throw alreadyExists(destination) }
    }

    private func ioError(_ what: String, _ cause: Errno) -> MediaError {
        MediaError.io(what, cause, file: destination)
    }

    /// How far writeback has been started; see `startWriteback()`.
    private var writebackStart: UInt64 = 0

    /// Starts writing what has been written so far to disk in the background once another
    /// 16 MiB have piled up, so that the final `fsync` has little left to wait for (only for a
    /// file that is flushed: otherwise the kernel writes it when it sees fit).
    private func startWriteback() {
        guard flushes, size - writebackStart >= 16 << 20 else { return }
        _ = splice_start_writeback(fd, Int64(clamping: writebackStart), Int64(clamping: size - writebackStart))
        writebackStart = size
    }

    /// Appends `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard !done else { throw MediaError(.invalidOperation, "file is closed", file: destination) }
        defer { startWriteback() }
        do { try SystemCall.writeAll(fd, bytes) } catch { throw ioError("write failed", error) }
        size += UInt64(clamping: bytes.count)
    }

    /// Appends `pieces` one after the other, straight from their storage (`writev`, up to 64
    /// pieces a call): no copy into a buffer of its own.
    public func write(gathering pieces: [Data]) throws {
        guard !done else { throw MediaError(.invalidOperation, "file is closed", file: destination) }
        var start = 0
        while start < pieces.count {
            let end = min(start + 64, pieces.count)
            var vectors: [iovec] = []
            vectors.reserveCapacity(end - start)
            try gather(pieces[start..<end], into: &vectors)
            start = end
        }
    }

    /// Collects the pointers of `rest` (each valid inside its own `withUnsafeBytes`) and writes
    /// them all once the last is in.
    private func gather(_ rest: ArraySlice<Data>, into vectors: inout [iovec]) throws {
        guard let first = rest.first else {
            let total = vectors.reduce(0) { $0 + $1.iov_len }
            do { try SystemCall.writeAll(fd, &vectors) } catch { throw ioError("write failed", error) }
            size += UInt64(clamping: total)
            startWriteback()
            return
        }
        try first.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress, bytes.count > 0 {
                vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: base), iov_len: bytes.count))
            }
            try gather(rest.dropFirst(), into: &vectors)
        }
    }

    /// Appends `bytes`.
    public func write(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try write($0) } }
    /// Appends `data`.
    public func write(_ data: Data) throws { try data.withUnsafeBytes { try write($0) } }

    /// Appends `length` bytes of `file` from `offset`, in the kernel where it can
    /// (`copy_file_range`: no copy through user space), else by reading and writing.
    public func append(from file: ReadOnlyFile, offset: UInt64, length: Int) throws {
        guard !done else { throw MediaError(.invalidOperation, "file is closed", file: destination) }
        var copied = 0
        while copied < length && canCopyInKernel {
            let n: Int64
            do {
                n = try SystemCall.retrying { splice_copy_file_range(file.fileDescriptor, Int64(clamping: offset) + Int64(clamping: copied), fd, Int64(clamping: length - copied)) }
            } catch where [EXDEV, EINVAL, ENOSYS, EOPNOTSUPP, EBADF].contains(error.code) {
                // Not between these files: copy through memory instead.
                canCopyInKernel = false
                break
            } catch {
                throw ioError("write failed", error)
            }
            if n == 0 { throw MediaError(.truncated, "source ended at \(offset + UInt64(copied))", file: file.path) }
            copied += Int(widening: n)
        }
        size += UInt64(clamping: copied)
        startWriteback()
        if copied < length {
            let rest = try file.readData(at: offset + UInt64(clamping: copied), count: length - copied)
            try write(rest)
        }
    }

    private var canCopyInKernel = ProcessInfo.processInfo.environment["SPLICE_NO_COPY_FILE_RANGE"] == nil

    /// Overwrites bytes already written, at `offset`.
    public func write(_ bytes: [UInt8], at offset: UInt64) throws {
        try bytes.withUnsafeBytes { try write($0, at: offset) }
    }

    /// Writes at `offset`, over bytes already written and past the end if need be.
    public func write(_ buf: UnsafeRawBufferPointer, at offset: UInt64) throws {
        guard !done else { throw MediaError(.invalidOperation, "file is closed", file: destination) }
        do { try SystemCall.writeAll(fd, buf, at: offset) } catch { throw ioError("write failed", error) }
        size = max(size, offset + UInt64(clamping: buf.count))
    }

    /// The file system's block size: what `prepend` pads to.
    public var blockSize: UInt64 {
        var st = stat()
        return fstat(fd, &st) == 0 && st.st_blksize > 0 ? UInt64(clamping: st.st_blksize) : 4096
    }

    /// Puts `header` (a multiple of `blockSize` bytes) before everything written so far.
    ///
    /// On file systems that can insert a range into a file (ext4, XFS) this moves no data;
    /// elsewhere the content is copied once into a new temporary file after the header.
    /// - Returns: whether the content had to be copied.
    @discardableResult
    public func prepend(_ header: [UInt8]) throws -> Bool {
        precondition(UInt64(clamping: header.count) % blockSize == 0, "prepend needs whole blocks")
        if ProcessInfo.processInfo.environment["SPLICE_NO_INSERT_RANGE"] == nil,
           splice_insert_range(fd, 0, Int64(widening: header.count)) == 0 {
            try write(header, at: 0)
            size += UInt64(clamping: header.count)
            return false
        }
        // Copy: a second temporary file holding header + content.
        let (newFD, newPath) = try OutputFile.createTemporary(beside: destination)
        var ok = false
        defer {
            if !ok { close(newFD); if let newPath { unlink(newPath) } }
        }
        try header.withUnsafeBytes { buf in
            do throws(Errno) { try SystemCall.writeAll(newFD, buf) } catch { throw ioError("write failed", error) }
        }
        var copied: UInt64 = 0
        while copied < size {
            let n: Int64
            do {
                n = try SystemCall.retrying { splice_copy_file_range(fd, Int64(clamping: copied), newFD, Int64(clamping: min(size - copied, 1 << 30))) }
            } catch {
                throw ioError("copy failed", error)
            }
            if n == 0 { throw MediaError(.io, "copy ended early at \(copied) of \(size) bytes", file: destination) }
            copied += UInt64(clamping: n)
        }
        close(fd)
        if let temporaryPath { unlink(temporaryPath) }
        fd = newFD
        temporaryPath = newPath
        size += UInt64(clamping: header.count)
        ok = true
        return true
    }

    /// Puts the file at the destination (renamed, or linked when it has no name yet), flushed to
    /// disk first when it replaces a file or was made `syncing`.
    public func commit() throws {
        guard !done else { throw MediaError(.invalidOperation, "file is closed", file: destination) }
        let flush = flushes || (replacing && FileManager.default.fileExists(atPath: destination))
        if flush {
            do { try SystemCall.retrying { fsync(fd) } } catch { discard(); throw ioError("cannot flush to disk", error) }
        }
        if temporaryPath == nil, !replacing {
            // Linking fails when the destination exists: nothing is replaced.
            let linked = Result { () throws(Errno) in try SystemCall.retrying { splice_link_unnamed(fd, destination) } }
            discard()   // closes the descriptor: the file lives on under its name, or is gone
            if case .failure(let error) = linked {
                if error == .exists { throw OutputFile.alreadyExists(destination) }
                throw ioError("cannot put the file in place", error)
            }
        } else {
            // An unnamed file replacing the destination gets a name beside it, then is renamed over it.
            let temporaryPath: String
            do { temporaryPath = try self.temporaryPath ?? OutputFile.createNamed(beside: destination, linking: fd).1 } catch { discard(); throw error }
            close(fd)
            done = true
            do {
                try SystemCall.retrying { replacing ? rename(temporaryPath, destination) : splice_rename_noreplace(temporaryPath, destination) }
            } catch {
                unlink(temporaryPath)
                if error == .exists { throw OutputFile.alreadyExists(destination) }
                throw ioError("cannot rename into place", error)
            }
        }
        guard flush else { return }
        let directory = URL(fileURLWithPath: destination).deletingLastPathComponent().path
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 { fsync(dfd); close(dfd) }
    }

    /// Removes the temporary file; the destination is left as it was. Safe to call twice.
    public func discard() {
        guard !done else { return }
        done = true
        close(fd)
        if let temporaryPath { unlink(temporaryPath) }
    }
}

extension OutputFile {
    /// Commits `files` together: all are in place afterwards, or — when one cannot be — none is
    /// (those already renamed into place are removed, the rest discarded).
    public static func commitAll(_ files: [OutputFile]) throws {
        var committed: [OutputFile] = []
        do {
            for f in files {
                try f.commit()
                committed.append(f)
            }
        } catch {
            for f in committed { unlink(f.destination) }
            for f in files { f.discard() }
            throw error
        }
    }
}
