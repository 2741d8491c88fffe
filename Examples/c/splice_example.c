/*
 * splice_example — Splice from C: inspect a movie, remux it with progress, and cancel a long
 * export from another thread.
 *
 *   cc -std=c99 -Wall -Wextra -pedantic splice_example.c $(pkg-config --cflags --libs splice) -pthread -o splice_example
 *   ./splice_example <movie> <long-movie> <output-directory>
 *
 * Exits 0 when every step did what it should, 1 (with the reason on stderr) when not.
 */
#define _POSIX_C_SOURCE 200809L
#include <splice.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void sleep_ms(long ms) {
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&t, NULL);
}

static int fail(const char *what, splice_error *error) {
    fprintf(stderr, "splice_example: %s: %s (status %d)\n", what, error ? splice_error_message(error) : "no error",
            error ? splice_error_status(error) : 0);
    splice_free(error);
    return 1;
}

/* Progress of the remux: printed, and checked to never go back. */
struct progress { double last; int calls; };

static int on_progress(double fraction, void *context) {
    struct progress *p = context;
    if (fraction < p->last) fprintf(stderr, "splice_example: progress went back from %.3f to %.3f\n", p->last, fraction);
    p->last = fraction;
    p->calls += 1;
    printf("\rremux: %3d%%", (int)(fraction * 100));
    fflush(stdout);
    return 0; /* non-zero would cancel the job */
}

static void on_log(int level, const char *line, void *context) {
    (void)context;
    printf("%s%s\n", level == SPLICE_LOG_INFO ? "" : "[warning] ", line);
}

/* The export runs on a thread of its own; the main thread cancels it. */
struct export_job {
    const char *input;
    const char *output;
    splice_cancel_token *token;
    pthread_mutex_t lock;
    int started;            /* under lock: set by the first progress callback */
    double fraction;        /* under lock: the newest progress */
    int status;
    double returned_at;
    splice_error *error;
};

static int on_export_progress(double fraction, void *context) {
    struct export_job *job = context;
    pthread_mutex_lock(&job->lock);
    job->started = 1;
    job->fraction = fraction;
    pthread_mutex_unlock(&job->lock);
    return 0;
}

static void *export_thread(void *context) {
    struct export_job *job = context;
    const char *inputs[] = { job->input };
    splice_job callbacks;
    memset(&callbacks, 0, sizeof callbacks);
    callbacks.size = sizeof callbacks;
    callbacks.progress = on_export_progress;
    callbacks.progress_context = job;
    callbacks.cancel = job->token;
    job->status = splice_export(inputs, 1, job->output, "{\"preset\": \"1920x1080\", \"force\": true}", &callbacks, &job->error);
    job->returned_at = now();
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: splice_example <movie> <long-movie> <output-directory>\n");
        return 2;
    }
    if (!SPLICE_VERSION_IS_COMPATIBLE()) {
        fprintf(stderr, "splice_example: built for Splice %d.%d, loaded %s\n", SPLICE_VERSION_MAJOR, SPLICE_VERSION_MINOR, splice_version());
        return 1;
    }
    printf("Splice %s\n", splice_version());
    splice_error *error = NULL;

    /* 1. Inspect: the JSON of `splice inspect --json`. */
    char *json = NULL;
    if (splice_inspect_json(argv[1], &json, &error) != SPLICE_OK) return fail("inspect", error);
    printf("inspect: %zu bytes of JSON, %s\n", strlen(json), strstr(json, "\"tracks\"") ? "with its tracks" : "NO TRACKS");
    splice_free(json);

    /* 2. Remux, with progress and the job's notes. */
    char remuxed[4096];
    snprintf(remuxed, sizeof remuxed, "%s/remuxed.mp4", argv[3]);
    const char *inputs[] = { argv[1] };
    struct progress progress = { 0, 0 };
    splice_job job;
    memset(&job, 0, sizeof job);
    job.size = sizeof job;
    job.progress = on_progress;
    job.progress_context = &progress;
    job.log = on_log;
    if (splice_remux(inputs, 1, remuxed, "{\"force\": true, \"faststart\": true}", &job, &error) != SPLICE_OK) return fail("remux", error);
    printf("\nremux: %s written, %d progress calls, the last %.3f\n", remuxed, progress.calls, progress.last);
    if (progress.last != 1.0) return fail("remux: the last progress is not 1.0", NULL);

    /* 3. A long export, cancelled from this thread once it runs. */
    char exported[4096];
    snprintf(exported, sizeof exported, "%s/cancelled.mp4", argv[3]);
    struct export_job export_job = { argv[2], exported, splice_cancel_token_new(), PTHREAD_MUTEX_INITIALIZER, 0, 0, -1, 0, NULL };
    pthread_t thread;
    if (pthread_create(&thread, NULL, export_thread, &export_job) != 0) return fail("pthread_create", NULL);
    for (int waited = 0, started = 0; !started && waited < 600; waited++) { /* until it encodes (at most 30 s) */
        sleep_ms(50);
        pthread_mutex_lock(&export_job.lock);
        started = export_job.started;
        pthread_mutex_unlock(&export_job.lock);
    }
    sleep_ms(300);
    double cancelled_at = now();
    splice_cancel_token_cancel(export_job.token);
    pthread_join(thread, NULL);
    double latency = export_job.returned_at - cancelled_at;
    printf("export: cancelled at %.1f%%: status %d (%s), returned %.3f s after the cancel\n", export_job.fraction * 100,
           export_job.status, export_job.error ? splice_error_message(export_job.error) : "no error", latency);
    splice_free(export_job.error);
    splice_free(export_job.token);
    if (export_job.status != SPLICE_CANCELLED) return fail("export: not cancelled", NULL);
    if (latency >= 1.0) return fail("export: the cancel took a second or more", NULL);
    if (access(exported, F_OK) == 0) return fail("export: a cancelled export left its output", NULL);

    /* 4. An error: a file that does not exist. */
    if (splice_inspect_json("/nonexistent/movie.mp4", &json, &error) != SPLICE_FILE_NOT_FOUND) return fail("inspect of a missing file", error);
    printf("error: %s\n", splice_error_message(error));
    splice_free(error);
    return 0;
}
