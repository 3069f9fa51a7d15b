/* cli/cmd_export.c: `factorysim export`: a run's per-job results, its time
 * series, or the list of runs, as CSV or JSON for spreadsheets and notebooks.
 * Columns are the result fields of models/resfield.h in SI units (the unit is
 * the name's suffix); docs/results-schema.md lists them.
 *
 * Exports are reproducible: no wall-clock time, absolute path, run id or MPI
 * rank (all depend on when and where a run was stored) unless --with-ids (the
 * id) or --with-times (all three) asks for them, so the same seed gives the
 * same bytes. Numbers print with 15 significant digits, NAN as an empty CSV
 * cell or JSON null. With --out the file is written whole or not at all
 * (temporary + rename).
 *
 * The command only reads (the database is opened read-only) and never converts
 * units: SI in, SI out, so a notebook can join exports with the database
 * directly. Column sets come from the resfield tables, so a new result field is
 * exported without an edit here. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "io/csv.h"
#include "io/db.h"
#include "io/json.h"
#include "models/resfield.h"
#include "sim/mem.h"

static const char export_help[] =
    "Usage: factorysim export --db FILE --what jobs|timeseries|runs [OPTIONS]\n"
    "\n"
    "Writes stored results as CSV or JSON (stdout unless --out):\n"
    "  jobs        every job in every replication of a run (CSV), plus the\n"
    "              summaries and site totals (JSON)\n"
    "  timeseries  the run's stored per-step site series (as stored: after\n"
    "              any downsampling; dt_s is each row's duration)\n"
    "  runs        one row per stored run: scenario, hash, seed, sweep case,\n"
    "              status and the site's mean energy, carbon and cost\n"
    "Values are SI (seconds, joules, watts, kg, USD) as the column names say.\n"
    "\n"
    "Options:\n"
    "  --db FILE        results database (default output/factorysim.db)\n"
    "  --what W         jobs, timeseries or runs (required)\n"
    "  --run ID         run to export (default: the latest; not for runs)\n"
    "  --format F       csv (default) or json\n"
    "  --out FILE       write to FILE instead of stdout\n"
    "  --with-ids       also export the run id (run_id, first column): the\n"
    "                   ID that report --run and export --run take\n"
    "  --with-times     also export run ids, creation times and MPI ranks\n"
    "                   (ids and times differ between otherwise identical\n"
    "                   runs, so neither is shown by default)\n"
    "  -h, --help       this help\n";

/* 0 is "not given", so --what is checked as required with a plain test. */
enum { W_JOBS = 1, W_TS = 2, W_RUNS = 3 };

/* What beyond the results an export shows (a mask): the run id, which is
 * the order runs were stored in (what `report --run` and `export --run`
 * take), and the creation time and MPI rank. Neither by default: both
 * differ between otherwise identical runs. --with-times implies ids. */
enum { SHOW_IDS = 1, SHOW_TIMES = 2 };

/* A CSV cell for a number: 15 significant digits, empty for NAN. */
static const char *num_cell(double v, char *buf, size_t n)
{
    if (isnan(v))
        buf[0] = '\0';
    else
        snprintf(buf, n, "%.15g", v);
    return buf;
}

/* A JSON number: integers stay integers. Integer fields (counts, flags) are
 * written as JSON integers so that consumers do not see 3.0 interruptions; the
 * table says which fields are. */
static jv *field_json(const void *rec, const resfield *f)
{
    double v = resfield_get(rec, f);
    return f->type == RESFIELD_DOUBLE ? jv_num(v) : jv_int((int64_t)v);
}

static jv *summary_json(const stat_summary *s)
{
    jv *o = jv_obj();
    jv_set(o, "n", jv_int((int64_t)s->n));
    jv_set(o, "mean", jv_num(s->mean));
    jv_set(o, "p10", jv_num(s->p10));
    jv_set(o, "p50", jv_num(s->p50));
    jv_set(o, "p90", jv_num(s->p90));
    jv_set(o, "min", jv_num(s->min));
    jv_set(o, "max", jv_num(s->max));
    return o;
}

/* One static buffer is enough: the string is copied into the JSON tree by
 * jv_str before seed_str is called again. */
static char seed_buf[32];

static const char *seed_str(uint64_t seed)
{
    snprintf(seed_buf, sizeof seed_buf, "%" PRIu64, seed);
    return seed_buf;
}

/* The run's identity, shared by the jobs and timeseries JSON. */
static jv *run_head(const db_run *r, int show)
{
    jv *o = jv_obj();
    if (show & SHOW_IDS)
        jv_set(o, "run_id", jv_int(r->id));
    if (show & SHOW_TIMES) {
        jv_set(o, "created_utc", jv_str(r->meta.created_utc));
        jv_set(o, "mpi_rank",
               r->meta.mpi_rank >= 0 ? jv_int(r->meta.mpi_rank) : jv_null());
    }
    jv_set(o, "scenario", jv_str(r->meta.scenario));
    jv_set(o, "config_hash", jv_str(r->config_hash));
    /* Seeds are uint64: an int64 JSON number would wrap above 2^63. */
    jv_set(o, "seed",
           r->meta.seed <= INT64_MAX ? jv_int((int64_t)r->meta.seed)
                                     : jv_str(seed_str(r->meta.seed)));
    jv_set(o, "replications", jv_int(r->meta.replications));
    jv_set(o, "version", jv_str(r->meta.version));
    jv_set(o, "status", jv_str(r->meta.status));
    if (r->meta.sweep_key) {
        jv_set(o, "sweep_key", jv_str(r->meta.sweep_key));
        jv_set(o, "case_key", jv_str(r->meta.case_key));
        jv_set(o, "case_index",
               r->meta.case_index >= 0 ? jv_int(r->meta.case_index)
                                       : jv_null());
        jv_set(o, "overrides_json", jv_str(r->meta.overrides_json));
    }
    return o;
}

/* Long format, one row per (job, replication), so every replication's value is
 * available for the user's own statistics; the summaries are in the JSON form
 * only, since a CSV cannot hold them without a second shape of row. */
static int jobs_csv(FILE *f, const db_run *r, int show)
{
    /* The job's identity columns from the run's stored definition (name, model,
     * precision, GPU type and count), so each row can be read without the
     * scenario file, plus the job index and replication that key it. */
    const size_t pre = 7;
    size_t nc = pre + resfield_n_job + (show & SHOW_IDS ? 1 : 0), c;
    const char **cells = sim_xcalloc(nc, sizeof *cells);
    char(*buf)[40] = sim_xcalloc(nc, sizeof *buf);
    int rc = SIM_OK;
    c = 0;
    if (show & SHOW_IDS)
        cells[c++] = "run_id";
    cells[c++] = "job";
    cells[c++] = "name";
    cells[c++] = "model";
    cells[c++] = "precision";
    cells[c++] = "gpu_type";
    cells[c++] = "gpus_requested";
    cells[c++] = "replication";
    for (size_t k = 0; k < resfield_n_job; k++)
        cells[c++] = resfield_job[k].name;
    rc = csvt_write_row(f, cells, nc);
    for (size_t j = 0; rc == SIM_OK && j < r->meta.n_jobs; j++)
        for (size_t k = 0; rc == SIM_OK && k < r->n_reps; k++) {
            const db_job_def *jd = &r->meta.jobs[j];
            c = 0;
            if (show & SHOW_IDS) {
                snprintf(buf[c], sizeof buf[c], "%" PRId64, r->id);
                cells[c] = buf[c];
                c++;
            }
            snprintf(buf[c], sizeof buf[c], "%zu", j);
            cells[c] = buf[c];
            c++;
            cells[c++] = jd->name;
            cells[c++] = jd->model;
            cells[c++] = jd->precision;
            cells[c++] = jd->gpu_type;
            snprintf(buf[c], sizeof buf[c], "%d", (int)jd->gpus);
            cells[c] = buf[c];
            c++;
            snprintf(buf[c], sizeof buf[c], "%u", r->reps[k].replication);
            cells[c] = buf[c];
            c++;
            for (size_t q = 0; q < resfield_n_job; q++, c++)
                cells[c] = num_cell(
                    resfield_get(&r->reps[k].jobs[j], &resfield_job[q]), buf[c],
                    sizeof buf[c]);
            rc = csvt_write_row(f, cells, nc);
        }
    free(cells);
    free(buf);
    return rc;
}

/* The same per-replication values as the CSV plus the stored summaries
 * (computed at store time by stats.c), so a notebook need not recompute
 * percentiles and gets exactly the ones run printed. */
static jv *jobs_json(const db_run *r, int show)
{
    jv *root = run_head(r, show), *jobs = jv_arr(), *site = jv_obj(),
       *sreps = jv_arr();
    jv *ssum = jv_obj();
    for (size_t j = 0; j < r->meta.n_jobs; j++) {
        const db_job_def *jd = &r->meta.jobs[j];
        jv *o = jv_obj(), *reps = jv_arr(), *sum = jv_obj();
        jv_set(o, "job", jv_int((int64_t)j));
        jv_set(o, "name", jv_str(jd->name));
        jv_set(o, "model", jv_str(jd->model));
        jv_set(o, "precision", jv_str(jd->precision));
        jv_set(o, "gpu_type", jv_str(jd->gpu_type));
        jv_set(o, "gpus_requested", jv_int(jd->gpus));
        jv_set(o, "tokens_target", jv_num(jd->tokens));
        for (size_t k = 0; k < r->n_reps; k++) {
            jv *rr = jv_obj();
            jv_set(rr, "replication", jv_int(r->reps[k].replication));
            for (size_t q = 0; q < resfield_n_job; q++)
                jv_set(rr, resfield_job[q].name,
                       field_json(&r->reps[k].jobs[j], &resfield_job[q]));
            jv_push(reps, rr);
        }
        for (size_t q = 0; q < resfield_n_job; q++)
            jv_set(sum, resfield_job[q].name,
                   summary_json(&r->job_summary[j * resfield_n_job + q]));
        jv_set(o, "replications", reps);
        jv_set(o, "summary", sum);
        jv_push(jobs, o);
    }
    for (size_t k = 0; k < r->n_reps; k++) {
        jv *rr = jv_obj();
        jv_set(rr, "replication", jv_int(r->reps[k].replication));
        for (size_t q = 0; q < resfield_n_site; q++)
            jv_set(rr, resfield_site[q].name,
                   field_json(&r->reps[k].site, &resfield_site[q]));
        jv_push(sreps, rr);
    }
    for (size_t q = 0; q < resfield_n_site; q++)
        jv_set(ssum, resfield_site[q].name, summary_json(&r->site_summary[q]));
    jv_set(site, "replications", sreps);
    jv_set(site, "summary", ssum);
    jv_set(root, "jobs", jobs);
    jv_set(root, "site", site);
    return root;
}

/* step and dt_s lead because a stored series may be downsampled: the row index
 * alone does not give time, and dt_s says how long each row lasted. */
static int ts_csv(FILE *f, const db_run *r)
{
    size_t nc = 3 + resfield_n_step, c;
    const char **cells = sim_xcalloc(nc, sizeof *cells);
    char(*buf)[40] = sim_xcalloc(nc, sizeof *buf);
    int rc;
    c = 0;
    cells[c++] = "replication";
    cells[c++] = "step";
    cells[c++] = "dt_s";
    for (size_t q = 0; q < resfield_n_step; q++)
        cells[c++] = resfield_step[q].name;
    rc = csvt_write_row(f, cells, nc);
    for (size_t k = 0; rc == SIM_OK && k < r->n_reps; k++)
        for (size_t i = 0; rc == SIM_OK && i < r->reps[k].n_steps; i++) {
            snprintf(buf[0], sizeof buf[0], "%u", r->reps[k].replication);
            snprintf(buf[1], sizeof buf[1], "%zu", i);
            cells[0] = buf[0];
            cells[1] = buf[1];
            cells[2] = num_cell(r->step_dt_s[k][i], buf[2], sizeof buf[2]);
            for (size_t q = 0; q < resfield_n_step; q++)
                cells[3 + q] = num_cell(
                    resfield_get(&r->reps[k].steps[i], &resfield_step[q]),
                    buf[3 + q], sizeof buf[3 + q]);
            rc = csvt_write_row(f, cells, nc);
        }
    free(cells);
    free(buf);
    return rc;
}

/* Columns as arrays, one object per replication that has a series. Column
 * arrays rather than an object per step: a year at 15-minute steps is 35,040
 * rows, and per-row objects would repeat every key 35,040 times. Replications
 * whose series was not stored (--series first) are skipped rather than written
 * as empty arrays. */
static jv *ts_json(const db_run *r, int show)
{
    jv *root = run_head(r, show), *series = jv_arr();
    jv_set(root, "step_s",
           r->meta.step_s > 0 ? jv_num(r->meta.step_s) : jv_null());
    /* step_s and downsample let a reader turn row indices into times without
     * dt_s; dt_s is still given per row as stored, so a reader need not assume
     * that every row covers the same time. */
    jv_set(root, "downsample", jv_int(r->meta.ts_downsample));
    for (size_t k = 0; k < r->n_reps; k++) {
        const res_rep *rp = &r->reps[k];
        jv *o, *cols, *dt;
        if (rp->n_steps == 0)
            continue;
        o = jv_obj();
        cols = jv_obj();
        dt = jv_arr();
        jv_set(o, "replication", jv_int(rp->replication));
        jv_set(o, "n_steps", jv_int((int64_t)rp->n_steps));
        for (size_t i = 0; i < rp->n_steps; i++)
            jv_push(dt, jv_num(r->step_dt_s[k][i]));
        jv_set(cols, "dt_s", dt);
        for (size_t q = 0; q < resfield_n_step; q++) {
            jv *a = jv_arr();
            for (size_t i = 0; i < rp->n_steps; i++)
                jv_push(a,
                        jv_num(resfield_get(&rp->steps[i], &resfield_step[q])));
            jv_set(cols, resfield_step[q].name, a);
        }
        jv_set(o, "columns", cols);
        jv_push(series, o);
    }
    jv_set(root, "series", series);
    return root;
}

/* Runs in an order that does not depend on completion order: plain runs in
 * storage order first, then each sweep's cases in grid order. Completion order
 * is not reproducible (workers and ranks finish in any order), so sweep cases
 * sort by grid index and key, and plain runs by id, which is their storage
 * order in one database. */
static int run_cmp(const void *pa, const void *pb)
{
    const db_run_row *a = pa, *b = pb;
    int c;
    if (!a->sweep_key != !b->sweep_key)
        return a->sweep_key ? 1 : -1;
    if (a->sweep_key) {
        if ((c = strcmp(a->sweep_key, b->sweep_key)) != 0)
            return c;
        if (a->case_index != b->case_index)
            return a->case_index < b->case_index ? -1 : 1;
        if ((c = strcmp(a->case_key, b->case_key)) != 0)
            return c;
    }
    return a->id < b->id ? -1 : a->id > b->id;
}

/* The few site totals a run listing needs to compare runs at a glance; the full
 * set is in --what jobs. */
static const char *const run_site_cols[] = {
    "facility_energy_j", "it_energy_j", "renewable_fraction", "co2_kg",
    "cost_usd",          "utilization",
};
#define N_RUN_SITE (sizeof run_site_cols / sizeof run_site_cols[0])

/* Runs are loaded one at a time (db_load_run without steps or events) so that
 * listing a database of thousands of runs never holds more than one run's
 * results in memory; the order is fixed by run_cmp before anything is written,
 * so the listing is reproducible whatever order the runs were stored in. The
 * CSV header is built from the same show mask as the rows, so the optional
 * columns cannot drift apart. */
static int runs_out(FILE *f, db *d, int json, int show, sim_err *err)
{
    db_run_row *rows;
    size_t n;
    int rc;
    jv *arr = json ? jv_arr() : NULL;
    if ((rc = db_list_runs(d, &rows, &n, err)) != SIM_OK) {
        jv_free(arr);
        return rc;
    }
    qsort(rows, n, sizeof *rows, run_cmp);
    if (!json) {
        const char *hdr[32];
        size_t c = 0;
        if (show & SHOW_IDS)
            hdr[c++] = "run_id";
        if (show & SHOW_TIMES) {
            hdr[c++] = "created_utc";
            hdr[c++] = "mpi_rank";
        }
        hdr[c++] = "scenario";
        hdr[c++] = "config_hash";
        hdr[c++] = "seed";
        hdr[c++] = "replications";
        hdr[c++] = "version";
        hdr[c++] = "status";
        hdr[c++] = "sweep_key";
        hdr[c++] = "case_index";
        hdr[c++] = "case_key";
        hdr[c++] = "overrides_json";
        for (size_t q = 0; q < N_RUN_SITE; q++) {
            /* Static so the header strings outlive this block until the row is
             * written; they are rebuilt identically on every call. */
            static char names[N_RUN_SITE][48];
            snprintf(names[q], sizeof names[q], "site_%s_mean",
                     run_site_cols[q]);
            hdr[c++] = names[q];
        }
        rc = csvt_write_row(f, hdr, c);
    }
    for (size_t i = 0; rc == SIM_OK && i < n; i++) {
        const db_run_row *w = &rows[i];
        db_run *r;
        double mean[N_RUN_SITE];
        /* Stopping at the first unreadable run, rather than skipping it, keeps
         * the listing from silently missing a run; the CSV written so far is
         * removed by the --out path, or cut short on stdout with exit 1. */
        if ((rc = db_load_run(d, w->id, 0, &r, err)) != SIM_OK)
            break;
        for (size_t q = 0; q < N_RUN_SITE; q++)
            mean[q] =
                r->site_summary[resfield_find(resfield_site, resfield_n_site,
                                              run_site_cols[q], NULL)]
                    .mean;
        if (json) {
            jv *o = run_head(r, show);
            for (size_t q = 0; q < N_RUN_SITE; q++) {
                char nm[48];
                snprintf(nm, sizeof nm, "site_%s_mean", run_site_cols[q]);
                jv_set(o, nm, jv_num(mean[q]));
            }
            jv_push(arr, o);
        } else {
            const char *cells[32];
            char b[16][40];
            size_t c = 0;
            if (show & SHOW_IDS) {
                snprintf(b[0], sizeof b[0], "%" PRId64, w->id);
                cells[c++] = b[0];
            }
            if (show & SHOW_TIMES) {
                cells[c++] = w->created_utc;
                if (w->mpi_rank >= 0)
                    snprintf(b[1], sizeof b[1], "%d", (int)w->mpi_rank);
                else
                    b[1][0] = '\0';
                cells[c++] = b[1];
            }
            cells[c++] = w->scenario;
            cells[c++] = w->config_hash;
            snprintf(b[2], sizeof b[2], "%" PRIu64, w->seed);
            cells[c++] = b[2];
            snprintf(b[3], sizeof b[3], "%u", w->replications);
            cells[c++] = b[3];
            cells[c++] = w->version;
            cells[c++] = w->status;
            cells[c++] = w->sweep_key;
            if (w->case_index >= 0)
                snprintf(b[4], sizeof b[4], "%" PRId64, w->case_index);
            else
                b[4][0] = '\0';
            cells[c++] = b[4];
            cells[c++] = w->case_key;
            cells[c++] = w->overrides_json;
            for (size_t q = 0; q < N_RUN_SITE; q++)
                cells[c++] = num_cell(mean[q], b[5 + q], sizeof b[5 + q]);
            rc = csvt_write_row(f, cells, c);
        }
        db_run_free(r);
    }
    if (rc == SIM_OK && json) {
        jv *root = jv_obj();
        jv_set(root, "runs", arr);
        arr = NULL;
        rc = jv_write(root, f, 1);
        jv_free(root);
    }
    jv_free(arr);
    db_run_rows_free(rows, n);
    if (rc == SIM_EIO && !err->code)
        sim_err_set(err, SIM_EIO, NULL, 0, "write failed");
    return rc;
}

static int what_parse(const char *s)
{
    if (strcmp(s, "jobs") == 0)
        return W_JOBS;
    if (strcmp(s, "timeseries") == 0)
        return W_TS;
    if (strcmp(s, "runs") == 0)
        return W_RUNS;
    return -1;
}

/* One entry point for stdout and --out alike, so both paths produce the same
 * bytes. JSON of the jobs is indented for reading; the time series is compact
 * because it is large and read by programs. */
static int export_to(FILE *f, db *d, int what, int64_t run_id, int json,
                     int show, sim_err *err)
{
    db_run *r;
    int rc;
    if (what == W_RUNS)
        return runs_out(f, d, json, show, err);
    if (run_id < 0 && (rc = db_latest_run(d, &run_id, err)) != SIM_OK)
        return rc;
    if ((rc = db_load_run(d, run_id, what == W_TS ? DB_LOAD_STEPS : 0, &r,
                          err)) != SIM_OK)
        return rc;
    /* A run stored without its series has downsample 0; exporting an empty
     * table would look like a run with no steps, so it is an error naming the
     * fix. */
    if (what == W_TS && r->meta.ts_downsample == 0) {
        rc = sim_err_set(err, SIM_ENOTFOUND, NULL, 0,
                         "run %" PRId64
                         " has no stored time series (store it with the run)",
                         run_id);
    } else if (json) {
        jv *v = what == W_JOBS ? jobs_json(r, show) : ts_json(r, show);
        rc = jv_write(v, f, what == W_JOBS);
        jv_free(v);
    } else {
        rc = what == W_JOBS ? jobs_csv(f, r, show) : ts_csv(f, r);
    }
    if (rc == SIM_EIO && !err->code)
        sim_err_set(err, SIM_EIO, NULL, 0, "write failed");
    db_run_free(r);
    return rc;
}

/* Options are checked in full before the database is opened (exit 2 without
 * touching files); the export itself is one call, and the --out branch wraps it
 * in the temporary file and rename so that a failed export leaves any previous
 * file untouched. stdout is flushed here, not only in main, so a write error is
 * reported with the export's own message. */
int cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, NULL, 'd'},
        {"what", required_argument, NULL, 'w'},
        {"run", required_argument, NULL, 'r'},
        {"format", required_argument, NULL, 'f'},
        {"out", required_argument, NULL, 'o'},
        {"with-times", no_argument, NULL, 't'},
        {"with-ids", no_argument, NULL, 'i'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "export", *dbpath = "output/factorysim.db", *out = NULL;
    int what = 0, fmt = CLI_FMT_CSV, show = 0, o, rc;
    int64_t run_id = -1;
    uint64_t u;
    db *d;
    sim_err err;

    while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (o) {
        case 'd':
            dbpath = optarg;
            break;
        case 'w':
            if ((what = what_parse(optarg)) < 0)
                return cli_usage_error(
                    cmd, "--what must be jobs, timeseries or runs (got %s)",
                    optarg);
            break;
        case 'r':
            if (cli_u64(cmd, "--run", optarg, &u) != 0)
                return CLI_EXIT_USAGE;
            if (u < 1 || u > INT64_MAX)
                return cli_usage_error(
                    cmd, "--run must be a run id >= 1 (got %s)", optarg);
            run_id = (int64_t)u;
            break;
        case 'f':
            if ((fmt = cli_format_parse(cmd, optarg,
                                        CLI_FMT_CSV | CLI_FMT_JSON)) < 0)
                return CLI_EXIT_USAGE;
            break;
        case 'o':
            out = optarg;
            break;
        case 't':
            show |= SHOW_IDS | SHOW_TIMES;
            break;
        case 'i':
            show |= SHOW_IDS;
            break;
        case 'h':
            fputs(export_help, stdout);
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
    if (!what)
        return cli_usage_error(cmd,
                               "--what is required (jobs, timeseries or runs)");
    /* Refused rather than ignored: a user passing --run with --what runs
     * expects a filter that does not exist. */
    if (what == W_RUNS && run_id >= 0)
        return cli_usage_error(cmd, "--run does not apply to --what runs");
    sim_err_clear(&err);
    if (db_open_readonly(dbpath, &d, &err) != SIM_OK)
        return cli_report(&err);
    if (!out) {
        rc =
            export_to(stdout, d, what, run_id, fmt == CLI_FMT_JSON, show, &err);
        if (rc == SIM_OK && fflush(stdout) != 0)
            rc = sim_err_set(&err, SIM_EIO, NULL, 0,
                             "cannot write to standard output");
    } else {
        /* Whole file or nothing: write beside it, then rename over it. */
        char tmp[1100];
        FILE *f;
        snprintf(tmp, sizeof tmp, "%s.tmp", out);
        if ((rc = cli_make_dirs(out, 0, &err)) != SIM_OK) {
            /* err says which folder and why */
        } else if (!(f = fopen(tmp, "wb"))) {
            rc = sim_err_set(&err, SIM_EIO, out, 0, "cannot write file: %s",
                             strerror(errno));
        } else {
            /* fclose is checked even when the export succeeded: buffered data
             * is written at close, and a full disk shows up only there. */
            rc = export_to(f, d, what, run_id, fmt == CLI_FMT_JSON, show, &err);
            if (fclose(f) != 0 && rc == SIM_OK)
                rc = sim_err_set(&err, SIM_EIO, out, 0, "write failed");
            if (rc == SIM_OK && rename(tmp, out) != 0)
                rc = sim_err_set(&err, SIM_EIO, out, 0,
                                 "cannot rename %s into place", tmp);
            if (rc != SIM_OK)
                remove(tmp);
        }
    }
    db_close(d);
    return rc == SIM_OK ? CLI_EXIT_OK : cli_report(&err);
}
