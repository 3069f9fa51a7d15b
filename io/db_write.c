/* io/db_write.c: db_store_run, one run of a scenario into the results
 * store (db.h), and the scenario row the merge shares (io/db_int.h).
 *
 * All statements are prepared with bound parameters; db_store_run checks
 * the run first (nothing is written for a malformed one), then runs in one
 * BEGIN IMMEDIATE transaction (a busy database fails or waits at BEGIN, not
 * halfway) and rolls back on any error, so a run is stored whole or not at
 * all. Column lists come from models/resfield.h. NAN is stored as NULL.
 * This file must never change the schema (io/db.c) nor read results back
 * (io/db_read.c).
 */
#include "io/db.h"
#include "io/db_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "models/resfield.h"
#include "sim/mem.h"

#ifndef FACTORYSIM_VERSION
#define FACTORYSIM_VERSION "unknown"
#endif

/* ---- store ---- */

/* NULL text is SQL NULL, not "": the optional columns (site name, sweep
 * keys, layout fields) must read back as absent. SQLITE_TRANSIENT because
 * some strings are the caller's temporaries. */
static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

/* INSERT INTO table(prefix cols, fields) VALUES(?...) */
static char *insert_sql(const char *table, const char *prefix, int n_prefix,
                        const resfield *t, size_t n)
{
    db_sbuf b = {NULL, 0, 0};
    db_sb_add(&b, "INSERT INTO %s(%s", table, prefix);
    for (size_t i = 0; i < n; i++)
        db_sb_add(&b, ", %s", t[i].name);
    db_sb_add(&b, ") VALUES(");
    for (size_t i = 0; i < (size_t)n_prefix + n; i++)
        db_sb_add(&b, i ? ", ?%zu" : "?%zu", i + 1);
    db_sb_add(&b, ");");
    return b.s;
}

/* The fields of t from rec into parameters first .. first+n-1, in table
 * order (insert_sql lists the columns in the same order). Integer fields
 * are bound as integers, matching their INTEGER columns; NAN as NULL. */
static void bind_fields(sqlite3_stmt *st, int first, const void *rec,
                        const resfield *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double v = resfield_get(rec, &t[i]);
        int k = first + (int)i;
        if (t[i].type != RESFIELD_DOUBLE)
            sqlite3_bind_int64(st, k, (sqlite3_int64)v);
        else if (isnan(v))
            sqlite3_bind_null(st, k);
        else
            sqlite3_bind_double(st, k, v);
    }
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
    if (isnan(v))
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_double(st, i, v);
}

/* One summary row (metric, n, mean, P10, P50, P90, min, max) from
 * parameter first on; the caller has bound the keys before it. */
static int store_summary(db *d, sqlite3_stmt *st, int first, const char *metric,
                         stat_summary s, sim_err *err)
{
    sqlite3_bind_text(st, first, metric, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, first + 1, (sqlite3_int64)s.n);
    bind_real(st, first + 2, s.mean);
    bind_real(st, first + 3, s.p10);
    bind_real(st, first + 4, s.p50);
    bind_real(st, first + 5, s.p90);
    bind_real(st, first + 6, s.min);
    bind_real(st, first + 7, s.max);
    return db_done(d, st, err, "storing a summary");
}

/* Refuses a malformed run before any write, so db_store_run never rolls
 * back halfway for a reason that was visible up front: required texts,
 * replication counts, status, paired sweep keys, job names, one number per
 * replication, and a time series strictly increasing in time (the step
 * durations are differences of t_s). */
static int check_run(const db *d, const db_run_meta *m, const res_rep *reps,
                     size_t n_reps, sim_err *err)
{
    if (!m->scenario || !*m->scenario || !m->config_text)
        return sim_err_set(
            err, SIM_EINVAL, d->path, 0,
            "storing a run: scenario name and configuration text are required");
    if (n_reps == 0 || m->replications == 0)
        return sim_err_set(err, SIM_EINVAL, d->path, 0,
                           "storing a run: no replications");
    if (!(m->horizon_s > 0))
        return sim_err_set(err, SIM_EINVAL, d->path, 0,
                           "storing a run: horizon_s must be > 0 (got %g)",
                           m->horizon_s);
    if (m->status && strcmp(m->status, "complete") != 0 &&
        strcmp(m->status, "interrupted") != 0)
        return sim_err_set(
            err, SIM_EINVAL, d->path, 0,
            "storing a run: status must be complete or interrupted (got %s)",
            m->status);
    if (!m->sweep_key != !m->case_key)
        return sim_err_set(err, SIM_EINVAL, d->path, 0,
                           "storing a run: sweep_key and case_key go together");
    if (m->n_jobs && !m->jobs)
        return sim_err_set(err, SIM_EINVAL, d->path, 0,
                           "storing a run: jobs missing");
    for (size_t j = 0; j < m->n_jobs; j++)
        if (!m->jobs[j].name)
            return sim_err_set(err, SIM_EINVAL, d->path, 0,
                               "storing a run: job %zu has no name", j);
    for (size_t r = 0; r < n_reps; r++) {
        if (reps[r].n_jobs != m->n_jobs)
            return sim_err_set(
                err, SIM_EINVAL, d->path, 0,
                "storing a run: replication %u has %zu jobs, expected %zu",
                reps[r].replication, reps[r].n_jobs, m->n_jobs);
        for (size_t q = 0; q < r; q++)
            if (reps[q].replication == reps[r].replication)
                return sim_err_set(
                    err, SIM_EINVAL, d->path, 0,
                    "storing a run: replication %u appears twice",
                    reps[r].replication);
        for (size_t i = 1; m->store_timeseries && i < reps[r].n_steps; i++)
            if (!(reps[r].steps[i].t_s > reps[r].steps[i - 1].t_s))
                return sim_err_set(
                    err, SIM_EINVAL, d->path, 0,
                    "storing a run: replication %u: steps[%zu].t_s = %g "
                    "not after the previous step (%g)",
                    reps[r].replication, i, reps[r].steps[i].t_s,
                    reps[r].steps[i - 1].t_s);
        if (m->store_timeseries && reps[r].n_steps == 1 && !(m->step_s > 0))
            return sim_err_set(err, SIM_EINVAL, d->path, 0,
                               "storing a run: one time step needs step_s > 0");
    }
    return SIM_OK;
}

/* Duration of step i of n [s]: up to the next step; the last one lasts
 * step_s, or as long as the one before it when step_s is 0. */
static double step_dt(const res_step *s, size_t n, size_t i, double step_s)
{
    if (i + 1 < n)
        return s[i + 1].t_s - s[i].t_s;
    if (step_s > 0)
        return step_s;
    return s[i].t_s - s[i - 1].t_s;
}

/* Merges steps [i0, i1) into *out: every field is the duration-weighted
 * mean, so sum(power x dt) (energy) is the same before and after; PUE is
 * recomputed as facility / IT power. Returns the merged duration [s]. */
static double merge_steps(const res_step *s, size_t n, size_t i0, size_t i1,
                          double step_s, res_step *out)
{
    double dt_sum = 0;
    if (i1 - i0 == 1) { /* kept as is, bit for bit */
        *out = s[i0];
        return step_dt(s, n, i0, step_s);
    }
    memset(out, 0, sizeof *out);
    for (size_t i = i0; i < i1; i++)
        dt_sum += step_dt(s, n, i, step_s);
    for (size_t f = 1; f < resfield_n_step; f++) {
        double acc = 0;
        for (size_t i = i0; i < i1; i++)
            acc += resfield_get(&s[i], &resfield_step[f]) *
                   step_dt(s, n, i, step_s);
        resfield_set(out, &resfield_step[f], acc / dt_sum);
    }
    out->t_s = s[i0].t_s;
    if (out->it_w > 0)
        out->pue = out->facility_w / out->it_w;
    return dt_sum;
}

/* One replication's series, downsampled by k: each stored row is the
 * duration-weighted mean of k steps (merge_steps), numbered 0, 1, ... with
 * its duration in dt_s, so energy (power x time) is the same stored as
 * computed. k = 1 stores every step bit for bit. */
static int store_steps(db *d, sqlite3_stmt *st, int64_t run_id,
                       const res_rep *r, double step_s, uint32_t k,
                       sim_err *err)
{
    int rc;
    size_t out_i = 0;
    if (k == 0)
        k = 1;
    for (size_t i0 = 0; i0 < r->n_steps; i0 += k, out_i++) {
        size_t i1 = i0 + k < r->n_steps ? i0 + k : r->n_steps;
        res_step m;
        double dt = merge_steps(r->steps, r->n_steps, i0, i1, step_s, &m);
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, r->replication);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)out_i);
        sqlite3_bind_double(st, 4, dt);
        bind_fields(st, 5, &m, resfield_step, resfield_n_step);
        if ((rc = db_done(d, st, err, "storing the time series")) != SIM_OK)
            return rc;
    }
    return SIM_OK;
}

/* One replication's event log, seq = its index (the order the engine
 * logged them). Kind and cause are stored by name; a value outside their
 * enums would index past the name tables, so it is refused. */
static int store_events(db *d, sqlite3_stmt *st, int64_t run_id,
                        const res_rep *r, sim_err *err)
{
    int rc;
    for (size_t i = 0; i < r->n_events; i++) {
        const res_event *e = &r->events[i];
        if (e->kind < 0 || e->kind >= RES_EV_N || e->cause < 0 ||
            e->cause >= RES_CAUSE_N)
            return sim_err_set(
                err, SIM_EINVAL, d->path, 0,
                "storing a run: replication %u: event %zu has kind %d, "
                "cause %d (out of range)",
                r->replication, i, e->kind, e->cause);
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, r->replication);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)i);
        sqlite3_bind_double(st, 4, e->t_s);
        sqlite3_bind_int64(st, 5, e->job);
        sqlite3_bind_text(st, 6, res_event_name[e->kind], -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 7, res_cause_name[e->cause], -1, SQLITE_STATIC);
        bind_real(st, 8, e->value);
        if ((rc = db_done(d, st, err, "storing the event log")) != SIM_OK)
            return rc;
    }
    return SIM_OK;
}

/* The power dynamics per module and the representative window (issue 21)
 * of every replication: two INSERTs prepared once, column lists from
 * resfield_module and resfield_pd_sample. */
static int store_powerdyn(db *d, int64_t run_id, const res_rep *reps,
                          size_t n_reps, sim_err *err)
{
    sqlite3_stmt *sm = NULL, *sw = NULL;
    char *q;
    int rc;
    q = insert_sql("module_reps", "run_id, replication, module", 3,
                   resfield_module, resfield_n_module);
    rc = db_prep(d, q, &sm, err);
    free(q);
    if (rc != SIM_OK)
        goto done;
    q = insert_sql("power_window", "run_id, replication, sample", 3,
                   resfield_pd_sample, resfield_n_pd_sample);
    rc = db_prep(d, q, &sw, err);
    free(q);
    if (rc != SIM_OK)
        goto done;
    for (size_t r = 0; r < n_reps; r++) {
        const res_rep *rp = &reps[r];
        for (size_t m = 0; m < rp->n_modules; m++) {
            sqlite3_bind_int64(sm, 1, run_id);
            sqlite3_bind_int64(sm, 2, rp->replication);
            sqlite3_bind_int64(sm, 3, (sqlite3_int64)m);
            bind_fields(sm, 4, &rp->modules[m], resfield_module,
                        resfield_n_module);
            if ((rc = db_done(d, sm, err, "storing module power")) != SIM_OK)
                goto done;
        }
        for (size_t i = 0; i < rp->n_pd_samples; i++) {
            sqlite3_bind_int64(sw, 1, run_id);
            sqlite3_bind_int64(sw, 2, rp->replication);
            sqlite3_bind_int64(sw, 3, (sqlite3_int64)i);
            bind_fields(sw, 4, &rp->pd_samples[i], resfield_pd_sample,
                        resfield_n_pd_sample);
            if ((rc = db_done(d, sw, err, "storing the power window")) !=
                SIM_OK)
                goto done;
        }
    }
done:
    sqlite3_finalize(sm);
    sqlite3_finalize(sw);
    return rc;
}

/* The wall-clock creation time, the only one the store keeps (db.h);
 * callers that need reproducible files pass meta->created_utc instead. */
static void now_utc(char buf[32])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The scenario row for (name, text), inserted if new. */
int db_store_scenario(db *d, const db_run_meta *m, int64_t *id, sim_err *err)
{
    sqlite3_stmt *st;
    char hex[17];
    int rc;
    db_hash_hex(m->config_text, strlen(m->config_text), hex);
    if ((rc = db_prep(
             d,
             "INSERT INTO scenarios(name, config_hash, config_text) "
             "VALUES(?1, ?2, ?3) ON CONFLICT(name, config_hash) DO NOTHING;",
             &st, err)) != SIM_OK)
        return rc;
    sqlite3_bind_text(st, 1, m->scenario, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, hex, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, m->config_text, -1, SQLITE_STATIC);
    rc = db_done(d, st, err, "storing the scenario");
    sqlite3_finalize(st);
    if (rc != SIM_OK)
        return rc;
    if ((rc = db_prep(d,
                      "SELECT id, config_text FROM scenarios WHERE name = ?1 "
                      "AND config_hash = ?2;",
                      &st, err)) != SIM_OK)
        return rc;
    sqlite3_bind_text(st, 1, m->scenario, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, hex, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_ROW) {
        rc = db_fail(d, err, "reading the scenario back");
    } else if (strcmp((const char *)sqlite3_column_text(st, 1),
                      m->config_text) != 0) {
        rc = sim_err_set(
            err, SIM_EINVAL, d->path, 0,
            "scenario %s: another configuration has the same hash %s",
            m->scenario, hex);
    } else {
        *id = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return rc;
}

/* The (type, count) rows of site_modules or site_gpus, idx in the given
 * order so a report lists them as the scenario did. */
static int store_counts(db *d, int64_t run_id, const char *table,
                        const char *col, const db_count *c, size_t n,
                        sim_err *err)
{
    char sql[160];
    sqlite3_stmt *st;
    int rc = SIM_OK;
    snprintf(sql, sizeof sql,
             "INSERT INTO %s(run_id, idx, %s, count) VALUES(?1, ?2, ?3, ?4);",
             table, col);
    if ((rc = db_prep(d, sql, &st, err)) != SIM_OK)
        return rc;
    for (size_t i = 0; i < n && rc == SIM_OK; i++) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        bind_text(st, 3, c[i].type ? c[i].type : "");
        sqlite3_bind_int64(st, 4, c[i].count);
        rc = db_done(d, st, err, "storing site facts");
    }
    sqlite3_finalize(st);
    return rc;
}

/* The site's facts of a run: module and GPU counts, energy sources, and
 * the jobs with their parallel layouts. Why one function: these are the
 * rows that describe the site rather than a replication's outcome, stored
 * once per run; each table is one prepared statement bound per row. A
 * layout size of 0 (not chosen) and distopt < 0 are stored as NULL, which
 * db_read.c reads back as 0 and -1. */
static int store_site_facts(db *d, int64_t run_id, const db_run_meta *m,
                            sim_err *err)
{
    sqlite3_stmt *st;
    int rc;
    if ((rc = store_counts(d, run_id, "site_modules", "module_type", m->modules,
                           m->n_modules, err)) != SIM_OK ||
        (rc = store_counts(d, run_id, "site_gpus", "gpu_type", m->gpus,
                           m->n_gpus, err)) != SIM_OK)
        return rc;
    if ((rc = db_prep(
             d,
             "INSERT INTO site_sources(run_id, idx, kind, name, power_w, "
             "energy_j) VALUES(?1, ?2, ?3, ?4, ?5, ?6);",
             &st, err)) != SIM_OK)
        return rc;
    for (size_t i = 0; i < m->n_sources && rc == SIM_OK; i++) {
        const db_source_def *s = &m->sources[i];
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        bind_text(st, 3, s->kind ? s->kind : "");
        bind_text(st, 4, s->name);
        sqlite3_bind_double(st, 5, isfinite(s->power_w) ? s->power_w : 0);
        sqlite3_bind_double(st, 6, isfinite(s->energy_j) ? s->energy_j : 0);
        rc = db_done(d, st, err, "storing site sources");
    }
    sqlite3_finalize(st);
    if (rc != SIM_OK)
        return rc;
    if ((rc = db_prep(
             d,
             "INSERT INTO jobs(run_id, job, name, model, precision, gpu_type, "
             "gpus, tokens, layout_tp, layout_pp, layout_vp, layout_cp, "
             "layout_ep, layout_mbs, layout_recompute, "
             "layout_distributed_optimizer, layout_chosen, layout_etp) "
             "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
             "?14, ?15, ?16, ?17, ?18);",
             &st, err)) != SIM_OK)
        return rc;
    for (size_t j = 0; j < m->n_jobs && rc == SIM_OK; j++) {
        const db_job_def *jd = &m->jobs[j];
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)j);
        bind_text(st, 3, jd->name);
        bind_text(st, 4, jd->model);
        bind_text(st, 5, jd->precision);
        bind_text(st, 6, jd->gpu_type);
        sqlite3_bind_int64(st, 7, jd->gpus);
        bind_real(st, 8, jd->tokens);
        {
            const int32_t sz[6] = {jd->tp, jd->pp, jd->vp,
                                   jd->cp, jd->ep, jd->mbs};
            for (int k = 0; k < 6; k++) {
                if (sz[k] > 0)
                    sqlite3_bind_int64(st, 9 + k, sz[k]);
                else
                    sqlite3_bind_null(st, 9 + k);
            }
        }
        bind_text(st, 15, jd->recompute);
        if (jd->distopt >= 0)
            sqlite3_bind_int64(st, 16, jd->distopt);
        else
            sqlite3_bind_null(st, 16);
        bind_text(st, 17, jd->chosen);
        if (jd->etp > 0)
            sqlite3_bind_int64(st, 18, jd->etp);
        else
            sqlite3_bind_null(st, 18);
        rc = db_done(d, st, err, "storing jobs");
    }
    sqlite3_finalize(st);
    return rc;
}

/* The run row; *run_id receives its id. Why long: one INSERT with a bound
 * parameter per column, each optional value (step_s, case_index, mpi_rank)
 * bound as NULL when unset, as the schema's CHECKs expect. The unique index
 * runs_case turns a sweep case another writer stored first into
 * DB_ALREADY_STORED rather than an error. */
static int store_run_row(db *d, int64_t scen_id, const db_run_meta *m,
                         const res_rep *reps, size_t n_reps, int64_t *run_id,
                         sim_err *err)
{
    sqlite3_stmt *st;
    char created[32];
    int rc;
    int has_ts = 0, has_ev = m->store_events ? 1 : 0;
    if (m->store_timeseries)
        has_ts = (int)(m->ts_downsample ? m->ts_downsample : 1);
    if (m->created_utc)
        snprintf(created, sizeof created, "%s", m->created_utc);
    else
        now_utc(created);
    if ((rc = db_prep(
             d,
             "INSERT INTO runs(scenario_id, seed, replications, n_reps, "
             "version, "
             "created_utc, horizon_s, step_s, ts_downsample, has_events, "
             "site_name, it_capacity_w, sweep_key, case_key, case_index, "
             "overrides_json, mpi_rank, status, solar_energy_p90_exceedance_j) "
             "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
             "?14, ?15, ?16, ?17, ?18, ?19);",
             &st, err)) != SIM_OK)
        return rc;
    sqlite3_bind_int64(st, 1, scen_id);
    /* uint64 seeds above 2^63 are stored as their two's-complement int64. */
    sqlite3_bind_int64(st, 2, (sqlite3_int64)m->seed);
    sqlite3_bind_int64(st, 3, m->replications);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)n_reps);
    bind_text(st, 5, m->version ? m->version : FACTORYSIM_VERSION);
    bind_text(st, 6, created);
    sqlite3_bind_double(st, 7, m->horizon_s);
    if (m->step_s > 0)
        sqlite3_bind_double(st, 8, m->step_s);
    else
        sqlite3_bind_null(st, 8);
    sqlite3_bind_int(st, 9, has_ts);
    sqlite3_bind_int(st, 10, has_ev);
    bind_text(st, 11, m->site_name);
    bind_real(st, 12, m->it_capacity_w);
    bind_text(st, 13, m->sweep_key);
    bind_text(st, 14, m->case_key);
    if (m->case_index >= 0)
        sqlite3_bind_int64(st, 15, m->case_index);
    else
        sqlite3_bind_null(st, 15);
    bind_text(st, 16, m->overrides_json);
    if (m->mpi_rank >= 0)
        sqlite3_bind_int(st, 17, m->mpi_rank);
    else
        sqlite3_bind_null(st, 17);
    bind_text(st, 18, m->status ? m->status : "complete");
    /* The one definition (models/results.h), for a site that generated
     * solar at all: a site without panels has no exceedance, NULL. */
    {
        int solar = 0;
        for (size_t r = 0; r < n_reps && !solar; r++)
            solar = reps[r].site.solar_energy_j > 0;
        if (solar)
            bind_real(st, 19,
                      res_solar_p90_exceedance_j(reps, n_reps, m->horizon_s));
        else
            sqlite3_bind_null(st, 19);
    }
    rc = sqlite3_step(st);
    if (rc == SQLITE_CONSTRAINT_UNIQUE) /* only runs_case is UNIQUE here */
        rc = DB_ALREADY_STORED;
    else if (rc != SQLITE_DONE)
        rc = db_fail(d, err, "storing the run");
    else
        rc = SIM_OK;
    sqlite3_finalize(st);
    *run_id = sqlite3_last_insert_rowid(d->h);
    return rc;
}

/* Every replication's job and site results, and when asked its time series
 * and event log. Why shaped so: the four INSERTs are prepared once (their
 * column lists generated from models/resfield.h) and reused for every row
 * of every replication, which is most of a store's cost; one done: label
 * finalizes whatever was prepared. */
static int store_reps(db *d, int64_t run_id, const db_run_meta *m,
                      const res_rep *reps, size_t n_reps, sim_err *err)
{
    sqlite3_stmt *sj = NULL, *ss = NULL, *sts = NULL, *sev = NULL;
    char *q;
    int rc;
    q = insert_sql("job_reps", "run_id, job, replication", 3, resfield_job,
                   resfield_n_job);
    rc = db_prep(d, q, &sj, err);
    free(q);
    if (rc != SIM_OK)
        goto done;
    q = insert_sql("site_reps", "run_id, replication", 2, resfield_site,
                   resfield_n_site);
    rc = db_prep(d, q, &ss, err);
    free(q);
    if (rc != SIM_OK)
        goto done;
    q = insert_sql("timeseries", "run_id, replication, step, dt_s", 4,
                   resfield_step, resfield_n_step);
    rc = db_prep(d, q, &sts, err);
    free(q);
    if (rc != SIM_OK)
        goto done;
    if ((rc = db_prep(
             d,
             "INSERT INTO events(run_id, replication, seq, t_s, job, kind, "
             "cause, value) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8);",
             &sev, err)) != SIM_OK)
        goto done;
    for (size_t r = 0; r < n_reps; r++) {
        const res_rep *rp = &reps[r];
        for (size_t j = 0; j < rp->n_jobs; j++) {
            sqlite3_bind_int64(sj, 1, run_id);
            sqlite3_bind_int64(sj, 2, (sqlite3_int64)j);
            sqlite3_bind_int64(sj, 3, rp->replication);
            bind_fields(sj, 4, &rp->jobs[j], resfield_job, resfield_n_job);
            if ((rc = db_done(d, sj, err, "storing job results")) != SIM_OK)
                goto done;
        }
        sqlite3_bind_int64(ss, 1, run_id);
        sqlite3_bind_int64(ss, 2, rp->replication);
        bind_fields(ss, 3, &rp->site, resfield_site, resfield_n_site);
        if ((rc = db_done(d, ss, err, "storing site results")) != SIM_OK)
            goto done;
        if (m->store_timeseries &&
            (rc = store_steps(d, sts, run_id, rp, m->step_s, m->ts_downsample,
                              err)) != SIM_OK)
            goto done;
        if (m->store_events &&
            (rc = store_events(d, sev, run_id, rp, err)) != SIM_OK)
            goto done;
    }
    rc = store_powerdyn(d, run_id, reps, n_reps, err);
done:
    sqlite3_finalize(sj);
    sqlite3_finalize(ss);
    sqlite3_finalize(sts);
    sqlite3_finalize(sev);
    return rc;
}

/* The summary of every job and site field over the replications
 * (models/stats.h), stored so reports and sweep tables need not load every
 * replication; one scratch array of n_reps values is reused per field. */
static int store_summaries(db *d, int64_t run_id, const db_run_meta *m,
                           const res_rep *reps, size_t n_reps, sim_err *err)
{
    sqlite3_stmt *sj = NULL, *ss = NULL;
    double *x = sim_xmalloc(n_reps * sizeof *x);
    int rc;
    if ((rc = db_prep(
             d,
             "INSERT INTO job_summary(run_id, job, metric, n, mean, p10, p50, "
             "p90, min, max) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10);",
             &sj, err)) != SIM_OK ||
        (rc = db_prep(
             d,
             "INSERT INTO site_summary(run_id, metric, n, mean, p10, p50, p90, "
             "min, max) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9);",
             &ss, err)) != SIM_OK)
        goto done;
    for (size_t j = 0; j < m->n_jobs; j++)
        for (size_t f = 0; f < resfield_n_job; f++) {
            for (size_t r = 0; r < n_reps; r++)
                x[r] = resfield_get(&reps[r].jobs[j], &resfield_job[f]);
            sqlite3_bind_int64(sj, 1, run_id);
            sqlite3_bind_int64(sj, 2, (sqlite3_int64)j);
            if ((rc = store_summary(d, sj, 3, resfield_job[f].name,
                                    stats_summarize(x, 1, n_reps), err)) !=
                SIM_OK)
                goto done;
        }
    for (size_t f = 0; f < resfield_n_site; f++) {
        for (size_t r = 0; r < n_reps; r++)
            x[r] = resfield_get(&reps[r].site, &resfield_site[f]);
        sqlite3_bind_int64(ss, 1, run_id);
        if ((rc = store_summary(d, ss, 2, resfield_site[f].name,
                                stats_summarize(x, 1, n_reps), err)) != SIM_OK)
            goto done;
    }
done:
    free(x);
    sqlite3_finalize(sj);
    sqlite3_finalize(ss);
    return rc;
}

/* The order inside the transaction follows the foreign keys: the scenario
 * row, the run row, the site facts (jobs before job_reps), then the
 * replications, the summaries and the variance shares. */
int db_store_run(db *d, const db_run_meta *meta, const res_rep *reps,
                 size_t n_reps, int64_t *run_id, sim_err *err)
{
    int64_t scen_id = 0, id = 0;
    int rc;
    if (d->readonly)
        return sim_err_set(
            err, SIM_EIO, d->path, 0,
            "database is opened read-only (cannot store results)");
    if ((rc = check_run(d, meta, reps, n_reps, err)) != SIM_OK ||
        (rc = db_vd_check(d, meta, err)) != SIM_OK)
        return rc;
    if ((rc = db_begin_write(d, err, "starting to store a run")) != SIM_OK)
        return rc;
    if ((rc = db_store_scenario(d, meta, &scen_id, err)) != SIM_OK ||
        (rc = store_run_row(d, scen_id, meta, reps, n_reps, &id, err)) !=
            SIM_OK ||
        (rc = store_site_facts(d, id, meta, err)) != SIM_OK ||
        (rc = store_reps(d, id, meta, reps, n_reps, err)) != SIM_OK ||
        (rc = store_summaries(d, id, meta, reps, n_reps, err)) != SIM_OK ||
        (rc = db_vd_store(d, id, meta, err)) != SIM_OK)
        goto fail;
    if ((rc = db_exec(d, "COMMIT;", err, "committing the run")) != SIM_OK)
        goto fail;
    if (run_id)
        *run_id = id;
    return SIM_OK;
fail:
    /* DB_ALREADY_STORED (another writer stored the case first) also lands
     * here: nothing of this run is kept. */
    sqlite3_exec(d->h, "ROLLBACK;", NULL, NULL, NULL);
    return rc;
}
