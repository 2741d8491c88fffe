#ifndef SPLICE_FFMPEG_HEADERS_H
#define SPLICE_FFMPEG_HEADERS_H

/* FFmpeg's headers, or a build error that says which packages bring them: the one list, for
   the loader's trampolines and for Swift (CFFmpeg/shim.h includes it). The libraries are not
   linked (see ffmpeg_loader.h): only their -dev headers are needed to build. */
#if !__has_include(<libavformat/avformat.h>) || !__has_include(<libavcodec/avcodec.h>) || !__has_include(<libavutil/avutil.h>) || !__has_include(<libswresample/swresample.h>) || !__has_include(<libswscale/swscale.h>) || !__has_include(<libavfilter/avfilter.h>)
#  error "FFmpeg's headers are missing. Install them (Debian/Ubuntu): sudo apt-get install pkg-config libavformat-dev libavcodec-dev libavutil-dev libswresample-dev libswscale-dev libavfilter-dev — or run `make build`, which does."
#else

#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/mem.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/dovi_meta.h>
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
#endif

#endif
