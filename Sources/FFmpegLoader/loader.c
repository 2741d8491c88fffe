#define _GNU_SOURCE
#include "ffmpeg_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "ffmpeg_headers.h"

#define STR_(x) #x
#define STR(x) STR_(x)

static void *libs[3];
static char message[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    const char *names[3] = {
        "libavutil.so." STR(LIBAVUTIL_VERSION_MAJOR),
        "libavcodec.so." STR(LIBAVCODEC_VERSION_MAJOR),
        "libavformat.so." STR(LIBAVFORMAT_VERSION_MAJOR),
    };
    for (int i = 0; i < 3; i++) {
        libs[i] = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
        if (!libs[i]) {
            snprintf(message, sizeof message, "cannot load FFmpeg (%s): %s", names[i], dlerror());
            return;
        }
    }
}

const char *splice_ffmpeg_load(void) {
    pthread_once(&once, load);
    return message[0] ? message : NULL;
}

static void *symbol(int lib, const char *name) {
    const char *error = splice_ffmpeg_load();
    void *p = error ? NULL : dlsym(libs[lib], name);
    if (!p) {
        fprintf(stderr, "splice: %s\n", error ? error : dlerror());
        abort();
    }
    return p;
}

enum { UTIL = 0, CODEC = 1, FORMAT = 2 };

/* One trampoline per libav function Splice calls. */
#define STUB(lib, ret, name, params, args)                                          \
    ret name params {                                                               \
        static ret (*fp) params;                                                    \
        ret (*f) params = __atomic_load_n(&fp, __ATOMIC_ACQUIRE);                   \
        if (!f) {                                                                   \
            f = (ret (*) params)symbol(lib, #name);                                 \
            __atomic_store_n(&fp, f, __ATOMIC_RELEASE);                             \
        }                                                                           \
        return f args;                                                              \
    }

#define VOID_STUB(lib, name, params, args)                                          \
    void name params {                                                              \
        static void (*fp) params;                                                   \
        void (*f) params = __atomic_load_n(&fp, __ATOMIC_ACQUIRE);                  \
        if (!f) {                                                                   \
            f = (void (*) params)symbol(lib, #name);                                \
            __atomic_store_n(&fp, f, __ATOMIC_RELEASE);                             \
        }                                                                           \
        f args;                                                                     \
    }

STUB(UTIL, int, av_strerror, (int errnum, char *errbuf, size_t errbuf_size), (errnum, errbuf, errbuf_size))
VOID_STUB(UTIL, av_log_set_level, (int level), (level))
STUB(UTIL, AVDictionaryEntry *, av_dict_get,
     (const AVDictionary *m, const char *key, const AVDictionaryEntry *prev, int flags), (m, key, prev, flags))
STUB(CODEC, const char *, avcodec_get_name, (enum AVCodecID id), (id))
STUB(FORMAT, int, avformat_open_input,
     (AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options), (ps, url, fmt, options))
STUB(FORMAT, int, avformat_find_stream_info, (AVFormatContext *ic, AVDictionary **options), (ic, options))
VOID_STUB(FORMAT, avformat_close_input, (AVFormatContext **s), (s))
STUB(UTIL, void *, av_malloc, (size_t size), (size))
STUB(UTIL, void *, av_mallocz, (size_t size), (size))
VOID_STUB(UTIL, av_free, (void *ptr), (ptr))
STUB(UTIL, int, av_dict_set, (AVDictionary **pm, const char *key, const char *value, int flags), (pm, key, value, flags))
VOID_STUB(UTIL, av_log_set_callback, (void (*callback)(void *, int, const char *, va_list)), (callback))
STUB(UTIL, int, av_log_format_line2, (void *ptr, int level, const char *fmt, va_list vl, char *line, int line_size,
     int *print_prefix), (ptr, level, fmt, vl, line, line_size, print_prefix))
VOID_STUB(UTIL, av_channel_layout_default, (AVChannelLayout *ch_layout, int nb_channels), (ch_layout, nb_channels))
STUB(UTIL, int, av_channel_layout_from_mask, (AVChannelLayout *channel_layout, uint64_t mask), (channel_layout, mask))
STUB(CODEC, AVPacket *, av_packet_alloc, (void), ())
VOID_STUB(CODEC, av_packet_free, (AVPacket **pkt), (pkt))
VOID_STUB(CODEC, av_packet_unref, (AVPacket *pkt), (pkt))
STUB(CODEC, uint8_t *, av_packet_get_side_data, (const AVPacket *pkt, enum AVPacketSideDataType type, size_t *size),
     (pkt, type, size))
STUB(CODEC, uint8_t *, av_packet_new_side_data, (AVPacket *pkt, enum AVPacketSideDataType type, size_t size),
     (pkt, type, size))
STUB(CODEC, const AVCodecDescriptor *, avcodec_descriptor_get_by_name, (const char *name), (name))
STUB(CODEC, const AVBitStreamFilter *, av_bsf_get_by_name, (const char *name), (name))
STUB(CODEC, int, av_bsf_alloc, (const AVBitStreamFilter *filter, AVBSFContext **ctx), (filter, ctx))
STUB(CODEC, int, av_bsf_init, (AVBSFContext *ctx), (ctx))
STUB(CODEC, int, av_bsf_send_packet, (AVBSFContext *ctx, AVPacket *pkt), (ctx, pkt))
STUB(CODEC, int, av_bsf_receive_packet, (AVBSFContext *ctx, AVPacket *pkt), (ctx, pkt))
VOID_STUB(CODEC, av_bsf_free, (AVBSFContext **ctx), (ctx))
STUB(CODEC, int, avcodec_parameters_copy, (AVCodecParameters *dst, const AVCodecParameters *src), (dst, src))
STUB(CODEC, int, av_new_packet, (AVPacket *pkt, int size), (pkt, size))
STUB(FORMAT, int, av_read_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt))
STUB(FORMAT, int, avformat_alloc_output_context2,
     (AVFormatContext **ctx, const AVOutputFormat *oformat, const char *format_name, const char *filename),
     (ctx, oformat, format_name, filename))
STUB(FORMAT, AVStream *, avformat_new_stream, (AVFormatContext *s, const AVCodec *c), (s, c))
STUB(FORMAT, int, avformat_write_header, (AVFormatContext *s, AVDictionary **options), (s, options))
STUB(FORMAT, int, av_interleaved_write_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt))
STUB(FORMAT, int, av_write_trailer, (AVFormatContext *s), (s))
VOID_STUB(FORMAT, avformat_free_context, (AVFormatContext *s), (s))
STUB(FORMAT, AVIOContext *, avio_alloc_context,
     (unsigned char *buffer, int buffer_size, int write_flag, void *opaque,
      int (*read_packet)(void *opaque, uint8_t *buf, int buf_size),
      int (*write_packet)(void *opaque, uint8_t *buf, int buf_size),
      int64_t (*seek)(void *opaque, int64_t offset, int whence)),
     (buffer, buffer_size, write_flag, opaque, read_packet, write_packet, seek))
VOID_STUB(FORMAT, avio_context_free, (AVIOContext **s), (s))
VOID_STUB(FORMAT, avio_flush, (AVIOContext *s), (s))
STUB(FORMAT, const AVOutputFormat *, av_guess_format, (const char *short_name, const char *filename, const char *mime_type),
     (short_name, filename, mime_type))
STUB(FORMAT, int, avformat_query_codec, (const AVOutputFormat *ofmt, enum AVCodecID codec_id, int std_compliance),
     (ofmt, codec_id, std_compliance))

/* FFmpeg's log lines, formatted here (Swift cannot take a va_list) and handed to Splice. */
static void (*log_handler)(int level, const char *line);

static void log_callback(void *avcl, int level, const char *fmt, va_list vl) {
    void (*handler)(int, const char *) = __atomic_load_n(&log_handler, __ATOMIC_ACQUIRE);
    if (!handler) return;
    char line[1024];
    int prefix = 1;
    av_log_format_line2(avcl, level, fmt, vl, line, sizeof line, &prefix);
    handler(level, line);
}

void splice_ffmpeg_set_log_handler(void (*handler)(int level, const char *line)) {
    __atomic_store_n(&log_handler, handler, __ATOMIC_RELEASE);
    av_log_set_callback(log_callback);
}
