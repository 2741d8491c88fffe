#define _GNU_SOURCE
#include <malloc.h>
#include "csystem.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <linux/falloc.h>

int splice_insert_range(int fd, int64_t offset, int64_t length) {
    return fallocate(fd, FALLOC_FL_INSERT_RANGE, (off_t)offset, (off_t)length);
}

int64_t splice_copy_file_range(int in, int64_t in_offset, int out, int64_t length) {
    off64_t off = (off64_t)in_offset;
    return (int64_t)copy_file_range(in, &off, out, NULL, (size_t)length, 0);
}

int splice_rename_noreplace(const char *from, const char *to) {
    int r = renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
    if (r == 0 || (errno != EINVAL && errno != ENOSYS)) return r;
    /* File systems without RENAME_NOREPLACE: link fails if `to` exists. */
    if (link(from, to) != 0) return -1;
    return unlink(from);
}

int splice_start_writeback(int fd, int64_t offset, int64_t length) {
    return sync_file_range(fd, (off64_t)offset, (off64_t)length, SYNC_FILE_RANGE_WRITE);
}

int splice_open_unnamed(const char *directory) {
    return open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
}

int splice_link_unnamed(int fd, const char *path) {
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

void splice_release_free_memory(void) {
    malloc_trim(0);
}

void splice_tune_allocator(void) {
    /* Fixed thresholds: a packet or picture freed is reused by the next one, not unmapped and
       faulted in again (glibc's sliding threshold starts at 128 KiB and trims at 128 KiB). */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    /* One arena: packets are allocated on the demuxer's thread and freed on the writer's; per-thread
       arenas would each keep their own high-water mark. */
    mallopt(M_ARENA_MAX, 1);
}
