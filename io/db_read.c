/* io/db_read.c: reading runs back from the results store (db.h):
 * db_load_run, db_list_runs, db_latest_run and db_case_done.
 *
 * A run is loaded inside one read transaction (a consistent snapshot while
 * other processes store), its strings and arrays owned by one allocation
 * (run_mem) that db_run_free releases. Columns are found by the names of
 * models/resfield.h; a column NULL in the file (a field an older version
 * did not compute) reads back as NAN. This file must never write.
 */
#include "io/db.h"
#include "io/db_int.h"

#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "models/resfield.h"
#include "sim/mem.h"

/* ---- read ---- */

/* The highest id is the run stored last: ids are INTEGER PRIMARY KEY
 * rowids, assigned in commit order, and db_merge gives copied runs new
 * ids, so "latest" means latest stored here, not latest computed. The
 * count first, so an empty database is "no runs stored yet" and not a NULL
 * read as 0. */
int db_latest_run(db *d, int64_t *run_id, sim_err *err)
{
    int64_t n = 0;
    int rc;
    if ((rc = db_int(d, "SELECT count(*) FROM runs;", &n, err)) != SIM_OK)
        return rc;
    if (n == 0)
        return sim_err_set(err, SIM_ENOTFOUND, d->path, 0,
                           "no runs stored yet");
    return db_int(d, "SELECT max(id) FROM runs;", run_id, err);
}

/* Only complete runs count: an interrupted case is run again on resume,
 * and the runs_case unique index covers complete runs only, so this and
 * the index agree on what "done" means. */
int db_case_done(db *d, const char *sweep_key, const char *case_key,
                 sim_err *err)
{
    sqlite3_stmt *st;
    int rc;
    if (!sweep_key || !case_key)
        return sim_err_set(err, SIM_EINVAL, d->path, 0,
                           "db_case_done: NULL key");
    if ((rc = db_prep(
             d,
             "SELECT count(*) FROM runs WHERE sweep_key = ?1 AND case_key = ?2 "
             "AND status = 'complete';",
             &st, err)) != SIM_OK)
        return rc;
    sqlite3_bind_text(st, 1, sweep_key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, case_key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        rc = sqlite3_column_int64(st, 0) > 0;
    else
        rc = db_fail(d, err, "looking up a sweep case");
    sqlite3_finalize(st);
    return rc;
}

/* A copy, because SQLite's text pointer dies at the next step or
 * finalize; shared with io/db_merge.c through io/db_int.h. */
char *db_col_str(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? sim_xstrdup((const char *)s) : NULL;
}

/* NULL reads back as NAN, the value the writer stored as NULL (db.h);
 * sqlite3_column_double would turn it into 0, a plausible wrong value. */
static double col_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL
               ? (double)NAN
               : sqlite3_column_double(st, i);
}

/* Columns first .. first+n-1 into the fields of t, in table order: the
 * SELECT lists were generated from the same table, so position i is field
 * i with no name lookup per row. */
static void read_fields(sqlite3_stmt *st, int first, void *rec,
                        const resfield *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        resfield_set(rec, &t[i], col_real(st, first + (int)i));
}

/* Owned storage of a loaded run: every string and array meta points to. */
typedef struct run_mem {
    db_run pub;
    char *strs[24];
    size_t n_strs;
    db_job_def *jobs;
    db_count *modules, *gpus;
    db_source_def *sources;
} run_mem;

/* Records s as owned by m (db_run_free frees it) and returns it. The run
 * row has a fixed number of text columns, fewer than strs holds. */
static const char *keep(run_mem *m, char *s)
{
    if (s && m->n_strs < sizeof m->strs / sizeof m->strs[0])
        m->strs[m->n_strs++] = s;
    else if (s) /* never reached: the string count below is fixed */
        free(s);
    return s;
}

/* Every string of a job/source/count list is freed through these. */
static void free_defs(run_mem *m)
{
    for (size_t j = 0; j < m->pub.meta.n_jobs; j++) {
        free((char *)m->jobs[j].name);
        free((char *)m->jobs[j].model);
        free((char *)m->jobs[j].precision);
        free((char *)m->jobs[j].gpu_type);
        free((char *)m->jobs[j].recompute);
        free((char *)m->jobs[j].chosen);
    }
    for (size_t i = 0; i < m->pub.meta.n_modules; i++)
        free((char *)m->modules[i].type);
    for (size_t i = 0; i < m->pub.meta.n_gpus; i++)
        free((char *)m->gpus[i].type);
    for (size_t i = 0; i < m->pub.meta.n_sources; i++) {
        free((char *)m->sources[i].kind);
        free((char *)m->sources[i].name);
    }
    free(m->jobs);
    free(m->modules);
    free(m->gpus);
    free(m->sources);
}

/* r is the first member of its run_mem, so the cast recovers the owner of
 * every string and array; the replications free their own arrays. */
void db_run_free(db_run *r)
{
    run_mem *m = (run_mem *)r;
    if (!r)
        return;
    for (size_t i = 0; i < m->n_strs; i++)
        free(m->strs[i]);
    free_defs(m);
    for (size_t i = 0; i < r->n_reps; i++) {
        res_rep_free(&r->reps[i]);
        if (r->step_dt_s)
            free(r->step_dt_s[i]);
    }
    free(r->reps);
    free(r->step_dt_s);
    free(r->job_summary);
    free(r->site_summary);
    free((db_var_share *)r->meta.var_shares);
    free(m);
}

/* The run row and its scenario into m->pub (id, meta, config hash).
 * Why long: one SELECT by column position, one assignment per column, so
 * the order of the columns and of the assignments can be compared line by
 * line; a NULL column maps to the "not set" value db.h documents (0, -1 or
 * NULL). Every string goes through keep() so db_run_free frees it. */
static int load_head(db *d, int64_t id, run_mem *m, sim_err *err)
{
    sqlite3_stmt *st;
    db_run_meta *mt = &m->pub.meta;
    int rc;
    if ((rc = db_prep(
             d,
             "SELECT s.name, s.config_text, s.config_hash, r.seed, "
             "r.replications, r.n_reps, r.version, r.created_utc, r.horizon_s, "
             "r.step_s, r.ts_downsample, r.has_events, r.site_name, "
             "r.it_capacity_w, r.sweep_key, r.case_key, r.case_index, "
             "r.overrides_json, r.mpi_rank, r.status, "
             "r.solar_energy_p90_exceedance_j FROM runs r JOIN "
             "scenarios s "
             "ON s.id = r.scenario_id WHERE r.id = ?1;",
             &st, err)) != SIM_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        sqlite3_finalize(st);
        return sim_err_set(err, SIM_ENOTFOUND, d->path, 0,
                           "no run with id %lld", (long long)id);
    }
    if (rc != SQLITE_ROW) {
        rc = db_fail(d, err, "reading a run");
        sqlite3_finalize(st);
        return rc;
    }
    m->pub.id = id;
    mt->scenario = keep(m, db_col_str(st, 0));
    mt->config_text = keep(m, db_col_str(st, 1));
    snprintf(m->pub.config_hash, sizeof m->pub.config_hash, "%s",
             (const char *)sqlite3_column_text(st, 2));
    mt->seed = (uint64_t)sqlite3_column_int64(st, 3);
    mt->replications = (uint32_t)sqlite3_column_int64(st, 4);
    m->pub.n_reps = (size_t)sqlite3_column_int64(st, 5);
    mt->version = keep(m, db_col_str(st, 6));
    mt->created_utc = keep(m, db_col_str(st, 7));
    mt->horizon_s = sqlite3_column_double(st, 8);
    mt->step_s = sqlite3_column_type(st, 9) == SQLITE_NULL
                     ? 0
                     : sqlite3_column_double(st, 9);
    mt->ts_downsample = (uint32_t)sqlite3_column_int64(st, 10);
    mt->store_timeseries = mt->ts_downsample > 0;
    mt->store_events = sqlite3_column_int(st, 11);
    mt->site_name = keep(m, db_col_str(st, 12));
    mt->it_capacity_w = col_real(st, 13);
    mt->sweep_key = keep(m, db_col_str(st, 14));
    mt->case_key = keep(m, db_col_str(st, 15));
    mt->case_index = sqlite3_column_type(st, 16) == SQLITE_NULL
                         ? -1
                         : sqlite3_column_int64(st, 16);
    mt->overrides_json = keep(m, db_col_str(st, 17));
    mt->mpi_rank = sqlite3_column_type(st, 18) == SQLITE_NULL
                       ? -1
                       : sqlite3_column_int(st, 18);
    mt->status = keep(m, db_col_str(st, 19));
    m->pub.solar_energy_p90_exceedance_j = col_real(st, 20);
    sqlite3_finalize(st);
    return SIM_OK;
}

/* Reads "SELECT ... WHERE run_id = ?1 ORDER BY idx" rows through fn. */
static int load_rows(db *d, const char *sql, int64_t id,
                     void (*fn)(sqlite3_stmt *, run_mem *, size_t), run_mem *m,
                     sim_err *err)
{
    sqlite3_stmt *st;
    int rc;
    size_t i = 0;
    if ((rc = db_prep(d, sql, &st, err)) != SIM_OK)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        fn(st, m, i++);
    rc = rc == SQLITE_DONE ? SIM_OK : db_fail(d, err, "reading a run");
    sqlite3_finalize(st);
    return rc;
}

/* The row readers of load_rows: each grows its array by one (site facts
 * have a handful of rows, so growing one at a time costs nothing) and sets
 * the count as it goes, so a failure midway frees exactly what was read. */
static void row_module(sqlite3_stmt *st, run_mem *m, size_t i)
{
    m->modules = sim_xrealloc(m->modules, (i + 1) * sizeof *m->modules);
    m->modules[i].type = db_col_str(st, 0);
    m->modules[i].count = sqlite3_column_int64(st, 1);
    m->pub.meta.n_modules = i + 1;
}

static void row_gpu(sqlite3_stmt *st, run_mem *m, size_t i)
{
    m->gpus = sim_xrealloc(m->gpus, (i + 1) * sizeof *m->gpus);
    m->gpus[i].type = db_col_str(st, 0);
    m->gpus[i].count = sqlite3_column_int64(st, 1);
    m->pub.meta.n_gpus = i + 1;
}

static void row_source(sqlite3_stmt *st, run_mem *m, size_t i)
{
    m->sources = sim_xrealloc(m->sources, (i + 1) * sizeof *m->sources);
    m->sources[i].kind = db_col_str(st, 0);
    m->sources[i].name = db_col_str(st, 1);
    m->sources[i].power_w = sqlite3_column_double(st, 2);
    m->sources[i].energy_j = sqlite3_column_double(st, 3);
    m->pub.meta.n_sources = i + 1;
}

static void row_job(sqlite3_stmt *st, run_mem *m, size_t i)
{
    m->jobs = sim_xrealloc(m->jobs, (i + 1) * sizeof *m->jobs);
    m->jobs[i].name = db_col_str(st, 0);
    m->jobs[i].model = db_col_str(st, 1);
    m->jobs[i].precision = db_col_str(st, 2);
    m->jobs[i].gpu_type = db_col_str(st, 3);
    m->jobs[i].gpus = (int32_t)sqlite3_column_int64(st, 4);
    m->jobs[i].tokens = col_real(st, 5);
    m->jobs[i].tp = (int32_t)sqlite3_column_int64(st, 6); /* NULL reads 0 */
    m->jobs[i].pp = (int32_t)sqlite3_column_int64(st, 7);
    m->jobs[i].vp = (int32_t)sqlite3_column_int64(st, 8);
    m->jobs[i].cp = (int32_t)sqlite3_column_int64(st, 9);
    m->jobs[i].ep = (int32_t)sqlite3_column_int64(st, 10);
    m->jobs[i].mbs = (int32_t)sqlite3_column_int64(st, 11);
    m->jobs[i].recompute = db_col_str(st, 12);
    m->jobs[i].distopt = sqlite3_column_type(st, 13) == SQLITE_NULL
                             ? -1
                             : (int32_t)sqlite3_column_int64(st, 13);
    m->jobs[i].chosen = db_col_str(st, 14);
    m->jobs[i].etp = (int32_t)sqlite3_column_int64(st, 15); /* NULL reads 0 */
    m->pub.meta.n_jobs = i + 1;
}

/* Index of the rep with replication number rep, or n if none (reps are
 * sorted by replication). */
static size_t rep_index(const db_run *r, int64_t rep)
{
    size_t lo = 0, hi = r->n_reps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((int64_t)r->reps[mid].replication < rep)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->n_reps && (int64_t)r->reps[lo].replication == rep
               ? lo
               : r->n_reps;
}

/* The per-replication results: site_reps first, in replication order, which
 * sizes and orders r->reps (a count that differs from runs.n_reps is a
 * damaged file, refused); then job_reps, each row placed by rep_index and
 * its job number, so rows arrive in any order. Rows naming a replication
 * or job that does not exist are skipped rather than trusted. */
static int load_reps(db *d, db_run *r, sim_err *err)
{
    sqlite3_stmt *st;
    db_sbuf b = {NULL, 0, 0};
    size_t i = 0, nj = r->meta.n_jobs;
    int rc;
    db_sb_add(&b, "SELECT replication");
    for (size_t f = 0; f < resfield_n_site; f++)
        db_sb_add(&b, ", %s", resfield_site[f].name);
    db_sb_add(&b, " FROM site_reps WHERE run_id = ?1 ORDER BY replication;");
    rc = db_prep(d, b.s, &st, err);
    free(b.s);
    if (rc != SIM_OK)
        return rc;
    sqlite3_bind_int64(st, 1, r->id);
    r->reps = sim_xcalloc(r->n_reps ? r->n_reps : 1, sizeof *r->reps);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && i < r->n_reps) {
        res_rep *rp = &r->reps[i++];
        rp->replication = (uint32_t)sqlite3_column_int64(st, 0);
        read_fields(st, 1, &rp->site, resfield_site, resfield_n_site);
        rp->n_jobs = nj;
        rp->jobs = sim_xcalloc(nj ? nj : 1, sizeof *rp->jobs);
    }
    sqlite3_finalize(st);
    if (i != r->n_reps)
        return sim_err_set(err, SIM_ECONFIG, d->path, 0,
                           "run %lld: %zu replications stored, expected %zu",
                           (long long)r->id, i, r->n_reps);
    b.s = NULL;
    b.len = b.cap = 0;
    db_sb_add(&b, "SELECT replication, job");
    for (size_t f = 0; f < resfield_n_job; f++)
        db_sb_add(&b, ", %s", resfield_job[f].name);
    db_sb_add(&b, " FROM job_reps WHERE run_id = ?1;");
    rc = db_prep(d, b.s, &st, err);
    free(b.s);
    if (rc != SIM_OK)
        return rc;
    sqlite3_bind_int64(st, 1, r->id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        size_t k = rep_index(r, sqlite3_column_int64(st, 0));
        int64_t j = sqlite3_column_int64(st, 1);
        if (k < r->n_reps && j >= 0 && (size_t)j < nj)
            read_fields(st, 2, &r->reps[k].jobs[j], resfield_job,
                        resfield_n_job);
    }
    rc = rc == SQLITE_DONE ? SIM_OK : db_fail(d, err, "reading job results");
    sqlite3_finalize(st);
    return rc;
}

/* The stored time series, with each step's duration beside it
 * (r->step_dt_s: downsampled steps last K x step_s, the last one may be
 * shorter). One pass in (replication, step) order; each replication's
 * arrays grow geometrically (sim_grow), tracked in cap[] because res_rep
 * has no capacity field. */
static int load_steps(db *d, db_run *r, sim_err *err)
{
    sqlite3_stmt *st;
    db_sbuf b = {NULL, 0, 0};
    size_t *cap = sim_xcalloc(r->n_reps ? r->n_reps : 1, sizeof *cap);
    int rc;
    db_sb_add(&b, "SELECT replication, dt_s");
    for (size_t f = 0; f < resfield_n_step; f++)
        db_sb_add(&b, ", %s", resfield_step[f].name);
    db_sb_add(&b,
              " FROM timeseries WHERE run_id = ?1 ORDER BY replication, step;");
    rc = db_prep(d, b.s, &st, err);
    free(b.s);
    if (rc != SIM_OK) {
        free(cap);
        return rc;
    }
    r->step_dt_s = sim_xcalloc(r->n_reps ? r->n_reps : 1, sizeof *r->step_dt_s);
    sqlite3_bind_int64(st, 1, r->id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        size_t k = rep_index(r, sqlite3_column_int64(st, 0)), n;
        res_rep *rp;
        if (k >= r->n_reps)
            continue;
        rp = &r->reps[k];
        n = rp->n_steps;
        if (n + 1 > cap[k]) {
            size_t c = cap[k];
            sim_grow((void **)&rp->steps, &c, n + 1, sizeof *rp->steps);
            r->step_dt_s[k] = sim_xrealloc(r->step_dt_s[k], c * sizeof(double));
            cap[k] = c;
        }
        r->step_dt_s[k][n] = sqlite3_column_double(st, 1);
        read_fields(st, 2, &rp->steps[n], resfield_step, resfield_n_step);
        rp->n_steps = n + 1;
    }
    rc =
        rc == SQLITE_DONE ? SIM_OK : db_fail(d, err, "reading the time series");
    sqlite3_finalize(st);
    free(cap);
    return rc;
}

/* Rows of one per-replication table (module_reps or power_window) into
 * each replication's array: *arr / *cnt of records of size sz, fields t
 * read from column 1 on, in (replication, key) order. Why one reader for
 * both: the two tables differ only in their field table and key. */
static int load_rep_rows(db *d, db_run *r, const char *table, const char *key,
                         const resfield *t, size_t nt, size_t sz,
                         size_t off_arr, size_t off_cnt, sim_err *err)
{
    sqlite3_stmt *st;
    db_sbuf b = {NULL, 0, 0};
    size_t *cap = sim_xcalloc(r->n_reps ? r->n_reps : 1, sizeof *cap);
    int rc;
    db_sb_add(&b, "SELECT replication");
    for (size_t f = 0; f < nt; f++)
        db_sb_add(&b, ", %s", t[f].name);
    db_sb_add(&b, " FROM %s WHERE run_id = ?1 ORDER BY replication, %s;", table,
              key);
    rc = db_prep(d, b.s, &st, err);
    free(b.s);
    if (rc != SIM_OK) {
        free(cap);
        return rc;
    }
    sqlite3_bind_int64(st, 1, r->id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        size_t k = rep_index(r, sqlite3_column_int64(st, 0));
        char *rp;
        void **arr;
        size_t *cnt;
        if (k >= r->n_reps)
            continue;
        rp = (char *)&r->reps[k];
        arr = (void **)(rp + off_arr);
        cnt = (size_t *)(rp + off_cnt);
        sim_grow(arr, &cap[k], *cnt + 1, sz);
        read_fields(st, 1, (char *)*arr + *cnt * sz, t, nt);
        (*cnt)++;
    }
    rc = rc == SQLITE_DONE ? SIM_OK : db_fail(d, err, "reading power dynamics");
    sqlite3_finalize(st);
    free(cap);
    return rc;
}

/* The power dynamics per module and the representative window. */
static int load_powerdyn(db *d, db_run *r, sim_err *err)
{
    int rc = load_rep_rows(d, r, "module_reps", "module", resfield_module,
                           resfield_n_module, sizeof(res_module),
                           offsetof(res_rep, modules),
                           offsetof(res_rep, n_modules), err);
    if (rc != SIM_OK)
        return rc;
    return load_rep_rows(d, r, "power_window", "sample", resfield_pd_sample,
                         resfield_n_pd_sample, sizeof(res_pd_sample),
                         offsetof(res_rep, pd_samples),
                         offsetof(res_rep, n_pd_samples), err);
}

static int name_index(const char *const *names, int n, const char *s)
{
    for (int i = 0; s && i < n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

/* The event log, in (replication, seq) order. Kinds and causes are stored
 * by name (so a reordered enum cannot change what an old file means) and
 * mapped back through res_event_name / res_cause_name; a name this build
 * does not know refuses the run instead of inventing an event. */
static int load_events(db *d, db_run *r, sim_err *err)
{
    sqlite3_stmt *st;
    size_t *cap = sim_xcalloc(r->n_reps ? r->n_reps : 1, sizeof *cap);
    int rc;
    if ((rc = db_prep(
             d,
             "SELECT replication, t_s, job, kind, cause, value FROM events "
             "WHERE run_id = ?1 ORDER BY replication, seq;",
             &st, err)) != SIM_OK) {
        free(cap);
        return rc;
    }
    sqlite3_bind_int64(st, 1, r->id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        size_t k = rep_index(r, sqlite3_column_int64(st, 0));
        res_rep *rp;
        res_event *e;
        if (k >= r->n_reps)
            continue;
        rp = &r->reps[k];
        sim_grow((void **)&rp->events, &cap[k], rp->n_events + 1,
                 sizeof *rp->events);
        e = &rp->events[rp->n_events++];
        e->t_s = sqlite3_column_double(st, 1);
        e->job = (int32_t)sqlite3_column_int64(st, 2);
        e->kind = name_index(res_event_name, RES_EV_N,
                             (const char *)sqlite3_column_text(st, 3));
        e->cause = name_index(res_cause_name, RES_CAUSE_N,
                              (const char *)sqlite3_column_text(st, 4));
        e->value = col_real(st, 5);
        if (e->kind < 0 || e->cause < 0) {
            sqlite3_finalize(st);
            free(cap);
            return sim_err_set(
                err, SIM_ECONFIG, d->path, 0,
                "run %lld: unknown event kind or cause in the event log",
                (long long)r->id);
        }
    }
    rc = rc == SQLITE_DONE ? SIM_OK : db_fail(d, err, "reading the event log");
    sqlite3_finalize(st);
    free(cap);
    return rc;
}

/* The stored summaries, by metric name: every slot starts as "no values"
 * (n 0, NAN) so a metric this build has and the file lacks (an older
 * version) reads as missing, and a metric the file has that this build
 * dropped is ignored. Jobs and site share the loop (pass 0 and 1) as their
 * rows differ only in the job column. */
static int load_summaries(db *d, db_run *r, sim_err *err)
{
    sqlite3_stmt *st;
    size_t nj = r->meta.n_jobs;
    int rc;
    r->job_summary =
        sim_xcalloc(nj * resfield_n_job + 1, sizeof *r->job_summary);
    r->site_summary = sim_xcalloc(resfield_n_site, sizeof *r->site_summary);
    for (size_t i = 0; i < nj * resfield_n_job; i++)
        r->job_summary[i] = (stat_summary){0, NAN, NAN, NAN, NAN, NAN, NAN};
    for (size_t i = 0; i < resfield_n_site; i++)
        r->site_summary[i] = (stat_summary){0, NAN, NAN, NAN, NAN, NAN, NAN};
    for (int pass = 0; pass < 2; pass++) {
        const char *sql = pass == 0 ? "SELECT job, metric, n, mean, p10, p50, "
                                      "p90, min, max FROM job_summary "
                                      "WHERE run_id = ?1;"
                                    : "SELECT 0, metric, n, mean, p10, p50, "
                                      "p90, min, max FROM site_summary "
                                      "WHERE run_id = ?1;";
        if ((rc = db_prep(d, sql, &st, err)) != SIM_OK)
            return rc;
        sqlite3_bind_int64(st, 1, r->id);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t j = sqlite3_column_int64(st, 0);
            const char *metric = (const char *)sqlite3_column_text(st, 1);
            int f = pass == 0 ? resfield_find(resfield_job, resfield_n_job,
                                              metric, NULL)
                              : resfield_find(resfield_site, resfield_n_site,
                                              metric, NULL);
            stat_summary *s;
            if (f < 0 || j < 0 || (pass == 0 && (size_t)j >= nj))
                continue;
            s = pass == 0
                    ? &r->job_summary[(size_t)j * resfield_n_job + (size_t)f]
                    : &r->site_summary[f];
            s->n = (size_t)sqlite3_column_int64(st, 2);
            s->mean = col_real(st, 3);
            s->p10 = col_real(st, 4);
            s->p50 = col_real(st, 5);
            s->p90 = col_real(st, 6);
            s->min = col_real(st, 7);
            s->max = col_real(st, 8);
        }
        rc = rc == SQLITE_DONE ? SIM_OK : db_fail(d, err, "reading summaries");
        sqlite3_finalize(st);
        if (rc != SIM_OK)
            return rc;
    }
    return SIM_OK;
}

/* Why shaped so: everything is read inside one read transaction, so a
 * writer committing meanwhile cannot give a run whose rows disagree; the
 * run row and the site facts come first because the replications are
 * sized by them (n_reps, n_jobs), and the series and events, by far the
 * largest tables, only when flags ask for them. Any failure frees the
 * partial run through db_run_free. */
int db_load_run(db *d, int64_t run_id, int flags, db_run **out, sim_err *err)
{
    run_mem *m = sim_xcalloc(1, sizeof *m);
    int rc;
    *out = NULL;
    /* A read transaction gives one consistent snapshot of the run. */
    if ((rc = db_exec(d, "BEGIN;", err, "reading a run")) != SIM_OK) {
        free(m);
        return rc;
    }
    if ((rc = load_head(d, run_id, m, err)) != SIM_OK ||
        (rc = load_rows(
             d,
             "SELECT module_type, count FROM site_modules WHERE run_id = ?1 "
             "ORDER BY idx;",
             run_id, row_module, m, err)) != SIM_OK ||
        (rc = load_rows(
             d,
             "SELECT gpu_type, count FROM site_gpus WHERE run_id = ?1 "
             "ORDER BY idx;",
             run_id, row_gpu, m, err)) != SIM_OK ||
        (rc =
             load_rows(d,
                       "SELECT kind, name, power_w, energy_j FROM site_sources "
                       "WHERE run_id = ?1 ORDER BY idx;",
                       run_id, row_source, m, err)) != SIM_OK ||
        (rc = load_rows(
             d,
             "SELECT name, model, precision, gpu_type, gpus, tokens, "
             "layout_tp, layout_pp, layout_vp, layout_cp, layout_ep, "
             "layout_mbs, layout_recompute, layout_distributed_optimizer, "
             "layout_chosen, layout_etp FROM jobs WHERE run_id = ?1 ORDER BY "
             "job;",
             run_id, row_job, m, err)) != SIM_OK)
        goto fail;
    m->pub.meta.jobs = m->jobs;
    m->pub.meta.modules = m->modules;
    m->pub.meta.gpus = m->gpus;
    m->pub.meta.sources = m->sources;
    if ((rc = load_reps(d, &m->pub, err)) != SIM_OK ||
        (rc = load_summaries(d, &m->pub, err)) != SIM_OK ||
        (rc = load_powerdyn(d, &m->pub, err)) != SIM_OK ||
        (rc = db_vd_load(d, &m->pub, err)) != SIM_OK ||
        ((flags & DB_LOAD_STEPS) &&
         (rc = load_steps(d, &m->pub, err)) != SIM_OK) ||
        ((flags & DB_LOAD_EVENTS) &&
         (rc = load_events(d, &m->pub, err)) != SIM_OK))
        goto fail;
    sqlite3_exec(d->h, "COMMIT;", NULL, NULL, NULL);
    *out = &m->pub;
    return SIM_OK;
fail:
    sqlite3_exec(d->h, "ROLLBACK;", NULL, NULL, NULL);
    db_run_free(&m->pub);
    return rc;
}

/* One row per run in id order, the columns `export --runs` and the sweep
 * table need and nothing of the results, so listing a large database reads
 * only the runs and scenarios tables. On error nothing is returned. */
int db_list_runs(db *d, db_run_row **rows, size_t *n, sim_err *err)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    int rc;
    *rows = NULL;
    *n = 0;
    if ((rc = db_prep(
             d,
             "SELECT r.id, s.name, s.config_hash, r.version, r.created_utc, "
             "r.status, r.sweep_key, r.case_key, r.overrides_json, r.seed, "
             "r.replications, r.case_index, r.mpi_rank FROM runs r JOIN "
             "scenarios s ON s.id = r.scenario_id ORDER BY r.id;",
             &st, err)) != SIM_OK)
        return rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        db_run_row *w;
        sim_grow((void **)rows, &cap, *n + 1, sizeof **rows);
        w = &(*rows)[(*n)++];
        w->id = sqlite3_column_int64(st, 0);
        w->scenario = db_col_str(st, 1);
        w->config_hash = db_col_str(st, 2);
        w->version = db_col_str(st, 3);
        w->created_utc = db_col_str(st, 4);
        w->status = db_col_str(st, 5);
        w->sweep_key = db_col_str(st, 6);
        w->case_key = db_col_str(st, 7);
        w->overrides_json = db_col_str(st, 8);
        w->seed = (uint64_t)sqlite3_column_int64(st, 9);
        w->replications = (uint32_t)sqlite3_column_int64(st, 10);
        w->case_index = sqlite3_column_type(st, 11) == SQLITE_NULL
                            ? -1
                            : sqlite3_column_int64(st, 11);
        w->mpi_rank = sqlite3_column_type(st, 12) == SQLITE_NULL
                          ? -1
                          : sqlite3_column_int(st, 12);
    }
    rc = rc == SQLITE_DONE ? SIM_OK : db_fail(d, err, "listing runs");
    sqlite3_finalize(st);
    if (rc != SIM_OK) {
        db_run_rows_free(*rows, *n);
        *rows = NULL;
        *n = 0;
    }
    return rc;
}

void db_run_rows_free(db_run_row *rows, size_t n)
{
    if (!rows)
        return;
    for (size_t i = 0; i < n; i++) {
        free(rows[i].scenario);
        free(rows[i].config_hash);
        free(rows[i].version);
        free(rows[i].created_utc);
        free(rows[i].status);
        free(rows[i].sweep_key);
        free(rows[i].case_key);
        free(rows[i].overrides_json);
    }
    free(rows);
}
