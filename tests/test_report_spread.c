/* tests/test_report_spread.c: where the spread comes from, stored and
 * reported (issue 19.4; app/report_spread.h, io/db_vd.c).
 *
 * `run --variance-decomposition --db FILE` on a shortened bundled solar
 * scenario stores the all-sources-on run (the same replications as a plain
 * `run` with that seed) and its shares, which read back equal to what the
 * JSON printed; a database of schema version 11 gains the table when
 * opened for writing; `report` shows the section (summary.md and
 * report.html) and the solar P90 exceedance only for a run that has them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/report_spread.h"
#include "app/vardecomp.h"
#include "cli_util.h"
#include "io/db.h"
#include "models/resfield.h"
#include "testutil.h"

static char dir[256], dbp[320];
static char out[1 << 16], err[8192];
static char vd_json[1 << 16]; /* what the decomposition printed */

static int run(const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return fs_run(args, out, sizeof out, err, sizeof err);
}

/* The same case three ways, into one database: run 1 the decomposition,
 * run 2 the plain run with the same seed, run 3 a site without solar. */
#define NEVADA                                                                 \
    "scenarios/nevada-solar.cfg --replications 3 --set "                       \
    "simulation.horizon_days=60"

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fs-test-report-spread-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(dbp, sizeof dbp, "%s/run.db", dir);
    if (run("run " NEVADA " --variance-decomposition --format json --db %s",
            dbp) != 0) {
        fprintf(stderr, "%s", err);
        return -1;
    }
    snprintf(vd_json, sizeof vd_json, "%s", out);
    if (run("run " NEVADA " --format json --db %s", dbp) != 0 ||
        run("run scenarios/iceland-geothermal.cfg --replications 2 --set "
            "simulation.horizon_days=30 --db %s",
            dbp) != 0) {
        fprintf(stderr, "%s", err);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    char cmd[400];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static db_run *load(const char *path, int64_t id)
{
    db *d;
    db_run *r;
    sim_err e;
    char buf[2200];
    if (db_open(path, &d, &e) != SIM_OK ||
        db_load_run(d, id, 0, &r, &e) != SIM_OK)
        fail_msg("%s", sim_err_format(&e, buf, sizeof buf));
    db_close(d);
    return r;
}

/* The stored shares are the printed ones: every job, every source, and
 * the job's mean and sd, to the digits JSON carries. */
static void
test_report_spread_stored_shares_equal_the_printed_json(void **state)
{
    json_error_t je;
    json_t *root = json_loads(vd_json, 0, &je), *jobs;
    db_run *r = load(dbp, 1);
    (void)state;
    assert_non_null(root);
    jobs = json_object_get(root, "jobs");
    assert_int_equal(json_array_size(jobs), r->meta.n_jobs);
    assert_true(r->meta.n_jobs >= 2);
    assert_int_equal(r->meta.n_var_shares, r->meta.n_jobs * VD_N);
    for (size_t i = 0; i < r->meta.n_var_shares; i++) {
        const db_var_share *v = &r->meta.var_shares[i];
        json_t *jj = json_array_get(jobs, (size_t)v->job);
        json_t *sh = json_object_get(jj, "variance_share");
        double want = json_number_value(json_object_get(sh, v->source));
        assert_string_equal(json_string_value(json_object_get(jj, "name")),
                            r->meta.jobs[v->job].name);
        assert_non_null(json_object_get(sh, v->source));
        assert_near(v->share, want, 1e-12);
        assert_int_equal(v->finished,
                         json_integer_value(json_object_get(jj, "finished")));
        assert_close(
            v->mean_s / 86400.0,
            json_number_value(json_object_get(jj, "time_to_train_mean_days")),
            1e-12);
        assert_close(
            sqrt(v->var_s2) / 86400.0,
            json_number_value(json_object_get(jj, "time_to_train_sd_days")),
            1e-12);
        /* (job, source) order, VD_N rows per job. */
        assert_int_equal(v->job, (int32_t)(i / VD_N));
        assert_string_equal(v->source, vd_source_name[i % VD_N]);
    }
    /* The model's error is on: it takes a share of the spread. */
    assert_true(r->meta.var_shares[0].share > 0);
    db_run_free(r);
    json_decref(root);
}

/* The run stored with the decomposition is the one a plain `run` with the
 * same seed stores: every job summary and the solar P90 exceedance are the
 * same. */
static void test_report_spread_stored_run_is_the_plain_run(void **state)
{
    db_run *a = load(dbp, 1), *b = load(dbp, 2);
    (void)state;
    assert_int_equal(a->n_reps, b->n_reps);
    assert_int_equal(a->meta.n_jobs, b->meta.n_jobs);
    assert_int_equal(b->meta.n_var_shares, 0);
    for (size_t k = 0; k < a->meta.n_jobs * resfield_n_job; k++) {
        stat_summary x = a->job_summary[k], y = b->job_summary[k];
        assert_int_equal(x.n, y.n);
        if (isfinite(y.mean))
            assert_close(x.mean, y.mean, 1e-12);
    }
    assert_close(a->solar_energy_p90_exceedance_j,
                 b->solar_energy_p90_exceedance_j, 1e-12);
    db_run_free(a);
    db_run_free(b);
}

/* A database of schema version 11 (made by dropping the table and the
 * version) gains an empty variance_shares when opened for writing, and
 * its runs read back without shares. */
static void test_report_spread_v11_database_gains_the_table(void **state)
{
    char p[400], cmd[1400], line[64] = "";
    FILE *f;
    db_run *r;
    (void)state;
    snprintf(p, sizeof p, "%s/v11.db", dir);
    snprintf(cmd, sizeof cmd,
             "cp %s %s && sqlite3 %s 'DROP TABLE variance_shares; PRAGMA "
             "user_version = 11;'",
             dbp, p, p);
    assert_int_equal(system(cmd), 0);
    r = load(p, 1);
    assert_int_equal(r->meta.n_var_shares, 0);
    db_run_free(r);
    snprintf(cmd, sizeof cmd,
             "sqlite3 %s 'PRAGMA user_version; SELECT count(*) FROM "
             "variance_shares;' 2>&1",
             p);
    f = popen(cmd, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_int_equal(atoi(line), DB_SCHEMA_VERSION);
    assert_true(DB_SCHEMA_VERSION >= 12); /* variance_shares came with 12 */
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "0\n");
    pclose(f);
}

/* merge copies the shares with their run (the tables keyed by run_id are
 * copied generically, io/db_merge.c), under the run's new id. */
static void test_report_spread_merge_copies_the_shares(void **state)
{
    char p[400];
    db_run *a, *b;
    (void)state;
    snprintf(p, sizeof p, "%s/merged.db", dir);
    if (run("merge --db %s %s", p, dbp) != 0)
        fail_msg("merge: %s", err);
    a = load(dbp, 1);
    b = load(p, 1);
    assert_string_equal(a->config_hash, b->config_hash);
    assert_true(a->meta.n_var_shares > 0);
    assert_int_equal(a->meta.n_var_shares, b->meta.n_var_shares);
    for (size_t i = 0; i < a->meta.n_var_shares; i++) {
        assert_int_equal(a->meta.var_shares[i].job, b->meta.var_shares[i].job);
        assert_string_equal(a->meta.var_shares[i].source,
                            b->meta.var_shares[i].source);
        assert_true(a->meta.var_shares[i].share == b->meta.var_shares[i].share);
    }
    db_run_free(a);
    db_run_free(b);
}

/* Reports run id into DIR/name; *md receives summary.md's text, the
 * return value report.html's. */
static char *report_run(int id, const char *name, char **md)
{
    char d[400], p[500];
    size_t len;
    snprintf(d, sizeof d, "%s/%s", dir, name);
    if (run("report --db %s --run %d --out %s --format svg", dbp, id, d) != 0)
        fail_msg("report: %s", err);
    snprintf(p, sizeof p, "%s/summary.md", d);
    *md = (char *)test_slurp(p, &len);
    snprintf(p, sizeof p, "%s/report.html", d);
    return (char *)test_slurp(p, &len);
}

/* The section is in both documents for the run that stored shares, with
 * each job's row as the stored figures give it, and in neither for the
 * plain run of the same case. */
static void test_report_spread_section_only_when_stored(void **state)
{
    char *md, *html = report_run(1, "r1", &md), *md2, *html2;
    db_run *r = load(dbp, 1);
    char heading[128];
    (void)state;
    assert_non_null(md);
    assert_non_null(html);
    snprintf(heading, sizeof heading, "## %s", report_spread_heading);
    assert_non_null(strstr(md, heading));
    assert_non_null(strstr(html, report_spread_heading));
    assert_non_null(strstr(html, "id=\"spread\""));
    for (size_t j = 0; j < r->meta.n_jobs; j++) {
        char row[256];
        const db_var_share *v = &r->meta.var_shares[j * VD_N];
        double sum = 0;
        for (int k = 0; k < VD_N; k++)
            sum += v[k].share;
        snprintf(row, sizeof row,
                 "| %s | %lld of 3 | %.3f | %.3f | %.1f | %.1f | %.1f | %.1f "
                 "| %.1f |",
                 r->meta.jobs[j].name, (long long)v->finished,
                 v->mean_s / 86400.0, sqrt(v->var_s2) / 86400.0,
                 100 * v[0].share, 100 * v[1].share, 100 * v[2].share,
                 100 * v[3].share, 100 * (1 - sum));
        if (!strstr(md, row))
            fail_msg("summary.md lacks the row %s", row);
    }
    assert_non_null(strstr(md, "common random numbers"));
    assert_non_null(strstr(html, "common random numbers"));
    html2 = report_run(2, "r2", &md2);
    assert_null(strstr(md2, heading));
    assert_null(strstr(html2, report_spread_heading));
    assert_null(strstr(html2, "common random numbers"));
    db_run_free(r);
    free(md);
    free(html);
    free(md2);
    free(html2);
}

/* The stored solar P90 exceedance is in the site table of both documents
 * (as MWh per year) for a solar site, and absent for a site without
 * solar (run 3, geothermal). */
static void test_report_spread_solar_p90_only_when_stored(void **state)
{
    char *md, *html = report_run(2, "s2", &md), *md3, *html3;
    db_run *r = load(dbp, 2);
    char row[256], mwh[64];
    (void)state;
    assert_true(isfinite(r->solar_energy_p90_exceedance_j));
    assert_true(r->solar_energy_p90_exceedance_j > 0);
    assert_int_equal(report_spread_solar_p90(r, mwh, sizeof mwh), 1);
    assert_close(atof(mwh), r->solar_energy_p90_exceedance_j / 3.6e9, 1e-3);
    snprintf(row, sizeof row, "| %s | %s |", report_spread_solar_p90_label,
             mwh);
    assert_non_null(strstr(md, row));
    assert_non_null(strstr(html, report_spread_solar_p90_label));
    assert_non_null(strstr(html, mwh));
    db_run_free(r);
    html3 = report_run(3, "s3", &md3);
    assert_null(strstr(md3, report_spread_solar_p90_label));
    assert_null(strstr(html3, report_spread_solar_p90_label));
    free(md);
    free(html);
    free(md3);
    free(html3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            test_report_spread_stored_shares_equal_the_printed_json),
        cmocka_unit_test(test_report_spread_stored_run_is_the_plain_run),
        cmocka_unit_test(test_report_spread_v11_database_gains_the_table),
        cmocka_unit_test(test_report_spread_merge_copies_the_shares),
        cmocka_unit_test(test_report_spread_section_only_when_stored),
        cmocka_unit_test(test_report_spread_solar_p90_only_when_stored),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
