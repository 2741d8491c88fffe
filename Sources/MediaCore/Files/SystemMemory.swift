import CSystem

/// The process's memory as the system sees it.
public enum SystemMemory {
    /// Gives freed memory back to the system from every thread's allocator arena. After a large
    /// structure is freed on one thread (an encoder's pictures), the next one made on another
    /// thread would otherwise take new memory beside it.
    public static func releaseFreeMemory() {
        splice_release_free_memory()
    }

    /// Tunes the allocator for streaming media between threads: packets and pictures freed are
    /// reused by the next ones instead of being unmapped and faulted in again, and one arena
    /// holds them all (they are made on a reader's thread and freed on the writer's). Call it
    /// first thing in `main`, before any thread starts; the `splice` tool does.
    public static func tuneForStreaming() {
        splice_tune_allocator()
    }
}
