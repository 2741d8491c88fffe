#ifndef SPLICE_FFMPEG_LOADER_H
#define SPLICE_FFMPEG_LOADER_H

/* FFmpeg's libraries are loaded with dlopen on first use, not linked: a run that only
   touches MP4/MOV never loads them (≈150 shared libraries, ~50 ms and ~20 MB).
   The libav functions Splice calls are defined in loader.c as trampolines. */

/* Loads libavutil, libavcodec and libavformat (the versions of the headers built against).
   Returns NULL on success, else a message saying what could not be loaded. */
const char *splice_ffmpeg_load(void);

/* Loads libswresample and libswscale (after the three above), for decoding and encoding jobs.
   Returns NULL on success, else a message saying what could not be loaded. */
const char *splice_ffmpeg_load_converters(void);

/* Loads libavfilter (after the above), for jobs that filter (audio tempo).
   Returns NULL on success, else a message saying what could not be loaded. */
const char *splice_ffmpeg_load_filters(void);

/* Routes FFmpeg's log messages, one formatted line at a time, to `handler` (at the levels
   av_log_set_level lets through), with the context that logged (NULL for none) and its owner:
   the outermost context it belongs to (its parents followed; the context itself when it has
   none), or a codec context's `opaque` when set (frame threads' copies of it carry it too). */
void splice_ffmpeg_set_log_handler(void (*handler)(void *context, void *root, int level, const char *line));

#endif
