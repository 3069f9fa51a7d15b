/* cli/cli.c: shared command-line helpers (see cli.h).
 *
 * This file owns the command layer's two voices: the one place messages are
 * printed as "factorysim: ..." on stderr (cli_error, cli_usage_error,
 * cli_report) and the exit codes they map to (1 for errors, 2 for usage).
 * Library code below cli/ never prints; it fills a sim_err that ends up in
 * cli_report. The option parsers here refuse rather than clamp: an option value
 * out of range is a usage error naming the option, never a silent adjustment,
 * because a plan run with a different seed or replication count than the user
 * typed would look valid. */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/rng.h"

int cli_error(const char *fmt, ...)
{
    va_list ap;
    fputs("factorysim: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_EXIT_ERR;
}

/* The "Try 'factorysim CMD --help'" hint is part of the usage contract: every
 * exit 2 ends with it, so a user always learns where the options are listed. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fputs("factorysim: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'factorysim %s%s--help'.\n", cmd ? cmd : "",
            cmd ? " " : "");
    return CLI_EXIT_USAGE;
}

/* SIM_EUSAGE maps to exit 2 so that a usage problem found deep in a loader (a
 * --set of an unknown key) exits like one found by getopt. */
int cli_report(const sim_err *e)
{
    char buf[2200];
    fprintf(stderr, "factorysim: %s\n", sim_err_format(e, buf, sizeof buf));
    return e->code == SIM_EUSAGE ? CLI_EXIT_USAGE : CLI_EXIT_ERR;
}

/* A sign is refused explicitly because strtoull accepts "-1" and returns
 * ULLONG_MAX, which would pass as a huge valid value. */
int cli_u64(const char *cmd, const char *opt, const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v;
    errno = 0;
    if (!s || !*s || *s == '-' || *s == '+')
        goto bad;
    v = strtoull(s, &end, 10);
    if (errno || *end)
        goto bad;
    *out = (uint64_t)v;
    return 0;
bad:
    cli_usage_error(cmd, "%s: expected a non-negative integer (got '%s')", opt,
                    s ? s : "");
    return -1;
}

/* Seeds are capped at INT64_MAX because the database stores them in a signed
 * 64-bit column; a larger seed would read back as a different number and the
 * stored run could not be reproduced from its own record. */
int cli_seed(const char *cmd, const char *opt, const char *s, uint64_t *out)
{
    uint64_t v;
    if (cli_u64(cmd, opt, s, &v) < 0)
        return -1;
    if (v > (uint64_t)RNG_SEED_MAX) {
        cli_usage_error(cmd,
                        "%s: out of range (got %s, expected an integer in "
                        "[0, %lld]: seeds are stored as signed 64-bit "
                        "integers)",
                        opt, s, (long long)RNG_SEED_MAX);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_u32(const char *cmd, const char *opt, const char *s, uint32_t lo,
            uint32_t hi, uint32_t *out)
{
    uint64_t v;
    if (cli_u64(cmd, opt, s, &v) < 0)
        return -1;
    if (v < lo || v > hi) {
        cli_usage_error(cmd, "%s: expected an integer in [%u, %u] (got %s)",
                        opt, lo, hi, s);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

/* Infinity and NaN are refused even when the range would admit them (strtod
 * reads "inf" and "nan"), since no option means anything at infinity. */
int cli_double(const char *cmd, const char *opt, const char *s, double lo,
               double hi, double *out)
{
    char *end;
    double v;
    errno = 0;
    if (!s || !*s)
        goto bad;
    v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        goto bad;
    if (v < lo || v > hi) {
        cli_usage_error(cmd, "%s: expected a number in [%g, %g] (got %s)", opt,
                        lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
bad:
    cli_usage_error(cmd, "%s: expected a number (got '%s')", opt, s ? s : "");
    return -1;
}

/* allowed is a bit set of the formats the command supports, so the message
 * lists only those; the table keeps the spellings in one place for every
 * command. */
int cli_format_parse(const char *cmd, const char *s, int allowed)
{
    static const struct {
        const char *name;
        int f;
    } tab[] = {
        {"table", CLI_FMT_TABLE},
        {"json", CLI_FMT_JSON},
        {"csv", CLI_FMT_CSV},
    };
    char valid[64] = "";
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        if (!(allowed & tab[i].f))
            continue;
        if (strcmp(s, tab[i].name) == 0)
            return tab[i].f;
        if (valid[0])
            strcat(valid, "|");
        strcat(valid, tab[i].name);
    }
    cli_usage_error(cmd, "--format: unknown format '%s' (expected %s)", s,
                    valid);
    return -1;
}

void cli_getopt_reset(void)
{
    optind = 0; /* glibc: 0 forces a full reinitialisation */
    opterr = 0; /* commands print their own messages */
}

/* Walks the prefix folders of path left to right, making each that is
 * missing. A folder made concurrently by someone else (EEXIST) counts as
 * made, provided it is a folder. */
int cli_make_dirs(const char *path, int is_dir, sim_err *err)
{
    char dir[1024];
    size_t len;
    struct stat st;

    if (!path || !*path)
        return sim_err_set(err, SIM_EIO, NULL, 0, "empty output path");
    if (strlen(path) >= sizeof dir)
        return sim_err_set(err, SIM_EIO, path, 0,
                           "output path too long (got %zu characters, "
                           "expected < %zu)",
                           strlen(path), sizeof dir);
    snprintf(dir, sizeof dir, "%s", path);
    len = strlen(dir);
    if (!is_dir) {
        /* Drop the file name; a path without a folder needs none. */
        while (len > 0 && dir[len - 1] != '/')
            len--;
        if (len == 0)
            return SIM_OK;
    }
    while (len > 1 && dir[len - 1] == '/')
        len--;
    dir[len] = '\0';
    /* Checked one prefix at a time so that the error names the first folder
     * that could not be made, and a file standing where a folder should be is
     * reported as such rather than as a failed mkdir. */
    for (size_t i = 1; i <= len; i++) {
        char c = dir[i];
        if (c != '/' && c != '\0')
            continue;
        dir[i] = '\0';
        if (stat(dir, &st) != 0) {
            if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
                int e = errno;
                sim_err_set(err, SIM_EIO, path, 0,
                            "cannot create the folder '%s': %s", dir,
                            strerror(e));
                return SIM_EIO;
            }
            if (stat(dir, &st) != 0) {
                int e = errno;
                return sim_err_set(err, SIM_EIO, path, 0,
                                   "cannot create the folder '%s': %s", dir,
                                   strerror(e));
            }
        }
        if (!S_ISDIR(st.st_mode))
            return sim_err_set(err, SIM_EIO, path, 0,
                               "cannot create the folder '%s': a file of "
                               "that name exists (expected a folder)",
                               dir);
        dir[i] = c;
    }
    return SIM_OK;
}
