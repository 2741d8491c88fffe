import CSystem

/// The process's memory as the system sees it.
public enum SystemMemory {
    /// Gives freed memory back to the system from every thread's allocator arena. After a large
    /// structure is freed on one thread (an encoder's pictures), the next one made on another
    /// thread would otherwise take new memory beside it.
    public static func releaseFreeMemory() {
        splice_release_free_memory()
    }
}
