/* tests/test_report.c: `factorysim report` and `factorysim export` on a
 * database filled with fixture runs: the bundle's files, the summary CSV
 * read back with libcsv (io/csv.h), exports read back as CSV and JSON
 * (io/json.h), byte-identical output, and the errors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/stat.h>

#include "cli_util.h"
#include "fixture_results.h"
#include "io/csv.h"
#include "io/db.h"
#include "io/json.h"
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
    assert_non_null(strstr(out, "not drawn: power over time"));
    snprintf(p, sizeof p, "%s/power.png", d1);
    assert_int_equal(access(p, F_OK), -1);
    snprintf(p, sizeof p, "%s/jobs_gantt.png", d1);
    assert_png_size(p);
    snprintf(p, sizeof p, "%s/summary.md", d1);
    md = (char *)test_slurp(p, &n);
    assert_non_null(md);
    assert_non_null(
        strstr(md, "- Not drawn: power over time and battery state of charge "
                   "(no time series stored with this run)"));
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
    assert_close(x, reps[0].steps[77].source_w[RES_GRID], 1e-14);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
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
