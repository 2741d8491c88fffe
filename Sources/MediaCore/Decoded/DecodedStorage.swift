/// The memory behind a decoded buffer: a decoder's or converter's reference-counted frame (the
/// FFmpeg bridge keeps a libav frame alive behind it), shared by every buffer that views it,
/// so that decoded media passes from decoder to converter to encoder without a copy.
public protocol DecodedStorage: AnyObject, Sendable {
    /// The start of plane `index` and its stride (bytes per row for video; for audio, the
    /// plane's length).
    func plane(_ index: Int) -> (base: UnsafeRawPointer, stride: Int)
}

/// Decoded storage in Swift memory (made in code, or copied out of a frame).
public final class OwnedStorage: DecodedStorage, @unchecked Sendable {   // immutable after init
    private let buffers: [UnsafeMutableRawBufferPointer]
    private let strides: [Int]

    /// Planes (copied) and their strides (bytes per row; for audio, the plane's length).
    public init(planes: [[UInt8]], strides: [Int]) {
        precondition(planes.count == strides.count, "one stride per plane")
        buffers = planes.map { plane in
            let b = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, plane.count), alignment: 64)
            b.copyBytes(from: plane)
            return b
        }
        self.strides = strides
    }

    deinit { for b in buffers { b.deallocate() } }

    public func plane(_ index: Int) -> (base: UnsafeRawPointer, stride: Int) {
        (UnsafeRawPointer(buffers[index].baseAddress!), strides[index])
    }
}
