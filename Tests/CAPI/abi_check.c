/*
 * A program written against an earlier header (the one -include'd: Tests/CAPI/abi/splice-M.m.h),
 * run against the library built now: the version check, an inspect, a remux whose splice_job
 * is as large as that header's, and one as large as a caller that knew only `progress` (the
 * fields after it filled with garbage the library must not read).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static int calls = 0;
static int progress(double fraction, void *context) {
    (void)fraction;
    (void)context;
    calls += 1;
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    if (!SPLICE_VERSION_IS_COMPATIBLE()) { fprintf(stderr, "abi: incompatible: %s\n", splice_version()); return 1; }
    char *json = NULL;
    if (splice_inspect_json(argv[1], &json, NULL) != SPLICE_OK || !json) { fprintf(stderr, "abi: inspect failed\n"); return 1; }
    splice_free(json);
    const char *inputs[] = { argv[1] };
    splice_job job;
    memset(&job, 0, sizeof job);
    job.size = sizeof job;
    job.progress = progress;
    if (splice_remux(inputs, 1, argv[2], "{\"force\": true}", &job, NULL) != SPLICE_OK || calls == 0) {
        fprintf(stderr, "abi: remux with this header's splice_job failed\n");
        return 1;
    }
    memset(&job, 0xA5, sizeof job);   /* what an older caller never set */
    job.size = offsetof(splice_job, progress_context) + sizeof job.progress_context;
    job.progress = progress;
    job.progress_context = NULL;
    calls = 0;
    splice_error *error = NULL;
    if (splice_remux(inputs, 1, argv[2], "{\"force\": true}", &job, &error) != SPLICE_OK || calls == 0) {
        fprintf(stderr, "abi: remux with a shorter splice_job failed: %s\n", error ? splice_error_message(error) : "");
        return 1;
    }
    printf("abi: a program built with this header runs against Splice %s\n", splice_version());
    return 0;
}
