/* tests/test_db.c: the results store (io/db.h): round trip of every field,
 * downsampling that preserves energy, one transaction per run under
 * SIGKILL, and the refusals (not a database, truncated, foreign, newer
 * schema, read-only, missing folder). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fixture_results.h"
#include "io/db.h"
#include "io/fielddoc.h"
#include "models/resfield.h"
#include "models/stats.h"
#include "testutil.h"

#define N_STEPS 2881 /* 30 days and one step: not a multiple of 4 */

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fs-test-db-%ld", (long)getpid());
    mkdir(dir, 0755);
    return 0;
}

static int teardown(void **state)
{
    char cmd[300];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *tpath(const char *name)
{
    static char p[4][320];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    remove(p[k]);
    return p[k];
}

/* Output of a shell command's first line (the sqlite3 CLI for checks). */
static void sh_line(const char *cmd, char *out, size_t n)
{
    FILE *f = popen(cmd, "r");
    out[0] = '\0';
    if (f) {
        if (!fgets(out, (int)n, f))
            out[0] = '\0';
        pclose(f);
    }
    out[strcspn(out, "\n")] = '\0';
}

static void make_reps(res_rep *reps, uint32_t n, size_t n_steps)
{
    for (uint32_t r = 0; r < n; r++)
        fx_rep(&reps[r], r, n_steps, 1, 1);
}

static void free_reps(res_rep *reps, uint32_t n)
{
    for (uint32_t r = 0; r < n; r++)
        res_rep_free(&reps[r]);
}

static void assert_same_value(double a, double b, const char *what)
{
    if (isnan(a) || isnan(b)) {
        if (!(isnan(a) && isnan(b)))
            fail_msg("%s: %g != %g", what, a, b);
    } else if (a != b) {
        fail_msg("%s: %.17g != %.17g", what, a, b);
    }
}

static void assert_same_summary(stat_summary a, stat_summary b,
                                const char *what)
{
    assert_int_equal(a.n, b.n);
    assert_same_value(a.mean, b.mean, what);
    assert_same_value(a.p10, b.p10, what);
    assert_same_value(a.p50, b.p50, what);
    assert_same_value(a.p90, b.p90, what);
    assert_same_value(a.min, b.min, what);
    assert_same_value(a.max, b.max, what);
}

static void test_db_round_trip_keeps_every_field(void **state)
{
    const char *p = tpath("rt.db");
    res_rep reps[4];
    db_run_meta m = fx_meta(4, N_STEPS);
    db *d;
    db_run *r;
    sim_err e;
    int64_t id = 0, latest = 0;
    char hex[17];
    (void)state;
    make_reps(reps, 4, N_STEPS);
    reps[2].jobs[2].completed = 0; /* NAN times must come back as NAN */
    reps[2].jobs[2].end_s = reps[2].jobs[2].time_to_train_s = NAN;
    m.seed = 18446744073709551557ull; /* above 2^63 */
    m.sweep_key = "sweep-a";
    m.case_key = "modules=1";
    m.case_index = 7;
    m.overrides_json = "{\"site.modules\": 1}";
    m.mpi_rank = 3;
    assert_int_equal(db_open(p, &d, &e), SIM_OK);
    assert_int_equal(db_store_run(d, &m, reps, 4, &id, &e), SIM_OK);
    assert_true(id > 0);
    assert_int_equal(db_latest_run(d, &latest, &e), SIM_OK);
    assert_int_equal(latest, id);
    assert_int_equal(db_load_run(d, id, DB_LOAD_STEPS | DB_LOAD_EVENTS, &r, &e),
                     SIM_OK);

    assert_string_equal(r->meta.scenario, m.scenario);
    assert_string_equal(r->meta.config_text, m.config_text);
    assert_string_equal(r->config_hash,
                        db_hash_hex(m.config_text, strlen(m.config_text), hex));
    assert_true(r->meta.seed == m.seed);
    assert_int_equal(r->meta.replications, 4);
    assert_string_equal(r->meta.version, FACTORYSIM_VERSION);
    assert_string_equal(r->meta.created_utc, "2026-01-01T00:00:00Z");
    assert_close(r->meta.horizon_s, m.horizon_s, 0);
    assert_close(r->meta.step_s, FX_STEP_S, 0);
    assert_string_equal(r->meta.site_name, m.site_name);
    assert_close(r->meta.it_capacity_w, 3.5e6, 0);
    assert_int_equal(r->meta.n_modules, 1);
    assert_string_equal(r->meta.modules[0].type, "spark-liquid");
    assert_int_equal(r->meta.gpus[0].count, 2304);
    assert_int_equal(r->meta.n_sources, 3);
    assert_string_equal(r->meta.sources[1].kind, "battery");
    assert_string_equal(r->meta.sources[1].name, "second-life-1");
    assert_close(r->meta.sources[1].energy_j, 3.6e10, 0);
    assert_int_equal(r->meta.n_jobs, FX_N_JOBS);
    for (size_t j = 0; j < FX_N_JOBS; j++) {
        assert_string_equal(r->meta.jobs[j].name, fx_jobs[j].name);
        assert_string_equal(r->meta.jobs[j].model, fx_jobs[j].model);
        assert_string_equal(r->meta.jobs[j].precision, fx_jobs[j].precision);
        assert_string_equal(r->meta.jobs[j].gpu_type, fx_jobs[j].gpu_type);
        assert_int_equal(r->meta.jobs[j].gpus, fx_jobs[j].gpus);
        /* the layout, one column per field (schema version 3) */
        assert_int_equal(r->meta.jobs[j].tp, fx_jobs[j].tp);
        assert_int_equal(r->meta.jobs[j].pp, fx_jobs[j].pp);
        assert_int_equal(r->meta.jobs[j].vp, fx_jobs[j].vp);
        assert_int_equal(r->meta.jobs[j].cp, fx_jobs[j].cp);
        assert_int_equal(r->meta.jobs[j].ep, fx_jobs[j].ep);
        assert_int_equal(r->meta.jobs[j].mbs, fx_jobs[j].mbs);
        assert_string_equal(r->meta.jobs[j].recompute, fx_jobs[j].recompute);
        assert_int_equal(r->meta.jobs[j].distopt, fx_jobs[j].distopt);
        assert_string_equal(r->meta.jobs[j].chosen, fx_jobs[j].chosen);
        assert_int_equal(r->meta.jobs[j].etp, fx_jobs[j].etp);
    }
    assert_string_equal(r->meta.sweep_key, "sweep-a");
    assert_string_equal(r->meta.case_key, "modules=1");
    assert_int_equal(r->meta.case_index, 7);
    assert_string_equal(r->meta.overrides_json, m.overrides_json);
    assert_int_equal(r->meta.mpi_rank, 3);
    assert_string_equal(r->meta.status, "complete");

    assert_int_equal(r->n_reps, 4);
    for (size_t k = 0; k < 4; k++) {
        const res_rep *a = &reps[k], *b = &r->reps[k];
        assert_int_equal(b->replication, a->replication);
        for (size_t j = 0; j < FX_N_JOBS; j++)
            for (size_t f = 0; f < resfield_n_job; f++)
                assert_same_value(resfield_get(&b->jobs[j], &resfield_job[f]),
                                  resfield_get(&a->jobs[j], &resfield_job[f]),
                                  resfield_job[f].name);
        for (size_t f = 0; f < resfield_n_site; f++)
            assert_same_value(resfield_get(&b->site, &resfield_site[f]),
                              resfield_get(&a->site, &resfield_site[f]),
                              resfield_site[f].name);
        assert_int_equal(b->n_steps, a->n_steps);
        for (size_t i = 0; i < a->n_steps; i++) {
            for (size_t f = 0; f < resfield_n_step; f++)
                assert_same_value(resfield_get(&b->steps[i], &resfield_step[f]),
                                  resfield_get(&a->steps[i], &resfield_step[f]),
                                  resfield_step[f].name);
            assert_close(r->step_dt_s[k][i], FX_STEP_S, 1e-12);
        }
        assert_int_equal(b->n_events, a->n_events);
        assert_true(a->n_events > 10);
        for (size_t i = 0; i < a->n_events; i++) {
            assert_same_value(b->events[i].t_s, a->events[i].t_s, "event t_s");
            assert_int_equal(b->events[i].job, a->events[i].job);
            assert_int_equal(b->events[i].kind, a->events[i].kind);
            assert_int_equal(b->events[i].cause, a->events[i].cause);
            assert_same_value(b->events[i].value, a->events[i].value,
                              "event value");
        }
    }
    /* Summaries are stats_summarize of the stored replications. */
    for (size_t j = 0; j < FX_N_JOBS; j++)
        for (size_t f = 0; f < resfield_n_job; f++) {
            double x[4];
            for (size_t k = 0; k < 4; k++)
                x[k] = resfield_get(&reps[k].jobs[j], &resfield_job[f]);
            assert_same_summary(r->job_summary[j * resfield_n_job + f],
                                stats_summarize(x, 1, 4), resfield_job[f].name);
        }
    {
        int f = resfield_find(resfield_job, resfield_n_job, "time_to_train_s",
                              NULL);
        assert_int_equal(r->job_summary[2 * resfield_n_job + (size_t)f].n, 3);
    }
    for (size_t f = 0; f < resfield_n_site; f++) {
        double x[4];
        for (size_t k = 0; k < 4; k++)
            x[k] = resfield_get(&reps[k].site, &resfield_site[f]);
        assert_same_summary(r->site_summary[f], stats_summarize(x, 1, 4),
                            resfield_site[f].name);
    }
    db_run_free(r);
    assert_int_equal(db_integrity_check(d, &e), SIM_OK);
    db_close(d);
    free_reps(reps, 4);
}

/* The run's solar P90 exceedance (schema version 11) is stored with the run
 * and read back: the 10th percentile over the replications of the
 * annualized generation, here hand-set so that the figure is known on
 * paper (four replications of a 182.5-day horizon with 10, 20, 30 and
 * 40 GJ: annualized x 2 to 20, 40, 60, 80 GJ; P10 of four sorted values by
 * stats.h's linear interpolation = 20 + 0.3 x 20 = 26 GJ); a run without
 * solar stores NULL and reads back NAN. */
static void test_db_solar_p90_exceedance_is_stored_and_read_back(void **state)
{
    const char *p = tpath("p90.db");
    res_rep reps[4];
    db_run_meta m = fx_meta(4, 0);
    db *d;
    db_run *r;
    sim_err e;
    int64_t id = 0, id0 = 0;
    (void)state;
    make_reps(reps, 4, 1); /* fx_rep needs a step (it reads the last) */
    m.horizon_s = 182.5 * 86400.0;
    for (int k = 0; k < 4; k++)
        reps[k].site.solar_energy_j = 1e10 * (k + 1);
    assert_int_equal(db_open(p, &d, &e), SIM_OK);
    assert_int_equal(db_store_run(d, &m, reps, 4, &id, &e), SIM_OK);
    for (int k = 0; k < 4; k++)
        reps[k].site.solar_energy_j = 0;
    m.seed = 99; /* another run of the same scenario */
    assert_int_equal(db_store_run(d, &m, reps, 4, &id0, &e), SIM_OK);
    assert_int_equal(db_load_run(d, id, 0, &r, &e), SIM_OK);
    assert_close(r->solar_energy_p90_exceedance_j, 2.6e10, 1e-12);
    db_run_free(r);
    assert_int_equal(db_load_run(d, id0, 0, &r, &e), SIM_OK);
    assert_true(isnan(r->solar_energy_p90_exceedance_j));
    db_run_free(r);
    db_close(d);
    free_reps(reps, 4);
}

static void test_db_file_is_wal_strict_and_versioned(void **state)
{
    const char *p = tpath("wal.db");
    char cmd[512], out[256];
    res_rep rep;
    db_run_meta m = fx_meta(1, 96);
    db *d;
    sim_err e;
    (void)state;
    fx_rep(&rep, 0, 96, 1, 1);
    assert_int_equal(db_open(p, &d, &e), SIM_OK);
    assert_int_equal(db_store_run(d, &m, &rep, 1, NULL, &e), SIM_OK);
    db_close(d);
    snprintf(cmd, sizeof cmd, "sqlite3 %s 'PRAGMA journal_mode;'", p);
    sh_line(cmd, out, sizeof out);
    assert_string_equal(out, "wal");
    snprintf(cmd, sizeof cmd, "sqlite3 %s 'PRAGMA user_version;'", p);
    sh_line(cmd, out, sizeof out);
    assert_int_equal(atoi(out), DB_SCHEMA_VERSION);
    snprintf(cmd, sizeof cmd,
             "sqlite3 %s \"SELECT count(*) FROM pragma_table_list "
             "WHERE schema = 'main' AND strict = 1;\"",
             p);
    sh_line(cmd, out, sizeof out);
    assert_int_equal(atoi(out), 18); /* every table is STRICT */
    /* A STRICT table refuses text in a REAL column. */
    snprintf(cmd, sizeof cmd,
             "sqlite3 %s \"UPDATE site_reps SET co2_kg = 'lots';\" "
             "2>&1 | grep -c 'cannot store TEXT'",
             p);
    sh_line(cmd, out, sizeof out);
    assert_string_equal(out, "1");
    res_rep_free(&rep);
}

/* Energy columns: sum(power x dt) over the merged steps equals the sum over
 * the original steps, for every power, at factor 4 on 2881 steps. */
static void test_db_downsample_preserves_energy(void **state)
{
    const char *p = tpath("ds.db");
    res_rep rep;
    db_run_meta m = fx_meta(1, N_STEPS);
    db *d;
    db_run *r;
    sim_err e;
    int64_t id;
    (void)state;
    fx_rep(&rep, 0, N_STEPS, 1, 0);
    m.ts_downsample = 4;
    m.store_events = 0;
    assert_int_equal(db_open(p, &d, &e), SIM_OK);
    assert_int_equal(db_store_run(d, &m, &rep, 1, &id, &e), SIM_OK);
    assert_int_equal(db_load_run(d, id, DB_LOAD_STEPS | DB_LOAD_EVENTS, &r, &e),
                     SIM_OK);
    assert_int_equal(r->reps[0].n_steps, (N_STEPS + 3) / 4);
    assert_int_equal(r->reps[0].n_events, 0);
    assert_int_equal(r->meta.ts_downsample, 4);
    assert_close(r->step_dt_s[0][r->reps[0].n_steps - 1], FX_STEP_S,
                 1e-12); /* 2881 = 4*720+1 */
    assert_close(r->step_dt_s[0][0], 4 * FX_STEP_S, 1e-12);
    for (size_t f = 1; f < resfield_n_step; f++) {
        const char *nm = resfield_step[f].name;
        size_t len = strlen(nm);
        double e0 = 0, e1 = 0;
        if (len < 2 || strcmp(nm + len - 2, "_w") != 0)
            continue;
        for (size_t i = 0; i < rep.n_steps; i++)
            e0 += resfield_get(&rep.steps[i], &resfield_step[f]) * FX_STEP_S;
        for (size_t i = 0; i < r->reps[0].n_steps; i++)
            e1 += resfield_get(&r->reps[0].steps[i], &resfield_step[f]) *
                  r->step_dt_s[0][i];
        if (e0 == 0)
            assert_true(e1 == 0);
        else
            assert_close(e1, e0, 1e-12);
    }
    /* The merged PUE is the ratio of merged powers. */
    assert_close(r->reps[0].steps[5].pue,
                 r->reps[0].steps[5].facility_w / r->reps[0].steps[5].it_w,
                 1e-14);
    assert_close(r->reps[0].steps[1].t_s, 4 * FX_STEP_S, 0);
    db_run_free(r);
    db_close(d);
    res_rep_free(&rep);
}

static void test_db_same_configuration_shares_one_scenario(void **state)
{
    const char *p = tpath("dedup.db");
    char cmd[512], out[64];
    res_rep rep;
    db_run_meta m = fx_meta(1, 96);
    db *d;
    sim_err e;
    (void)state;
    fx_rep(&rep, 0, 96, 0, 0);
    m.store_timeseries = m.store_events = 0;
    assert_int_equal(db_open(p, &d, &e), SIM_OK);
    assert_int_equal(db_store_run(d, &m, &rep, 1, NULL, &e), SIM_OK);
    m.seed = 43;
    assert_int_equal(db_store_run(d, &m, &rep, 1, NULL, &e), SIM_OK);
    m.config_text = "name = \"fixture-site\";\nsite = { modules = 2; };\n";
    assert_int_equal(db_store_run(d, &m, &rep, 1, NULL, &e), SIM_OK);
    db_close(d);
    snprintf(cmd, sizeof cmd, "sqlite3 %s 'SELECT count(*) FROM scenarios;'",
             p);
    sh_line(cmd, out, sizeof out);
    assert_string_equal(out, "2");
    snprintf(cmd, sizeof cmd, "sqlite3 %s 'SELECT count(*) FROM runs;'", p);
    sh_line(cmd, out, sizeof out);
    assert_string_equal(out, "3");
    res_rep_free(&rep);
}

static void test_db_bad_run_stores_nothing(void **state)
{
    const char *p = tpath("bad.db");
    res_rep reps[2];
    db_run_meta m = fx_meta(2, 96);
    db *d;
    sim_err e;
    int64_t id = 0, latest = 0;
    (void)state;
    fx_rep(&reps[0], 0, 96, 1, 1);
    fx_rep(&reps[1], 1, 96, 1, 1);
    assert_int_equal(db_open(p, &d, &e), SIM_OK);
    assert_int_equal(db_store_run(d, &m, reps, 2, &id, &e), SIM_OK);
    reps[1].n_jobs = 2;
    assert_int_equal(db_store_run(d, &m, reps, 2, NULL, &e), SIM_EINVAL);
    assert_non_null(strstr(e.msg, "replication 1 has 2 jobs, expected 3"));
    reps[1].n_jobs = 3;
    reps[1].events[3].kind = 99; /* fails halfway: after rows were inserted */
    assert_int_equal(db_store_run(d, &m, reps, 2, NULL, &e), SIM_EINVAL);
    assert_non_null(strstr(e.msg, "out of range"));
    assert_int_equal(db_latest_run(d, &latest, &e), SIM_OK);
    assert_int_equal(latest, id);
    reps[1].events[3].kind = RES_EV_CHECKPOINT;
    reps[1].steps[10].t_s = reps[1].steps[9].t_s;
    assert_int_equal(db_store_run(d, &m, reps, 2, NULL, &e), SIM_EINVAL);
    assert_non_null(strstr(e.msg, "steps[10].t_s"));
    m.scenario = NULL;
    assert_int_equal(db_store_run(d, &m, reps, 2, NULL, &e), SIM_EINVAL);
    assert_int_equal(db_integrity_check(d, &e), SIM_OK);
    db_close(d);
    free_reps(reps, 2);
}

static void test_db_case_done_finds_complete_cases_only(void **state)
{
    const char *p = tpath("sweep.db");
    res_rep rep;
    db_run_meta m = fx_meta(1, 96);
    db *d;
    db_run_row *rows;
    size_t n;
    sim_err e;
    (void)state;
    fx_rep(&rep, 0, 96, 0, 0);
    m.store_timeseries = m.store_events = 0;
    m.sweep_key = "sw1";
    assert_int_equal(db_open(p, &d, &e), SIM_OK);
    m.case_key = "a";
    m.case_index = 0;
    m.status = "interrupted";
    assert_int_equal(db_store_run(d, &m, &rep, 1, NULL, &e), SIM_OK);
    assert_int_equal(db_case_done(d, "sw1", "a", &e), 0);
    m.status = NULL;
    assert_int_equal(db_store_run(d, &m, &rep, 1, NULL, &e), SIM_OK);
    assert_int_equal(db_case_done(d, "sw1", "a", &e), 1);
    assert_int_equal(db_case_done(d, "sw1", "b", &e), 0);
    assert_int_equal(db_case_done(d, "sw2", "a", &e), 0);
    assert_int_equal(db_store_run(d, &m, &rep, 1, NULL, &e), DB_ALREADY_STORED);
    m.case_key = "b";
    m.case_index = 1;
    m.mpi_rank = 1;
    assert_int_equal(db_store_run(d, &m, &rep, 1, NULL, &e), SIM_OK);
    assert_int_equal(db_list_runs(d, &rows, &n, &e), SIM_OK);
    assert_int_equal(n, 3);
    assert_string_equal(rows[0].status, "interrupted");
    assert_string_equal(rows[2].case_key, "b");
    assert_int_equal(rows[2].case_index, 1);
    assert_int_equal(rows[2].mpi_rank, 1);
    assert_int_equal(rows[1].mpi_rank, -1);
    db_run_rows_free(rows, n);
    db_close(d);
    res_rep_free(&rep);
}

static void test_db_latest_run_on_empty_database_is_not_found(void **state)
{
    const char *p = tpath("empty.db");
    db *d;
    db_run *r;
    sim_err e;
    int64_t id;
    (void)state;
    assert_int_equal(db_open(p, &d, &e), SIM_OK);
    assert_int_equal(db_latest_run(d, &id, &e), SIM_ENOTFOUND);
    assert_int_equal(db_load_run(d, 5, 0, &r, &e), SIM_ENOTFOUND);
    assert_null(r);
    db_close(d);
}

static void assert_refused(const char *p, const char *why)
{
    db *d = (db *)1;
    sim_err e;
    char buf[2200];
    assert_int_equal(db_open(p, &d, &e), SIM_ECONFIG);
    assert_null(d);
    sim_err_format(&e, buf, sizeof buf);
    if (!strstr(buf, "not a factorysim results database") ||
        strncmp(buf, p, strlen(p)) || !strstr(buf, why))
        fail_msg("unexpected message: %s", buf);
    assert_int_equal(db_open_readonly(p, &d, &e), SIM_ECONFIG);
    assert_null(d);
}

static void test_db_refuses_a_text_file(void **state)
{
    const char *p = tpath("text.db");
    FILE *f = fopen(p, "w");
    (void)state;
    for (int i = 0; i < 200; i++)
        fputs("this is a scenario, not a database\n", f);
    fclose(f);
    assert_refused(p, "file is not a database");
}

static void test_db_refuses_a_truncated_file(void **state)
{
    const char *p = tpath("trunc.db");
    res_rep rep;
    db_run_meta m = fx_meta(1, N_STEPS);
    db *d;
    sim_err e;
    struct stat sb;
    (void)state;
    fx_rep(&rep, 0, N_STEPS, 1, 1);
    assert_int_equal(db_open(p, &d, &e), SIM_OK);
    assert_int_equal(db_store_run(d, &m, &rep, 1, NULL, &e), SIM_OK);
    db_close(d); /* a clean close checkpoints the WAL into the file */
    assert_int_equal(stat(p, &sb), 0);
    assert_true(sb.st_size > 100000);
    assert_int_equal(truncate(p, sb.st_size / 2), 0);
    assert_refused(p, "(");
    res_rep_free(&rep);
}

static void test_db_refuses_another_applications_database(void **state)
{
    const char *p = tpath("foreign.db");
    char cmd[512];
    (void)state;
    snprintf(cmd, sizeof cmd,
             "sqlite3 %s 'CREATE TABLE t(x); INSERT INTO t VALUES(1);'", p);
    assert_int_equal(system(cmd), 0);
    assert_refused(p, "application_id 0x00000000");
}

static void test_db_refuses_a_newer_schema(void **state)
{
    const char *p = tpath("newer.db");
    char cmd[512];
    db *d;
    sim_err e;
    (void)state;
    assert_int_equal(db_open(p, &d, &e), SIM_OK);
    db_close(d);
    snprintf(cmd, sizeof cmd, "sqlite3 %s 'PRAGMA user_version = %d;'", p,
             DB_SCHEMA_VERSION + 1);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(db_open(p, &d, &e), SIM_ECONFIG);
    snprintf(cmd, sizeof cmd, "newer factorysim (schema version %d",
             DB_SCHEMA_VERSION + 1);
    assert_non_null(strstr(e.msg, cmd));
}

/* The schema version follows the result-field table: a field added,
 * renamed or retyped without a new version (and its migration step in
 * io/db.c) fails here. */
static void test_db_schema_version_follows_the_field_table(void **state)
{
    (void)state;
    if (resfield_shape_hash() != DB_SCHEMA_FIELDS_HASH)
        fail_msg("models/resfield.c changed (shape hash 0x%016llx, io/db.h "
                 "records 0x%016llx for schema version %d): raise "
                 "DB_SCHEMA_VERSION, add its migration step to io/db.c and "
                 "record the new hash",
                 resfield_shape_hash(),
                 (unsigned long long)DB_SCHEMA_FIELDS_HASH, DB_SCHEMA_VERSION);
}

/* A version-1 database (tests/data/db/schema-v1.db) is refused read-only
 * with what to do, and upgraded in place when opened for writing: renamed
 * columns keep their values (hours become seconds), every run reads back,
 * and new runs can be stored beside the old ones. */
static void test_db_older_schema_is_upgraded_in_place_or_refused(void **state)
{
    const char *p = tpath("v1.db");
    char cmd[600], out[200];
    double hours, tps;
    db *d;
    db_run *r;
    sim_err e;
    (void)state;
    snprintf(cmd, sizeof cmd, "cp tests/data/db/schema-v1.db %s", p);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd,
             "sqlite3 %s 'SELECT hours_short FROM site_reps WHERE "
             "replication = 1'",
             p);
    sh_line(cmd, out, sizeof out);
    hours = atof(out);
    snprintf(cmd, sizeof cmd,
             "sqlite3 %s 'SELECT tokens_per_s_per_gpu FROM job_reps WHERE "
             "replication = 1'",
             p);
    sh_line(cmd, out, sizeof out);
    tps = atof(out);
    assert_true(hours > 0 && tps > 0);

    assert_int_equal(db_open_readonly(p, &d, &e), SIM_ECONFIG);
    assert_non_null(strstr(e.msg, "written by an older factorysim (schema "
                                  "version 1"));
    assert_non_null(strstr(e.msg, "factorysim schema --upgrade"));

    assert_int_equal(db_open(p, &d, &e), SIM_OK);
    assert_int_equal(db_load_run(d, 1, DB_LOAD_STEPS, &r, &e), SIM_OK);
    assert_int_equal(r->n_reps, 2);
    assert_close(r->reps[1].site.time_short_s, hours * 3600.0, 1e-12);
    assert_close(r->reps[1].jobs[0].tokens_per_sec_per_gpu, tps, 1e-12);
    {
        int f =
            resfield_find(resfield_site, resfield_n_site, "time_short_s", NULL);
        assert_true(f >= 0);
        assert_true(r->site_summary[f].n == 2);
        assert_true(r->site_summary[f].max >= hours * 3600.0 * (1 - 1e-12));
    }
    assert_true(r->reps[0].n_steps > 0);
    /* Version 2 -> 3 added the layout columns: unknown (NULL) for the
     * runs stored before. */
    assert_int_equal(r->meta.jobs[0].tp, 0);
    assert_int_equal(r->meta.jobs[0].mbs, 0);
    assert_null(r->meta.jobs[0].recompute);
    assert_int_equal(r->meta.jobs[0].distopt, -1);
    assert_null(r->meta.jobs[0].chosen);
    /* Version 12 -> 13 added layout_etp: unknown (NULL reads 0). */
    assert_int_equal(r->meta.jobs[0].etp, 0);
    /* Version 10 -> 11 added the run's solar P90 exceedance: NULL (NAN) for
     * the runs stored before, never made up. */
    assert_true(isnan(r->solar_energy_p90_exceedance_j));
    db_run_free(r);
    assert_int_equal(db_integrity_check(d, &e), SIM_OK);
    db_close(d);
    snprintf(cmd, sizeof cmd, "sqlite3 %s 'PRAGMA user_version'", p);
    sh_line(cmd, out, sizeof out);
    assert_int_equal(atoi(out), DB_SCHEMA_VERSION);
    /* Version 8 -> 9 made the (empty) optimize tables. */
    snprintf(cmd, sizeof cmd,
             "sqlite3 %s 'SELECT count(*) FROM optimize_problems, "
             "optimize_terms, optimize_designs' 2>&1",
             p);
    sh_line(cmd, out, sizeof out);
    assert_string_equal(out, "0");
    /* Version 11 -> 12 made the (empty) variance_shares. */
    snprintf(cmd, sizeof cmd,
             "sqlite3 %s 'SELECT count(*) FROM variance_shares' 2>&1", p);
    sh_line(cmd, out, sizeof out);
    assert_string_equal(out, "0");
    assert_int_equal(db_open_readonly(p, &d, &e), SIM_OK);
    db_close(d);
}

static void test_db_missing_folder_is_a_clear_error(void **state)
{
    db *d;
    sim_err e;
    (void)state;
    assert_int_equal(db_open("/nonexistent-factorysim/dir/x.db", &d, &e),
                     SIM_EIO);
    assert_string_equal(e.file, "/nonexistent-factorysim/dir/x.db");
    assert_non_null(strstr(e.msg, "cannot open results database"));
    assert_int_equal(db_open_readonly("/nonexistent-factorysim/x.db", &d, &e),
                     SIM_ENOTFOUND);
    assert_int_equal(db_open(dir, &d, &e), SIM_EIO);
    assert_non_null(strstr(e.msg, "is a directory"));
}

static void test_db_read_only_database_refuses_writes(void **state)
{
    const char *p = tpath("ro.db");
    res_rep rep;
    db_run_meta m = fx_meta(1, 96);
    db *d;
    sim_err e;
    int64_t id;
    (void)state;
    fx_rep(&rep, 0, 96, 1, 1);
    assert_int_equal(db_open(p, &d, &e), SIM_OK);
    assert_int_equal(db_store_run(d, &m, &rep, 1, &id, &e), SIM_OK);
    db_close(d);
    /* The read-only open path: reads work, stores are refused. */
    assert_int_equal(db_open_readonly(p, &d, &e), SIM_OK);
    assert_int_equal(db_latest_run(d, &id, &e), SIM_OK);
    assert_int_equal(db_store_run(d, &m, &rep, 1, NULL, &e), SIM_EIO);
    assert_non_null(strstr(e.msg, "read-only"));
    db_close(d);
    /* A file without write permission: root ignores the mode bits, so this
     * half only runs for other users. */
    if (geteuid() != 0) {
        assert_int_equal(chmod(p, 0444), 0);
        assert_int_equal(db_open(p, &d, &e), SIM_EIO);
        assert_non_null(strstr(e.msg, "read-only"));
        chmod(p, 0644);
    }
    res_rep_free(&rep);
}

/* A child stores runs with a large time series in a loop and reports each
 * commit on a pipe; it is SIGKILLed in the middle of a later write. Every
 * reported run must then be complete and the file must pass
 * integrity_check; no partial run may be visible. */
static void test_db_sigkill_mid_write_keeps_earlier_runs(void **state)
{
    const char *p = tpath("kill.db");
    const size_t n_steps = 35040; /* a year of 15-minute steps */
    int fd[2];
    pid_t pid;
    int64_t committed = 0, ids[64];
    double per_run_ms = 0;
    (void)state;
    assert_int_equal(pipe(fd), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        res_rep rep;
        db_run_meta m = fx_meta(1, n_steps);
        db *d;
        sim_err e;
        close(fd[0]);
        fx_rep(&rep, 0, n_steps, 1, 1);
        if (db_open(p, &d, &e) != SIM_OK)
            _exit(3);
        for (uint64_t k = 0;; k++) {
            int64_t id;
            m.seed = 1000 + k;
            if (db_store_run(d, &m, &rep, 1, &id, &e) != SIM_OK)
                _exit(4);
            if (write(fd[1], &id, sizeof id) != (ssize_t)sizeof id)
                _exit(5);
        }
    }
    close(fd[1]);
    {
        struct timespec t0, t1, nap;
        double per_run;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (committed < 3 &&
               read(fd[0], &ids[committed], sizeof ids[0]) == sizeof ids[0])
            committed++;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        assert_int_equal(committed, 3);
        /* Kill about halfway through the next run's transaction. */
        per_run = ((double)(t1.tv_sec - t0.tv_sec) +
                   1e-9 * (double)(t1.tv_nsec - t0.tv_nsec)) /
                  3;
        per_run_ms = 1e3 * per_run;
        nap.tv_sec = 0;
        nap.tv_nsec = (long)(fmin(per_run * 0.5, 0.9) * 1e9);
        nanosleep(&nap, NULL);
        kill(pid, SIGKILL);
    }
    {
        int st;
        int64_t id;
        waitpid(pid, &st, 0);
        assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
        while (committed < 64 && read(fd[0], &id, sizeof id) == sizeof id)
            ids[committed++] = id; /* commits reported just before the kill */
        close(fd[0]);
    }
    {
        db *d;
        db_run_row *rows;
        size_t n;
        sim_err e;
        assert_int_equal(db_open(p, &d, &e), SIM_OK);
        assert_int_equal(db_integrity_check(d, &e), SIM_OK);
        assert_int_equal(db_list_runs(d, &rows, &n, &e), SIM_OK);
        /* Every reported commit is there; at most the one in flight, whose
         * COMMIT may have landed before its report was written, is extra. */
        assert_true(n == (size_t)committed || n == (size_t)committed + 1);
        print_message("kill test: %lld runs reported committed, %zu stored, "
                      "%.0f ms per run\n",
                      (long long)committed, n, per_run_ms);
        for (size_t i = 0; i < n; i++) {
            db_run *r;
            if (i < (size_t)committed)
                assert_int_equal(rows[i].id, ids[i]);
            assert_int_equal(db_load_run(d, rows[i].id,
                                         DB_LOAD_STEPS | DB_LOAD_EVENTS, &r,
                                         &e),
                             SIM_OK);
            assert_int_equal(r->n_reps, 1);
            assert_int_equal(r->reps[0].n_steps, n_steps);
            assert_int_equal(r->reps[0].n_jobs, FX_N_JOBS);
            assert_true(r->reps[0].n_events > 10);
            assert_true(isfinite(r->reps[0].steps[n_steps - 1].facility_w));
            db_run_free(r);
        }
        db_run_rows_free(rows, n);
        db_close(d);
    }
}

/* docs/results-schema.md names every generated column. */
static void test_db_schema_doc_names_every_column(void **state)
{
    size_t n = 0;
    char *doc = (char *)test_slurp("docs/results-schema.md", &n);
    const resfield *t[5] = {resfield_job, resfield_site, resfield_step,
                            resfield_module, resfield_pd_sample};
    const size_t nt[5] = {resfield_n_job, resfield_n_site, resfield_n_step,
                          resfield_n_module, resfield_n_pd_sample};
    (void)state;
    assert_non_null(doc);
    for (int k = 0; k < 5; k++)
        for (size_t i = 0; i < nt[k]; i++) {
            char want[80];
            snprintf(want, sizeof want, "| `%s` |", t[k][i].name);
            if (!strstr(doc, want))
                fail_msg("docs/results-schema.md does not list %s",
                         t[k][i].name);
        }
    free(doc);
}

/* docs/results-schema.md embeds exactly what `factorysim schema` prints
 * (`make docs` rewrites it). */
static void test_db_schema_doc_is_generated_and_current(void **state)
{
    size_t n = 0, m = 0;
    char *doc = (char *)test_slurp("docs/results-schema.md", &n), *gen;
    FILE *f = open_memstream(&gen, &m);
    char *want;
    (void)state;
    assert_non_null(doc);
    assert_non_null(f);
    assert_int_equal(fielddoc_results_md(f), SIM_OK);
    fclose(f);
    want = malloc(m + 256);
    snprintf(want, m + 256, "%s\n%s%s", FIELDDOC_BEGIN, gen, FIELDDOC_END);
    if (!strstr(doc, want))
        fail_msg("docs/results-schema.md is not current: run `make docs`");
    free(want);
    free(gen);
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_db_round_trip_keeps_every_field),
        cmocka_unit_test(test_db_file_is_wal_strict_and_versioned),
        cmocka_unit_test(test_db_solar_p90_exceedance_is_stored_and_read_back),
        cmocka_unit_test(test_db_downsample_preserves_energy),
        cmocka_unit_test(test_db_same_configuration_shares_one_scenario),
        cmocka_unit_test(test_db_bad_run_stores_nothing),
        cmocka_unit_test(test_db_case_done_finds_complete_cases_only),
        cmocka_unit_test(test_db_latest_run_on_empty_database_is_not_found),
        cmocka_unit_test(test_db_refuses_a_text_file),
        cmocka_unit_test(test_db_refuses_a_truncated_file),
        cmocka_unit_test(test_db_refuses_another_applications_database),
        cmocka_unit_test(test_db_refuses_a_newer_schema),
        cmocka_unit_test(test_db_schema_version_follows_the_field_table),
        cmocka_unit_test(test_db_older_schema_is_upgraded_in_place_or_refused),
        cmocka_unit_test(test_db_schema_doc_is_generated_and_current),
        cmocka_unit_test(test_db_missing_folder_is_a_clear_error),
        cmocka_unit_test(test_db_read_only_database_refuses_writes),
        cmocka_unit_test(test_db_sigkill_mid_write_keeps_earlier_runs),
        cmocka_unit_test(test_db_schema_doc_names_every_column),
    };
    return cmocka_run_group_tests_name("db", tests, setup, teardown);
}
