/*
 * Every file named on the command line through splice_inspect_json and splice_remux (into
 * MP4 and Matroska, in the directory $CRAFTED_OUT), in this one process: each call returns
 * SPLICE_OK or a status with an error whose message names the file; a failed remux leaves no
 * output; the process lives. Prints one line per file and a count; exits 1 on a broken rule.
 */
#define _POSIX_C_SOURCE 200809L
#include <splice.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int broken = 0;

static void check(const char *call, const char *file, const char *output, int status, splice_error *error, int *errors) {
    if (status == SPLICE_OK) {
        if (error) { printf("BROKEN %s %s: an error with status 0\n", call, file); broken = 1; }
        return;
    }
    *errors += 1;
    const char *message = error ? splice_error_message(error) : NULL;
    if (!message || splice_error_status(error) != status) {
        printf("BROKEN %s %s: status %d without its error\n", call, file, status);
        broken = 1;
    } else if (!strstr(message, file) && !(output && strstr(message, output))) {
        printf("BROKEN %s %s: the message names no file: %s\n", call, file, message);
        broken = 1;
    } else if (status > SPLICE_INTERNAL || status < 0) {
        printf("BROKEN %s %s: status %d is not a splice_status\n", call, file, status);
        broken = 1;
    }
    if (output && access(output, F_OK) == 0) {
        printf("BROKEN %s %s: a failed remux left %s\n", call, file, output);
        broken = 1;
    }
    splice_free(error);
}

int main(int argc, char **argv) {
    const char *dir = getenv("CRAFTED_OUT");
    if (!dir) { fprintf(stderr, "set CRAFTED_OUT\n"); return 2; }
    int failed_inspects = 0, failed_remuxes = 0;
    for (int i = 1; i < argc; i++) {
        splice_error *error = NULL;
        char *json = NULL;
        int status = splice_inspect_json(argv[i], &json, &error);
        check("inspect", argv[i], NULL, status, error, &failed_inspects);
        splice_free(json);
        printf("%s: inspect %d", argv[i], status);
        const char *extensions[] = { "mp4", "mkv" };
        for (int e = 0; e < 2; e++) {
            char output[4096];
            snprintf(output, sizeof output, "%s/out-%d.%s", dir, i, extensions[e]);
            const char *inputs[] = { argv[i] };
            error = NULL;
            status = splice_remux(inputs, 1, output, "{\"force\": true}", NULL, &error);
            if (status != SPLICE_OK && error) printf("; remux .%s %d: %s", extensions[e], status, splice_error_message(error));
            else printf("; remux .%s %d", extensions[e], status);
            check("remux", argv[i], output, status, error, &failed_remuxes);
            unlink(output);
        }
        printf("\n");
    }
    printf("crafted: %d files; %d inspects and %d remuxes failed with an error naming the file; the process lived\n",
           argc - 1, failed_inspects, failed_remuxes);
    return broken;
}
