/* cli/cmd_compare.c: `factorysim compare --db FILE --runs NAME,NAME,...`:
 * stored runs side by side, each job's and the site's metrics with P10, P50,
 * P90 and the mean, and their differences from the first run (issue 25).
 *
 * The command only parses, opens the store read-only and hands the names to
 * app/compare.h, which resolves them (run id, scenario name, sweep case key)
 * and writes the table, CSV or JSON. What each scenario or case name
 * resolved to is said on stderr, so the output itself stays the same bytes
 * for the same runs and a script's stdout is never mixed with notes.
 * Everything is read before anything is written: a bad name prints nothing
 * on stdout. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/compare.h"
#include "cli/cli.h"
#include "io/db.h"

static const char compare_help[] =
    "Usage: factorysim compare --db FILE --runs NAME,NAME,... [OPTIONS]\n"
    "\n"
    "Stored runs side by side: every job's and the site's metrics (the run\n"
    "fields of `factorysim schema`, in their display units) as mean, P10,\n"
    "P50 and P90 per run, and the differences from the first run, absolute\n"
    "and in percent. Jobs are matched by name; a job a run does not have is\n"
    "blank there, never zero.\n"
    "\n"
    "A NAME is a run id (digits), a scenario name (its latest stored run\n"
    "that is not a sweep case; stderr says which id was picked) or a sweep\n"
    "case key as stored (export --what runs shows them). An unknown or\n"
    "ambiguous name is an error naming it.\n"
    "\n"
    "Options:\n"
    "  --db FILE        results database (default output/factorysim.db)\n"
    "  --runs LIST      runs to compare, comma-separated (required; the\n"
    "                   first is the baseline)\n"
    "  --format F       table (default), csv or json (docs/compare.md)\n"
    "  --jobs LIST      only these jobs (comma-separated job names)\n"
    "  --metrics LIST   only these result fields (comma-separated, SI or\n"
    "                   display names as `factorysim schema` lists them;\n"
    "                   default: the fields `run` prints)\n"
    "  --with-ids       also put each run's id in CSV and JSON (ids are the\n"
    "                   order runs were stored in, so they are left out by\n"
    "                   default)\n"
    "  -h, --help       this help\n";

/* Shaped like the other read-only commands (report, export): options, then
 * the store opened read-only, then every name resolved and every run loaded
 * before a byte is written, so a bad name leaves stdout empty and the exit
 * status alone tells a script what happened. Notes go to stderr after the
 * loading succeeded, never mixed into the output a script parses. */
int cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},
        {"runs", required_argument, NULL, 'r'},
        {"format", required_argument, NULL, 'f'},
        {"with-ids", no_argument, NULL, 'i'},
        {"jobs", required_argument, NULL, 'j'},
        {"metrics", required_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "compare", *dbpath = "output/factorysim.db", *runs = NULL,
               *jobs = NULL, *metrics = NULL;
    int fmt = CLI_FMT_TABLE, with_ids = 0, o, rc;
    db *d;
    compare *c = NULL;
    sim_err err;

    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (o) {
        case 'd':
            dbpath = optarg;
            break;
        case 'r':
            runs = optarg;
            break;
        case 'f':
            if (strcmp(optarg, "table") == 0)
                fmt = CLI_FMT_TABLE;
            else if (strcmp(optarg, "csv") == 0)
                fmt = CLI_FMT_CSV;
            else if (strcmp(optarg, "json") == 0)
                fmt = CLI_FMT_JSON;
            else
                return cli_usage_error(
                    cmd, "--format must be table, csv or json (got %s)",
                    optarg);
            break;
        case 'i':
            with_ids = 1;
            break;
        case 'j':
            jobs = optarg;
            break;
        case 'm':
            metrics = optarg;
            break;
        case 'h':
            fputs(compare_help, stdout);
            return CLI_EXIT_OK;
        case ':':
            return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default:
            return cli_usage_error(cmd, "unknown option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (!runs)
        return cli_usage_error(cmd, "--runs NAME,NAME,... is required");
    sim_err_clear(&err);
    /* Read-only: comparing must never migrate a database or take a write
     * lock while a sweep may be storing into it. */
    if (db_open_readonly(dbpath, &d, &err) != SIM_OK)
        return cli_report(&err);
    rc = compare_load_list(d, dbpath, runs, &c, &err);
    db_close(d);
    if (rc == SIM_OK && (rc = compare_select(c, jobs, metrics, &err)) != SIM_OK)
        compare_free(c);
    if (rc != SIM_OK)
        return rc == SIM_EUSAGE ? cli_usage_error(cmd, "%s", err.msg)
                                : cli_report(&err);
    for (size_t r = 0; r < c->n_runs; r++)
        if (c->runs[r].note[0])
            fprintf(stderr, "factorysim: compare: %s\n", c->runs[r].note);
    if (fmt == CLI_FMT_CSV)
        rc = compare_write_csv(stdout, c, with_ids);
    else if (fmt == CLI_FMT_JSON)
        rc = compare_write_json(stdout, c, with_ids);
    else
        rc = compare_write_table(stdout, c);
    compare_free(c);
    if (rc != SIM_OK || fflush(stdout) != 0)
        return cli_error("compare: cannot write the output");
    return CLI_EXIT_OK;
}
