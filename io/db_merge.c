/* io/db_merge.c: db_merge (db.h), copying the runs of one results
 * database into another (per-task databases of a sweep on several hosts,
 * combined afterwards: docs/sweeps.md).
 *
 * It owns the notion of "the same run" across databases (RUN_IDENTITY
 * below) and must never modify the source database: the source is opened
 * read-only and only read.
 */
#include "io/db.h"
#include "io/db_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "sim/mem.h"

/* ---- merge ----
 *
 * db_merge copies every run of a source database that the destination
 * does not hold yet, row by row through prepared statements: the source
 * is read through its own read-only connection (one read transaction, a
 * consistent snapshot), the destination written in one BEGIN IMMEDIATE
 * transaction per source, so a killed merge leaves every source either
 * fully merged or not at all. ATTACH was the alternative not taken: it
 * opens the source read-write with the destination's flags, and closing
 * it checkpoints and rewrites the source's -wal. Column lists come from
 * the destination's schema (PRAGMA table_info), the same version as the
 * source's (both opened through the header checks), so a column added to
 * the schema is copied with no change here. */

/* The destination's tables keyed by run_id, in creation order (parents
 * before children: jobs before job_reps). The optimize tables are keyed by
 * problem and copied by merge_problems. */
static int child_tables(db *d, char ***names, size_t *n, sim_err *err)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    int rc;
    *names = NULL;
    *n = 0;
    if ((rc = db_prep(d,
                      "SELECT name FROM sqlite_schema WHERE type = 'table' "
                      "AND name NOT IN ('scenarios', 'runs') AND name NOT "
                      "LIKE 'sqlite_%' AND name NOT LIKE 'optimize_%' ORDER "
                      "BY rowid;",
                      &st, err)) != SIM_OK)
        return rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sim_grow((void **)names, &cap, *n + 1, sizeof **names);
        (*names)[(*n)++] = db_col_str(st, 0);
    }
    rc = rc == SQLITE_DONE ? SIM_OK : db_fail(d, err, "listing tables");
    sqlite3_finalize(st);
    return rc;
}

/* Column names of table t in d as "a, b, c" into *cols; *n_cols columns;
 * *run_col the index of run_id (-1 if none), *id_col of id (-1). */
static int table_cols(db *d, const char *t, char **cols, int *n_cols,
                      int *run_col, int *id_col, sim_err *err)
{
    sqlite3_stmt *st;
    db_sbuf b = {NULL, 0, 0};
    int rc, k = 0;
    *run_col = *id_col = -1;
    if ((rc = db_prep(d, "SELECT name FROM pragma_table_info(?1) ORDER BY cid;",
                      &st, err)) != SIM_OK)
        return rc;
    sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
    db_sb_add(&b, "%s", "");
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(st, 0);
        if (strcmp(c, "run_id") == 0)
            *run_col = k;
        if (strcmp(c, "id") == 0)
            *id_col = k;
        db_sb_add(&b, "%s%s", k ? ", " : "", c);
        k++;
    }
    rc = rc == SQLITE_DONE ? SIM_OK : db_fail(d, err, "reading the schema");
    sqlite3_finalize(st);
    *cols = b.s;
    *n_cols = k;
    return rc;
}

/* Prepares the copy of table t's columns cols (n of them): *rd reads the
 * rows of src where key = ?1, *wr inserts one row into out (?1..?n). Both
 * merge copies (runs, and the tables keyed by run_id) use it. */
static int prep_copy(db *src, db *out, const char *t, const char *cols, int n,
                     const char *key, sqlite3_stmt **rd, sqlite3_stmt **wr,
                     sim_err *err)
{
    db_sbuf q = {NULL, 0, 0};
    int rc;
    db_sb_add(&q, "SELECT %s FROM %s WHERE %s = ?1;", cols, t, key);
    rc = db_prep(src, q.s, rd, err);
    free(q.s);
    if (rc != SIM_OK)
        return rc;
    q.s = NULL;
    q.len = q.cap = 0;
    db_sb_add(&q, "INSERT INTO %s(%s) VALUES(", t, cols);
    for (int i = 0; i < n; i++)
        db_sb_add(&q, i ? ", ?%d" : "?%d", i + 1);
    db_sb_add(&q, ");");
    rc = db_prep(out, q.s, wr, err);
    free(q.s);
    return rc;
}

/* Copies the rows of table t with run_id = old_id from src to out, with
 * run_id set to new_id. */
static int copy_rows(db *src, db *out, const char *t, int64_t old_id,
                     int64_t new_id, sim_err *err)
{
    sqlite3_stmt *rd = NULL, *wr = NULL;
    char *cols = NULL;
    int n, run_col, id_col, rc;
    if ((rc = table_cols(out, t, &cols, &n, &run_col, &id_col, err)) != SIM_OK)
        goto done;
    if (run_col < 0) {
        rc = sim_err_set(err, SIM_EINVAL, out->path, 0,
                         "merge: table %s has no run_id", t);
        goto done;
    }
    if ((rc = prep_copy(src, out, t, cols, n, "run_id", &rd, &wr, err)) !=
        SIM_OK)
        goto done;
    sqlite3_bind_int64(rd, 1, old_id);
    while ((rc = sqlite3_step(rd)) == SQLITE_ROW) {
        for (int i = 0; i < n; i++)
            if (i == run_col)
                sqlite3_bind_int64(wr, i + 1, new_id);
            else
                sqlite3_bind_value(wr, i + 1, sqlite3_column_value(rd, i));
        if ((rc = db_done(out, wr, err, "merging rows")) != SIM_OK)
            goto done;
    }
    rc = rc == SQLITE_DONE ? SIM_OK : db_fail(src, err, "reading rows");
done:
    sqlite3_finalize(rd);
    sqlite3_finalize(wr);
    free(cols);
    return rc;
}

/* The columns that identify a run across databases (with the scenario's
 * name and configuration): two runs equal in all of them are copies of
 * the same results, since runs are deterministic in these. */
#define RUN_IDENTITY                                                           \
    "seed, replications, n_reps, version, created_utc, horizon_s, step_s, "    \
    "ts_downsample, has_events, sweep_key, case_key, case_index, "             \
    "overrides_json, mpi_rank, status"
#define N_RUN_IDENTITY 15

/* 1 if out holds a run equal to src's current row rd (columns 2.. are
 * RUN_IDENTITY) under scenario scen_id; 0 if not; < 0 on error. */
static int run_present(db *out, sqlite3_stmt *rd, int64_t scen_id, sim_err *err)
{
    static const char *const names[N_RUN_IDENTITY] = {
        "seed",           "replications", "n_reps",   "version",
        "created_utc",    "horizon_s",    "step_s",   "ts_downsample",
        "has_events",     "sweep_key",    "case_key", "case_index",
        "overrides_json", "mpi_rank",     "status"};
    sqlite3_stmt *st;
    db_sbuf q = {NULL, 0, 0};
    int rc;
    db_sb_add(&q, "SELECT count(*) FROM runs WHERE scenario_id = ?1");
    for (int i = 0; i < N_RUN_IDENTITY; i++)
        db_sb_add(&q, " AND %s IS ?%d", names[i], i + 2);
    db_sb_add(&q, ";");
    rc = db_prep(out, q.s, &st, err);
    free(q.s);
    if (rc != SIM_OK)
        return rc;
    sqlite3_bind_int64(st, 1, scen_id);
    for (int i = 0; i < N_RUN_IDENTITY; i++)
        sqlite3_bind_value(st, i + 2, sqlite3_column_value(rd, i + 4));
    if (sqlite3_step(st) == SQLITE_ROW)
        rc = sqlite3_column_int64(st, 0) > 0;
    else
        rc = db_fail(out, err, "looking up a run");
    sqlite3_finalize(st);
    return rc;
}

/* Copies the run row of rd (column 0: the source id) under scen_id;
 * *new_id receives its id in out. */
static int copy_run_row(db *src, db *out, int64_t old_id, int64_t scen_id,
                        int64_t *new_id, sim_err *err)
{
    sqlite3_stmt *rd = NULL, *wr = NULL;
    char *cols = NULL;
    int n, run_col, id_col, scen_col = -1, rc, k = 0;
    if ((rc = table_cols(out, "runs", &cols, &n, &run_col, &id_col, err)) !=
        SIM_OK)
        goto done;
    /* Position of scenario_id in the column list. */
    for (const char *p = cols; p; p = strchr(p, ',')) {
        while (*p == ',' || *p == ' ')
            p++;
        if (strncmp(p, "scenario_id", 11) == 0 && (p[11] == ',' || !p[11]))
            scen_col = k;
        k++;
    }
    if (id_col < 0 || scen_col < 0) {
        rc = sim_err_set(err, SIM_EINVAL, out->path, 0,
                         "merge: runs has no id or scenario_id");
        goto done;
    }
    if ((rc = prep_copy(src, out, "runs", cols, n, "id", &rd, &wr, err)) !=
        SIM_OK)
        goto done;
    sqlite3_bind_int64(rd, 1, old_id);
    if (sqlite3_step(rd) != SQLITE_ROW) {
        rc = db_fail(src, err, "reading a run");
        goto done;
    }
    for (int i = 0; i < n; i++)
        if (i == id_col)
            sqlite3_bind_null(wr, i + 1); /* a new id in out */
        else if (i == scen_col)
            sqlite3_bind_int64(wr, i + 1, scen_id);
        else
            sqlite3_bind_value(wr, i + 1, sqlite3_column_value(rd, i));
    if ((rc = db_done(out, wr, err, "merging a run")) != SIM_OK)
        goto done;
    *new_id = sqlite3_last_insert_rowid(out->h);
done:
    sqlite3_finalize(rd);
    sqlite3_finalize(wr);
    free(cols);
    return rc;
}

/* Merges every run of src into out inside the open write transaction.
 * Why shaped so: one pass over src's runs, in id order, decides per run
 * whether out already holds it (run_present, or the same complete sweep
 * case) before anything is copied, so a run is never half-copied; the
 * scenario row is found or added first because the run row refers to it,
 * and the child tables follow in creation order (parents first). */
static int merge_runs(db *src, db *out, db_merge_stats *stats, sim_err *err)
{
    sqlite3_stmt *rd = NULL;
    char **tables = NULL;
    size_t n_tables = 0;
    int rc;
    if ((rc = child_tables(out, &tables, &n_tables, err)) != SIM_OK)
        goto done;
    if ((rc = db_prep(
             src,
             "SELECT r.id, s.name, s.config_text, "
             "r.status = 'complete' AND r.sweep_key IS NOT NULL, " RUN_IDENTITY
             " FROM runs r JOIN scenarios s ON s.id = "
             "r.scenario_id ORDER BY r.id;",
             &rd, err)) != SIM_OK)
        goto done;
    while ((rc = sqlite3_step(rd)) == SQLITE_ROW) {
        db_run_meta m;
        int64_t old_id = sqlite3_column_int64(rd, 0), scen_id = 0, new_id = 0;
        int present;
        memset(&m, 0, sizeof m);
        m.scenario = (const char *)sqlite3_column_text(rd, 1);
        m.config_text = (const char *)sqlite3_column_text(rd, 2);
        if ((rc = db_store_scenario(out, &m, &scen_id, err)) != SIM_OK)
            goto done;
        present = run_present(out, rd, scen_id, err);
        /* A complete sweep case another task also ran is kept once: the
         * destination's copy wins (the runs_case unique index). */
        if (present == 0 && sqlite3_column_int(rd, 3))
            present = db_case_done(
                out, (const char *)sqlite3_column_text(rd, 4 + 9),
                (const char *)sqlite3_column_text(rd, 4 + 10), err);
        if (present < 0) {
            rc = present;
            goto done;
        }
        if (present) {
            stats->runs_present++;
            continue;
        }
        if ((rc = copy_run_row(src, out, old_id, scen_id, &new_id, err)) !=
            SIM_OK)
            goto done;
        for (size_t t = 0; t < n_tables; t++)
            if ((rc = copy_rows(src, out, tables[t], old_id, new_id, err)) !=
                SIM_OK)
                goto done;
        stats->runs_added++;
    }
    rc = rc == SQLITE_DONE ? SIM_OK : db_fail(src, err, "reading runs");
done:
    sqlite3_finalize(rd);
    for (size_t t = 0; t < n_tables; t++)
        free(tables[t]);
    free(tables);
    return rc;
}

/* Copies every stored optimize problem of src that out does not hold (same
 * sweep key and terms) under a new id. Its designs name sweep cases by key,
 * not by run id, so they need no mapping: the runs they name were merged
 * just before. Inside the open write transaction. */
static int merge_problems(db *src, db *out, sim_err *err)
{
    sqlite3_stmt *rd = NULL;
    int rc;
    if ((rc = db_prep(src, "SELECT id FROM optimize_problems ORDER BY id;", &rd,
                      err)) != SIM_OK)
        return rc;
    while ((rc = sqlite3_step(rd)) == SQLITE_ROW) {
        db_opt_problem *p = NULL;
        rc = db_opt_load(src, sqlite3_column_int64(rd, 0), &p, err);
        if (rc == SIM_OK)
            rc = db_opt_insert(out, p, 1, err);
        db_opt_free(p);
        if (rc != SIM_OK)
            goto done;
    }
    rc = rc == SQLITE_DONE ? SIM_OK
                           : db_fail(src, err, "reading optimize problems");
done:
    sqlite3_finalize(rd);
    return rc;
}

int db_merge(db *out, const char *src_path, db_merge_stats *stats, sim_err *err)
{
    struct stat a, b;
    db *src = NULL;
    db_merge_stats st = {0, 0};
    int rc;
    if (out->readonly)
        return sim_err_set(err, SIM_EIO, out->path, 0,
                           "database is opened read-only (cannot merge)");
    if (stat(src_path, &a) == 0 && stat(out->path, &b) == 0 &&
        a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        return sim_err_set(err, SIM_EINVAL, src_path, 0,
                           "is the output database itself");
    if ((rc = db_open_readonly(src_path, &src, err)) != SIM_OK)
        return rc;
    if ((rc = db_exec(src, "BEGIN;", err, "reading the database")) != SIM_OK)
        goto done;
    if ((rc = db_begin_write(out, err, "starting the merge")) != SIM_OK)
        goto done;
    if ((rc = merge_runs(src, out, &st, err)) != SIM_OK ||
        (rc = merge_problems(src, out, err)) != SIM_OK) {
        char what[sizeof err->msg];
        /* Which input failed, when the error names the output. */
        if (strcmp(err->file, out->path) == 0) {
            snprintf(what, sizeof what, "%s", err->msg);
            sim_err_set(err, rc, out->path, 0, "merging %s: %s", src_path,
                        what);
        }
        db_rollback(out);
        goto done;
    }
    if ((rc = db_exec(out, "COMMIT;", err, "committing the merge")) != SIM_OK) {
        db_rollback(out);
        goto done;
    }
    if (stats) {
        stats->runs_added += st.runs_added;
        stats->runs_present += st.runs_present;
    }
done:
    if (src)
        db_rollback(src);
    db_close(src);
    return rc;
}
