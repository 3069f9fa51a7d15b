/* cli/cmd_merge.c: `factorysim merge --db OUT.db A.db B.db ...`: combines
 * results databases written separately (one per Slurm array task on each node's
 * local disk, since SQLite is not safe on NFS or Lustre across hosts) into one.
 * The work is io/db.h's db_merge, one transaction per input: a killed merge
 * keeps every input it finished, and running the same command again adds only
 * what is missing (nothing is stored twice). docs/sweeps.md shows the Slurm
 * recipe.
 *
 * The command never opens an input for writing and never decides what counts as
 * a duplicate (db_merge does); it only orders the inputs and reports. It stops
 * at the first input that fails rather than skipping it, because a silently
 * incomplete merge would look like a finished sweep. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "app/run_store.h"
#include "io/db.h"

static const char merge_help[] =
    "Usage: factorysim merge --db OUT.db INPUT.db [INPUT.db ...]\n"
    "\n"
    "Copies every run of the input results databases into OUT.db (created\n"
    "if missing): scenarios, replications, summaries, time series, event\n"
    "logs, sweep cases. For Slurm arrays, where each task writes its own\n"
    "database on local disk (SQLite is not safe on NFS or Lustre across\n"
    "hosts): a sweep split with --shard merges into one sweep, resumable as\n"
    "one (docs/sweeps.md).\n"
    "\n"
    "Inputs are only read. Each input is merged in one transaction: a merge\n"
    "that is killed keeps the inputs it finished, and the same command run\n"
    "again adds only what is missing. A run OUT.db already holds (same\n"
    "scenario, seed, options, creation time, sweep case) is not copied\n"
    "again, nor a sweep case OUT.db already has complete.\n"
    "\n"
    "Options:\n"
    "  --db FILE     the output database (required)\n"
    "  -h, --help    this help\n";

/* The output is opened once and the inputs merged in the order given, each in
 * its own transaction (db_merge); the loop stops at the first failure and says
 * how many inputs are already in, so the user can fix that input and rerun the
 * same command. */
int cmd_merge(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "merge", *out_path = NULL;
    db_merge_stats total = {0, 0};
    db *d = NULL;
    sim_err err;
    int o, rc;

    sim_err_clear(&err);
    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (o) {
        case 'd':
            out_path = optarg;
            break;
        case 'h':
            fputs(merge_help, stdout);
            return CLI_EXIT_OK;
        case ':':
            return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default:
            return cli_usage_error(cmd, "unknown option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (!out_path)
        return cli_usage_error(cmd, "--db OUT.db is required");
    if (optind >= argc)
        return cli_usage_error(cmd, "no input database given");
    /* The output's folder is created like run --db's, so a merge into a new
     * results folder needs no mkdir first. */
    if (cli_make_dirs(out_path, 0, &err) != SIM_OK ||
        db_open(out_path, &d, &err) != SIM_OK)
        return cli_report(&err);
    for (int i = optind; i < argc; i++) {
        db_merge_stats st = {0, 0};
        if (db_merge(d, argv[i], &st, &err) != SIM_OK) {
            cli_report(&err);
            rc = cli_error("merged %d of %d input(s) into %s; not merged: "
                           "%s and the inputs after it (fix or leave it "
                           "out and run again: what is merged is not "
                           "stored twice)",
                           i - optind, argc - optind, out_path, argv[i]);
            db_close(d);
            return rc;
        }
        /* One line per input as it completes, so that a merge killed halfway
         * has already said which inputs are in. */
        printf("%s: %zu run(s) added, %zu already in %s\n", argv[i],
               st.runs_added, st.runs_present, out_path);
        total.runs_added += st.runs_added;
        total.runs_present += st.runs_present;
    }
    db_close(d);
    printf("merged %d input(s) into %s: %zu run(s) added, %zu already "
           "there\n",
           argc - optind, out_path, total.runs_added, total.runs_present);
    return CLI_EXIT_OK;
}
