/* tests/fuzz/fuzz_util.h: what the libFuzzer harnesses share. Every reader
 * takes a path, so each input is written to a file in a private temporary
 * folder made once per process (fuzz_dir); fuzz_expect() turns a broken
 * reader contract into an abort, which libFuzzer reports like a crash.
 *
 * The contract checked for every input: the reader returns SIM_OK or one
 * of the negative SIM_E* codes, and on failure err holds a non-empty
 * message. Crashes, leaks, hangs and undefined behaviour are the
 * sanitizers' and libFuzzer's part.
 */
#ifndef TESTS_FUZZ_UTIL_H
#define TESTS_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/err.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_dir[256];

/* Removes the private folder at exit (libFuzzer's fork mode starts a
 * process per job, each with its own folder). */
static void fuzz_remove_dir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir);
    if (system(cmd) != 0)
        fprintf(stdout, "fuzz: could not remove %s\n", fuzz_dir);
}

/* Makes the private folder (under $TMPDIR or /tmp) once. */
static void fuzz_make_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(fuzz_dir, sizeof fuzz_dir, "%s/factorysim-fuzz-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(fuzz_dir)) {
        perror("fuzz: mkdtemp");
        abort();
    }
    atexit(fuzz_remove_dir);
}

/* Writes n bytes to fuzz_dir/name; returns the path (static buffer). */
static const char *fuzz_write(const char *name, const uint8_t *d, size_t n)
{
    static char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", fuzz_dir, name);
    f = fopen(path, "wb");
    if (!f || (n && fwrite(d, 1, n, f) != n) || fclose(f) != 0) {
        perror("fuzz: write input");
        abort();
    }
    return path;
}

/* Copies the file src (relative to the repository root) to
 * fuzz_dir/dst, creating one level of folder if dst has one. A missing
 * src is skipped: the harness then only sees fewer includes. */
static void fuzz_copy(const char *src, const char *dst)
{
    char buf[1 << 16], path[512];
    FILE *in = fopen(src, "rb"), *out;
    size_t n;
    const char *slash = strchr(dst, '/');
    if (!in)
        return;
    if (slash) {
        char sub[512];
        snprintf(sub, sizeof sub, "%s/%.*s", fuzz_dir, (int)(slash - dst), dst);
        (void)mkdir(sub, 0700); /* EEXIST is fine */
    }
    snprintf(path, sizeof path, "%s/%s", fuzz_dir, dst);
    out = fopen(path, "wb");
    if (!out) {
        fclose(in);
        return;
    }
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    fclose(in);
    fclose(out);
}

/* The readers' row reports go to stderr through stdio; the harness points
 * the stdio stream at /dev/null so that libFuzzer is not slowed by them,
 * while fd 2, where the sanitizers and libFuzzer write, stays open. */
static void fuzz_quiet_stdio(void)
{
    FILE *null = fopen("/dev/null", "w");
    if (null)
        stderr = null;
}

/* Aborts unless rc and err obey the reader contract. */
static void fuzz_expect(int rc, const sim_err *err, const char *what)
{
    if (rc == SIM_OK)
        return;
    if (rc > 0 || rc < SIM_EINTR || err->code != rc || err->msg[0] == '\0') {
        fprintf(stdout,
                "fuzz: %s broke its contract: rc %d, err.code %d, "
                "msg '%s'\n",
                what, rc, err->code, err->msg);
        fflush(stdout);
        abort();
    }
}

#endif
