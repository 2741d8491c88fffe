#ifndef SPLICE_CFFMPEG_SHIM_H
#define SPLICE_CFFMPEG_SHIM_H

/* FFmpeg's headers, or a build error that names the packages that bring them. */
#if !__has_include(<libavformat/avformat.h>) || !__has_include(<libavcodec/avcodec.h>) || !__has_include(<libavutil/avutil.h>) || !__has_include(<libswresample/swresample.h>) || !__has_include(<libswscale/swscale.h>) || !__has_include(<libavfilter/avfilter.h>)
#  error "FFmpeg's headers are missing. Install them (Debian/Ubuntu): sudo apt-get install pkg-config libavformat-dev libavcodec-dev libavutil-dev libswresample-dev libswscale-dev libavfilter-dev — or run `make build`, which does."
#else

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/dict.h>
#include <libavutil/log.h>
#include <libavutil/mem.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/frame.h>
#include <libavutil/opt.h>
#include <libavutil/pixfmt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libavutil/timecode.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>
#include <libavutil/channel_layout.h>
#include <libavformat/avio.h>
#endif
#include <errno.h>

/* Macros Swift cannot import, as functions. */
static inline int splice_averror(int errnum) { return AVERROR(errnum); }
static inline int splice_averror_eof(void) { return AVERROR_EOF; }
static inline int splice_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int splice_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int64_t splice_av_nopts_value(void) { return AV_NOPTS_VALUE; }

#endif
