/* tests/cli_util.h: running the factorysim binary from a test. The binary
 * is $FACTORYSIM (set by tests/run.sh), else bin/factorysim. */
#ifndef TESTS_CLI_UTIL_H
#define TESTS_CLI_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static inline const char *fs_bin(void)
{
    const char *b = getenv("FACTORYSIM");
    return b && *b ? b : "bin/factorysim";
}

/* Runs "factorysim ARGS", capturing stdout into out (and stderr into err
 * when err is non-NULL; else stderr is discarded). Returns the exit status,
 * or -1 if it did not exit normally. */
static inline int fs_run(const char *args, char *out, size_t n_out, char *err,
                         size_t n_err)
{
    char cmd[8192], errpath[64];
    FILE *p;
    size_t len = 0;
    int st;
    /* Per-process file: several test runs may share /tmp. */
    snprintf(errpath, sizeof errpath, "/tmp/factorysim-stderr-%ld.txt",
             (long)getpid());
    snprintf(cmd, sizeof cmd, "%s %s 2>%s", fs_bin(), args,
             err ? errpath : "/dev/null");
    p = popen(cmd, "r");
    if (!p)
        return -1;
    if (out && n_out) {
        len = fread(out, 1, n_out - 1, p);
        out[len] = '\0';
    }
    while (fgetc(p) != EOF)
        ;
    st = pclose(p);
    if (err && n_err) {
        FILE *f = fopen(errpath, "r");
        size_t m = f ? fread(err, 1, n_err - 1, f) : 0;
        err[m] = '\0';
        if (f)
            fclose(f);
        remove(errpath);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif
