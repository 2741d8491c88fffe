#define _GNU_SOURCE
#include "ffmpeg_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffmpeg_headers.h"

#define STR_(x) #x
#define STR(x) STR_(x)

static void *libs[6];
static char message[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;
/* libswresample and libswscale: opened only when a job decodes or encodes. */
static char converter_message[512];
static pthread_once_t converter_once = PTHREAD_ONCE_INIT;
/* libavfilter: opened only when a job filters (audio tempo). */
static char filter_message[512];
static pthread_once_t filter_once = PTHREAD_ONCE_INIT;

/* Opens `names` into libs[first…]; on failure writes why into `out` (after `before`'s own
   failure, when the libraries these depend on could not be opened). */
static void open_libraries(const char *before, const char *const *names, int count, int first, char *out, size_t size) {
    if (before) {
        snprintf(out, size, "%s", before);
        return;
    }
    for (int i = 0; i < count; i++) {
        libs[first + i] = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
        if (!libs[first + i]) {
            snprintf(out, size, "cannot load FFmpeg (%s): %s", names[i], dlerror());
            return;
        }
    }
}

static void load(void) {
    const char *names[3] = {
        "libavutil.so." STR(LIBAVUTIL_VERSION_MAJOR),
        "libavcodec.so." STR(LIBAVCODEC_VERSION_MAJOR),
        "libavformat.so." STR(LIBAVFORMAT_VERSION_MAJOR),
    };
    open_libraries(NULL, names, 3, 0, message, sizeof message);
}

const char *splice_ffmpeg_load(void) {
    pthread_once(&once, load);
    return message[0] ? message : NULL;
}

static void load_converters(void) {
    const char *names[2] = {
        "libswresample.so." STR(LIBSWRESAMPLE_VERSION_MAJOR),
        "libswscale.so." STR(LIBSWSCALE_VERSION_MAJOR),
    };
    open_libraries(splice_ffmpeg_load(), names, 2, 3, converter_message, sizeof converter_message);
}

const char *splice_ffmpeg_load_converters(void) {
    pthread_once(&converter_once, load_converters);
    return converter_message[0] ? converter_message : NULL;
}

static void load_filters(void) {
    const char *names[1] = { "libavfilter.so." STR(LIBAVFILTER_VERSION_MAJOR) };
    open_libraries(splice_ffmpeg_load_converters(), names, 1, 5, filter_message, sizeof filter_message);
}

const char *splice_ffmpeg_load_filters(void) {
    pthread_once(&filter_once, load_filters);
    return filter_message[0] ? filter_message : NULL;
}

static void *symbol(int lib, const char *name) {
    const char *error = lib == 5 ? splice_ffmpeg_load_filters() : lib >= 3 ? splice_ffmpeg_load_converters() : splice_ffmpeg_load();
    void *p = error ? NULL : dlsym(libs[lib], name);
    if (!p) {
        fprintf(stderr, "splice: %s\n", error ? error : dlerror());
        abort();
    }
    return p;
}

enum { UTIL = 0, CODEC = 1, FORMAT = 2, RESAMPLE = 3, SCALE = 4, FILTER = 5 };

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
STUB(UTIL, int, av_log_get_level, (void), ())
STUB(UTIL, int, av_timecode_init, (AVTimecode *tc, AVRational rate, int flags, int frame_start, void *log_ctx),
     (tc, rate, flags, frame_start, log_ctx))
STUB(UTIL, char *, av_timecode_make_string, (const AVTimecode *tc, char *buf, int framenum), (tc, buf, framenum))
STUB(UTIL, AVDictionaryEntry *, av_dict_get,
     (const AVDictionary *m, const char *key, const AVDictionaryEntry *prev, int flags), (m, key, prev, flags))
STUB(CODEC, const char *, avcodec_get_name, (enum AVCodecID id), (id))
STUB(FORMAT, int, avformat_open_input,
     (AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options), (ps, url, fmt, options))
STUB(FORMAT, int, avformat_find_stream_info, (AVFormatContext *ic, AVDictionary **options), (ic, options))
VOID_STUB(FORMAT, avformat_close_input, (AVFormatContext **s), (s))
STUB(FORMAT, int, avio_open, (AVIOContext **s, const char *url, int flags), (s, url, flags))
STUB(FORMAT, int, avio_closep, (AVIOContext **s), (s))
STUB(FORMAT, int, av_probe_input_buffer2,
     (AVIOContext *pb, const AVInputFormat **fmt, const char *url, void *logctx, unsigned int offset, unsigned int max_probe_size),
     (pb, fmt, url, logctx, offset, max_probe_size))
STUB(FORMAT, const AVInputFormat *, av_find_input_format, (const char *short_name), (short_name))
STUB(UTIL, void *, av_malloc, (size_t size), (size))
STUB(UTIL, void *, av_mallocz, (size_t size), (size))
STUB(UTIL, AVBufferRef *, av_buffer_ref, (const AVBufferRef *buf), (buf))
VOID_STUB(UTIL, av_buffer_unref, (AVBufferRef **buf), (buf))
STUB(UTIL, AVBufferRef *, av_buffer_alloc, (size_t size), (size))
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
STUB(FORMAT, int, avformat_seek_file, (AVFormatContext *s, int stream_index, int64_t min_ts, int64_t ts, int64_t max_ts, int flags),
     (s, stream_index, min_ts, ts, max_ts, flags))
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

/* Decoding, encoding and conversion. */
STUB(CODEC, const AVCodec *, avcodec_find_decoder, (enum AVCodecID id), (id))
STUB(CODEC, const AVCodec *, avcodec_find_encoder_by_name, (const char *name), (name))
STUB(CODEC, AVCodecContext *, avcodec_alloc_context3, (const AVCodec *codec), (codec))
VOID_STUB(CODEC, avcodec_free_context, (AVCodecContext **avctx), (avctx))
STUB(CODEC, AVCodecParameters *, avcodec_parameters_alloc, (void), ())
VOID_STUB(CODEC, avcodec_parameters_free, (AVCodecParameters **par), (par))
STUB(CODEC, int, avcodec_parameters_to_context, (AVCodecContext *codec, const AVCodecParameters *par), (codec, par))
STUB(CODEC, int, avcodec_parameters_from_context, (AVCodecParameters *par, const AVCodecContext *codec), (par, codec))
STUB(CODEC, int, avcodec_open2, (AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options), (avctx, codec, options))
STUB(CODEC, int, avcodec_send_packet, (AVCodecContext *avctx, const AVPacket *avpkt), (avctx, avpkt))
STUB(CODEC, int, avcodec_receive_frame, (AVCodecContext *avctx, AVFrame *frame), (avctx, frame))
STUB(CODEC, int, avcodec_send_frame, (AVCodecContext *avctx, const AVFrame *frame), (avctx, frame))
STUB(CODEC, int, avcodec_receive_packet, (AVCodecContext *avctx, AVPacket *avpkt), (avctx, avpkt))
STUB(UTIL, int, av_opt_set, (void *obj, const char *name, const char *val, int search_flags), (obj, name, val, search_flags))
STUB(UTIL, AVFrame *, av_frame_alloc, (void), ())
VOID_STUB(UTIL, av_frame_free, (AVFrame **frame), (frame))
VOID_STUB(UTIL, av_frame_unref, (AVFrame *frame), (frame))
STUB(UTIL, AVFrameSideData *, av_frame_get_side_data, (const AVFrame *frame, enum AVFrameSideDataType type), (frame, type))
VOID_STUB(UTIL, av_frame_remove_side_data, (AVFrame *frame, enum AVFrameSideDataType type), (frame, type))
STUB(FORMAT, int, av_stream_add_side_data, (AVStream *st, enum AVPacketSideDataType type, uint8_t *data, size_t size),
     (st, type, data, size))
STUB(FORMAT, uint8_t *, av_stream_get_side_data, (const AVStream *stream, enum AVPacketSideDataType type, size_t *size),
     (stream, type, size))
STUB(UTIL, int, av_frame_copy_props, (AVFrame *dst, const AVFrame *src), (dst, src))
STUB(UTIL, int, av_frame_get_buffer, (AVFrame *frame, int align), (frame, align))
STUB(UTIL, int, av_frame_make_writable, (AVFrame *frame), (frame))
STUB(UTIL, const AVPixFmtDescriptor *, av_pix_fmt_desc_get, (enum AVPixelFormat pix_fmt), (pix_fmt))
STUB(UTIL, int, av_pix_fmt_count_planes, (enum AVPixelFormat pix_fmt), (pix_fmt))
STUB(UTIL, int, av_frame_ref, (AVFrame *dst, const AVFrame *src), (dst, src))
STUB(UTIL, int, av_channel_layout_copy, (AVChannelLayout *dst, const AVChannelLayout *src), (dst, src))
VOID_STUB(UTIL, av_channel_layout_uninit, (AVChannelLayout *channel_layout), (channel_layout))
STUB(UTIL, int, av_dict_count, (const AVDictionary *m), (m))
VOID_STUB(UTIL, av_dict_free, (AVDictionary **m), (m))
STUB(RESAMPLE, int, swr_alloc_set_opts2,
     (struct SwrContext **ps, AVChannelLayout *out_ch_layout, enum AVSampleFormat out_sample_fmt, int out_sample_rate,
      AVChannelLayout *in_ch_layout, enum AVSampleFormat in_sample_fmt, int in_sample_rate, int log_offset, void *log_ctx),
     (ps, out_ch_layout, out_sample_fmt, out_sample_rate, in_ch_layout, in_sample_fmt, in_sample_rate, log_offset, log_ctx))
STUB(RESAMPLE, int, swr_init, (struct SwrContext *s), (s))
STUB(RESAMPLE, int, swr_set_matrix, (struct SwrContext *s, const double *matrix, int stride), (s, matrix, stride))
VOID_STUB(RESAMPLE, swr_free, (struct SwrContext **s), (s))
STUB(RESAMPLE, int, swr_convert, (struct SwrContext *s, uint8_t **out, int out_count, const uint8_t **in, int in_count),
     (s, out, out_count, in, in_count))
STUB(RESAMPLE, int64_t, swr_get_delay, (struct SwrContext *s, int64_t base), (s, base))
STUB(SCALE, struct SwsContext *, sws_getContext,
     (int srcW, int srcH, enum AVPixelFormat srcFormat, int dstW, int dstH, enum AVPixelFormat dstFormat, int flags,
      SwsFilter *srcFilter, SwsFilter *dstFilter, const double *param),
     (srcW, srcH, srcFormat, dstW, dstH, dstFormat, flags, srcFilter, dstFilter, param))
VOID_STUB(SCALE, sws_freeContext, (struct SwsContext *swsContext), (swsContext))
STUB(SCALE, int, sws_scale,
     (struct SwsContext *c, const uint8_t *const srcSlice[], const int srcStride[], int srcSliceY, int srcSliceH,
      uint8_t *const dst[], const int dstStride[]), (c, srcSlice, srcStride, srcSliceY, srcSliceH, dst, dstStride))
STUB(SCALE, int, sws_setColorspaceDetails,
     (struct SwsContext *c, const int inv_table[4], int srcRange, const int table[4], int dstRange, int brightness,
      int contrast, int saturation), (c, inv_table, srcRange, table, dstRange, brightness, contrast, saturation))
STUB(SCALE, const int *, sws_getCoefficients, (int colorspace), (colorspace))

/* Filtering. */
STUB(FILTER, AVFilterGraph *, avfilter_graph_alloc, (void), ())
VOID_STUB(FILTER, avfilter_graph_free, (AVFilterGraph **graph), (graph))
STUB(FILTER, const AVFilter *, avfilter_get_by_name, (const char *name), (name))
STUB(FILTER, int, avfilter_graph_create_filter,
     (AVFilterContext **filt_ctx, const AVFilter *filt, const char *name, const char *args, void *opaque, AVFilterGraph *graph_ctx),
     (filt_ctx, filt, name, args, opaque, graph_ctx))
STUB(FILTER, int, avfilter_link, (AVFilterContext *src, unsigned srcpad, AVFilterContext *dst, unsigned dstpad), (src, srcpad, dst, dstpad))
STUB(FILTER, int, avfilter_graph_config, (AVFilterGraph *graphctx, void *log_ctx), (graphctx, log_ctx))
STUB(FILTER, int, av_buffersrc_add_frame_flags, (AVFilterContext *buffer_src, AVFrame *frame, int flags), (buffer_src, frame, flags))
STUB(FILTER, int, av_buffersink_get_frame, (AVFilterContext *ctx, AVFrame *frame), (ctx, frame))
STUB(UTIL, const char *, av_get_sample_fmt_name, (enum AVSampleFormat sample_fmt), (sample_fmt))
STUB(UTIL, int, av_channel_layout_describe, (const AVChannelLayout *channel_layout, char *buf, size_t buf_size), (channel_layout, buf, buf_size))

/* FFmpeg's log lines, formatted here (Swift cannot take a va_list) and handed to Splice with
   the context that logged and its owner: the outermost context above it (followed through each
   class's parent_log_context_offset, as av_log_format_line2 does for its prefixes) or, for a
   codec context whose `opaque` Splice set, that pointer — which a frame-threaded codec's
   per-thread copies of the context carry too — so that Splice can route each line to the job
   that owns it. */
static void (*log_handler)(void *context, void *root, int level, const char *line);

static void *log_root(void *avcl) {
    for (int depth = 0; avcl && depth < 8; depth++) {
        const AVClass *cls = *(const AVClass **)avcl;
        if (!cls || cls->parent_log_context_offset <= 0) break;
        void *parent = *(void **)((uint8_t *)avcl + cls->parent_log_context_offset);
        if (!parent) break;
        avcl = parent;
    }
    const AVClass *cls = avcl ? *(const AVClass **)avcl : NULL;
    if (cls && cls->class_name && strcmp(cls->class_name, "AVCodecContext") == 0 && ((AVCodecContext *)avcl)->opaque)
        return ((AVCodecContext *)avcl)->opaque;
    return avcl;
}

static void log_callback(void *avcl, int level, const char *fmt, va_list vl) {
    void (*handler)(void *, void *, int, const char *) = __atomic_load_n(&log_handler, __ATOMIC_ACQUIRE);
    if (!handler) return;
    // libavutil calls the callback at every level; its own default callback drops what is above
    // the set level, and so must this one, before formatting: a damaged movie can make a demuxer
    // trace millions of lines.
    if (level > av_log_get_level()) return;
    char line[1024];
    int prefix = 1;
    av_log_format_line2(avcl, level, fmt, vl, line, sizeof line, &prefix);
    handler(avcl, log_root(avcl), level, line);
}

void splice_ffmpeg_set_log_handler(void (*handler)(void *context, void *root, int level, const char *line)) {
    __atomic_store_n(&log_handler, handler, __ATOMIC_RELEASE);
    av_log_set_callback(log_callback);
}
