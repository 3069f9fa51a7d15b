/* cli/cmd_sweep.c: `factorysim sweep SCENARIO --set KEY=V1,V2 --set
 * KEY=LO:HI:STEP ...`: every case of the grid (models/sweep.h) run on
 * worker threads and MPI ranks (app/sweep_exec.h), each stored in the
 * results database as a run with its sweep key, case key, overrides and
 * rank; a summary table of every case at the end (app/sweep_table.h).
 *
 * Resuming: the sweep key is the FNV-1a-64 hash of what decides every
 * case's results: the resolved base scenario (after --seed and
 * --replications), the canonical grid, --no-failures, --series/--events
 * and the bytes of the calibration file. Cases of that key already in the
 * database are skipped, so running the same command again after an
 * interruption runs only what is missing. docs/sweeps.md has the details.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sweep_cli.h"
#include "app/run_check.h"
#include "app/run_store.h"
#include "app/sweep_exec.h"
#include "app/sweep_table.h"
#include "io/calib_file.h"
#include "io/catalog_cfg.h"
#include "io/json.h"
#include "io/run_out.h"
#include "io/scenario_cfg.h"
#include "sim/mem.h"

static const char sweep_help[] =
    "Usage: factorysim sweep SCENARIO --set KEY=V1,V2,... [--set "
    "KEY=LO:HI:STEP ...] [OPTIONS]\n"
    "\n"
    "Runs the scenario for every combination of the values given (the\n"
    "cartesian grid; the first --set varies slowest), stores every case with\n"
    "all its replications in the results database, and prints one row per\n"
    "case with P10 / P50 / P90 of key metrics. KEY is any scenario key of\n"
    "docs/scenario-reference.md, e.g. modules.[0].count, "
    "energy.solar.capacity_mw,\n"
    "energy.battery.capacity_mwh, jobs.[0].gpus, simulation.seed. Running the\n"
    "same sweep again skips the cases already stored (resume after Ctrl-C).\n"
    "\n"
    "Options:\n"
    "  --set KEY=V1,V2,...   values of a key (numbers, true/false, \"text\")\n"
    "  --set KEY=LO:HI:STEP  LO, LO+STEP, ... up to HI inclusive\n"
    "  --replications R      replications per case (default: "
    "simulation.replications)\n"
    "  --seed N              master seed of every case (default: "
    "simulation.seed)\n"
    "  --jobs N              worker threads (default: every core; with MPI, "
    "the\n"
    "                        cores shared by the ranks on a node)\n"
    "  --db FILE             results database (default " RUN_STORE_DEFAULT_DB
    ")\n"
    "  --format F            summary as table (default), json or csv\n"
    "  --metric NAME         summary column (repeatable): site.NAME or "
    "JOB.NAME,\n"
    "                        e.g. site.co2_t, "
    "llama405b-fp8.time_to_train_days\n"
    "  --series WHICH        per-step site series to store: none (default),\n"
    "                        first (replication 0) or all\n"
    "  --events              store the event log of every replication\n"
    "  --no-failures         no random interruptions or module outages\n"
    "  --no-model-uncertainty  every job at the throughput model's point\n"
    "                        prediction (default: each replication draws\n"
    "                        the model's error)\n"
    "  --quiet               no progress on stderr\n"
    "  --max-memory-mb M     refuse a sweep one of whose cases' results\n"
    "                        would need more than M MiB (default 4096; at\n"
    "                        most 2 x --jobs cases are held at once)\n"
    "  --shard I/N           run only the cases whose index modulo N is I\n"
    "                        (0 <= I < N): one part of the sweep per Slurm\n"
    "                        array task, each into its own database; merge\n"
    "                        them with 'factorysim merge' (docs/sweeps.md)\n"
    "  --calibration FILE    throughput calibration (default "
    "models/calibration.cfg)\n"
    "  --catalog DIR         catalog folder (default: the built-in models/)\n"
    "  -h, --help            this help\n"
    "\n"
    "With MPI: mpirun -n K bin/factorysim-mpi sweep ... (docs/sweeps.md).\n";

/* ---- progress on stderr ---- */

double sweep_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fmt_eta(char *b, size_t n, double s)
{
    if (s < 0 || s > 1e8)
        snprintf(b, n, "?");
    else if (s >= 3600)
        snprintf(b, n, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
    else if (s >= 60)
        snprintf(b, n, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else
        snprintf(b, n, "%ds", (int)(s + 0.5));
}

/* Shows the progress: a bar redrawn in place on a terminal, else a line
 * at every 5 %. final ends the bar's line. */
void sweep_progress_show(sweep_progress *p, int final)
{
    size_t run = p->done + p->failed + p->elsewhere,
           todo = p->total - p->skipped;
    double el = sweep_now_s() - p->t0,
           eta = run ? el / (double)run * (double)(todo - run) : -1;
    char e[32];
    if (p->quiet || todo == 0)
        return;
    fmt_eta(e, sizeof e, eta);
    if (p->tty) {
        int w = 30, fill = (int)((double)w * (double)run / (double)todo);
        char bar[64];
        for (int i = 0; i < w; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[w] = '\0';
        fprintf(stderr, "\rsweep [%s] %zu/%zu cases %3d%%  ETA %-8s", bar,
                p->skipped + run, p->total,
                (int)(100.0 * (double)run / (double)todo), e);
        if (final)
            fputc('\n', stderr);
    } else {
        int step = (int)(20.0 * (double)run / (double)todo);
        if (step == p->last_step)
            return;
        p->last_step = step;
        fprintf(stderr,
                "factorysim: sweep: %zu/%zu cases done (%d%%), %.1f s elapsed, "
                "ETA %s\n",
                p->skipped + run, p->total,
                (int)(100.0 * (double)run / (double)todo), el, e);
    }
    fflush(stderr);
}

/* ---- storing a finished case (rank 0's main thread) ---- */

/* The case's overrides as a JSON object {"key": value}. */
char *sweep_overrides_json(const sweep_grid *g, size_t i)
{
    jv *o = jv_obj();
    char *s;
    for (size_t a = 0; a < g->n_axes; a++) {
        const sweep_axis *ax = &g->axes[a];
        size_t v = sweep_case_value(g, i, a);
        const char *t = ax->values[v];
        size_t n = strlen(t);
        if (ax->kinds[v] == SWEEP_NUMBER)
            jv_set(o, ax->key, jv_num(ax->numbers[v]));
        else if (ax->kinds[v] == SWEEP_BOOL)
            jv_set(o, ax->key, jv_bool(t[0] == 't'));
        else if (n >= 2 && t[0] == '"' && t[n - 1] == '"') {
            char *u = strndup(t + 1, n - 2);
            jv_set(o, ax->key, jv_str(u));
            free(u);
        } else
            jv_set(o, ax->key, jv_str(t));
    }
    s = jv_dumps(o, 0);
    jv_free(o);
    return s;
}

int sweep_store_case(void *arg, sweep_result *r, sim_err *err)
{
    sweep_store_ctx *sc = arg;
    const sweep_ctx *c = sc->c;
    char *ck = sweep_case_key(c->g, r->case_i), *ov = NULL, name[256];
    run_store_opts st;
    int rc = SIM_OK;

    if (r->rc != SIM_OK) {
        char msg[2048];
        sim_err_format(&r->err, msg, sizeof msg);
        if (sc->n_failed++ == 0)
            snprintf(sc->first_fail, sizeof sc->first_fail, "%s", ck);
        if (!sc->pg->quiet && sc->pg->tty)
            fputc('\n', stderr);
        fprintf(stderr, "factorysim: case %s failed: %s\n", ck, msg);
        sc->pg->failed++;
        sweep_progress_show(sc->pg, 0);
        free(ck);
        return SIM_OK;
    }
    /* A case from another rank: its scenario is loaded again here (cheap
     * next to the run) for what the store records about the site. */
    if (!r->s && (rc = sweep_case_scenario(c, r->case_i, &r->s, err)) != SIM_OK)
        goto done;
    ov = sweep_overrides_json(c->g, r->case_i);
    run_store_opts_default(&st);
    st.scenario_name = run_scenario_name(r->s, name, sizeof name);
    st.seed = r->s->sim.seed;
    st.store_timeseries = c->series > 0;
    st.store_events = c->events;
    st.sweep_key = sc->sweep_key;
    st.case_key = ck;
    st.overrides_json = ov;
    st.case_index = (int64_t)r->case_i;
    st.mpi_rank = sc->mpi ? r->rank : -1;
    st.tp = c->tp;
    rc = run_store(sc->d, r->s, &st, r->reps, r->n_reps, NULL, err);
    if (rc == DB_ALREADY_STORED) {
        /* Another process running the same sweep into this database
         * stored the case meanwhile: its copy counts, ours is dropped. */
        sc->pg->elsewhere++;
        sweep_progress_show(sc->pg, 0);
        rc = SIM_OK;
    } else if (rc == SIM_OK) {
        sc->pg->done++;
        sweep_progress_show(sc->pg, 0);
    }
done:
    free(ov);
    free(ck);
    return rc;
}

/* ---- the sweep key ---- */

/* FNV-1a-64 over the parts, NUL-separated, as 16 hex digits. */
void sweep_key_of(char key[17], const char *base_text, const char *grid_text,
                  const char *calib_bytes, size_t calib_n, const sweep_ctx *c)
{
    char flags[96];
    size_t lb = strlen(base_text), lg = strlen(grid_text), lf, n;
    char *buf;
    snprintf(flags, sizeof flags,
             "failures=%d series=%d events=%d model_uncertainty=%d",
             c->failures, c->series, c->events, c->model_uncertainty);
    lf = strlen(flags);
    n = 32 + lb + lg + lf + calib_n + 4;
    buf = sim_xmalloc(n);
    memcpy(buf, "factorysim sweep key 1", 23);
    n = 23;
    memcpy(buf + n, base_text, lb + 1);
    n += lb + 1;
    memcpy(buf + n, grid_text, lg + 1);
    n += lg + 1;
    memcpy(buf + n, flags, lf + 1);
    n += lf + 1;
    if (calib_n)
        memcpy(buf + n, calib_bytes, calib_n);
    n += calib_n;
    db_hash_hex(buf, n, key);
    free(buf);
}

/* Reads a whole file (the calibration, for the sweep key). */
char *sweep_read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char *b = NULL;
    size_t cap = 0, len = 0, k;
    *n = 0;
    if (!f)
        return NULL;
    do {
        if (len == cap) {
            cap = cap ? 2 * cap : 65536;
            b = sim_xrealloc(b, cap);
        }
        k = fread(b + len, 1, cap - len, f);
        len += k;
    } while (k > 0);
    fclose(f);
    *n = len;
    return b;
}

/* Checks every value of every axis once (the other axes at their first
 * value), so a bad key or value is a usage error before any case runs. */
/* Validates every value of every axis (the case with that value and the
 * other axes at their first) as `run` would: the scenario loads, and the
 * checks run and check share (app/run_check.h: weather, throughput of
 * every job, fabric groups, and one case's results within max_mb). */
int sweep_validate_grid(const sweep_ctx *c, double max_mb, sim_err *err)
{
    const sweep_grid *g = c->g;
    for (size_t a = 0; a < g->n_axes; a++)
        for (size_t v = 0; v < g->axes[a].n; v++) {
            /* Case index with axis a at value v and the others at 0. */
            size_t i = 0;
            scenario *s = NULL;
            for (size_t b = 0; b < g->n_axes; b++)
                i = i * g->axes[b].n + (b == a ? v : 0);
            if (sweep_case_scenario(c, i, &s, err) != SIM_OK) {
                char msg[2048];
                sim_err_format(err, msg, sizeof msg);
                return sim_err_set(err, SIM_EUSAGE, NULL, 0, "--set %s=%s: %s",
                                   g->axes[a].key, g->axes[a].values[v], msg);
            }
            {
                run_check_opts o = {(size_t)s->sim.replications, c->series,
                                    max_mb};
                run_check_errs *errs = sim_xcalloc(1, sizeof *errs);
                climate_year *wx = NULL;
                int rc = run_check_scenario(s, c->tp, &o, &wx, NULL, errs);
                climate_year_free(wx);
                if (rc != SIM_OK) {
                    char msg[2048];
                    sim_err_format(&errs->e[0], msg, sizeof msg);
                    rc = sim_err_set(err, rc, NULL, 0, "--set %s=%s: %s",
                                     g->axes[a].key, g->axes[a].values[v], msg);
                    free(errs);
                    scenario_free(s);
                    return rc;
                }
                free(errs);
            }
            scenario_free(s);
        }
    return SIM_OK;
}

/* Why one long function: a sweep is a fixed sequence of phases that every
 * MPI rank must walk in step (options; the grid; set-up on every rank,
 * agreed by sweep_mpi_agree before anything runs; rank 0 finds the cases
 * not yet stored and broadcasts them; sweep_exec; rank 0 reads the table
 * back and prints it), and one `done:` label frees what any phase made.
 * Splitting the phases into functions would pass a dozen locals between
 * them and hide which steps are collective. What a case computes is not
 * here: app/sweep_exec.c runs each through app/runcase.h. */
int cmd_sweep(int argc, char **argv)
{
    static const struct option opts[] = {
        {"set", required_argument, NULL, 'S'},
        {"replications", required_argument, NULL, 'r'},
        {"seed", required_argument, NULL, 's'},
        {"jobs", required_argument, NULL, 'j'},
        {"db", required_argument, NULL, 'd'},
        {"format", required_argument, NULL, 'f'},
        {"metric", required_argument, NULL, 'm'},
        {"series", required_argument, NULL, 'T'},
        {"events", no_argument, NULL, 'E'},
        {"no-failures", no_argument, NULL, 'F'},
        {"no-model-uncertainty", no_argument, NULL, 'U'},
        {"quiet", no_argument, NULL, 'q'},
        {"shard", required_argument, NULL, 'P'},
        {"max-memory-mb", required_argument, NULL, 'M'},
        {"calibration", required_argument, NULL, 'c'},
        {"catalog", required_argument, NULL, 'C'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "sweep", *calib = NULL, *catdir = NULL,
               *db_path = RUN_STORE_DEFAULT_DB;
    const char **sets = sim_xcalloc((size_t)argc + 1, sizeof *sets);
    const char **metrics = sim_xcalloc((size_t)argc + 1, sizeof *metrics);
    const char *base_ov[2];
    char seed_ov[64], reps_ov[64], sweep_key[17], *calib_bytes = NULL,
                                                  *grid_text = NULL;
    size_t n_sets = 0, n_metrics = 0, n_base = 0, calib_n = 0, *todo = NULL;
    long ntodo = 0;
    unsigned long shard_i = 0, shard_n = 1;
    size_t n_mine = 0;
    uint64_t seed = 0;
    uint32_t reps = 0, jobs = 0;
    double max_mem_mb = RUN_CHECK_DEFAULT_MAX_MEMORY_MB;
    int fmt = CLI_FMT_TABLE, o, rc = CLI_EXIT_ERR, quiet = 0, setup, rank, size;
    sweep_ctx c;
    sweep_grid *g = NULL;
    catalog *cat = NULL;
    tp_model *tp = NULL;
    scenario *base = NULL;
    db *d = NULL;
    sweep_table *tab = NULL;
    sweep_progress pg;
    sweep_store_ctx sc;
    sim_err err;

    sim_err_clear(&err);
    sweep_ctx_default(&c);
    memset(&pg, 0, sizeof pg);
    if (sweep_mpi_init(&argc, &argv, &err) != SIM_OK) {
        free(sets);
        free(metrics);
        return cli_report(&err);
    }
    rank = sweep_mpi_rank();
    size = sweep_mpi_size();
    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (o) {
        case 'S':
            sets[n_sets++] = optarg;
            break;
        case 'm':
            metrics[n_metrics++] = optarg;
            break;
        case 'r':
            if (cli_u32(cmd, "--replications", optarg, 1, 100000, &reps) < 0)
                goto usage;
            break;
        case 's':
            if (cli_seed(cmd, "--seed", optarg, &seed) < 0)
                goto usage;
            snprintf(seed_ov, sizeof seed_ov, "simulation.seed=%lluL",
                     (unsigned long long)seed);
            base_ov[n_base++] = seed_ov;
            break;
        case 'j':
            if (cli_u32(cmd, "--jobs", optarg, 1, 4096, &jobs) < 0)
                goto usage;
            break;
        case 'd':
            db_path = optarg;
            break;
        case 'f':
            fmt = cli_format_parse(cmd, optarg,
                                   CLI_FMT_TABLE | CLI_FMT_JSON | CLI_FMT_CSV);
            if (fmt < 0)
                goto usage;
            break;
        case 'T':
            if (strcmp(optarg, "none") == 0)
                c.series = 0;
            else if (strcmp(optarg, "first") == 0)
                c.series = 1;
            else if (strcmp(optarg, "all") == 0)
                c.series = 2;
            else {
                cli_usage_error(
                    cmd, "--series: expected none, first or all (got '%s')",
                    optarg);
                goto usage;
            }
            break;
        case 'E':
            c.events = 1;
            break;
        case 'F':
            c.failures = 0;
            break;
        case 'U':
            c.model_uncertainty = 0;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'M':
            if (cli_double(cmd, "--max-memory-mb", optarg, 1, 1e9,
                           &max_mem_mb) < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'P': {
            /* I/N, both decimal, 0 <= I < N; the sweep key does not
             * depend on it, so the parts merge into one sweep. */
            char *e1 = NULL, *e2 = NULL;
            shard_i = strtoul(optarg, &e1, 10);
            if (e1 != optarg && *e1 == '/' && e1[1] >= '0' && e1[1] <= '9')
                shard_n = strtoul(e1 + 1, &e2, 10);
            if (e1 == optarg || *e1 != '/' || !e2 || *e2 || optarg[0] == '-' ||
                shard_n < 1 || shard_n > 1000000 || shard_i >= shard_n) {
                cli_usage_error(cmd,
                                "--shard: expected I/N with 0 <= I < N "
                                "(got '%s')",
                                optarg);
                goto usage;
            }
            break;
        }
        case 'c':
            calib = optarg;
            break;
        case 'C':
            catdir = optarg;
            break;
        case 'h':
            if (rank == 0)
                fputs(sweep_help, stdout);
            rc = CLI_EXIT_OK;
            goto done;
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
    if (n_base > 1) {
        cli_usage_error(cmd, "--seed given twice");
        goto usage;
    }
    if (reps) {
        snprintf(reps_ov, sizeof reps_ov, "simulation.replications=%u", reps);
        base_ov[n_base++] = reps_ov;
    }
    if (sweep_grid_parse(sets, n_sets, &g, &err) != SIM_OK) {
        rc = cli_report(&err);
        goto done;
    }
    for (size_t a = 0; a < g->n_axes; a++)
        for (size_t v = 0; v < g->axes[a].n; v++)
            if (strchr(g->axes[a].values[v], ';')) {
                cli_usage_error(
                    cmd, "--set %s: a value may not contain ';' (got %s)",
                    g->axes[a].key, g->axes[a].values[v]);
                goto usage;
            }

    /* Setup on every rank; all ranks agree before anything runs. */
    c.scenario_path = argv[optind];
    c.base_ov = base_ov;
    c.n_base = n_base;
    c.g = g;
    setup = catalog_load(catdir, &cat, &err);
    if (setup == SIM_OK)
        setup = calib ? tp_model_load(calib, &tp, &err)
                      : tp_model_default(&tp, &err);
    if (setup == SIM_OK)
        setup =
            scenario_load(c.scenario_path, cat, base_ov, n_base, &base, &err);
    c.cat = cat;
    c.tp = tp;
    if (setup == SIM_OK && n_metrics) {
        /* Metric names are checked against the base scenario's jobs now,
         * not after the sweep. */
        run_store_meta rm;
        run_store_opts st;
        sweep_metric_ref ref;
        run_store_opts_default(&st);
        run_store_meta_fill(&rm, base, &st, 1);
        for (size_t k = 0; k < n_metrics && setup == SIM_OK; k++)
            setup = sweep_metric_parse(metrics[k], &rm.m, &ref, &err);
        run_store_meta_free(&rm);
    }
    if (setup == SIM_OK && rank == 0 &&
        (setup = sweep_validate_grid(&c, max_mem_mb, &err)) == SIM_OK) {
        calib_bytes =
            sweep_read_file(calib ? calib : tp_model_default_path(), &calib_n);
        grid_text = sweep_grid_text(g);
        sweep_key_of(sweep_key, scenario_resolved_text(base), grid_text,
                     calib_bytes, calib_n, &c);
        if ((setup = cli_make_dirs(db_path, 0, &err)) == SIM_OK)
            setup = db_open(db_path, &d, &err);
    }
    if (setup != SIM_OK)
        rc = cli_report(&err);
    if (sweep_mpi_agree(setup) != SIM_OK) {
        if (setup == SIM_OK)
            rc = CLI_EXIT_ERR; /* another rank said why */
        goto done;
    }

    /* Rank 0 finds what is left to do and tells every rank. */
    todo = sim_xcalloc(g->n_cases ? g->n_cases : 1, sizeof *todo);
    for (size_t i = 0; i < g->n_cases; i++)
        n_mine += i % shard_n == shard_i;
    pg.total = n_mine;
    if (rank == 0) {
        for (size_t i = 0; i < g->n_cases; i++) {
            char *ck;
            if (i % shard_n != shard_i)
                continue;
            ck = sweep_case_key(g, i);
            int done_rc = db_case_done(d, sweep_key, ck, &err);
            free(ck);
            if (done_rc < 0) {
                ntodo = -1;
                break;
            }
            if (!done_rc)
                todo[ntodo++] = i;
        }
    }
    sweep_mpi_bcast_long(&ntodo, 1);
    if (ntodo < 0) {
        rc = rank == 0 ? cli_report(&err) : CLI_EXIT_ERR;
        goto done;
    }
    {
        long *tl = sim_xcalloc((size_t)ntodo + 1, sizeof *tl);
        for (long k = 0; rank == 0 && k < ntodo; k++)
            tl[k] = (long)todo[k];
        sweep_mpi_bcast_long(tl, (size_t)ntodo);
        for (long k = 0; k < ntodo; k++)
            todo[k] = (size_t)tl[k];
        free(tl);
    }
    if (!jobs) {
        long nc = sysconf(_SC_NPROCESSORS_ONLN);
        long local = sweep_mpi_local_size();
        nc = nc > 0 ? nc : 1;
        jobs = (uint32_t)(nc / local > 0 ? nc / local : 1);
    }
    pg.skipped = n_mine - (size_t)ntodo;
    pg.tty = isatty(STDERR_FILENO);
    pg.quiet = quiet || rank != 0;
    pg.last_step = -1;
    pg.t0 = sweep_now_s();
    if (!pg.quiet) {
        fprintf(stderr,
                "factorysim: sweep %s: %zu case(s), %zu already stored, %ld to "
                "run on "
                "%d rank(s) x %u thread(s), results in %s\n",
                rank == 0 ? sweep_key : "", n_mine, pg.skipped, ntodo, size,
                jobs, db_path);
    }
    memset(&sc, 0, sizeof sc);
    sc.c = &c;
    sc.d = d;
    sc.sweep_key = sweep_key;
    sc.mpi = size > 1;
#ifdef FACTORYSIM_MPI
    sc.mpi = 1;
#endif
    sc.pg = &pg;
    sweep_exec_install_signals();
    {
        int xr = sweep_exec(&c, todo, (size_t)ntodo, jobs, sweep_store_case,
                            &sc, &err);
        if (rank != 0) {
            rc = xr == SIM_OK ? CLI_EXIT_OK : CLI_EXIT_ERR;
            goto done;
        }
        if (ntodo > 0)
            sweep_progress_show(&pg, 1);
        if (xr == SIM_EINTR) {
            size_t stored = pg.skipped + pg.done + pg.elsewhere;
            rc = cli_error("interrupted: %zu of %zu cases are stored in %s "
                           "(%zu in this run); "
                           "run the same command again to resume",
                           stored, n_mine, db_path, pg.done);
            goto done;
        }
        if (xr != SIM_OK) {
            rc = cli_report(&err);
            goto done;
        }
    }
    if (tab == NULL && sweep_table_load(d, sweep_key, metrics, n_metrics, &tab,
                                        &err) != SIM_OK) {
        rc = cli_report(&err);
        goto done;
    }
    if (sweep_table_write(stdout, tab,
                          fmt == CLI_FMT_JSON  ? SWEEP_TABLE_JSON
                          : fmt == CLI_FMT_CSV ? SWEEP_TABLE_CSV
                                               : SWEEP_TABLE_TEXT) != SIM_OK ||
        fflush(stdout) != 0) {
        rc = cli_error("writing the summary failed");
        goto done;
    }
    if (pg.elsewhere && !pg.quiet)
        fprintf(stderr,
                "factorysim: sweep %s: %zu case(s) were stored meanwhile by "
                "another process; kept that copy\n",
                sweep_key, pg.elsewhere);
    if (sc.n_failed) {
        rc = cli_error(
            "%zu of %zu cases failed (first: %s); the others are stored",
            sc.n_failed, n_mine, sc.first_fail);
        goto done;
    }
    rc = CLI_EXIT_OK;
done:
    sweep_table_free(tab);
    db_close(d);
    free(todo);
    free(grid_text);
    free(calib_bytes);
    scenario_free(base);
    tp_model_free(tp);
    catalog_free(cat);
    sweep_grid_free(g);
    free(sets);
    free(metrics);
    sweep_mpi_finalize();
    return rc;
usage:
    rc = CLI_EXIT_USAGE;
    goto done;
}
