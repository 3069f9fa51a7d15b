/* io/db_vd.c: the stored variance decomposition of a run (issue 19.4;
 * table variance_shares, schema in io/db.c, docs/results-schema.md): one
 * row per job and source of randomness, written inside db_store_run's
 * transaction and read back by db_load_run.
 *
 * It stores and loads the figures as app/vardecomp.c computed them and
 * must never compute a share itself: a share read back is the share that
 * was printed. NAN is stored as NULL and read back as NAN.
 */
#include "io/db.h"
#include "io/db_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "sim/mem.h"

static void bind_real_or_null(sqlite3_stmt *st, int i, double v)
{
    if (isnan(v))
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_double(st, i, v);
}

static double col_real_or_nan(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL
               ? (double)NAN
               : sqlite3_column_double(st, i);
}

int db_vd_check(const db *d, const db_run_meta *m, sim_err *err)
{
    for (size_t i = 0; i < m->n_var_shares; i++) {
        const db_var_share *v = &m->var_shares[i];
        if (v->job < 0 || (size_t)v->job >= m->n_jobs)
            return sim_err_set(err, SIM_EINVAL, d->path, 0,
                               "variance share %zu: job %d out of range "
                               "(expected 0 .. %zu)",
                               i, (int)v->job, m->n_jobs ? m->n_jobs - 1 : 0);
    }
    return SIM_OK;
}

int db_vd_store(db *d, int64_t run_id, const db_run_meta *m, sim_err *err)
{
    sqlite3_stmt *st;
    int rc = SIM_OK;
    if (m->n_var_shares == 0)
        return SIM_OK;
    if ((rc = db_prep(d,
                      "INSERT INTO variance_shares(run_id, job, source, "
                      "finished, mean_s, var_s2, var_off_s2, share) "
                      "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8);",
                      &st, err)) != SIM_OK)
        return rc;
    for (size_t i = 0; i < m->n_var_shares && rc == SIM_OK; i++) {
        const db_var_share *v = &m->var_shares[i];
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, v->job);
        sqlite3_bind_text(st, 3, v->source, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, v->finished);
        bind_real_or_null(st, 5, v->mean_s);
        bind_real_or_null(st, 6, v->var_s2);
        bind_real_or_null(st, 7, v->var_off_s2);
        bind_real_or_null(st, 8, v->share);
        rc = db_done(d, st, err, "storing the variance shares");
    }
    sqlite3_finalize(st);
    return rc;
}

/* Rows in (job, source) order as stored: the source order of the CHECK
 * list is the order vardecomp writes them, and the report shows them so;
 * ordering by rowid would depend on the insert order, so the order is
 * spelled out instead. */
int db_vd_load(db *d, db_run *r, sim_err *err)
{
    sqlite3_stmt *st;
    size_t cap = 0, n = 0;
    db_var_share *v = NULL;
    int rc;
    if ((rc = db_prep(d,
                      "SELECT job, source, finished, mean_s, var_s2, "
                      "var_off_s2, share FROM variance_shares WHERE run_id = "
                      "?1 ORDER BY job, CASE source WHEN 'throughput_model' "
                      "THEN 0 WHEN 'failures' THEN 1 WHEN 'power' THEN 2 "
                      "ELSE 3 END;",
                      &st, err)) != SIM_OK)
        return rc;
    sqlite3_bind_int64(st, 1, r->id);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        db_var_share *x;
        sim_grow((void **)&v, &cap, n + 1, sizeof *v);
        x = &v[n++];
        memset(x, 0, sizeof *x);
        x->job = (int32_t)sqlite3_column_int64(st, 0);
        snprintf(x->source, sizeof x->source, "%s",
                 (const char *)sqlite3_column_text(st, 1));
        x->finished = sqlite3_column_int64(st, 2);
        x->mean_s = col_real_or_nan(st, 3);
        x->var_s2 = col_real_or_nan(st, 4);
        x->var_off_s2 = col_real_or_nan(st, 5);
        x->share = col_real_or_nan(st, 6);
    }
    if (rc != SQLITE_DONE) {
        rc = db_fail(d, err, "reading the variance shares");
        free(v);
        v = NULL;
        n = 0;
    } else {
        rc = SIM_OK;
    }
    sqlite3_finalize(st);
    r->meta.var_shares = v;
    r->meta.n_var_shares = n;
    return rc;
}
