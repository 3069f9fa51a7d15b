/* tests/test_report.c: `factorysim report` and `factorysim export` on a
 * database filled with fixture runs: the bundle's files, the summary CSV
 * read back with libcsv (io/csv.h), exports read back as CSV and JSON
 * (io/json.h), byte-identical output, and the errors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <png.h>
#include <regex.h>
#include <sys/stat.h>

#include "cli_util.h"
#include "fixture_results.h"
#include "io/csv.h"
#include "app/report_charts.h"
#include "io/db.h"
#include "io/json.h"
#include "io/plot_views.h"
#include "models/resfield.h"
#include "testutil.h"

#define N_REPS 6
#define N_STEPS 2880

static char dir[256], dbp[320], db2[320];
static res_rep reps[N_REPS];

static void store(const char *path, const char *created, int with_ts,
                  uint64_t seed)
{
    db_run_meta m = fx_meta(N_REPS, N_STEPS);
    db *d;
    sim_err e;
    m.created_utc = created;
    m.store_timeseries = m.store_events = with_ts;
    m.seed = seed;
    assert_int_equal(db_open(path, &d, &e), SIM_OK);
    assert_int_equal(db_store_run(d, &m, reps, N_REPS, NULL, &e), SIM_OK);
    db_close(d);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fs-test-report-%ld", (long)getpid());
    mkdir(dir, 0755);
    snprintf(dbp, sizeof dbp, "%s/a.db", dir);
    snprintf(db2, sizeof db2, "%s/b.db", dir);
    for (uint32_t r = 0; r < N_REPS; r++)
        fx_rep(&reps[r], r, N_STEPS, r == 0, r == 0);
    /* a.db: run 1 with series and log, run 2 without. b.db: run 1 again,
     * stored at another time. */
    store(dbp, "2026-01-01T00:00:00Z", 1, 42);
    store(dbp, "2026-01-02T00:00:00Z", 0, 43);
    store(db2, "2027-06-30T12:00:00Z", 1, 42);
    return 0;
}

static int teardown(void **state)
{
    char cmd[300];
    (void)state;
    for (uint32_t r = 0; r < N_REPS; r++)
        res_rep_free(&reps[r]);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int run(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static char out[1 << 20], err[8192];

/* Runs factorysim with the formatted arguments into out/err. */
static int run(const char *fmt, ...)
{
    char args[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return fs_run(args, out, sizeof out, err, sizeof err);
}

static void assert_png_page_clear(const char *path);

static void assert_files_equal(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    unsigned char *x = test_slurp(a, &na), *y = test_slurp(b, &nb);
    if (!x || !y || na != nb || memcmp(x, y, na) != 0)
        fail_msg("%s and %s differ", a, b);
    free(x);
    free(y);
}

static void assert_png_size(const char *path)
{
    size_t n = 0;
    unsigned char *b = test_slurp(path, &n);
    if (!b)
        fail_msg("%s missing", path);
    assert_true(n > 8000);
    assert_memory_equal(b + 12, "IHDR", 4);
    assert_int_equal((b[16] << 24 | b[17] << 16 | b[18] << 8 | b[19]), 1200);
    assert_int_equal((b[20] << 24 | b[21] << 16 | b[22] << 8 | b[23]), 700);
    free(b);
}

static const char *bundle_files[] = {
    "power",           "battery_soc",     "jobs_gantt",       "time_to_train_1",
    "time_to_train_2", "time_to_train_3", "energy_by_source",
};
#define N_BUNDLE (sizeof bundle_files / sizeof bundle_files[0])

static void test_report_writes_every_chart_and_summary(void **state)
{
    char d1[400], p[500];
    (void)state;
    snprintf(d1, sizeof d1, "%s/rep1", dir);
    mkdir(d1, 0755);
    assert_int_equal(run("report --db %s --run 1 --out %s", dbp, d1), 0);
    assert_non_null(strstr(out, "report of run 1 (fixture-site)"));
    for (size_t i = 0; i < N_BUNDLE; i++) {
        snprintf(p, sizeof p, "%s/%s.png", d1, bundle_files[i]);
        assert_png_size(p);
    }
    snprintf(p, sizeof p, "%s/summary.md", d1);
    {
        size_t n;
        char *md = (char *)test_slurp(p, &n);
        assert_non_null(md);
        assert_non_null(strstr(md, "# Site proposal: fixture-site"));
        assert_non_null(strstr(md, "| IT capacity | 3.5 MW |"));
        assert_non_null(strstr(md, "2304 x GB300"));
        assert_non_null(strstr(md, "battery second-life-1 2 MW / 10 MWh"));
        assert_non_null(strstr(
            md,
            "![Job timeline with interruptions and pauses](jobs_gantt.png)"));
        assert_null(strstr(md, "2026-01-01")); /* no wall-clock time */
        assert_null(strstr(md, dir));          /* no absolute path */
        free(md);
    }
}

/* summary.csv read back with libcsv: a site row and one row per job, and
 * the P50 time to train equals the stored summary converted to days. */
static void test_report_summary_csv_reads_back_with_units(void **state)
{
    char d1[400], p[500];
    csvt *t;
    sim_err e;
    db *d;
    db_run *r;
    (void)state;
    snprintf(d1, sizeof d1, "%s/rep2", dir);
    mkdir(d1, 0755);
    assert_int_equal(run("report --db %s --run 1 --out %s", dbp, d1), 0);
    snprintf(p, sizeof p, "%s/summary.csv", d1);
    assert_int_equal(csvt_read(p, &t, &e), SIM_OK);
    assert_int_equal(t->n_rows, 1 + FX_N_JOBS);
    assert_true(csvt_col(t, "time_to_train_days_p50") >= 0);
    assert_true(csvt_col(t, "facility_energy_mwh_p90") >= 0);
    assert_true(csvt_col(t, "co2_t_p10") >= 0);
    assert_true(csvt_col(t, "cost_usd_mean") >= 0);
    assert_string_equal(t->rows[0][csvt_col(t, "scope")], "site");
    assert_string_equal(t->rows[0][csvt_col(t, "name")], "Fixture Flats, NV");
    assert_string_equal(t->rows[2][csvt_col(t, "name")],
                        fx_jobs[1].name); /* quoted */
    assert_int_equal(db_open_readonly(dbp, &d, &e), SIM_OK);
    assert_int_equal(db_load_run(d, 1, 0, &r, &e), SIM_OK);
    for (size_t j = 0; j < FX_N_JOBS; j++) {
        int f = resfield_find(resfield_job, resfield_n_job, "time_to_train_s",
                              NULL);
        int g = resfield_find(resfield_job, resfield_n_job, "facility_energy_j",
                              NULL);
        assert_close(
            atof(t->rows[1 + j][csvt_col(t, "time_to_train_days_p50")]),
            r->job_summary[j * resfield_n_job + (size_t)f].p50 / 86400.0,
            1e-13);
        assert_close(
            atof(t->rows[1 + j][csvt_col(t, "facility_energy_mwh_p90")]),
            r->job_summary[j * resfield_n_job + (size_t)g].p90 / 3.6e9, 1e-13);
    }
    db_run_free(r);
    db_close(d);
    csvt_free(t);
}

static void test_report_is_byte_identical_on_repeat(void **state)
{
    static const char *const fmt[2] = {"png", "svg"};
    (void)state;
    for (int k = 0; k < 2; k++) {
        char a[400], b[400], pa[500], pb[500];
        snprintf(a, sizeof a, "%s/same-a-%s", dir, fmt[k]);
        snprintf(b, sizeof b, "%s/same-b-%s", dir, fmt[k]);
        mkdir(a, 0755);
        mkdir(b, 0755);
        assert_int_equal(
            run("report --db %s --run 1 --out %s --format %s", dbp, a, fmt[k]),
            0);
        /* The same run stored in another database at another time. */
        assert_int_equal(
            run("report --db %s --out %s --format %s", db2, b, fmt[k]), 0);
        for (size_t i = 0; i < N_BUNDLE; i++) {
            snprintf(pa, sizeof pa, "%s/%s.%s", a, bundle_files[i], fmt[k]);
            snprintf(pb, sizeof pb, "%s/%s.%s", b, bundle_files[i], fmt[k]);
            assert_files_equal(pa, pb);
        }
        snprintf(pa, sizeof pa, "%s/summary.md", a);
        snprintf(pb, sizeof pb, "%s/summary.md", b);
        assert_files_equal(pa, pb);
        snprintf(pa, sizeof pa, "%s/summary.csv", a);
        snprintf(pb, sizeof pb, "%s/summary.csv", b);
        assert_files_equal(pa, pb);
    }
}

static void
test_report_latest_run_without_series_notes_skipped_charts(void **state)
{
    char d1[400], p[500];
    size_t n;
    char *md;
    (void)state;
    snprintf(d1, sizeof d1, "%s/rep3", dir);
    mkdir(d1, 0755);
    assert_int_equal(run("report --db %s --out %s", dbp, d1), 0);
    assert_non_null(strstr(out, "report of run 2"));
    assert_non_null(strstr(out, "not drawn: Power by source (daily means)"));
    assert_non_null(strstr(out, "not drawn: Battery state of charge"));
    snprintf(p, sizeof p, "%s/power.png", d1);
    assert_int_equal(access(p, F_OK), -1);
    snprintf(p, sizeof p, "%s/jobs_gantt.png", d1);
    assert_png_size(p);
    snprintf(p, sizeof p, "%s/summary.md", d1);
    md = (char *)test_slurp(p, &n);
    assert_non_null(md);
    assert_non_null(
        strstr(md, "- Not drawn: Power by source (daily means), unserved "
                   "demand, IT capacity and supply contract (no time series "
                   "stored with this run)"));
    free(md);
}

static void test_report_errors_are_clear(void **state)
{
    char p[500];
    FILE *f;
    (void)state;
    /* A missing output folder is made (issue 12.6); one under a file
     * cannot be. */
    assert_int_equal(run("report --db %s --out %s/missing/folder", dbp, dir),
                     0);
    assert_int_equal(run("report --db %s --out %s/x", dbp, dbp), 1);
    assert_non_null(strstr(err, "cannot create the folder"));
    assert_int_equal(run("report --db %s --out %s", dbp, dbp), 1); /* a file */
    assert_int_equal(run("report --db %s --run 99 --out %s", dbp, dir), 1);
    assert_non_null(strstr(err, "no run with id 99"));
    assert_int_equal(run("report --db %s --out %s --format gif", dbp, dir), 2);
    assert_int_equal(run("report --db %s", dbp), 2);
    snprintf(p, sizeof p, "%s/garbage.db", dir);
    f = fopen(p, "w");
    for (int i = 0; i < 100; i++)
        fputs("name = \"not a database\";\n", f);
    fclose(f);
    assert_int_equal(run("report --db %s --out %s", p, dir), 1);
    {
        char want[700];
        snprintf(want, sizeof want,
                 "factorysim: %s: not a factorysim results database (", p);
        assert_non_null(strstr(err, want));
    }
    assert_int_equal(run("export --db %s/none.db --what runs", dir), 1);
}

/* Jobs CSV read back: every cell equals the stored value. */
static void test_export_jobs_csv_reads_back(void **state)
{
    char p[500];
    csvt *t;
    sim_err e;
    (void)state;
    snprintf(p, sizeof p, "%s/jobs.csv", dir);
    assert_int_equal(run("export --db %s --run 1 --what jobs --out %s", dbp, p),
                     0);
    assert_int_equal(csvt_read(p, &t, &e), SIM_OK);
    assert_int_equal(t->n_rows, FX_N_JOBS * N_REPS);
    for (size_t i = 0; i < t->n_rows; i++) {
        size_t j = (size_t)atoi(t->rows[i][csvt_col(t, "job")]);
        size_t k = (size_t)atoi(t->rows[i][csvt_col(t, "replication")]);
        assert_string_equal(t->rows[i][csvt_col(t, "name")], fx_jobs[j].name);
        for (size_t q = 0; q < resfield_n_job; q++) {
            const char *cell = t->rows[i][csvt_col(t, resfield_job[q].name)];
            double v = resfield_get(&reps[k].jobs[j], &resfield_job[q]);
            if (isnan(v))
                assert_string_equal(cell, "");
            else
                assert_close(atof(cell), v, 1e-14);
        }
    }
    assert_int_equal(csvt_col(t, "run_id"), -1);
    csvt_free(t);
}

static void test_export_json_reads_back(void **state)
{
    jv *v;
    sim_err e;
    const jv *jobs, *rr, *series;
    double x;
    (void)state;
    assert_int_equal(
        run("export --db %s --run 1 --what jobs --format json", dbp), 0);
    assert_int_equal(jv_parse(out, &v, &e), SIM_OK);
    assert_string_equal(jv_string(jv_get(v, "scenario")), "fixture-site");
    jobs = jv_get(v, "jobs");
    assert_int_equal(jv_len(jobs), FX_N_JOBS);
    assert_string_equal(jv_string(jv_get(jv_at(jobs, 1), "name")),
                        fx_jobs[1].name);
    rr = jv_at(jv_get(jv_at(jobs, 2), "replications"), 4);
    assert_true(jv_number(jv_get(rr, "co2_kg"), &x));
    assert_close(x, reps[4].jobs[2].co2_kg, 1e-14);
    assert_true(jv_number(
        jv_get(jv_get(jv_get(jv_at(jobs, 0), "summary"), "goodput"), "n"), &x));
    assert_close(x, N_REPS, 0);
    assert_null(jv_get(v, "created_utc"));
    jv_free(v);

    assert_int_equal(
        run("export --db %s --run 1 --what timeseries --format json", dbp), 0);
    assert_int_equal(jv_parse(out, &v, &e), SIM_OK);
    series = jv_get(v, "series");
    assert_int_equal(jv_len(series), 1);
    assert_int_equal(
        jv_len(jv_get(jv_get(jv_at(series, 0), "columns"), "facility_w")),
        N_STEPS);
    assert_true(jv_number(
        jv_at(jv_get(jv_get(jv_at(series, 0), "columns"), "grid_w"), 77), &x));
    assert_close(x, reps[0].steps[77].source_w[SRC_GRID], 1e-14);
    jv_free(v);

    assert_int_equal(
        run("export --db %s --what runs --format json --with-times", dbp), 0);
    assert_int_equal(jv_parse(out, &v, &e), SIM_OK);
    assert_int_equal(jv_len(jv_get(v, "runs")), 2);
    assert_string_equal(
        jv_string(jv_get(jv_at(jv_get(v, "runs"), 1), "created_utc")),
        "2026-01-02T00:00:00Z");
    jv_free(v);
}

static void test_export_timeseries_csv_has_every_step(void **state)
{
    char p[500];
    csvt *t;
    sim_err e;
    (void)state;
    snprintf(p, sizeof p, "%s/ts.csv", dir);
    assert_int_equal(
        run("export --db %s --run 1 --what timeseries --out %s", dbp, p), 0);
    assert_int_equal(csvt_read(p, &t, &e), SIM_OK);
    assert_int_equal(t->n_rows, N_STEPS);
    assert_close(atof(t->rows[500][csvt_col(t, "soc_frac")]),
                 reps[0].steps[500].soc_frac, 1e-14);
    assert_close(atof(t->rows[500][csvt_col(t, "dt_s")]), FX_STEP_S, 0);
    csvt_free(t);
    assert_int_equal(run("export --db %s --run 2 --what timeseries", dbp), 1);
    assert_non_null(strstr(err, "no stored time series"));
}

/* Same run, stored in two databases at different times: identical export
 * bytes unless --with-times asks for the times. */
static void test_export_same_seed_gives_same_bytes(void **state)
{
    static const char *const what[3] = {"jobs", "timeseries", "runs"};
    static char first[1 << 20];
    (void)state;
    for (int w = 0; w < 3; w++)
        for (int fm = 0; fm < 2; fm++) {
            const char *f = fm ? "json" : "csv";
            assert_int_equal(run("export --db %s --what %s --format %s%s", db2,
                                 what[w], f, w < 2 ? " --run 1" : ""),
                             0);
            memcpy(first, out, sizeof first);
            if (w < 2)
                assert_int_equal(
                    run("export --db %s --what %s --format %s --run 1", dbp,
                        what[w], f),
                    0);
            else /* a.db holds a second run: compare db2 with itself via --out
                  */
                assert_int_equal(run("export --db %s --what %s --format %s",
                                     db2, what[w], f),
                                 0);
            assert_string_equal(out, first);
        }
    assert_int_equal(
        run("export --db %s --what jobs --run 1 --with-times", db2), 0);
    memcpy(first, out, sizeof first);
    assert_int_equal(
        run("export --db %s --what jobs --run 1 --with-times", dbp), 0);
    assert_string_equal(
        out, first); /* run ids equal (1), no time column in jobs CSV */
    assert_int_equal(run("export --db %s --what runs --with-times", db2), 0);
    assert_non_null(strstr(out, "2027-06-30T12:00:00Z"));
    assert_int_equal(run("export --db %s --what bogus", dbp), 2);
    assert_int_equal(run("export --db %s --what runs --run 1", dbp), 2);
}

/* export --what runs --with-ids shows the id that report --run and
 * export --run take (issue 12.8): the row of seed 43 carries id N, and
 * run N exported by id is the run of seed 43. Not shown by default. */
static void test_export_with_ids_shows_the_run_id_report_takes(void **state)
{
    const char *row;
    long id = -1;
    (void)state;
    assert_int_equal(run("export --db %s --what runs", dbp), 0);
    assert_null(strstr(out, "run_id"));
    assert_int_equal(run("export --db %s --what runs --with-ids", dbp), 0);
    assert_true(strncmp(out, "run_id,scenario,config_hash,seed,", 33) == 0);
    assert_null(strstr(out, "created_utc"));
    /* Find the row whose seed (fourth column) is 43. */
    for (row = strchr(out, '\n'); row && row[1]; row = strchr(row + 1, '\n')) {
        char sc[64], hash[64];
        long rid, seed;
        if (sscanf(row + 1, "%ld,%63[^,],%63[^,],%ld,", &rid, sc, hash,
                   &seed) == 4 &&
            seed == 43)
            id = rid;
    }
    assert_true(id >= 1);
    assert_int_equal(
        run("export --db %s --what jobs --run %ld --format json", dbp, id), 0);
    assert_non_null(strstr(out, "\"seed\": 43"));
    assert_int_equal(
        run("report --db %s --run %ld --out %s/by-id", dbp, id, dir), 0);
    /* JSON carries it too, as run_id. */
    assert_int_equal(
        run("export --db %s --what runs --with-ids --format json", dbp), 0);
    assert_non_null(strstr(out, "\"run_id\": 2"));
}

/* ---- the chart list (app/report_charts.h): one test per chart ---- */

/* Draws chart id of run run_id of path into a fresh folder; returns the
 * outcome with the files drawn and the notes in *o (caller frees). */
static report_out *draw_one(const char *path, int64_t run_id, int load,
                            const char *id, int *rc)
{
    static int k;
    char *sub = malloc(400);
    report_out *o = calloc(1, sizeof *o);
    db *d;
    db_run *r;
    sim_err e;
    size_t i;
    snprintf(sub, 400, "%s/chart-%s-%d", dir, id, k++);
    mkdir(sub, 0755);
    o->dir = sub;
    o->ext = "png";
    assert_int_equal(db_open_readonly(path, &d, &e), SIM_OK);
    assert_int_equal(db_load_run(d, run_id, load, &r, &e), SIM_OK);
    for (i = 0; i < report_n_charts; i++)
        if (strcmp(report_charts[i].id, id) == 0)
            break;
    assert_true(i < report_n_charts);
    {
        report_src src = {r, d, NULL, NULL, NULL, 0, NULL};
        *rc = report_charts[i].draw(&src, o, &e);
    }
    db_run_free(r);
    db_close(d);
    return o;
}

static void assert_drew(const report_out *o, const char *file)
{
    char p[600];
    for (int i = 0; i < o->n; i++)
        if (strcmp(o->file[i], file) == 0) {
            snprintf(p, sizeof p, "%s/%s", o->dir, file);
            assert_png_size(p);
            return;
        }
    fail_msg("%s not drawn (%d drawn, %d not)", file, o->n, o->n_skipped);
}

static void free_out(report_out *o)
{
    free((char *)o->dir);
    free(o);
}

static void test_report_chart_power(void **state)
{
    int rc;
    report_out *o = draw_one(dbp, 1, DB_LOAD_STEPS, "power", &rc);
    (void)state;
    assert_int_equal(rc, SIM_OK);
    assert_int_equal(o->n, 1);
    assert_drew(o, "power.png");
    free_out(o);
    /* Run 2 stored no series: noted as not drawn, with the reason. */
    o = draw_one(dbp, 2, DB_LOAD_STEPS, "power", &rc);
    assert_int_equal(rc, SIM_OK);
    assert_int_equal(o->n, 0);
    assert_int_equal(o->n_skipped, 1);
    assert_non_null(strstr(o->skipped[0], "no time series"));
    free_out(o);
}

static void test_report_chart_battery_soc(void **state)
{
    int rc;
    report_out *o = draw_one(dbp, 1, DB_LOAD_STEPS, "battery_soc", &rc);
    (void)state;
    assert_int_equal(rc, SIM_OK);
    assert_drew(o, "battery_soc.png");
    free_out(o);
}

static void test_report_chart_jobs_gantt(void **state)
{
    int rc;
    report_out *o =
        draw_one(dbp, 1, DB_LOAD_STEPS | DB_LOAD_EVENTS, "jobs_gantt", &rc);
    (void)state;
    assert_int_equal(rc, SIM_OK);
    assert_drew(o, "jobs_gantt.png");
    free_out(o);
}

/* One chart per job, numbered in scenario order. */
static void test_report_chart_time_to_train(void **state)
{
    int rc;
    report_out *o = draw_one(dbp, 1, 0, "time_to_train", &rc);
    (void)state;
    assert_int_equal(rc, SIM_OK);
    assert_int_equal(o->n, FX_N_JOBS);
    assert_drew(o, "time_to_train_1.png");
    assert_drew(o, "time_to_train_3.png");
    assert_non_null(strstr(o->what[1], fx_jobs[1].name));
    free_out(o);
}

static void test_report_chart_energy_by_source(void **state)
{
    int rc;
    report_out *o = draw_one(dbp, 1, 0, "energy_by_source", &rc);
    (void)state;
    assert_int_equal(rc, SIM_OK);
    assert_drew(o, "energy_by_source.png");
    free_out(o);
}

/* A plain run has no sweep chart (and notes nothing); a case of a stored
 * sweep gets the metric against the swept key. */
static void test_report_chart_sweep(void **state)
{
    char sp[400];
    int rc;
    report_out *o = draw_one(dbp, 1, 0, "sweep", &rc);
    (void)state;
    assert_int_equal(rc, SIM_OK);
    assert_int_equal(o->n + o->n_skipped, 0);
    free_out(o);
    snprintf(sp, sizeof sp, "%s/sweep.db", dir);
    for (int c = 0; c < 3; c++) {
        db_run_meta m = fx_meta(N_REPS, N_STEPS);
        char ck[80], ov[80];
        db *d;
        sim_err e;
        snprintf(ck, sizeof ck, "energy.solar.capacity_mw=%d", 10 * (c + 1));
        snprintf(ov, sizeof ov, "{\"energy.solar.capacity_mw\": %d}",
                 10 * (c + 1));
        m.store_timeseries = m.store_events = 0;
        m.sweep_key = "0123456789abcdef";
        m.case_key = ck;
        m.overrides_json = ov;
        m.case_index = c;
        assert_int_equal(db_open(sp, &d, &e), SIM_OK);
        assert_int_equal(db_store_run(d, &m, reps, N_REPS, NULL, &e), SIM_OK);
        db_close(d);
    }
    o = draw_one(sp, 2, 0, "sweep", &rc);
    assert_int_equal(rc, SIM_OK);
    assert_drew(o, "sweep.png");
    /* Words, not key paths: the swept key by its label and unit, the case
     * named in no title as "key=value"; the long title stays on the page. */
    assert_string_equal(o->meta[0].xlabel, "solar capacity [MW]");
    assert_null(strchr(o->meta[0].title, '='));
    assert_null(strstr(o->meta[0].title, "energy.solar"));
    {
        char p[600];
        snprintf(p, sizeof p, "%s/sweep.png", o->dir);
        assert_png_page_clear(p);
    }
    free_out(o);
}

/* report --runs (issue 25): nothing for a one-run report; for runs 1 and 2
 * of a.db one page with a lane per run, the registry's label and unit on
 * the time axis, each run named in the legend; more runs than colours is
 * noted as not drawn. The command writes compare.png and compare.csv and
 * lists the chart in charts.json; --run with --runs is a usage error. */
static void test_report_chart_compare(void **state)
{
    int rc;
    size_t i = 0;
    report_out *o = draw_one(dbp, 1, 0, "compare", &rc);
    compare *c = NULL;
    db *d;
    db_run *r;
    sim_err e;
    char p[600];
    (void)state;
    assert_int_equal(rc, SIM_OK);
    assert_int_equal(o->n + o->n_skipped, 0);
    while (strcmp(report_charts[i].id, "compare") != 0)
        i++;
    sim_err_clear(&e);
    assert_int_equal(db_open_readonly(dbp, &d, &e), SIM_OK);
    assert_int_equal(compare_load_list(d, dbp, "1,2", &c, &e), SIM_OK);
    assert_int_equal(db_load_run(d, 1, 0, &r, &e), SIM_OK);
    {
        report_src src = {r, d, NULL, NULL, NULL, 0, c};
        assert_int_equal(report_charts[i].draw(&src, o, &e), SIM_OK);
    }
    assert_drew(o, "compare.png");
    assert_string_equal(o->meta[0].xlabel, "time to train (submit to end) [d]");
    assert_int_equal(o->meta[0].n_legend, 3);
    assert_non_null(strstr(o->meta[0].legend[0], "run 1: "));
    assert_non_null(strstr(o->meta[0].legend[1], "run 2: "));
    snprintf(p, sizeof p, "%s/compare.png", o->dir);
    assert_png_page_clear(p);
    compare_free(c);
    /* Eight runs: more than the colours tell apart. */
    assert_int_equal(compare_load_list(d, dbp, "1,2,1,2,1,2,1,2", &c, &e),
                     SIM_OK);
    {
        report_src src = {r, d, NULL, NULL, NULL, 0, c};
        int n_before = o->n_skipped;
        assert_int_equal(report_charts[i].draw(&src, o, &e), SIM_OK);
        assert_int_equal(o->n_skipped, n_before + 1);
        assert_non_null(strstr(o->skipped[n_before], "colours"));
    }
    compare_free(c);
    db_run_free(r);
    db_close(d);
    free_out(o);
    assert_int_equal(run("report --db %s --runs 1,2 --out %s/cmp", dbp, dir),
                     0);
    assert_non_null(strstr(out, "compare.csv"));
    assert_non_null(strstr(out, "compare.png"));
    snprintf(p, sizeof p, "%s/cmp/charts.json", dir);
    {
        size_t n;
        unsigned char *t = test_slurp(p, &n);
        assert_non_null(t);
        assert_non_null(strstr((char *)t, "\"file\": \"compare.png\""));
        free(t);
    }
    snprintf(p, sizeof p, "%s/cmp/compare.csv", dir);
    assert_int_equal(access(p, R_OK), 0);
    /* report.html: the comparison's section (a row per metric and run) and
     * the compare chart inline. */
    snprintf(p, sizeof p, "%s/cmp/report.html", dir);
    {
        size_t n;
        char *t = (char *)test_slurp(p, &n);
        const char *sec;
        assert_non_null(t);
        sec = strstr(t, "<section id=\"compare\">");
        assert_non_null(sec);
        assert_non_null(strstr(sec, "Runs compared (run 1 is the baseline)"));
        assert_non_null(strstr(sec, "P50 vs run 1"));
        assert_non_null(strstr(t, "id=\"chart-compare\""));
        free(t);
    }
    assert_int_equal(
        run("report --db %s --run 1 --runs 1,2 --out %s/cmp2", dbp, dir), 2);
    assert_non_null(strstr(err, "--run and --runs exclude each other"));
}

/* An optimize problem stored by the command on a small lattice (4 x 4
 * designs of the sweep test scenario, 2 replications, 30 days): its
 * database, the problem id, and (OUT) the run of its best design. */
static const char *opt_db(const char *objs, int64_t *best_run, int64_t *id)
{
    static char p[400];
    static int k;
    db *d;
    db_opt_problem *pr = NULL;
    sim_err e;
    snprintf(p, sizeof p, "%s/opt-%d.db", dir, k++);
    if (run("optimize tests/data/sweep/small.cfg --vary "
            "energy.solar.capacity_mw=1:10:3 --vary "
            "energy.battery.capacity_mwh=4:22:6 %s --constraint "
            "'site.co2_t.p50<=11.3' --replications 2 --seed 5 --jobs 2 --db %s",
            objs, p) != 0)
        fail_msg("optimize: %s", err);
    /* The id is on stderr, never in the output (an insertion-order id). */
    assert_non_null(strstr(err, "stored as optimize problem "));
    *id = atoll(strstr(err, "stored as optimize problem ") +
                strlen("stored as optimize problem "));
    assert_int_equal(db_open_readonly(p, &d, &e), SIM_OK);
    assert_int_equal(db_opt_load(d, *id, &pr, &e), SIM_OK);
    for (size_t i = 0; i < pr->n_designs; i++)
        if (pr->designs[i].best)
            assert_int_equal(db_case_run(d,
                                         pr->designs[i].refined
                                             ? pr->refined_sweep_key
                                             : pr->sweep_key,
                                         pr->designs[i].case_key, best_run, &e),
                             SIM_OK);
    db_opt_free(pr);
    db_close(d);
    return p;
}

/* issue 23: a design of a stored optimize problem gets the chart of the
 * problem: one objective against the constraint's metric, the constraint
 * as a line on that axis, infeasible designs marked apart, the best
 * design; two objectives draw the Pareto front. A plain run gets none
 * (and notes nothing); `report --optimize ID` reports the best design's
 * run, and an unknown ID is an error naming it. */
static void test_report_chart_optimize(void **state)
{
    int64_t best = 0, id = 0;
    const char *p = opt_db("--objective site.curtailed_mwh.p50", &best, &id);
    char pp[600];
    int rc;
    report_out *o = draw_one(dbp, 1, 0, "optimize", &rc);
    (void)state;
    assert_int_equal(rc, SIM_OK);
    assert_int_equal(o->n + o->n_skipped, 0);
    free_out(o);
    o = draw_one(p, best, 0, "optimize", &rc);
    assert_int_equal(rc, SIM_OK);
    assert_drew(o, "optimize.png");
    assert_string_equal(o->meta[0].xlabel,
                        "P50 of site carbon (lifecycle CO2e) [t]");
    assert_string_equal(o->meta[0].ylabel, "P50 of site curtailed [MWh]");
    assert_string_equal(o->meta[0].legend[0], "constraint: P50 <= 11.3 t");
    assert_string_equal(o->meta[0].legend[1], "infeasible design");
    assert_string_equal(o->meta[0].legend[2], "feasible design");
    assert_string_equal(o->meta[0].legend[3], "best design");
    assert_int_equal(o->meta[0].n_legend, 4); /* no front: one objective */
    snprintf(pp, sizeof pp, "%s/optimize.png", o->dir);
    assert_png_page_clear(pp);
    free_out(o);

    assert_int_equal(run("report --db %s --optimize %lld --out %s/opt-rep", p,
                         (long long)id, dir),
                     0);
    snprintf(pp, sizeof pp, "report of run %lld ", (long long)best);
    assert_non_null(strstr(out, pp));
    assert_non_null(strstr(out, "optimize.png"));
    assert_int_equal(
        run("report --db %s --optimize 99 --out %s/opt-rep", p, dir), 1);
    assert_non_null(strstr(err, "no optimize problem 99"));

    p = opt_db("--objective site.curtailed_mwh.p50 --objective "
               "site.co2_t.p50",
               &best, &id);
    o = draw_one(p, best, 0, "optimize", &rc);
    assert_int_equal(rc, SIM_OK);
    assert_drew(o, "optimize.png");
    assert_string_equal(o->meta[0].xlabel, "P50 of site curtailed [MWh]");
    assert_string_equal(o->meta[0].ylabel,
                        "P50 of site carbon (lifecycle CO2e) [t]");
    {
        int front = 0;
        for (int k = 0; k < o->meta[0].n_legend; k++)
            front += strcmp(o->meta[0].legend[k], "Pareto front") == 0;
        assert_int_equal(front, 1);
    }
    free_out(o);
}

/* issue 24: the sweep chart draws a sweep's constraint as a reference
 * line named in the legend and in charts.json: given with --constraint
 * (the chart then shows its metric), or taken from the optimize problem
 * stored on the sweep; a --metric other than the constraint's is a usage
 * error. */
static void test_report_sweep_chart_draws_the_constraint(void **state)
{
    int64_t best = 0, id = 0;
    const char *p = opt_db("--objective site.curtailed_mwh.p50", &best, &id);
    char jp[600], *txt;
    size_t n = 0;
    (void)state;
    assert_int_equal(run("report --db %s --run %lld --out %s/con-a "
                         "--constraint 'site.co2_t.p90 >= 11'",
                         p, (long long)best, dir),
                     0);
    snprintf(jp, sizeof jp, "%s/con-a/charts.json", dir);
    txt = (char *)test_slurp(jp, &n);
    assert_non_null(txt);
    assert_non_null(strstr(txt, "\"constraint: P90 >= 11 t\""));
    assert_non_null(strstr(txt, "\"y_label\": \"site carbon"));
    free(txt);
    /* From the stored problem, without flags. */
    assert_int_equal(run("report --db %s --run %lld --out %s/con-b", p,
                         (long long)best, dir),
                     0);
    snprintf(jp, sizeof jp, "%s/con-b/charts.json", dir);
    txt = (char *)test_slurp(jp, &n);
    assert_non_null(strstr(txt, "\"constraint: P50 <= 11.3 t\""));
    free(txt);
    assert_int_equal(run("report --db %s --run %lld --out %s/con-c --metric "
                         "site.curtailed_mwh --constraint "
                         "'site.co2_t.p50<=11'",
                         p, (long long)best, dir),
                     2);
    assert_non_null(strstr(err, "is not the charted metric"));
    assert_int_equal(run("report --db %s --run %lld --out %s/con-c "
                         "--constraint 'site.co2_t.p50=<11'",
                         p, (long long)best, dir),
                     2);
    assert_non_null(strstr(err, "--constraint"));
}

/* A run of the fixture stored with a start date in its configuration, so
 * the calendar views have months: dated.db run 1. */
static const char *dated_db(void)
{
    static char p[400];
    static int made;
    if (!made) {
        db_run_meta m = fx_meta(N_REPS, N_STEPS);
        db *d;
        sim_err e;
        snprintf(p, sizeof p, "%s/dated.db", dir);
        m.config_text = "name = \"fixture-site\";\nsimulation = { start_date "
                        "= \"2027-03-20\"; };\n";
        assert_int_equal(db_open(p, &d, &e), SIM_OK);
        assert_int_equal(db_store_run(d, &m, reps, N_REPS, NULL, &e), SIM_OK);
        db_close(d);
        made = 1;
    }
    return p;
}

/* Draws chart id from the dated run and checks the PNG; returns what was
 * recorded about it. */
static void check_view(const char *id, const char *legend_has)
{
    int rc;
    char file[80];
    report_out *o = draw_one(dated_db(), 1, DB_LOAD_STEPS, id, &rc);
    assert_int_equal(rc, SIM_OK);
    snprintf(file, sizeof file, "%s.png", id);
    assert_drew(o, file);
    assert_non_null(strstr(o->meta[0].title, "fixture-site"));
    if (legend_has) {
        int found = 0;
        for (int k = 0; k < o->meta[0].n_legend; k++)
            found |= strcmp(o->meta[0].legend[k], legend_has) == 0;
        if (!found)
            fail_msg("%s: no legend entry '%s'", id, legend_has);
    }
    free_out(o);
    /* Run 2 of a.db stored no series: noted as not drawn. */
    o = draw_one(dbp, 2, DB_LOAD_STEPS, id, &rc);
    assert_int_equal(rc, SIM_OK);
    assert_int_equal(o->n, 0);
    assert_int_equal(o->n_skipped, 1);
    free_out(o);
}

/* Months March and April 2027 (the fixture's 30 days from 2027-03-20). */
static void test_report_chart_monthly_energy(void **state)
{
    int rc;
    report_out *o;
    (void)state;
    check_view("monthly_energy", "Solar");
    /* Without a start date the months are unknown: noted, not guessed. */
    o = draw_one(dbp, 1, DB_LOAD_STEPS, "monthly_energy", &rc);
    assert_int_equal(rc, SIM_OK);
    assert_int_equal(o->n, 0);
    assert_non_null(strstr(o->skipped[0], "start date"));
    free_out(o);
}

static void test_report_chart_typical_day(void **state)
{
    (void)state;
    check_view("typical_day", "Facility demand");
}

static void test_report_chart_power_heatmap(void **state)
{
    int rc;
    report_out *o;
    (void)state;
    check_view("power_heatmap", NULL);
    o = draw_one(dated_db(), 1, DB_LOAD_STEPS, "power_heatmap", &rc);
    assert_non_null(strstr(o->meta[0].zlabel, "[MW]"));
    free_out(o);
}

/* The power-dynamics chart draws the stored representative window of a
 * real run (tests/data/run/two-groups.cfg with a 70 % GPU floor): both
 * lines and the band edges are in the legend, the smoothing in words from
 * the stored configuration (no key path), power in MW; a run stored with
 * --no-power-dynamics has no window and is noted as not drawn. */
static void test_report_chart_power_dynamics(void **state)
{
    char pdb[600];
    int rc, has_floor = 0, has_bare = 0, has_bands = 0;
    report_out *o;
    (void)state;
    snprintf(pdb, sizeof pdb, "%s/powerdyn.db", dir);
    assert_int_equal(run("run tests/data/run/two-groups.cfg --db %s --set "
                         "policy.gpu_power_floor_pct=70.0 --format json",
                         pdb),
                     0);
    assert_int_equal(run("run tests/data/run/two-groups.cfg --db %s "
                         "--no-power-dynamics --format json",
                         pdb),
                     0);
    o = draw_one(pdb, 1, 0, "power_dynamics", &rc);
    assert_int_equal(rc, SIM_OK);
    assert_int_equal(o->n, 1);
    assert_drew(o, "power_dynamics.png");
    assert_string_equal(o->meta[0].ylabel, "facility power [MW]");
    assert_string_equal(o->meta[0].xlabel, "time in the window [s]");
    for (int k = 0; k < o->meta[0].n_legend; k++) {
        const char *l = o->meta[0].legend[k];
        assert_null(strstr(l, "policy."));
        has_floor |= strstr(l, "GPU floor 70 %") != NULL;
        has_bare |= strstr(l, "no smoothing") != NULL;
        has_bands |= strstr(l, "0.1, 2, 3, 30 Hz") != NULL;
    }
    assert_true(has_floor && has_bare && has_bands);
    free_out(o);
    o = draw_one(pdb, 2, 0, "power_dynamics", &rc);
    assert_int_equal(rc, SIM_OK);
    assert_int_equal(o->n, 0);
    assert_int_equal(o->n_skipped, 1);
    assert_non_null(strstr(o->skipped[0], "no representative window"));
    free_out(o);
}

/* The reference lines are in the legend with their values. */
static void test_report_chart_load_duration(void **state)
{
    (void)state;
    check_view("load_duration", "IT capacity (3.5 MW)");
}

static void test_report_chart_battery_heatmap(void **state)
{
    (void)state;
    check_view("battery_heatmap", NULL);
}

/* The monthly energy chart's accounting (issue 24), on a real run of
 * nevada-solar: per month, demand = delivered by source + unserved + held
 * back by the shortage policy within 1e-6; per step the sources sum to the
 * load served; and the steps where demand exceeded delivery are exactly
 * the site's time short of power (time_short_s, counted by the model, not
 * by the chart), so the held-back term is the policy's action and nothing
 * else. */
static void test_report_monthly_energy_accounting_is_exact(void **state)
{
    char p[400];
    db *d;
    db_run *r;
    sim_err e;
    plot_series ps;
    int first;
    size_t nm;
    double *m, held = 0, short_s = 0;
    const res_rep *rp;
    (void)state;
    snprintf(p, sizeof p, "%s/nv-acct.db", dir);
    if (run("run scenarios/nevada-solar.cfg --replications 1 --set "
            "simulation.horizon_days=45 --db %s",
            p) != 0)
        fail_msg("run: %s", err);
    assert_int_equal(db_open_readonly(p, &d, &e), SIM_OK);
    assert_int_equal(db_load_run(d, 1, DB_LOAD_STEPS, &r, &e), SIM_OK);
    rp = &r->reps[0];
    assert_true(rp->n_steps > 1000);
    memset(&ps, 0, sizeof ps);
    ps.steps = rp->steps;
    ps.dt_s = r->step_dt_s ? r->step_dt_s[0] : NULL;
    ps.n = rp->n_steps;
    ps.t0_unix_s = 1803859200.0; /* 2027-03-01, the scenario's start */
    for (size_t i = 0; i < ps.n; i++) {
        const res_step *q = &rp->steps[i];
        double del = 0, dt = ps.dt_s ? ps.dt_s[i] : 0;
        for (int k = 0; k < SRC_N; k++)
            del += q->source_w[k];
        assert_true(fabs(del - q->facility_w) <= 1e-6 * q->demand_w + 1e-3);
        assert_true(q->demand_w - del - q->shortfall_w >=
                    -1e-6 * q->demand_w - 1e-3);
        if (q->demand_w - del > 1e-6 * q->demand_w)
            short_s += dt;
    }
    assert_true(ps.dt_s != NULL);
    assert_close(short_s, rp->site.time_short_s, 1e-9);
    assert_true(short_s > 0); /* the run has a shortage to account for */
    assert_int_equal(plot_monthly_energy_sums(&ps, &first, &nm, &m), SIM_OK);
    assert_true(nm >= 2);
    for (size_t k = 0; k < nm; k++) {
        const double *row = m + k * PLOT_MONTH_ROW;
        double sum = row[PLOT_MONTH_UNSERVED] + row[PLOT_MONTH_HELD];
        for (int j = 0; j < SRC_N; j++)
            sum += row[j];
        if (fabs(row[PLOT_MONTH_DEMAND] - sum) > 1e-6 * row[PLOT_MONTH_DEMAND])
            fail_msg("month %zu: demand %.9g J, sources + unserved + held "
                     "back %.9g J",
                     k, row[PLOT_MONTH_DEMAND], sum);
        held += row[PLOT_MONTH_HELD];
    }
    assert_true(held > 0); /* the policy held load back in this run */
    free(m);
    db_run_free(r);
    db_close(d);
}

/* ---- every chart of every bundled scenario (issue 24.4) ---- */

/* Reads path with libpng's simplified API and checks the page: PLOT_CHART
 * size, and the outermost 3 pixels on every side are all background white,
 * so no legend or title runs past the edge of the page. */
static void assert_png_page_clear(const char *path)
{
    png_image im;
    unsigned char *px;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&im, path))
        fail_msg("%s: not a PNG libpng reads (%s)", path, im.message);
    im.format = PNG_FORMAT_RGB;
    assert_int_equal(im.width, 1200);
    assert_int_equal(im.height, 700);
    px = malloc(PNG_IMAGE_SIZE(im));
    assert_non_null(px);
    if (!png_image_finish_read(&im, NULL, px, 0, NULL))
        fail_msg("%s: %s", path, im.message);
    for (unsigned y = 0; y < im.height; y++)
        for (unsigned x = 0; x < im.width; x++) {
            const unsigned char *c = px + 3 * ((size_t)y * im.width + x);
            int edge =
                x < 3 || y < 3 || x >= im.width - 3 || y >= im.height - 3;
            if (edge && (c[0] != 255 || c[1] != 255 || c[2] != 255))
                fail_msg("%s: pixel (%u, %u) at the page edge is drawn "
                         "(%d,%d,%d)",
                         path, x, y, c[0], c[1], c[2]);
        }
    free(px);
}

/* A raw key path: an identifier, a dot, an identifier ("energy.solar"),
 * or any '='. Numbers ("4.5 MW") and ordinary words pass. */
static void assert_no_key_path(regex_t *re, const char *what, const char *s)
{
    if (s && (regexec(re, s, 0, NULL, 0) == 0 || strchr(s, '=')))
        fail_msg("%s is a raw key path: '%s'", what, s);
}

/* Reads DIR/charts.json: every chart listed exists with a title and axis
 * labels, no text is a raw key path, every file is within size bounds.
 * Returns the number of charts listed. */
static size_t check_charts_json(const char *d1, const char *ext)
{
    char p[600];
    size_t n = 0, nc;
    char *txt;
    jv *root = NULL;
    const jv *charts;
    regex_t re;
    sim_err e;
    assert_int_equal(regcomp(&re, "[A-Za-z_][A-Za-z0-9_]*\\.[A-Za-z_]",
                             REG_EXTENDED | REG_NOSUB),
                     0);
    snprintf(p, sizeof p, "%s/charts.json", d1);
    txt = (char *)test_slurp(p, &n);
    assert_non_null(txt);
    assert_int_equal(jv_parse(txt, &root, &e), SIM_OK);
    charts = jv_get(root, "charts");
    nc = jv_len(charts);
    for (size_t i = 0; i < nc; i++) {
        const jv *c = jv_at(charts, i), *leg = jv_get(c, "legend");
        const char *file = jv_string(jv_get(c, "file"));
        const char *title = jv_string(jv_get(c, "title"));
        struct stat sb;
        assert_non_null(file);
        assert_non_null(strstr(file, ext));
        assert_true(title && *title);
        assert_true(strlen(jv_string(jv_get(c, "x_label"))) > 0);
        assert_no_key_path(&re, "title", title);
        assert_no_key_path(&re, "x label", jv_string(jv_get(c, "x_label")));
        assert_no_key_path(&re, "y label", jv_string(jv_get(c, "y_label")));
        for (size_t k = 0; k < jv_len(leg); k++)
            assert_no_key_path(&re, "legend entry", jv_string(jv_at(leg, k)));
        /* Readable at half width (issue 24): the smallest text drawn is at
         * least 7 px tall when the 1200 px page is pasted at 600 px. */
        {
            double tpx = 0;
            assert_int_equal(jv_number(jv_get(c, "min_text_px"), &tpx), 1);
            if (!(tpx * 600.0 / 1200.0 >= 7.0))
                fail_msg("%s: smallest text %.1f px, %.1f px at half width "
                         "(expected >= 7)",
                         file, tpx, tpx / 2);
        }
        snprintf(p, sizeof p, "%s/%s", d1, file);
        assert_int_equal(stat(p, &sb), 0);
        /* A real chart is tens of kB; a blank page is under 10 kB, and
         * nothing a report draws should reach 5 MB. */
        if (sb.st_size < 8000 || sb.st_size > 5000000)
            fail_msg("%s: %lld bytes, outside 8 kB..5 MB", p,
                     (long long)sb.st_size);
        if (strcmp(ext, "png") == 0)
            assert_png_page_clear(p);
    }
    regfree(&re);
    jv_free(root);
    free(txt);
    return nc;
}

/* Every bundled scenario, 45 days and 2 replications (enough for two
 * calendar months and a time-to-train range, and quick), reported as PNG
 * and SVG: every chart of the list that applies is drawn, listed in
 * charts.json with words rather than key paths, and stays inside its
 * page. A scenario without a battery notes the battery charts as not
 * drawn. */
static void test_report_every_bundled_scenario_renders(void **state)
{
    DIR *dd = opendir("scenarios");
    struct dirent *de;
    int n_scen = 0;
    (void)state;
    assert_non_null(dd);
    while ((de = readdir(dd)) != NULL) {
        char sdb[800], d1[800];
        size_t len = strlen(de->d_name), np, ns;
        if (len < 5 || strcmp(de->d_name + len - 4, ".cfg") != 0)
            continue;
        /* Sized for the folder (under 500) and a file name (under 256), so
         * no path is cut short (-Wformat-truncation in the ASan build). */
        snprintf(sdb, sizeof sdb, "%s/scen-%s.db", dir, de->d_name);
        if (run("run scenarios/%s --replications 2 --set "
                "simulation.horizon_days=45 --db %s",
                de->d_name, sdb) != 0)
            fail_msg("run %s: %s", de->d_name, err);
        snprintf(d1, sizeof d1, "%s/scen-%s-png", dir, de->d_name);
        assert_int_equal(run("report --db %s --out %s", sdb, d1), 0);
        np = check_charts_json(d1, "png");
        snprintf(d1, sizeof d1, "%s/scen-%s-svg", dir, de->d_name);
        assert_int_equal(run("report --db %s --out %s --format svg", sdb, d1),
                         0);
        ns = check_charts_json(d1, "svg");
        assert_int_equal(np, ns);
        /* The series views every scenario has: power, monthly_energy,
         * typical_day, power_heatmap, load_duration, jobs_gantt,
         * energy_by_source. */
        if (np < 7)
            fail_msg("%s: only %zu charts drawn:\n%s", de->d_name, np, out);
        n_scen++;
    }
    closedir(dd);
    assert_true(n_scen >= 5);
}

/* A year of 15-minute steps (35,040 per series), reported as SVG: every
 * chart stays under 1 MB (battery_soc drew every step, 2.5-3.4 MB, before it
 * was binned daily like the power stack), and its text is readable at
 * half width (check_charts_json). */
static void test_report_year_long_svgs_stay_under_1mb(void **state)
{
    char p[400], d1[400], fp[900];
    db_run_meta m = fx_meta(1, 35040);
    res_rep yr;
    db *d;
    sim_err e;
    jv *root = NULL;
    char *txt;
    size_t n = 0, nc;
    const jv *charts;
    (void)state;
    fx_rep(&yr, 0, 35040, 1, 1);
    snprintf(p, sizeof p, "%s/year.db", dir);
    m.config_text = "name = \"fixture-site\";\nsimulation = { start_date "
                    "= \"2027-01-01\"; };\n";
    assert_int_equal(db_open(p, &d, &e), SIM_OK);
    assert_int_equal(db_store_run(d, &m, &yr, 1, NULL, &e), SIM_OK);
    db_close(d);
    res_rep_free(&yr);
    snprintf(d1, sizeof d1, "%s/year-svg", dir);
    assert_int_equal(run("report --db %s --out %s --format svg", p, d1), 0);
    nc = check_charts_json(d1, "svg");
    assert_true(nc >= 9);
    snprintf(fp, sizeof fp, "%s/charts.json", d1);
    txt = (char *)test_slurp(fp, &n);
    assert_int_equal(jv_parse(txt, &root, &e), SIM_OK);
    charts = jv_get(root, "charts");
    for (size_t i = 0; i < jv_len(charts); i++) {
        const char *file = jv_string(jv_get(jv_at(charts, i), "file"));
        struct stat sb;
        snprintf(fp, sizeof fp, "%s/%s", d1, file);
        assert_int_equal(stat(fp, &sb), 0);
        if (sb.st_size > 1000000)
            fail_msg("%s: %lld bytes for a year (expected under 1 MB)", file,
                     (long long)sb.st_size);
    }
    snprintf(fp, sizeof fp, "%s/battery_soc.svg", d1);
    assert_int_equal(access(fp, F_OK), 0);
    jv_free(root);
    free(txt);
}

/* Every chart of the list has a test of its own above, and every such
 * test names a chart of the list: adding a chart without its test fails
 * here. */
static const struct {
    const char *id;
    void (*test)(void **);
} chart_tests[] = {
    {"power", test_report_chart_power},
    {"monthly_energy", test_report_chart_monthly_energy},
    {"typical_day", test_report_chart_typical_day},
    {"power_heatmap", test_report_chart_power_heatmap},
    {"load_duration", test_report_chart_load_duration},
    {"battery_heatmap", test_report_chart_battery_heatmap},
    {"battery_soc", test_report_chart_battery_soc},
    {"jobs_gantt", test_report_chart_jobs_gantt},
    {"time_to_train", test_report_chart_time_to_train},
    {"energy_by_source", test_report_chart_energy_by_source},
    {"sweep", test_report_chart_sweep},
    {"power_dynamics", test_report_chart_power_dynamics},
    {"optimize", test_report_chart_optimize},
    {"compare", test_report_chart_compare},
};
#define N_CHART_TESTS (sizeof chart_tests / sizeof chart_tests[0])

static void test_report_every_chart_has_its_own_test(void **state)
{
    (void)state;
    for (size_t i = 0; i < report_n_charts; i++) {
        size_t k = 0;
        while (k < N_CHART_TESTS &&
               strcmp(chart_tests[k].id, report_charts[i].id) != 0)
            k++;
        if (k == N_CHART_TESTS)
            fail_msg("chart '%s' (app/report_charts.c) has no test: add "
                     "test_report_chart_%s to tests/test_report.c",
                     report_charts[i].id, report_charts[i].id);
    }
    for (size_t k = 0; k < N_CHART_TESTS; k++) {
        size_t i = 0;
        while (i < report_n_charts &&
               strcmp(chart_tests[k].id, report_charts[i].id) != 0)
            i++;
        if (i == report_n_charts)
            fail_msg("test of chart '%s' names no chart of the list",
                     chart_tests[k].id);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_chart_power),
        cmocka_unit_test(test_report_chart_monthly_energy),
        cmocka_unit_test(test_report_chart_typical_day),
        cmocka_unit_test(test_report_chart_power_heatmap),
        cmocka_unit_test(test_report_chart_load_duration),
        cmocka_unit_test(test_report_chart_battery_heatmap),
        cmocka_unit_test(test_report_chart_power_dynamics),
        cmocka_unit_test(test_report_chart_battery_soc),
        cmocka_unit_test(test_report_chart_jobs_gantt),
        cmocka_unit_test(test_report_chart_time_to_train),
        cmocka_unit_test(test_report_chart_energy_by_source),
        cmocka_unit_test(test_report_chart_sweep),
        cmocka_unit_test(test_report_chart_optimize),
        cmocka_unit_test(test_report_sweep_chart_draws_the_constraint),
        cmocka_unit_test(test_report_chart_compare),
        cmocka_unit_test(test_report_every_chart_has_its_own_test),
        cmocka_unit_test(test_report_monthly_energy_accounting_is_exact),
        cmocka_unit_test(test_report_every_bundled_scenario_renders),
        cmocka_unit_test(test_report_year_long_svgs_stay_under_1mb),
        cmocka_unit_test(test_report_writes_every_chart_and_summary),
        cmocka_unit_test(test_report_summary_csv_reads_back_with_units),
        cmocka_unit_test(test_report_is_byte_identical_on_repeat),
        cmocka_unit_test(
            test_report_latest_run_without_series_notes_skipped_charts),
        cmocka_unit_test(test_report_errors_are_clear),
        cmocka_unit_test(test_export_jobs_csv_reads_back),
        cmocka_unit_test(test_export_json_reads_back),
        cmocka_unit_test(test_export_timeseries_csv_has_every_step),
        cmocka_unit_test(test_export_same_seed_gives_same_bytes),
        cmocka_unit_test(test_export_with_ids_shows_the_run_id_report_takes),
    };
    return cmocka_run_group_tests_name("report", tests, setup, teardown);
}
