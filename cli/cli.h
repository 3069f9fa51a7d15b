/* cli/cli.h: what every command shares: the command table, exit codes,
 * strict number parsing for options, and the output format option.
 *
 * Exit status: 0 success, 1 any error, 2 a usage error (STYLE, issue 2),
 * and for pass/fail commands (`exemplar`, issue 12.7) 3 when the check ran
 * and something failed. An error outranks a failure: a row that could not
 * be judged gives 1 even when another row failed.
 * Commands print their errors as "factorysim: ..." on stderr and results
 * on stdout.
 */
#ifndef CLI_CLI_H
#define CLI_CLI_H

#include <stdint.h>

#include "sim/err.h"

enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_ERR = 1,
    CLI_EXIT_USAGE = 2,
    CLI_EXIT_FAILED = 3 /* a pass/fail check ran and did not pass */
};

enum cli_format { CLI_FMT_TABLE = 1, CLI_FMT_JSON = 2, CLI_FMT_CSV = 4 };

/* Every command: argv[0] is the command name. Returns the exit status. */
#define CMD(name, summary) int cmd_##name(int argc, char **argv);
#include "cli/commands.h"
#undef CMD

/* Prints "factorysim: <message>" on stderr. Returns CLI_EXIT_ERR. */
int cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Prints "factorysim: <message>" and "Try 'factorysim CMD --help'." on
 * stderr. Returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints a sim_err as "factorysim: FILE:LINE: msg". Returns CLI_EXIT_ERR,
 * or CLI_EXIT_USAGE for SIM_EUSAGE. */
int cli_report(const sim_err *e);

/* Strict parsers for option values: the whole string must be a number in
 * range. On failure they print a usage error naming opt and return -1. */
int cli_u32(const char *cmd, const char *opt, const char *s, uint32_t lo,
            uint32_t hi, uint32_t *out);
int cli_u64(const char *cmd, const char *opt, const char *s, uint64_t *out);
int cli_double(const char *cmd, const char *opt, const char *s, double lo,
               double hi, double *out);
/* A seed: a whole number in [0, RNG_SEED_MAX] (sim/rng.h); anything else
 * (negative, non-numeric, above 2^63-1) is a usage error. */
int cli_seed(const char *cmd, const char *opt, const char *s, uint64_t *out);

/* Parses "table", "json" or "csv", accepting only the formats in allowed
 * (a mask of cli_format). Returns the format, or -1 after a usage error. */
int cli_format_parse(const char *cmd, const char *s, int allowed);

/* The one rule for output paths (issue 12): every command creates the
 * missing folders of every output path it is given, as `mkdir -p`, just
 * before it writes. With is_dir 0, path names a file and its parent
 * folders are made; with is_dir 1, path itself is a folder and is made too.
 * An existing folder is fine; a component that exists but is not a folder,
 * or a folder that cannot be made, is an error naming that folder and the
 * reason. Folders made before a failure stay (as with mkdir -p).
 * Errors: SIM_EIO (file = path). */
int cli_make_dirs(const char *path, int is_dir, sim_err *err);

/* Resets getopt so a command can parse its own argv. */
void cli_getopt_reset(void);

/* The subcommands of `bench` other than phold, each in its own file of the
 * bench command (cli/bench_site.c, cli/bench_predict.c) and called by
 * cli/cmd_bench.c with argv starting at the subcommand's name. Return a
 * CLI_EXIT_* status. */
int bench_site(int argc, char **argv);
int bench_predict(int argc, char **argv);

#endif
