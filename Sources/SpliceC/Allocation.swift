import CSplice
import Foundation
import Glibc
import Splice
import SpliceCLI

/// What the library allocates for a caller, all freed by one `splice_free`: each block starts
/// with a header telling what it is, and the caller gets the address after the header.
enum Allocation {
    /// The header's size: keeps what follows aligned for any C type.
    static let headerSize = 16
    private static let magic: UInt32 = 0x5350_4C43   // "SPLC"

    enum Kind: UInt32 {
        case string = 1, error = 2, token = 3
    }

    /// A block of `size` bytes after a header of `kind`; nil when out of memory.
    static func allocate(_ kind: Kind, size: Int) -> UnsafeMutableRawPointer? {
        guard size >= 0, size <= Int.max - headerSize, let base = malloc(headerSize + size) else { return nil }
        base.storeBytes(of: magic, as: UInt32.self)
        base.storeBytes(of: kind.rawValue, toByteOffset: 4, as: UInt32.self)
        return base + headerSize
    }

    /// The kind of a block `allocate` returned, or nil for any other pointer of ours' shape.
    static func kind(of pointer: UnsafeRawPointer) -> Kind? {
        let base = pointer - headerSize
        guard base.load(as: UInt32.self) == magic else { return nil }
        return Kind(rawValue: base.load(fromByteOffset: 4, as: UInt32.self))
    }

    /// Frees a block `allocate` returned, and what it holds.
    static func free(_ pointer: UnsafeMutableRawPointer) {
        switch kind(of: pointer) {
        case .string: break
        case .error: ErrorBlock.release(pointer)
        case .token: Unmanaged<CancelSwitch>.fromOpaque(pointer.load(as: UnsafeRawPointer.self)).release()
        case nil: return   // not the library's: left alone rather than freed wrongly
        }
        (pointer - headerSize).storeBytes(of: 0, as: UInt32.self)   // a second free finds no magic
        Glibc.free(pointer - headerSize)
    }

    /// `text` as a new NUL-terminated string block; nil when out of memory.
    static func string(_ text: String) -> UnsafeMutablePointer<CChar>? {
        let bytes = Array(text.utf8CString)
        guard let block = allocate(.string, size: bytes.count) else { return nil }
        bytes.withUnsafeBytes { block.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return block.assumingMemoryBound(to: CChar.self)
    }
}

/// An error block: its status, then its message and file as strings of their own.
enum ErrorBlock {
    private static let statusOffset = 0, messageOffset = 8, fileOffset = 16, size = 24

    /// A new error block; nil when out of memory.
    static func make(status: Int32, message: String, file: String?) -> OpaquePointer? {
        guard let block = Allocation.allocate(.error, size: size) else { return nil }
        block.storeBytes(of: status, toByteOffset: statusOffset, as: Int32.self)
        block.storeBytes(of: strdup(message), toByteOffset: messageOffset, as: UnsafeMutablePointer<CChar>?.self)
        block.storeBytes(of: file.flatMap { strdup($0) }, toByteOffset: fileOffset, as: UnsafeMutablePointer<CChar>?.self)
        return OpaquePointer(block)
    }

    static func status(_ error: UnsafeRawPointer) -> Int32 { error.load(fromByteOffset: statusOffset, as: Int32.self) }
    static func message(_ error: UnsafeRawPointer) -> UnsafePointer<CChar>? {
        UnsafePointer(error.load(fromByteOffset: messageOffset, as: UnsafeMutablePointer<CChar>?.self))
    }
    static func file(_ error: UnsafeRawPointer) -> UnsafePointer<CChar>? {
        UnsafePointer(error.load(fromByteOffset: fileOffset, as: UnsafeMutablePointer<CChar>?.self))
    }

    static func release(_ error: UnsafeMutableRawPointer) {
        Glibc.free(error.load(fromByteOffset: messageOffset, as: UnsafeMutablePointer<CChar>?.self))
        Glibc.free(error.load(fromByteOffset: fileOffset, as: UnsafeMutablePointer<CChar>?.self))
    }
}

extension CancelSwitch {
    /// The switch a caller's cancel token holds (a job's own switch is registered with it).
    static func token(_ pointer: OpaquePointer) -> CancelSwitch {
        let raw = UnsafeRawPointer(pointer)
        return Unmanaged<CancelSwitch>.fromOpaque(raw.load(as: UnsafeRawPointer.self)).takeUnretainedValue()
    }
}
