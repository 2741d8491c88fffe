/*
 * splice.h — Splice's C interface (libsplice.so).
 *
 * Splice reads, inspects, remuxes, cuts, joins, mixes and re-encodes movies without losing
 * their track structure (alternate groups, track references, languages, enabled flags, edit
 * lists). This header is its whole C interface: C99, no other header of Splice's needed.
 *
 * BUILDING
 *   cc prog.c $(pkg-config --cflags --libs splice)
 *   The library carries its own Swift runtime; it needs only libc and FFmpeg's libraries
 *   (libavformat, libavcodec, libavutil, libswresample, libswscale, libavfilter), which it
 *   opens on first use, not at load.
 *
 * VERSIONS AND THE ABI
 *   The library's version is MAJOR.MINOR.PATCH. Within one major version:
 *   - nothing is removed or renamed, no signature changes, no value of an enum is renumbered;
 *   - a minor version may add functions, enum values (statuses, log levels), JSON keys to the
 *     output of splice_inspect_json, options to the options JSON of a call, and fields at the
 *     end of struct splice_job (whose first field, `size`, tells the library which fields the
 *     caller knows: a caller compiled against an older header passes a smaller size, and the
 *     fields it does not know take their defaults);
 *   - a caller must treat a status it does not know as a failure.
 *   A new major version changes the SONAME (libsplice.so.MAJOR), so a program built against
 *   another major version does not load it. Check at run time, once, with
 *   SPLICE_VERSION_IS_COMPATIBLE(): the library loaded has this header's major version and at
 *   least its minor version.
 *
 * STRINGS AND MEMORY
 *   Every string passed in or out is UTF-8 and NUL-terminated; paths are UTF-8 file paths.
 *   Pointers passed in are only read during the call, and kept by the library after it returns
 *   never. Everything the library allocates for the caller (the JSON text, a splice_error, a
 *   cancel token) is freed with splice_free() and with nothing else; splice_free(NULL) does
 *   nothing. A `splice_error **error` argument may be NULL (no error object is made); where it
 *   is not, *error is set to NULL on success and to a new error on failure.
 *
 * THREADS
 *   Every function may be called from any thread, and calls may run at once on several threads
 *   (each job is independent; they share no setting but the log handler). A long call (a job)
 *   runs its work on threads of the library's own and blocks the calling thread until the job
 *   has ended; its progress and log callbacks are called ON THE CALLING THREAD, one at a time,
 *   never after the call returns, and outside every lock of the library, so they may call any
 *   function of this header (start another job, cancel a token). The global log handler
 *   (splice_set_log_handler) is the exception: see there.
 *
 * CANCELLATION
 *   A job stops, removes what it wrote and returns SPLICE_CANCELLED when either
 *   - its progress callback returns non-zero, or
 *   - the cancel token in its splice_job is cancelled, from any thread, at any time — before the
 *     call (the job is cancelled as it starts), during it, or from a callback.
 *   Either is race-free: a cancel is never lost, and a job that completed before the cancel took
 *   effect returns its success. A cancelled job returns within about a second.
 *
 * A GOOD GUEST
 *   The library installs no signal handlers, changes no working directory, never writes to the
 *   standard streams and never ends the process: every failure, including every input the
 *   `splice` command refuses, comes back as a status and an error. Outputs are written to a
 *   temporary file beside the destination and renamed on success; a failed or cancelled job
 *   leaves nothing and never touches its inputs.
 *
 * FORK
 *   After fork() in a process where Splice has run, the child may call no function of this
 *   header (the library's threads and locks are not copied); exec first. A child forked before
 *   the first call into the library may use it.
 */
#ifndef SPLICE_H
#define SPLICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SPLICE_VERSION_MAJOR 0
#define SPLICE_VERSION_MINOR 1
#define SPLICE_VERSION_PATCH 0

/* What a call returns: 0, or why it failed. Values are never renumbered. */
enum splice_status {
    SPLICE_OK = 0,
    SPLICE_INVALID_DATA = 1,      /* an input is damaged or not what its format says */
    SPLICE_TRUNCATED = 2,         /* an input ends early */
    SPLICE_UNSUPPORTED = 3,       /* a valid input or request Splice cannot handle */
    SPLICE_FILE_NOT_FOUND = 4,    /* an input does not exist */
    SPLICE_FILE_EXISTS = 5,       /* the output exists (set "force": true to replace it) */
    SPLICE_IO = 6,                /* reading or writing failed (disk full, permissions, ...) */
    SPLICE_INVALID_OPERATION = 7, /* a request that cannot be done (the output is an input, ...) */
    SPLICE_CANCELLED = 8,         /* the job was cancelled */
    SPLICE_USAGE = 9,             /* a wrong argument: an unknown option, a bad value, ... */
    SPLICE_INTERNAL = 10          /* anything else */
};

/* The library's version, "MAJOR.MINOR.PATCH": a static string, not freed. */
const char *splice_version(void);
int splice_version_major(void);
int splice_version_minor(void);

/* Non-zero when the loaded library has this header's major version and at least its minor. */
#define SPLICE_VERSION_IS_COMPATIBLE() \
    (splice_version_major() == SPLICE_VERSION_MAJOR && splice_version_minor() >= SPLICE_VERSION_MINOR)

/* Frees anything the library allocated for the caller; NULL does nothing. */
void splice_free(void *pointer);

/* An error: its status, its one-line message (naming the file and, for a damaged file, where
 * in it) and the file it names. The strings belong to the error (freed with it). */
typedef struct splice_error splice_error;
int splice_error_status(const splice_error *error);
const char *splice_error_message(const splice_error *error);
const char *splice_error_file(const splice_error *error); /* NULL when it names none */

/* A cancel token: cancels every job it is given to, from any thread. Once cancelled it stays
 * cancelled (a job given it later is cancelled as it starts). It must outlive the jobs given
 * it. Made by splice_cancel_token_new (NULL when out of memory), freed with splice_free. */
typedef struct splice_cancel_token splice_cancel_token;
splice_cancel_token *splice_cancel_token_new(void);
void splice_cancel_token_cancel(splice_cancel_token *token);
int splice_cancel_token_is_cancelled(const splice_cancel_token *token);

/* Log levels: a job's notes and its summary line are INFO; warnings WARNING; FFmpeg's
 * errors ERROR. */
enum splice_log_level { SPLICE_LOG_ERROR = 0, SPLICE_LOG_WARNING = 1, SPLICE_LOG_INFO = 2 };

/* A progress callback: `fraction` in [0, 1], non-decreasing, the last call of a job that
 * succeeds being exactly 1.0. Return 0 to go on, non-zero to cancel the job. */
typedef int (*splice_progress_fn)(double fraction, void *context);
/* A log callback: one line, without its newline (the string is the library's, valid during
 * the call). */
typedef void (*splice_log_fn)(int level, const char *line, void *context);

/* How a job reports and is cancelled. Zero it, set `size` to sizeof(splice_job), fill in what
 * you use; a NULL splice_job is a job with no callbacks and no token. */
typedef struct splice_job {
    size_t size;                  /* sizeof(splice_job) */
    splice_progress_fn progress;  /* NULL: none */
    void *progress_context;
    splice_log_fn log;            /* the job's notes, warnings and summary; NULL: dropped */
    void *log_context;
    splice_cancel_token *cancel;  /* NULL: cancelled only through `progress` */
} splice_job;

/* FFmpeg's own warnings and errors (those no job claims), for the whole process: `handler` is
 * called from any thread, possibly at once on several, and must not call into the library.
 * NULL drops them (the default). */
void splice_set_log_handler(splice_log_fn handler, void *context);

/* The movie at `path` described as JSON: the same text as `splice inspect --json` (file,
 * format, duration, tracks with their groups, references, languages, edits, samples). On
 * success *json is a new string (free it with splice_free). */
int splice_inspect_json(const char *path, char **json, splice_error **error);

/*
 * THE JOBS
 *
 * Every job has the same parameters:
 *   inputs, input_count  the input paths (what the `splice` subcommand takes as its arguments)
 *   output               the output path
 *   options              NULL, or a JSON object of the subcommand's options, each named as its
 *                        long option without the dashes: {"faststart": true, "preset":
 *                        "1280x720", "range": "2,5", "tracks": [1, 3]}. true sets a flag, false
 *                        or null leaves it out; numbers and strings are the option's value;
 *                        an array is its values joined by commas. "sync": true flushes the
 *                        output to disk before it is put in place. An unknown option is
 *                        SPLICE_USAGE; "progress", "verbose" and "quiet" are refused (see
 *                        splice_job and splice_set_log_handler).
 *   job                  callbacks and cancel token, or NULL
 *   error                NULL, or where the error goes
 * and the defaults and checks of the subcommand (`splice help <subcommand>`):
 *
 *   splice_remux             one input; "tracks", "exclude-tracks", "faststart", "force",
 *                            "verify", "salvage"
 *   splice_add_subtitles     the movie, then one or more SRT/WebVTT/ASS files; "language",
 *                            "name", "forced", "default", "format", "encoding", ...
 *   splice_extract_subtitles one input; the output .srt, .vtt or .ass; "track"
 *   splice_export            one input; "preset" (default: the subcommand's), "range", "cut",
 *                            "video-codec", "crf", "threads", "audio-codec", "audio-bitrate", "watermark"...
 *   splice_trim              one input; "range" (required), "cut"
 *   splice_concat            clips, each a path or "path#t=START,END" (seconds); "cut"
 *                            (smart, exact or keyframe; default the subcommand's), "reencode",
 *                            "crossfade", ...
 *   splice_merge             the video, then the audio
 *   splice_mix               the video, then the music; "music-volume", "fade-in", "loop", ...
 *   splice_images            the images, in order; "fps", "seconds-per-image", "size", "audio"
 *   splice_thumbnail         one input; "at" (times, required), "size"
 *   splice_package           the renditions; the output is a directory; "hls", "dash",
 *                            "segment" (seconds), "single-file", "force"
 */
int splice_remux(const char *const *inputs, size_t input_count, const char *output, const char *options,
                 const splice_job *job, splice_error **error);
int splice_add_subtitles(const char *const *inputs, size_t input_count, const char *output, const char *options,
                         const splice_job *job, splice_error **error);
int splice_extract_subtitles(const char *const *inputs, size_t input_count, const char *output, const char *options,
                             const splice_job *job, splice_error **error);
int splice_export(const char *const *inputs, size_t input_count, const char *output, const char *options,
                  const splice_job *job, splice_error **error);
int splice_trim(const char *const *inputs, size_t input_count, const char *output, const char *options,
                const splice_job *job, splice_error **error);
int splice_concat(const char *const *inputs, size_t input_count, const char *output, const char *options,
                  const splice_job *job, splice_error **error);
int splice_merge(const char *const *inputs, size_t input_count, const char *output, const char *options,
                 const splice_job *job, splice_error **error);
int splice_mix(const char *const *inputs, size_t input_count, const char *output, const char *options,
               const splice_job *job, splice_error **error);
int splice_images(const char *const *inputs, size_t input_count, const char *output, const char *options,
                  const splice_job *job, splice_error **error);
int splice_thumbnail(const char *const *inputs, size_t input_count, const char *output, const char *options,
                     const splice_job *job, splice_error **error);
int splice_package(const char *const *inputs, size_t input_count, const char *output, const char *options,
                   const splice_job *job, splice_error **error);

#ifdef __cplusplus
}
#endif

#endif /* SPLICE_H */
