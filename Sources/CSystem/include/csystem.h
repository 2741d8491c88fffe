#ifndef SPLICE_CSYSTEM_H
#define SPLICE_CSYSTEM_H

#include <stdint.h>
#include <sys/types.h>

/* Linux calls that Swift's Glibc module does not import (they need _GNU_SOURCE). */

/* Inserts `length` bytes of hole at `offset` (FALLOC_FL_INSERT_RANGE); 0 or -1 with errno. */
int splice_insert_range(int fd, int64_t offset, int64_t length);

/* Copies `length` bytes from `in` at `in_offset` to `out` at its position; returns bytes copied or -1. */
int64_t splice_copy_file_range(int in, int64_t in_offset, int out, int64_t length);

/* rename(2) that fails with EEXIST instead of replacing `to`; falls back to link+unlink. */
int splice_rename_noreplace(const char *from, const char *to);

/* Starts writing back a range of a file without waiting (sync_file_range, SYNC_FILE_RANGE_WRITE). */
int splice_start_writeback(int fd, int64_t offset, int64_t length);

/* Opens an unnamed file in `directory` (O_TMPFILE): it has no name until linked, so a killed
   process leaves nothing. -1 with errno (EOPNOTSUPP, EISDIR, EINVAL…) where the file system
   cannot. */
int splice_open_unnamed(const char *directory);

/* Gives the unnamed file `fd` the name `path` (linkat through /proc/self/fd); fails with EEXIST
   when `path` exists. */
int splice_link_unnamed(int fd, const char *path);

/* Gives freed memory back to the system, from every thread's allocator arena (malloc_trim). */
void splice_release_free_memory(void);

/* Tunes malloc for a process that streams large buffers between threads (call before any thread
   starts): fixed mmap and trim thresholds of 32 and 64 MiB, and one arena. */
void splice_tune_allocator(void);

#endif
