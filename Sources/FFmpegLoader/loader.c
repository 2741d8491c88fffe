#define _GNU_SOURCE
#include "ffmpeg_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/log.h>

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
