/* cli/cmd_run.c: `factorysim run SCENARIO`: the main job. Loads the
 * catalog, the scenario (with --set overrides), its weather file and the
 * calibrated throughput model, runs R replications (models/site.h) and
 * prints every job's and the site's metrics with P10-P90 ranges. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "io/calib_file.h"
#include "io/catalog_cfg.h"
#include "io/climate_load.h"
#include "cli/run_check.h"
#include "cli/run_store.h"
#include "io/run_out.h"
#include "io/scenario_cfg.h"
#include "models/catalog.h"
#include "models/site.h"
#include "sim/mem.h"

static const char run_help[] =
    "Usage: factorysim run SCENARIO [OPTIONS]\n"
    "\n"
    "Simulates the scenario over its horizon: jobs scheduled on the site's\n"
    "modules, failures and checkpoints, the site's power every step. Prints\n"
    "per job: time to train, GPU-hours, IT and facility energy, renewable\n"
    "share, carbon, cost, interruptions, goodput; per site: utilization,\n"
    "energy by source, curtailment, hours short, battery cycles and health;\n"
    "each as mean, P10, P50, P90, min and max over the replications.\n"
    "\n"
    "Options:\n"
    "  --seed N             master seed (default: simulation.seed)\n"
    "  --replications R     replications (default: simulation.replications)\n"
    "  --set KEY=VALUE      override a scenario key (repeatable), e.g.\n"
    "                       --set energy.battery.capacity_mwh=120\n"
    "  --format F           table (default), json or csv\n"
    "  --no-failures        no random interruptions or module outages\n"
    "  --db FILE            results database (default " RUN_STORE_DEFAULT_DB
    ")\n"
    "  --no-db              do not store the run\n"
    "  --series WHICH       per-step site series to store: first (default:\n"
    "                       replication 0), all or none\n"
    "  --downsample K       store one averaged step per K steps (default 1)\n"
    "  --no-events          do not store the event log\n"
    "  --calibration FILE   throughput calibration (default "
    "models/calibration.cfg)\n"
    "  --catalog DIR        catalog folder (default: the built-in models/)\n"
    "  --max-memory-mb M    refuse a run whose results would need more than\n"
    "                       M MiB (default 4096; the estimate is printed)\n"
    "  -h, --help           this help\n";

int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"seed", required_argument, NULL, 's'},
        {"replications", required_argument, NULL, 'r'},
        {"set", required_argument, NULL, 'S'},
        {"format", required_argument, NULL, 'f'},
        {"no-failures", no_argument, NULL, 'F'},
        {"calibration", required_argument, NULL, 'c'},
        {"catalog", required_argument, NULL, 'C'},
        {"db", required_argument, NULL, 'd'},
        {"no-db", no_argument, NULL, 'N'},
        {"series", required_argument, NULL, 'T'},
        {"downsample", required_argument, NULL, 'D'},
        {"no-events", no_argument, NULL, 'E'},
        {"max-memory-mb", required_argument, NULL, 'M'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "run", *calib = NULL, *catdir = NULL,
               *db_path = RUN_STORE_DEFAULT_DB;
    int series = 1; /* 0 none, 1 first, 2 all */
    int events = 1;
    uint32_t downsample = 1;
    double max_mem_mb = RUN_CHECK_DEFAULT_MAX_MEMORY_MB;
    db *d = NULL;
    const char **sets = sim_xcalloc((size_t)argc + 1, sizeof *sets);
    size_t n_sets = 0;
    uint64_t seed = 0;
    uint32_t reps_opt = 0;
    int have_seed = 0, fmt = CLI_FMT_TABLE, failures = 1, o, rc = CLI_EXIT_ERR;
    catalog *cat = NULL;
    scenario *s = NULL;
    tp_model *tp = NULL;
    climate_year *wx = NULL;
    res_rep *reps = NULL;
    size_t n_reps = 0;
    sim_err err;

    sim_err_clear(&err);
    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (o) {
        case 's':
            if (cli_seed(cmd, "--seed", optarg, &seed) < 0)
                goto usage;
            have_seed = 1;
            break;
        case 'r':
            if (cli_u32(cmd, "--replications", optarg, 1, 100000, &reps_opt) <
                0)
                goto usage;
            break;
        case 'S':
            sets[n_sets++] = optarg;
            break;
        case 'f':
            fmt = cli_format_parse(cmd, optarg,
                                   CLI_FMT_TABLE | CLI_FMT_JSON | CLI_FMT_CSV);
            if (fmt < 0)
                goto usage;
            break;
        case 'F':
            failures = 0;
            break;
        case 'c':
            calib = optarg;
            break;
        case 'C':
            catdir = optarg;
            break;
        case 'd':
            db_path = optarg;
            break;
        case 'N':
            db_path = NULL;
            break;
        case 'E':
            events = 0;
            break;
        case 'M':
            if (cli_double(cmd, "--max-memory-mb", optarg, 1, 1e9,
                           &max_mem_mb) < 0)
                goto usage;
            break;
        case 'T':
            if (strcmp(optarg, "none") == 0)
                series = 0;
            else if (strcmp(optarg, "first") == 0)
                series = 1;
            else if (strcmp(optarg, "all") == 0)
                series = 2;
            else {
                cli_usage_error(
                    cmd, "--series: expected first, all or none (got '%s')",
                    optarg);
                goto usage;
            }
            break;
        case 'D':
            if (cli_u32(cmd, "--downsample", optarg, 1, 1000000, &downsample) <
                0)
                goto usage;
            break;
        case 'h':
            fputs(run_help, stdout);
            free(sets);
            return CLI_EXIT_OK;
        case ':':
            cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
            goto usage;
        default:
            cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
            goto usage;
        }
    }
    if (optind + 1 != argc) {
        cli_usage_error(cmd,
                        optind >= argc ? "missing SCENARIO"
                                       : "unexpected argument '%s'",
                        optind < argc ? argv[optind + 1] : "");
        goto usage;
    }
    if (catalog_load(catdir, &cat, &err) != SIM_OK ||
        scenario_load(argv[optind], cat, sets, n_sets, &s, &err) != SIM_OK ||
        (calib ? tp_model_load(calib, &tp, &err)
               : tp_model_default(&tp, &err)) != SIM_OK) {
        rc = cli_report(&err);
        goto done;
    }
    {
        /* What `check` checks, by the same code (cli/run_check.h). */
        run_check_errs *ce = sim_xcalloc(1, sizeof *ce);
        run_check_opts co;
        co.replications = reps_opt ? reps_opt : (size_t)s->sim.replications;
        co.series = db_path ? series : 0;
        co.max_memory_mb = max_mem_mb;
        if (run_check_scenario(s, tp, &co, &wx, ce) != SIM_OK) {
            for (size_t i = 0; i < ce->n; i++)
                rc = cli_report(&ce->e[i]);
            free(ce);
            goto done;
        }
        free(ce);
    }
    if (db_path && (cli_make_dirs(db_path, 0, &err) != SIM_OK ||
                    db_open(db_path, &d, &err) != SIM_OK)) {
        rc = cli_report(&err);
        goto done;
    }
    {
        site_opts so;
        run_info ri;
        char name[256];
        site_opts_default(&so);
        so.seed = have_seed ? seed : s->sim.seed;
        site_rel_from_scenario(&so.rel, s);
        if (!failures)
            so.rel.enabled = 0;
        so.tp = tp;
        so.weather = wx;
        n_reps = reps_opt ? reps_opt : (size_t)s->sim.replications;
        reps = sim_xcalloc(n_reps, sizeof *reps);
        so.record_events = d != NULL && events;
        /* The series of replication 0 (or of all): recording never changes
         * the simulation, only what is kept. */
        so.record_steps = d != NULL && series > 0;
        if (site_run_reps(s, &so, 0, 1, reps, &err) != SIM_OK ||
            (so.record_steps = d != NULL && series == 2,
             site_run_reps(s, &so, 1, n_reps - 1, reps + 1, &err)) != SIM_OK) {
            n_reps = 0;
            rc = cli_report(&err);
            goto done;
        }
        ri.name = run_scenario_name(s, name, sizeof name);
        if (d) {
            run_store_opts st;
            int64_t id;
            run_store_opts_default(&st);
            st.scenario_name = ri.name;
            st.seed = so.seed;
            st.ts_downsample = downsample;
            st.store_events = events;
            st.tp = tp;
            if (run_store(d, s, &st, reps, n_reps, &id, &err) != SIM_OK) {
                rc = cli_report(&err);
                goto done;
            }
            fprintf(stderr, "factorysim: stored as run %lld in %s\n",
                    (long long)id, db_path);
        }
        ri.seed = so.seed;
        ri.replications = (uint32_t)n_reps;
        ri.tp = tp;
        if (fmt == CLI_FMT_JSON)
            rc = run_out_json(stdout, &ri, s, reps, n_reps);
        else if (fmt == CLI_FMT_CSV)
            rc = run_out_csv(stdout, &ri, s, reps, n_reps);
        else
            rc = run_out_table(stdout, &ri, s, reps, n_reps);
        rc = rc == SIM_OK && fflush(stdout) == 0
                 ? CLI_EXIT_OK
                 : cli_error("writing the results failed");
    }
done:
    for (size_t r = 0; r < n_reps; r++)
        res_rep_free(&reps[r]);
    free(reps);
    db_close(d);
    tp_model_free(tp);
    climate_year_free(wx);
    scenario_free(s);
    catalog_free(cat);
    free(sets);
    return rc;
usage:
    free(sets);
    return CLI_EXIT_USAGE;
}
