/* cli/main.c: factorysim's entry point: global flags, then dispatch to one
 * command per file (cli/cmd_*.c), listed in cli/commands.h.
 *
 * This file is the only main() of the tool and the last place a process-wide
 * decision can be made: GSL's abort-on-error handler is switched off here,
 * before any command runs, and every command's exit status passes through
 * finish() so that a failed write to stdout can never exit 0. It must never
 * hold a command's logic; the command table comes from commands.h, the one list
 * that dispatch, the usage text and the unknown-command message all iterate
 * (STYLE.md 6.9). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "cli/cli.h"

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
#define CMD(name, summary) {#name, cmd_##name, summary},
#include "cli/commands.h"
#undef CMD
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

/* Every command's output ends here: a write to standard output that failed
 * (a full disk, a closed pipe, /dev/full) turns a success into exit 1 with
 * a message, because stdio reports such errors only on flush, after the
 * command has returned (tests/test_faults.c). */
static int finish(int rc)
{
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "factorysim: writing standard output failed: %s\n",
                errno ? strerror(errno) : "write error");
        return CLI_EXIT_ERR;
    }
    return rc;
}

/* Help goes to stdout when asked for (exit 0, pipeable into less) and to stderr
 * on a usage error (exit 2), so that scripts reading stdout never mistake usage
 * text for output. */
static void usage(FILE *f)
{
    fputs("Usage: factorysim [--help] [--version] COMMAND [ARGS...]\n\n"
          "A calibrated discrete-event simulator for planning modular AI "
          "factories.\n\nCommands:\n",
          f);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("\nRun 'factorysim COMMAND --help' for a command's options.\n", f);
}

int main(int argc, char **argv)
{
    /* GSL's default handler abort()s; every status is checked instead. */
    gsl_set_error_handler_off();
    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return finish(CLI_EXIT_OK);
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("factorysim %s\n", FACTORYSIM_VERSION);
        return finish(CLI_EXIT_OK);
    }
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(argv[1], commands[i].name) == 0) {
            /* Each command parses its own options with getopt_long from its own
             * argv[0]; getopt keeps global state, and optind = 0
             * (cli_getopt_reset) makes glibc start afresh, so a command never
             * sees where a previous parse stopped. */
            cli_getopt_reset();
            return finish(commands[i].fn(argc - 1, argv + 1));
        }
    /* An unknown leading option is a usage error (exit 2) with the usual hint,
     * kept apart from an unknown command so the message says which it was. */
    if (argv[1][0] == '-')
        return cli_usage_error(NULL, "unknown option '%s'", argv[1]);
    fprintf(stderr,
            "factorysim: unknown command '%s' (expected one of:", argv[1]);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(stderr, " %s", commands[i].name);
    fputs(")\n", stderr);
    return CLI_EXIT_USAGE;
}
