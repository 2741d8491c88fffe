#if canImport(Glibc)
import Glibc
#endif

/// A file as the system knows it: its device and inode, after symbolic links are followed.
/// Two paths name the same file — `a.mp4`, `../dir/a.mp4`, a symbolic link or a hard link to
/// it — exactly when their identities are equal.
public struct FileIdentity: Hashable, Sendable {
    /// The device the file is on (`st_dev`).
    public let device: UInt64
    /// The file's inode number on that device (`st_ino`).
    public let inode: UInt64

    /// The identity of the file at `path`; nil when there is none (or it cannot be looked at).
    public init?(path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        device = UInt64(truncatingIfNeeded: st.st_dev)
        inode = UInt64(truncatingIfNeeded: st.st_ino)
    }

    /// Refuses an output that is one of a job's inputs, whatever replacing is allowed: writing it
    /// would replace a file the job reads. Call before anything is read or written.
    /// - Throws: `.invalidOperation` naming the output and the input it is.
    public static func checkOutput(_ output: String, isNotAnyOf inputs: [String]) throws {
        guard let out = FileIdentity(path: output) else { return }
        for input in inputs where FileIdentity(path: input) == out {
            let spelled = input == output ? "" : " (\(input))"
            throw MediaError(.invalidOperation, "is an input of this job\(spelled): writing it would replace what is being read; "
                             + "choose another output", file: output)
        }
    }
}
