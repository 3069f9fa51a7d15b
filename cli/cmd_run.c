/* cli/cmd_run.c: `factorysim run SCENARIO`: the main job. Parses the
 * options, runs the case through app/runcase.h (catalog, scenario with
 * --set overrides, calibration, the checks `check` makes, weather, R
 * replications), stores it (app/run_store.h) and prints every job's and
 * the site's metrics with P10-P90 ranges (io/run_out.h). It owns no part of
 * the set-up: a change to how a case runs belongs in app/runcase.c. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/run_check.h"
#include "app/run_store.h"
#include "app/runcase.h"
#include "app/vardecomp.h"
#include "cli/cli.h"
#include "io/db.h"
#include "io/json.h"
#include "io/run_out.h"
#include "sim/mem.h"

/* The help text is the contract of run's flags (one line each); the
 * getopt table in cmd_run lists the same flags. */
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
    "  --no-model-uncertainty  every job at the throughput model's point\n"
    "                       prediction (default: each replication draws the\n"
    "                       model's error, so ranges include it)\n"
    "  --no-power-dynamics  no training power dynamics analysis (the\n"
    "                       power_* fields stay empty; the same as --set\n"
    "                       policy.power_dynamics=false)\n"
    "  --variance-decomposition  per job, the share of time-to-train\n"
    "                       variance from the throughput model, failures,\n"
    "                       power outages and weather (each switched off\n"
    "                       with the same seed; 5 runs; table or json);\n"
    "                       stored only with an explicit --db FILE (the\n"
    "                       run with every source on, and its shares,\n"
    "                       which `report` shows)\n"
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

/* runcase's ready step (app/runcase.h): the database is opened once the
 * scenario has passed its checks and before any replication runs, so a bad
 * --db fails fast and a refused scenario leaves no database behind. */
typedef struct run_db {
    const char *path; /* NULL: --no-db */
    db *d;
} run_db;

static int open_db(void *arg, const runcase_out *o, sim_err *err)
{
    run_db *rd = arg;
    int rc;
    (void)o;
    if (!rd->path)
        return SIM_OK;
    if ((rc = cli_make_dirs(rd->path, 0, err)) != SIM_OK)
        return rc;
    return db_open(rd->path, &rd->d, err);
}

/* What run's options ask for: the case (a.in) and what is done with it. */
typedef struct run_args {
    runcase_in in;         /* the case; series and events set after parsing */
    runcase_series series; /* --series, for the database */
    int events;            /* 0 after --no-events */
    uint32_t downsample;   /* --downsample */
    uint32_t reps;         /* --replications, 0 if not given */
    int fmt;               /* --format, a cli_format */
    run_db rd;             /* --db / --no-db */
    int vardecomp;         /* --variance-decomposition */
    int db_given;          /* --db FILE was given */
} run_args;

/* Parses argv into *a; sets (argc + 1 slots, the caller's) receives the
 * --set values. Returns -1 to go on, or the exit status to return at once
 * (CLI_EXIT_OK after --help, CLI_EXIT_USAGE after a usage error, which it
 * has printed). Why one switch: one case per flag of run_help, so the help
 * and the parser read side by side. */
static int parse_args(int argc, char **argv, const char **sets, run_args *a)
{
    static const struct option opts[] = {
        {"seed", required_argument, NULL, 's'},
        {"replications", required_argument, NULL, 'r'},
        {"set", required_argument, NULL, 'S'},
        {"format", required_argument, NULL, 'f'},
        {"no-failures", no_argument, NULL, 'F'},
        {"no-model-uncertainty", no_argument, NULL, 'U'},
        {"no-power-dynamics", no_argument, NULL, 'P'},
        {"variance-decomposition", no_argument, NULL, 'V'},
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
    const char *cmd = "run";
    int o;

    memset(a, 0, sizeof *a);
    a->in.max_memory_mb = RUN_CHECK_DEFAULT_MAX_MEMORY_MB;
    a->in.overrides = sets;
    a->series = RUNCASE_SERIES_FIRST;
    a->events = 1;
    a->downsample = 1;
    a->fmt = CLI_FMT_TABLE;
    a->rd.path = RUN_STORE_DEFAULT_DB;
    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (o) {
        case 's':
            if (cli_seed(cmd, "--seed", optarg, &a->in.seed) < 0)
                return CLI_EXIT_USAGE;
            a->in.seed_set = 1;
            break;
        case 'r':
            if (cli_u32(cmd, "--replications", optarg, 1, 100000, &a->reps) < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'S':
            sets[a->in.n_overrides++] = optarg;
            break;
        case 'f':
            a->fmt = cli_format_parse(
                cmd, optarg, CLI_FMT_TABLE | CLI_FMT_JSON | CLI_FMT_CSV);
            if (a->fmt < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'F':
            a->in.no_failures = 1;
            break;
        case 'U':
            a->in.no_model_uncertainty = 1;
            break;
        case 'P':
            /* The scenario key, so the stored configuration says the
             * analysis was off (one flag, one argv slot of sets). */
            sets[a->in.n_overrides++] = "policy.power_dynamics=false";
            break;
        case 'V':
            a->vardecomp = 1;
            break;
        case 'c':
            a->in.calibration = optarg;
            break;
        case 'C':
            a->in.catalog_dir = optarg;
            break;
        case 'd':
            a->rd.path = optarg;
            a->db_given = 1;
            break;
        case 'N':
            a->rd.path = NULL;
            break;
        case 'E':
            a->events = 0;
            break;
        case 'M':
            if (cli_double(cmd, "--max-memory-mb", optarg, 1, 1e9,
                           &a->in.max_memory_mb) < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'T':
            if (strcmp(optarg, "none") == 0)
                a->series = RUNCASE_SERIES_NONE;
            else if (strcmp(optarg, "first") == 0)
                a->series = RUNCASE_SERIES_FIRST;
            else if (strcmp(optarg, "all") == 0)
                a->series = RUNCASE_SERIES_ALL;
            else
                return cli_usage_error(
                    cmd, "--series: expected first, all or none (got '%s')",
                    optarg);
            break;
        case 'D':
            if (cli_u32(cmd, "--downsample", optarg, 1, 1000000,
                        &a->downsample) < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'h':
            fputs(run_help, stdout);
            return CLI_EXIT_OK;
        case ':':
            return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
        default:
            return cli_usage_error(cmd, "unknown option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind + 1 != argc)
        return cli_usage_error(cmd,
                               optind >= argc ? "missing SCENARIO"
                                              : "unexpected argument '%s'",
                               optind < argc ? argv[optind + 1] : "");
    if (a->vardecomp && a->fmt == CLI_FMT_CSV)
        return cli_usage_error(cmd, "--variance-decomposition: expected "
                                    "--format table or json (got csv)");
    /* A decomposition runs the case five times: it is stored only where
     * asked, never in the default database behind the user's back. */
    if (a->vardecomp && !a->db_given)
        a->rd.path = NULL;
    a->in.scenario_path = argv[optind];
    a->in.replications = a->reps;
    /* Series and events are kept only to be stored. */
    a->in.series = a->rd.path ? a->series : RUNCASE_SERIES_NONE;
    a->in.events = a->rd.path != NULL && a->events;
    return -1;
}

/* Stores the run (when a database is open) and prints it. Stored before
 * printing: a run whose results cannot be stored (disk full, locked past
 * the deadline) fails without having printed results that exist nowhere
 * else. With vd (a decomposition), its shares are stored with the run in
 * one transaction and nothing is printed here (print_vardecomp does).
 * Returns the exit status. */
static int store_and_print(const run_args *a, const runcase_out *out,
                           const vd_result *vd)
{
    run_info ri;
    char name[256];
    sim_err err;
    int rc;
    sim_err_clear(&err);
    ri.name = run_scenario_name(out->s, name, sizeof name);
    if (a->rd.d) {
        run_store_opts st;
        int64_t id;
        run_store_opts_default(&st);
        st.scenario_name = ri.name;
        st.seed = out->seed;
        st.ts_downsample = a->downsample;
        st.store_events = a->events;
        st.tp = out->tp;
        if (vd)
            st.var_shares = vd_result_rows(vd, &st.n_var_shares);
        rc = run_store(a->rd.d, out->s, &st, out->reps, out->n_reps, &id, &err);
        free((db_var_share *)st.var_shares);
        if (rc != SIM_OK)
            return cli_report(&err);
        fprintf(stderr, "factorysim: stored as run %lld in %s\n", (long long)id,
                a->rd.path);
    }
    if (vd) /* the decomposition prints its own table or JSON */
        return CLI_EXIT_OK;
    /* The seed printed is the one used (--seed or the scenario's), so the
     * output alone reproduces the run. */
    ri.seed = out->seed;
    ri.replications = (uint32_t)out->n_reps;
    ri.tp = out->tp;
    if (a->fmt == CLI_FMT_JSON)
        rc = run_out_json(stdout, &ri, out->s, out->reps, out->n_reps);
    else if (a->fmt == CLI_FMT_CSV)
        rc = run_out_csv(stdout, &ri, out->s, out->reps, out->n_reps);
    else
        rc = run_out_table(stdout, &ri, out->s, out->reps, out->n_reps);
    return rc == SIM_OK && fflush(stdout) == 0
               ? CLI_EXIT_OK
               : cli_error("writing the results failed");
}

/* Prints a variance decomposition (app/vardecomp.h): per job, the mean and
 * sd of time to train [days] with every source on, and each source's share
 * of its variance. Returns the exit status. */
static int print_vardecomp(const run_args *a, const scenario *s,
                           const vd_result *v)
{
    char name[256];
    int rc = SIM_OK;
    run_scenario_name(s, name, sizeof name);
    if (a->fmt == CLI_FMT_JSON) {
        jv *root = jv_obj(), *jobs = jv_arr();
        jv_set(root, "scenario", jv_str(name));
        jv_set(root, "seed", jv_int((int64_t)v->seed));
        jv_set(root, "replications", jv_int((int64_t)v->replications));
        jv_set(root, "method", jv_str("switch-off, common random numbers"));
        for (size_t i = 0; i < v->n_jobs; i++) {
            const vd_job *j = &v->jobs[i];
            jv *o = jv_obj(), *sh = jv_obj();
            jv_set(o, "name", jv_str(s->jobs[i].name));
            jv_set(o, "finished", jv_int((int64_t)j->finished));
            jv_set(o, "time_to_train_mean_days", jv_num(j->mean_s / 86400.0));
            jv_set(o, "time_to_train_sd_days",
                   jv_num(sqrt(j->var_s2) / 86400.0));
            for (int k = 0; k < VD_N; k++)
                jv_set(sh, vd_source_name[k], jv_num(j->share[k]));
            jv_set(sh, "interaction", jv_num(j->interaction));
            jv_set(o, "variance_share", sh);
            jv_push(jobs, o);
        }
        jv_set(root, "jobs", jobs);
        rc = jv_write(root, stdout, 1);
        jv_free(root);
    } else {
        printf("variance decomposition of time to train: %s, seed %llu, "
               "%zu replication(s) per variant\n",
               name, (unsigned long long)v->seed, v->replications);
        printf("share = 1 - var(source off) / var(all on), same seed "
               "(docs/site-model.md)\n\n");
        printf("  %-24s %8s %9s %8s %9s %9s %7s %8s %12s\n", "job", "finished",
               "mean_days", "sd_days", "tp_model", "failures", "power",
               "weather", "interaction");
        for (size_t i = 0; i < v->n_jobs; i++) {
            const vd_job *j = &v->jobs[i];
            printf("  %-24s %8zu %9.3f %8.3f %9.3f %9.3f %7.3f %8.3f %12.3f\n",
                   s->jobs[i].name, j->finished, j->mean_s / 86400.0,
                   sqrt(j->var_s2) / 86400.0, j->share[VD_MODEL],
                   j->share[VD_FAILURES], j->share[VD_POWER],
                   j->share[VD_WEATHER], j->interaction);
        }
        rc = ferror(stdout) ? SIM_EIO : SIM_OK;
    }
    return rc == SIM_OK && fflush(stdout) == 0
               ? CLI_EXIT_OK
               : cli_error("writing the results failed");
}

/* Options, then the case (app/runcase.h: the database opens in its ready
 * step), then store and print. */
int cmd_run(int argc, char **argv)
{
    const char **sets = sim_xcalloc((size_t)argc + 1, sizeof *sets);
    run_check_errs *ce;
    run_args a;
    runcase_out out;
    sim_err err;
    int rc = parse_args(argc, argv, sets, &a);

    if (rc >= 0) {
        free(sets);
        return rc;
    }
    ce = sim_xcalloc(1, sizeof *ce);
    sim_err_clear(&err);
    a.in.check_errs = ce;
    a.in.ready = open_db;
    a.in.ready_arg = &a.rd;
    if (a.vardecomp) {
        /* The all-sources-on run comes back from the decomposition, so a
         * stored decomposition costs no extra run of the case; stored
         * before printing, as a plain run is. */
        vd_result v;
        if (vardecomp_run(&a.in, &v, &out, &err) != SIM_OK) {
            if (ce->n > 0)
                for (size_t i = 0; i < ce->n; i++)
                    rc = cli_report(&ce->e[i]);
            else
                rc = cli_report(&err);
        } else if ((rc = store_and_print(&a, &out, &v)) == CLI_EXIT_OK) {
            rc = print_vardecomp(&a, out.s, &v);
        }
        vd_result_free(&v);
    } else if (runcase_run(&a.in, &out, &err) != SIM_OK) {
        /* A failed check lists every problem it found (as `check` does);
         * any other failure has one error. Nothing is stored and nothing
         * is printed on stdout in either case. */
        if (ce->n > 0)
            for (size_t i = 0; i < ce->n; i++)
                rc = cli_report(&ce->e[i]);
        else
            rc = cli_report(&err);
    } else {
        rc = store_and_print(&a, &out, NULL);
    }
    runcase_out_free(&out);
    db_close(a.rd.d);
    free(ce);
    free(sets);
    return rc;
}
