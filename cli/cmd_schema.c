/* cli/cmd_schema.c: `factorysim schema [--format markdown|json]`: every result
 * field (models/resfield.h) with its SI name and unit (database columns,
 * exports) and its name and unit in run and sweep output. The Markdown form is
 * what docs/results-schema.md embeds (`make docs`).
 *
 * The command only chooses what to print; the text comes from io/fielddoc.c,
 * which reads the same tables the database and outputs use, so the docs cannot
 * describe a column the code does not write. It must never add anything
 * run-dependent to its output (time, path, host): `make docs` regenerates the
 * committed docs from it and a diff must mean a real change. --upgrade lives
 * here because a schema upgrade is the schema's business and needs no scenario.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "io/db.h"
#include "io/fielddoc.h"

static const char schema_help[] =
    "Usage: factorysim schema [--format markdown|json]\n"
    "       factorysim schema --scenario\n"
    "       factorysim schema --upgrade FILE\n"
    "\n"
    "Prints every result field: its database and export name with the SI\n"
    "unit, and its name and unit in run and sweep output (the same field by\n"
    "rule: time_to_train_s is stored, time_to_train_days is shown). The\n"
    "Markdown form is the generated part of docs/results-schema.md.\n"
    "\n"
    "--upgrade FILE upgrades a results database written by an older\n"
    "factorysim to this build's schema in place, in one transaction, keeping\n"
    "every run (columns it never stored read as missing). `run --db` and\n"
    "`sweep --db` do the same when they open an older database.\n"
    "\n"
    "Options:\n"
    "  --format F      markdown (default) or json\n"
    "  --upgrade FILE  upgrade the results database FILE in place\n"
    "  --scenario      print every scenario key instead (Markdown): type,\n"
    "                  unit, default, the enforced range, example, meaning\n"
    "  -h, --help      this help\n";

/* The option loop follows every command's pattern (":h" so that a missing value
 * is reported as such, getopt's own messages off); the three modes are
 * exclusive in effect, checked in the order upgrade, scenario keys, result
 * fields, so that --upgrade never prints the schema by accident. */
int cmd_schema(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'},
        {"upgrade", required_argument, NULL, 'u'},
        {"scenario", no_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int json = 0, scen = 0, o;
    const char *upgrade = NULL;
    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (o) {
        case 'f':
            if (strcmp(optarg, "json") == 0)
                json = 1;
            else if (strcmp(optarg, "markdown") != 0 &&
                     strcmp(optarg, "md") != 0)
                return cli_usage_error("schema",
                                       "--format %s: expected markdown or "
                                       "json",
                                       optarg);
            break;
        case 's':
            scen = 1;
            break;
        case 'u':
            upgrade = optarg;
            break;
        case 'h':
            fputs(schema_help, stdout);
            return CLI_EXIT_OK;
        case ':':
            return cli_usage_error("schema", "%s needs a value",
                                   argv[optind - 1]);
        default:
            return cli_usage_error("schema", "unknown option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("schema", "unexpected argument '%s'",
                               argv[optind]);
    if (upgrade) {
        db *d;
        sim_err err;
        struct stat sb;
        /* db_open would create a missing file: upgrading one is an error. */
        if (stat(upgrade, &sb) != 0)
            return cli_error("%s: cannot open results database (%s)", upgrade,
                             strerror(errno));
        /* Opening is upgrading: db_open migrates an older database in one
         * transaction (io/db.c), so a failure leaves the file at its old
         * version, never half migrated. */
        if (db_open(upgrade, &d, &err) != SIM_OK)
            return cli_report(&err);
        db_close(d);
        printf("%s: schema version %d\n", upgrade, DB_SCHEMA_VERSION);
        return CLI_EXIT_OK;
    }
    if (scen) {
        if (fielddoc_scenario_md(stdout) != SIM_OK)
            return cli_error("writing to standard output failed");
        return CLI_EXIT_OK;
    }
    if ((json ? fielddoc_results_json(stdout) : fielddoc_results_md(stdout)) !=
        SIM_OK)
        return cli_error("writing to standard output failed");
    return CLI_EXIT_OK;
}
