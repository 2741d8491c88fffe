#ifndef SPLICE_CFFMPEG_SHIM_H
#define SPLICE_CFFMPEG_SHIM_H

/* FFmpeg's headers: the one list, shared with the loader's trampolines. */
#include "../FFmpegLoader/ffmpeg_headers.h"
#include <errno.h>

/* Macros Swift cannot import, as functions. */
static inline int splice_averror(int errnum) { return AVERROR(errnum); }
static inline int splice_averror_eof(void) { return AVERROR_EOF; }
static inline int splice_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int splice_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int64_t splice_av_nopts_value(void) { return AV_NOPTS_VALUE; }

#endif
