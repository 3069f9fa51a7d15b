/* tests/test_compare.c: `factorysim compare` and app/compare.h (issue 25).
 *
 * The store is made for real, once, by the binary: two runs of Iceland (the
 * second one later, so a scenario name must pick it), one of Norway (whose
 * jobs differ from Iceland's, so each has a job the other lacks), and two
 * sweeps of the small test site whose grids share the case key
 * "simulation.seed=2" (ambiguous) but not "simulation.seed=3". Horizons are
 * twenty days and replications two, for speed. The numbers compare prints are
 * checked against the summaries read back from the store through io/db.h,
 * not against numbers written here. The naming rules are also checked on a
 * hand-made run list, where every rule can be provoked, including a name
 * that is both a scenario and a case key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "app/compare.h"
#include "io/csv.h"
#include "io/db.h"
#include "io/json.h"
#include "models/resfield.h"
#include "tests/cli_util.h"
#include "tests/testutil.h"

static char dbp[128];
static char out[1 << 21], out2[1 << 21], err[1 << 14];

/* Run ids of the fixture, in storage order. */
enum { ID_ICE_OLD = 1, ID_NOR = 2, ID_ICE = 3 };
#define SHORT "--replications 2 --set simulation.horizon_days=20 --series none"

static void rm_db(const char *p)
{
    char s[160];
    remove(p);
    snprintf(s, sizeof s, "%s-wal", p);
    remove(s);
    snprintf(s, sizeof s, "%s-shm", p);
    remove(s);
}

static int sh(const char *fmt, ...)
{
    char args[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return fs_run(args, out, sizeof out, err, sizeof err);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dbp, sizeof dbp, "/tmp/factorysim-compare-%ld.db", (long)getpid());
    rm_db(dbp);
    if (sh("run scenarios/iceland-geothermal.cfg " SHORT " --seed 3 --db %s",
           dbp) != 0 ||
        sh("run scenarios/norway-hydro.cfg " SHORT " --db %s", dbp) != 0 ||
        sh("run scenarios/iceland-geothermal.cfg " SHORT " --db %s", dbp) !=
            0 ||
        sh("sweep tests/data/sweep/small.cfg --set simulation.seed=1,2 "
           "--replications 1 --quiet --db %s",
           dbp) != 0 ||
        sh("sweep tests/data/sweep/small.cfg --set simulation.seed=2,3 "
           "--replications 1 --quiet --db %s",
           dbp) != 0) {
        fprintf(stderr, "setup failed: %s\n", err);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rm_db(dbp);
    return 0;
}

/* The JSON output of compare for runs, parsed. */
static jv *compare_json(const char *runs)
{
    jv *v = NULL;
    sim_err e;
    assert_int_equal(sh("compare --db %s --runs %s --format json", dbp, runs),
                     0);
    sim_err_clear(&e);
    if (jv_parse(out, &v, &e) != SIM_OK)
        fail_msg("compare JSON does not parse: %s", e.msg);
    return v;
}

static db_run *load(int64_t id)
{
    db *d;
    db_run *r;
    sim_err e;
    sim_err_clear(&e);
    assert_int_equal(db_open_readonly(dbp, &d, &e), SIM_OK);
    assert_int_equal(db_load_run(d, id, 0, &r, &e), SIM_OK);
    db_close(d);
    return r;
}

/* JSON number at obj[key] (null: NAN). */
static double jnum(const jv *o, const char *key)
{
    double x = NAN;
    const jv *v = jv_get(o, key);
    if (!v || !jv_number(v, &x))
        fail_msg("no number at %s", key);
    return x;
}

/* Checks one metric's JSON against the stored summaries: each run's mean,
 * P50 (display unit) and the difference of mean and P50 from run 1's,
 * absolute and percent, recomputed here from what db_load_run read. */
static int check_metric(const jv *m, const resfield *d,
                        const stat_summary *const *s, size_t n)
{
    const jv *runs = jv_get(m, "runs");
    int checked = 0;
    assert_int_equal(jv_len(runs), n);
    assert_string_equal(jv_string(jv_get(m, "unit")), d->disp_unit);
    for (size_t r = 0; r < n; r++) {
        const jv *o = jv_at(runs, r);
        const double got[2] = {jnum(o, "mean"), jnum(o, "p50")};
        const double want[2] = {s[r]->mean / d->disp_per,
                                s[r]->p50 / d->disp_per};
        const double b[2] = {s[0]->mean, s[0]->p50};
        const double x[2] = {s[r]->mean, s[r]->p50};
        const char *k[2] = {"mean", "p50"};
        for (int q = 0; q < 2; q++) {
            double dd = jnum(jv_get(o, "delta"), k[q]);
            double dp = jnum(jv_get(o, "delta_pct"), k[q]);
            if (s[r]->n == 0 || s[0]->n == 0) {
                assert_true(isnan(dd));
                continue;
            }
            assert_close(got[q], want[q], 1e-12);
            assert_near(
                dd, (x[q] - b[q]) / d->disp_per,
                1e-12 * fmax(1.0, fmax(fabs(b[q]), fabs(x[q])) / d->disp_per));
            if (b[q] != 0) {
                double want_pct = 100.0 * (x[q] - b[q]) / fabs(b[q]);
                assert_near(dp, want_pct, 1e-12 * fmax(1.0, fabs(want_pct)));
                checked++;
            } else {
                assert_true(isnan(dp)); /* undefined against zero */
            }
        }
    }
    return checked;
}

/* "deltas are computed correctly against values read back from the db":
 * every site metric and every job metric of a job both runs have. */
static void test_compare_deltas_match_the_stored_summaries(void **state)
{
    jv *v = compare_json("3,2");
    db_run *r[2] = {load(ID_ICE), load(ID_NOR)};
    const jv *site = jv_get(jv_get(v, "site"), "metrics");
    const jv *jobs = jv_get(v, "jobs");
    int checked = 0, jobs_both = 0;
    (void)state;
    for (size_t q = 0; q < resfield_n_site; q++) {
        const stat_summary *s[2] = {&r[0]->site_summary[q],
                                    &r[1]->site_summary[q]};
        const jv *m = jv_get(site, resfield_site[q].disp_name);
        if (!(resfield_site[q].outputs & RESFIELD_RUN)) {
            assert_null(m); /* only the run fields, as `run` prints */
            continue;
        }
        assert_non_null(m);
        checked += check_metric(m, &resfield_site[q], s, 2);
    }
    for (size_t j = 0; j < jv_len(jobs); j++) {
        const jv *job = jv_at(jobs, j);
        const char *name = jv_string(jv_get(job, "name"));
        long at[2] = {-1, -1};
        for (int k = 0; k < 2; k++)
            for (size_t i = 0; i < r[k]->meta.n_jobs; i++)
                if (strcmp(r[k]->meta.jobs[i].name, name) == 0)
                    at[k] = (long)i;
        if (at[0] < 0 || at[1] < 0)
            continue;
        jobs_both++;
        for (size_t q = 0; q < resfield_n_job; q++) {
            const stat_summary *s[2] = {
                &r[0]->job_summary[(size_t)at[0] * resfield_n_job + q],
                &r[1]->job_summary[(size_t)at[1] * resfield_n_job + q]};
            if (resfield_job[q].outputs & RESFIELD_RUN)
                checked += check_metric(
                    jv_get(jv_get(job, "metrics"), resfield_job[q].disp_name),
                    &resfield_job[q], s, 2);
        }
    }
    /* Iceland and Norway share deepseek-v3-mxfp8; dozens of percentages
     * against a non-zero baseline were checked, not just blanks. */
    assert_true(jobs_both >= 1);
    assert_true(checked > 40);
    db_run_free(r[0]);
    db_run_free(r[1]);
    jv_free(v);
}

/* Run ids, scenario names (the latest plain run) and case keys resolve, and
 * stderr says which run a scenario name picked. */
static void test_compare_names_resolve_by_id_scenario_and_case(void **state)
{
    jv *v;
    const jv *runs;
    (void)state;
    assert_int_equal(sh("compare --db %s --runs iceland-geothermal,"
                        "norway-hydro,simulation.seed=3,1 --format json "
                        "--with-ids",
                        dbp),
                     0);
    assert_non_null(strstr(err, "iceland-geothermal: run 3, the latest of 2"));
    assert_non_null(strstr(err, "norway-hydro: run 2"));
    assert_non_null(strstr(err, "simulation.seed=3: run "));
    {
        sim_err e;
        sim_err_clear(&e);
        assert_int_equal(jv_parse(out, &v, &e), SIM_OK);
    }
    runs = jv_get(v, "runs");
    assert_int_equal(jv_len(runs), 4);
    assert_close(jnum(jv_at(runs, 0), "run_id"), ID_ICE, 0);
    assert_string_equal(jv_string(jv_get(jv_at(runs, 0), "named_by")),
                        "scenario");
    assert_close(jnum(jv_at(runs, 1), "run_id"), ID_NOR, 0);
    assert_string_equal(jv_string(jv_get(jv_at(runs, 2), "case_key")),
                        "simulation.seed=3");
    assert_string_equal(jv_string(jv_get(jv_at(runs, 2), "named_by")),
                        "case key");
    assert_close(jnum(jv_at(runs, 3), "run_id"), ID_ICE_OLD, 0);
    assert_string_equal(jv_string(jv_get(jv_at(runs, 3), "named_by")),
                        "run id");
    assert_close(jnum(jv_at(runs, 3), "seed"), 3, 0);
    /* Without --with-ids, no storage-order id in the output. */
    jv_free(v);
    v = compare_json("iceland-geothermal,1");
    assert_null(jv_get(jv_at(jv_get(v, "runs"), 0), "run_id"));
    jv_free(v);
}

/* The naming rules on a hand-made run list, including the cases a real
 * store makes awkward to build. */
static void test_compare_resolve_rules(void **state)
{
    db_run_row rows[6];
    int64_t id = -1;
    compare_how how;
    char note[300];
    sim_err e;
    (void)state;
    memset(rows, 0, sizeof rows);
    for (int i = 0; i < 6; i++) {
        rows[i].id = 11 + i;
        rows[i].status = (char *)"complete";
        rows[i].case_index = -1;
    }
    rows[0].scenario = rows[2].scenario = (char *)"alpha";
    rows[1].scenario = (char *)"beta";
    rows[3].scenario = rows[4].scenario = (char *)"swept";
    rows[3].sweep_key = rows[4].sweep_key = (char *)"k1";
    rows[3].case_key = (char *)"x=1";
    rows[4].case_key = (char *)"alpha"; /* a case key equal to a scenario */
    rows[5].scenario = (char *)"gamma";
    rows[5].sweep_key = (char *)"k2";
    rows[5].case_key = (char *)"x=1";
    sim_err_clear(&e);
    assert_int_equal(compare_resolve(rows, 6, "12", "f.db", &id, &how, note,
                                     sizeof note, &e),
                     SIM_OK);
    assert_int_equal(id, 12);
    assert_int_equal(how, COMPARE_BY_ID);
    assert_string_equal(note, "");
    assert_int_equal(compare_resolve(rows, 6, "beta", "f.db", &id, &how, note,
                                     sizeof note, &e),
                     SIM_OK);
    assert_int_equal(id, 12);
    assert_int_equal(how, COMPARE_BY_SCENARIO);
    assert_non_null(strstr(note, "run 12, the latest of 1 stored run of"));
    /* Both a scenario and a case key: refused, naming it. */
    assert_int_equal(compare_resolve(rows, 6, "alpha", "f.db", &id, &how, note,
                                     sizeof note, &e),
                     SIM_ECONFIG);
    assert_non_null(strstr(e.msg, "alpha is ambiguous"));
    /* One case key under two sweeps: refused with both ids. */
    sim_err_clear(&e);
    assert_int_equal(compare_resolve(rows, 6, "x=1", "f.db", &id, &how, note,
                                     sizeof note, &e),
                     SIM_ECONFIG);
    assert_non_null(strstr(e.msg, "runs 14, 16"));
    /* Only sweep cases of a scenario: no "latest case" is guessed. */
    sim_err_clear(&e);
    assert_int_equal(compare_resolve(rows, 6, "swept", "f.db", &id, &how, note,
                                     sizeof note, &e),
                     SIM_ECONFIG);
    assert_non_null(strstr(e.msg, "only sweep cases"));
    /* Unknown name and unknown id. */
    sim_err_clear(&e);
    assert_int_equal(compare_resolve(rows, 6, "delta", "f.db", &id, &how, note,
                                     sizeof note, &e),
                     SIM_ENOTFOUND);
    assert_non_null(strstr(e.msg, "delta: no run id, scenario or sweep case"));
    assert_non_null(strstr(e.msg, "alpha, beta, swept, gamma"));
    sim_err_clear(&e);
    assert_int_equal(compare_resolve(rows, 6, "99", "f.db", &id, &how, note,
                                     sizeof note, &e),
                     SIM_ENOTFOUND);
    assert_non_null(strstr(e.msg, "99: no run with that id"));
}

/* A job one run does not have is blank: an empty CSV row, JSON null, a
 * bare table line, never zero. */
static void test_compare_missing_job_is_blank(void **state)
{
    char path[160];
    csvt *t = NULL;
    sim_err e;
    size_t blank = 0, filled = 0;
    int c_job, c_run, c_n, c_mean, c_dmean;
    jv *v;
    const jv *jobs;
    int found = 0;
    (void)state;
    assert_int_equal(sh("compare --db %s --runs 3,2 --format csv", dbp), 0);
    snprintf(path, sizeof path, "%s.csv", dbp);
    {
        FILE *f = fopen(path, "w");
        fputs(out, f);
        fclose(f);
    }
    sim_err_clear(&e);
    assert_int_equal(csvt_read(path, &t, &e), SIM_OK);
    remove(path);
    c_job = csvt_col(t, "job");
    c_run = csvt_col(t, "run");
    c_n = csvt_col(t, "n");
    c_mean = csvt_col(t, "mean");
    c_dmean = csvt_col(t, "delta_mean");
    assert_true(c_job >= 0 && c_run >= 0 && c_n >= 0 && c_mean >= 0 &&
                c_dmean >= 0);
    for (size_t i = 0; i < t->n_rows; i++) {
        char **row = t->rows[i];
        /* Norway's llama405b-nvfp4 is not in Iceland (run 1). */
        if (strcmp(row[c_job], "llama405b-nvfp4") != 0)
            continue;
        if (strcmp(row[c_run], "1") == 0) {
            assert_string_equal(row[c_n], "");
            assert_string_equal(row[c_mean], "");
            assert_string_equal(row[c_dmean], "");
            blank++;
        } else {
            assert_string_not_equal(row[c_n], "");
            /* No baseline for the job: no difference either. */
            assert_string_equal(row[c_dmean], "");
            filled++;
        }
    }
    assert_true(blank > 10);
    assert_int_equal(blank, filled);
    csvt_free(t);
    v = compare_json("3,2");
    jobs = jv_get(v, "jobs");
    for (size_t j = 0; j < jv_len(jobs); j++) {
        const jv *job = jv_at(jobs, j);
        const jv *m;
        if (strcmp(jv_string(jv_get(job, "name")), "llama405b-nvfp4") != 0)
            continue;
        found = 1;
        m = jv_get(jv_get(job, "metrics"), "gpu_hours");
        assert_non_null(m);
        assert_non_null(jv_at(jv_get(m, "runs"), 0));
        {
            double x = 1;
            /* null, not a number (jv_number reads null as NAN) */
            assert_true(jv_number(jv_at(jv_get(m, "runs"), 0), &x));
            assert_true(isnan(x));
        }
        assert_true(jnum(jv_at(jv_get(m, "runs"), 1), "mean") > 0);
    }
    assert_true(found);
    jv_free(v);
    /* The table names the runs that lack the job. */
    assert_int_equal(sh("compare --db %s --runs 3,2", dbp), 0);
    assert_non_null(strstr(out, "job llama405b-nvfp4 (not in run 1)"));
    assert_non_null(strstr(out, "job qwen3-235b-mxfp8 (not in run 2)"));
}

/* Unknown, ambiguous and malformed names fail with a message naming them,
 * exit 1 (2 for usage), and print nothing on stdout. */
static void test_compare_bad_names_fail_with_messages(void **state)
{
    static const struct {
        const char *runs;
        int status;
        const char *msg;
    } bad[] = {
        {"3,atlantis", 1, "atlantis: no run id, scenario or sweep case key"},
        {"99", 1, "99: no run with that id"},
        {"simulation.seed=2", 1, "simulation.seed=2 is ambiguous"},
        {"small", 1, "small: only sweep cases"},
        {"3,,2", 2, "empty name"},
        {"3,", 2, "empty name"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int st = sh("compare --db %s --runs '%s'", dbp, bad[i].runs);
        if (st != bad[i].status || !strstr(err, bad[i].msg) || out[0])
            fail_msg("--runs %s: status %d, stderr '%s', stdout %zu bytes",
                     bad[i].runs, st, err, strlen(out));
    }
    assert_int_equal(sh("compare --db %s --runs 3 --jobs nope", dbp), 1);
    assert_non_null(strstr(err, "--jobs: nope: no job of that name"));
    assert_int_equal(sh("compare --db %s --runs 3 --metrics nope_j", dbp), 2);
    assert_non_null(strstr(err, "--metrics: nope_j: no result field"));
    assert_int_equal(sh("compare --db %s", dbp), 2);
    assert_non_null(strstr(err, "--runs NAME,NAME,... is required"));
    assert_int_equal(sh("compare --db %s --runs 1 --format xml", dbp), 2);
    assert_non_null(strstr(err, "--format must be table, csv or json"));
    assert_int_equal(sh("compare --db /nonexistent/x.db --runs 1"), 1);
    assert_non_null(strstr(err, "/nonexistent/x.db"));
}

/* CSV parses with its documented header and one row per (scope, job,
 * metric, run); JSON parses; the same comparison twice is the same bytes
 * and names no path. */
static void test_compare_outputs_parse_and_are_deterministic(void **state)
{
    static const char *const fmts[] = {"table", "csv", "json"};
    char path[160];
    csvt *t = NULL;
    sim_err e;
    size_t site_fields = 0;
    (void)state;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(
            sh("compare --db %s --runs 3,2,1 --format %s", dbp, fmts[i]), 0);
        memcpy(out2, out, strlen(out) + 1);
        assert_int_equal(
            sh("compare --db %s --runs 3,2,1 --format %s", dbp, fmts[i]), 0);
        assert_string_equal(out, out2);
        assert_null(strstr(out, dbp));
        assert_null(strstr(out, "/tmp"));
    }
    assert_int_equal(sh("compare --db %s --runs 3,2,1 --format csv", dbp), 0);
    snprintf(path, sizeof path, "%s.csv", dbp);
    {
        FILE *f = fopen(path, "w");
        fputs(out, f);
        fclose(f);
    }
    sim_err_clear(&e);
    assert_int_equal(csvt_read(path, &t, &e), SIM_OK);
    remove(path);
    assert_int_equal(t->n_cols, 21);
    assert_string_equal(t->header[0], "scope");
    assert_string_equal(t->header[2], "metric");
    assert_string_equal(t->header[t->n_cols - 1], "delta_p90_pct");
    assert_int_equal(csvt_col(t, "run_id"), -1);
    for (size_t q = 0; q < resfield_n_site; q++)
        site_fields += (resfield_site[q].outputs & RESFIELD_RUN) != 0;
    {
        size_t site_rows = 0;
        for (size_t i = 0; i < t->n_rows; i++)
            site_rows += strcmp(t->rows[i][0], "site") == 0;
        assert_int_equal(site_rows, 3 * site_fields);
    }
    /* The baseline's own difference is 0 wherever it has a value. */
    for (size_t i = 0; i < t->n_rows; i++) {
        char **row = t->rows[i];
        if (strcmp(row[csvt_col(t, "run")], "1") == 0 &&
            row[csvt_col(t, "mean")][0])
            assert_close(atof(row[csvt_col(t, "delta_mean")]), 0, 0);
    }
    csvt_free(t);
    jv_free(compare_json("3,2,1"));
}

/* --jobs and --metrics narrow every output to the named jobs and fields
 * (by SI or display name, in each scope that has the field); with no site
 * field left, the site section goes. */
static void test_compare_jobs_and_metrics_select_what_is_shown(void **state)
{
    jv *v;
    const jv *jobs, *sm;
    (void)state;
    assert_int_equal(sh("compare --db %s --runs 3,2 --format json --jobs "
                        "deepseek-v3-mxfp8 --metrics "
                        "time_to_train_s,cost_usd",
                        dbp),
                     0);
    {
        sim_err e;
        sim_err_clear(&e);
        assert_int_equal(jv_parse(out, &v, &e), SIM_OK);
    }
    jobs = jv_get(v, "jobs");
    assert_int_equal(jv_len(jobs), 1);
    assert_string_equal(jv_string(jv_get(jv_at(jobs, 0), "name")),
                        "deepseek-v3-mxfp8");
    assert_int_equal(jv_len(jv_get(jv_at(jobs, 0), "metrics")), 2);
    /* Shown by the display name whichever name selected it. */
    assert_non_null(
        jv_get(jv_get(jv_at(jobs, 0), "metrics"), "time_to_train_days"));
    sm = jv_get(jv_get(v, "site"), "metrics");
    assert_int_equal(jv_len(sm), 1); /* the site has cost_usd, no time */
    assert_non_null(jv_get(sm, "cost_usd"));
    jv_free(v);
    assert_int_equal(sh("compare --db %s --runs 3,2 --metrics "
                        "time_to_train_days",
                        dbp),
                     0);
    assert_null(strstr(out, "\nsite\n"));
    assert_non_null(strstr(out, "job qwen3-235b-mxfp8"));
    assert_non_null(strstr(out, "time to train"));
    assert_null(strstr(out, "GPU-hours"));
}

/* Differences against a missing or empty baseline are undefined (NAN),
 * percent against zero is undefined, and the scale gives display units. */
static void test_compare_delta_edge_cases(void **state)
{
    stat_summary a = {3, 2.0, 1.0, 2.0, 3.0, 0.5, 3.5};
    stat_summary b = {3, 3.0, 0.0, 4.0, 4.5, 0.0, 5.0};
    stat_summary z = {3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    stat_summary none = {0, NAN, NAN, NAN, NAN, NAN, NAN};
    compare_delta d;
    (void)state;
    d = compare_delta_of(&a, &b, 2.0);
    assert_close(d.d[0], 0.5, 1e-15);    /* (3 - 2) / 2 */
    assert_close(d.pct[0], 50.0, 1e-15); /* of 2, unscaled */
    assert_close(d.d[1], -0.5, 1e-15);
    assert_close(d.pct[1], -100.0, 1e-15);
    d = compare_delta_of(&z, &b, 1.0);
    assert_close(d.d[2], 4.0, 1e-15);
    assert_true(isnan(d.pct[2]));
    d = compare_delta_of(&none, &b, 1.0);
    assert_true(isnan(d.d[0]) && isnan(d.pct[0]));
    d = compare_delta_of(NULL, &b, 1.0);
    assert_true(isnan(d.d[3]));
    d = compare_delta_of(&a, NULL, 1.0);
    assert_true(isnan(d.d[3]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_deltas_match_the_stored_summaries),
        cmocka_unit_test(test_compare_names_resolve_by_id_scenario_and_case),
        cmocka_unit_test(test_compare_resolve_rules),
        cmocka_unit_test(test_compare_missing_job_is_blank),
        cmocka_unit_test(test_compare_bad_names_fail_with_messages),
        cmocka_unit_test(test_compare_outputs_parse_and_are_deterministic),
        cmocka_unit_test(test_compare_jobs_and_metrics_select_what_is_shown),
        cmocka_unit_test(test_compare_delta_edge_cases),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
