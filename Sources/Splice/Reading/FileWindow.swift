import Foundation
import MediaCore

/// A file's bytes read a window at a time, so that samples that lie together (a chunk's, a
/// cluster's laced audio) come from one read.
struct FileWindow {
    private var bytes = Data()
    private var start: UInt64 = 0

    /// The `size` bytes at `offset` (which the caller has checked lie in the file): from the
    /// window when it holds them, else from a new window read at `offset`, `span` bytes long (at
    /// least `size`, at most to the file's end).
    mutating func read(_ file: ReadOnlyFile, at offset: UInt64, size: Int, span: UInt64) throws -> Data {
        let length = UInt64(clamping: size)
        if offset < start || offset - start > UInt64(clamping: bytes.count) || length > UInt64(clamping: bytes.count) - (offset - start) {
            bytes = try file.readData(at: offset, count: Int(clamping: min(max(span, length), file.size - offset)))
            start = offset
        }
        let from = Int(clamping: offset - start)
        return bytes.subdata(in: from..<(from + size))
    }
}
