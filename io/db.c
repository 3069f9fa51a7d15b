/* io/db.c: the SQLite adapter of db.h. Schema: docs/results-schema.md.
 *
 * The per-replication and time-series tables take their columns from the
 * field tables of models/resfield.h, so a field added to res_job, res_site
 * or res_step is a column here with no second list to keep in step. All
 * statements are prepared with bound parameters; db_store_run runs in one
 * BEGIN IMMEDIATE transaction (a busy database fails or waits at BEGIN, not
 * halfway) and rolls back on any error. Opening checks, in order: SQLite
 * can read the header (else "file is not a database"), PRAGMA quick_check
 * is "ok" (catches truncation and corruption), the application_id and
 * user_version are ours; only then is anything written.
 */
#include "io/db.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "models/resfield.h"
#include "sim/mem.h"

#ifndef FACTORYSIM_VERSION
#define FACTORYSIM_VERSION "unknown"
#endif

#define DB_BUSY_MS 60000
#define DB_NOT_OURS "not a factorysim results database"

struct db {
    sqlite3 *h;
    int readonly;
    int64_t old_version; /* schema version found when older than ours */
    int busy;            /* 1: the last failure was SQLITE_BUSY/LOCKED */
    int header_code;     /* SQLite's code when check_header last failed */
    double t0_s;         /* when opening started (monotonic clock) [s] */
    char path[512];
};

/* Monotonic clock [s], for the busy deadline. */
static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* SQLite reports a lock held by another connection as BUSY (or LOCKED for
 * a shared cache); both are retried within DB_BUSY_MS. */
static int is_busy_code(int rc)
{
    return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
}

/* ---- small string builder for the generated SQL ---- */

typedef struct sbuf {
    char *s;
    size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void sb_add(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    sim_grow((void **)&b->s, &b->cap, b->len + (size_t)n + 1, 1);
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* ---- errors ---- */

/* Records SQLite's last error on d as a SIM_EIO (or the class given) with
 * what we were doing. Read-only and busy databases get plain words. */
static int db_fail(db *d, sim_err *err, const char *what)
{
    int rc = sqlite3_extended_errcode(d->h);
    const char *msg = sqlite3_errmsg(d->h);
    d->busy = is_busy_code(rc);
    switch (rc & 0xff) {
    case SQLITE_READONLY:
        return sim_err_set(err, SIM_EIO, d->path, 0,
                           "%s: database is read-only (%s)", what, msg);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        /* The time actually waited: SQLite returns BUSY at once where
         * waiting would deadlock, and the callers retry until the
         * deadline. */
        return sim_err_set(err, SIM_EIO, d->path, 0,
                           "%s: database is locked by another process "
                           "(waited %.0f s of %d s)",
                           what, mono_s() - d->t0_s, DB_BUSY_MS / 1000);
    case SQLITE_FULL:
        return sim_err_set(err, SIM_EIO, d->path, 0, "%s: disk full (%s)", what,
                           msg);
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
        return sim_err_set(err, SIM_ECONFIG, d->path, 0, DB_NOT_OURS " (%s)",
                           msg);
    default:
        /* A write refused for want of space or by a file size limit comes
         * back as a plain I/O error; the OS error says which. */
        if ((rc & 0xff) == SQLITE_IOERR &&
            (sqlite3_system_errno(d->h) == ENOSPC ||
             sqlite3_system_errno(d->h) == EFBIG))
            return sim_err_set(err, SIM_EIO, d->path, 0, "%s: disk full (%s)",
                               what, strerror(sqlite3_system_errno(d->h)));
        return sim_err_set(err, SIM_EIO, d->path, 0, "%s: %s (sqlite code %d)",
                           what, msg, rc);
    }
}

static int db_exec(db *d, const char *sql, sim_err *err, const char *what)
{
    if (sqlite3_exec(d->h, sql, NULL, NULL, NULL) != SQLITE_OK)
        return db_fail(d, err, what);
    return SIM_OK;
}

static int db_prep(db *d, const char *sql, sqlite3_stmt **st, sim_err *err)
{
    if (sqlite3_prepare_v2(d->h, sql, -1, st, NULL) != SQLITE_OK) {
        *st = NULL;
        return db_fail(d, err, "preparing a statement");
    }
    return SIM_OK;
}

/* Steps an INSERT/UPDATE to completion and resets it for the next row. */
static int db_done(db *d, sqlite3_stmt *st, sim_err *err, const char *what)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return db_fail(d, err, what);
    return SIM_OK;
}

/* One integer from a single-row query (a PRAGMA), into *v. */
static int db_int(db *d, const char *sql, int64_t *v, sim_err *err)
{
    sqlite3_stmt *st;
    int rc;
    if ((rc = db_prep(d, sql, &st, err)) != SIM_OK)
        return rc;
    if (sqlite3_step(st) != SQLITE_ROW) {
        rc = db_fail(d, err, sql);
        sqlite3_finalize(st);
        return rc;
    }
    *v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return SIM_OK;
}

/* ---- hashing ---- */

char *db_hash_hex(const void *p, size_t n, char hex[17])
{
    /* FNV-1a, 64-bit: offset basis 14695981039346656037, prime 2^40+2^8+0xb3.
     */
    const unsigned char *c = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 0x100000001b3ull;
    }
    snprintf(hex, 17, "%016llx", (unsigned long long)h);
    return hex;
}

/* ---- schema ---- */

static const char *sql_type(const resfield *f)
{
    return f->type == RESFIELD_DOUBLE ? "REAL" : "INTEGER";
}

static void sb_fields(sbuf *b, const resfield *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sb_add(b, ",\n  %s %s", t[i].name, sql_type(&t[i]));
}

static void sb_summary_cols(sbuf *b)
{
    sb_add(b,
           ",\n  metric TEXT NOT NULL, n INTEGER NOT NULL, mean REAL, p10 REAL,"
           " p50 REAL, p90 REAL, min REAL, max REAL");
}

#define RUN_FK "REFERENCES runs(id) ON DELETE CASCADE"

static char *schema_sql(void)
{
    sbuf b = {NULL, 0, 0};
    sb_add(
        &b,
        "CREATE TABLE scenarios(\n"
        "  id INTEGER PRIMARY KEY,\n"
        "  name TEXT NOT NULL,\n"
        "  config_hash TEXT NOT NULL,\n"
        "  config_text TEXT NOT NULL,\n"
        "  UNIQUE(name, config_hash)) STRICT;\n"
        "CREATE TABLE runs(\n"
        "  id INTEGER PRIMARY KEY,\n"
        "  scenario_id INTEGER NOT NULL REFERENCES scenarios(id),\n"
        "  seed INTEGER NOT NULL,\n"
        "  replications INTEGER NOT NULL CHECK(replications >= 1),\n"
        "  n_reps INTEGER NOT NULL CHECK(n_reps >= 1),\n"
        "  version TEXT NOT NULL,\n"
        "  created_utc TEXT NOT NULL,\n"
        "  horizon_s REAL NOT NULL,\n"
        "  step_s REAL,\n"
        "  ts_downsample INTEGER NOT NULL,\n"
        "  has_events INTEGER NOT NULL,\n"
        "  site_name TEXT,\n"
        "  it_capacity_w REAL,\n"
        "  sweep_key TEXT,\n"
        "  case_key TEXT,\n"
        "  case_index INTEGER,\n"
        "  overrides_json TEXT,\n"
        "  mpi_rank INTEGER,\n"
        "  status TEXT NOT NULL CHECK(status IN ('complete', 'interrupted')),\n"
        "  CHECK((sweep_key IS NULL) = (case_key IS NULL))) STRICT;\n"
        "CREATE UNIQUE INDEX runs_case ON runs(sweep_key, case_key)\n"
        "  WHERE sweep_key IS NOT NULL AND status = 'complete';\n"
        "CREATE TABLE site_modules(\n"
        "  run_id INTEGER NOT NULL " RUN_FK ",\n"
        "  idx INTEGER NOT NULL, module_type TEXT NOT NULL, count INTEGER NOT "
        "NULL,\n"
        "  PRIMARY KEY(run_id, idx)) STRICT;\n"
        "CREATE TABLE site_gpus(\n"
        "  run_id INTEGER NOT NULL " RUN_FK ",\n"
        "  idx INTEGER NOT NULL, gpu_type TEXT NOT NULL, count INTEGER NOT "
        "NULL,\n"
        "  PRIMARY KEY(run_id, idx)) STRICT;\n"
        "CREATE TABLE site_sources(\n"
        "  run_id INTEGER NOT NULL " RUN_FK ",\n"
        "  idx INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT,\n"
        "  power_w REAL NOT NULL, energy_j REAL NOT NULL,\n"
        "  PRIMARY KEY(run_id, idx)) STRICT;\n"
        "CREATE TABLE jobs(\n"
        "  run_id INTEGER NOT NULL " RUN_FK ",\n"
        "  job INTEGER NOT NULL, name TEXT NOT NULL, model TEXT, precision "
        "TEXT,\n"
        "  gpu_type TEXT, gpus INTEGER NOT NULL, tokens REAL,\n"
        "  layout_tp INTEGER, layout_pp INTEGER, layout_vp INTEGER,\n"
        "  layout_cp INTEGER, layout_ep INTEGER, layout_mbs INTEGER,\n"
        "  layout_recompute TEXT, layout_distributed_optimizer INTEGER,\n"
        "  layout_chosen TEXT,\n"
        "  PRIMARY KEY(run_id, job)) STRICT;\n");
    sb_add(&b, "CREATE TABLE job_reps(\n"
               "  run_id INTEGER NOT NULL " RUN_FK ",\n"
               "  job INTEGER NOT NULL,\n  replication INTEGER NOT NULL");
    sb_fields(&b, resfield_job, resfield_n_job);
    sb_add(&b, ",\n  PRIMARY KEY(run_id, job, replication),\n"
               "  FOREIGN KEY(run_id, job) REFERENCES jobs(run_id, job)"
               " ON DELETE CASCADE) STRICT;\n");
    sb_add(&b, "CREATE TABLE job_summary(\n"
               "  run_id INTEGER NOT NULL " RUN_FK ",\n  job INTEGER NOT NULL");
    sb_summary_cols(&b);
    sb_add(&b, ",\n  PRIMARY KEY(run_id, job, metric)) STRICT;\n");
    sb_add(&b, "CREATE TABLE site_reps(\n"
               "  run_id INTEGER NOT NULL " RUN_FK
               ",\n  replication INTEGER NOT NULL");
    sb_fields(&b, resfield_site, resfield_n_site);
    sb_add(&b, ",\n  PRIMARY KEY(run_id, replication)) STRICT;\n");
    sb_add(&b, "CREATE TABLE site_summary(\n"
               "  run_id INTEGER NOT NULL " RUN_FK);
    sb_summary_cols(&b);
    sb_add(&b, ",\n  PRIMARY KEY(run_id, metric)) STRICT;\n");
    sb_add(&b, "CREATE TABLE timeseries(\n"
               "  run_id INTEGER NOT NULL " RUN_FK ",\n"
               "  replication INTEGER NOT NULL,\n  step INTEGER NOT NULL,\n"
               "  dt_s REAL NOT NULL");
    sb_fields(&b, resfield_step, resfield_n_step);
    sb_add(&b, ",\n  PRIMARY KEY(run_id, replication, step)) STRICT, WITHOUT "
               "ROWID;\n");
    sb_add(&b,
           "CREATE TABLE events(\n"
           "  run_id INTEGER NOT NULL " RUN_FK ",\n"
           "  replication INTEGER NOT NULL, seq INTEGER NOT NULL,\n"
           "  t_s REAL NOT NULL, job INTEGER NOT NULL, kind TEXT NOT NULL,\n"
           "  cause TEXT NOT NULL, value REAL,\n"
           "  PRIMARY KEY(run_id, replication, seq)) STRICT, WITHOUT ROWID;\n");
    sb_add(&b, "PRAGMA application_id = %d;\nPRAGMA user_version = %d;\n",
           DB_APPLICATION_ID, DB_SCHEMA_VERSION);
    return b.s;
}

/* ---- waiting on a busy database ----
 *
 * Several processes may open, create and write one file at once (db.h).
 * sqlite3_busy_timeout covers most waits, but SQLite returns SQLITE_BUSY
 * at once where waiting inside it could deadlock (a reader upgrading to a
 * writer in rollback-journal mode, the switch to WAL while another
 * connection reads, WAL recovery). So every step that takes a lock runs
 * in a loop: on BUSY/LOCKED it backs off a few milliseconds and tries
 * again until DB_BUSY_MS after the operation started, with SQLite's own
 * timeout set to what is left, so the documented bound holds overall. */

/* Milliseconds left before the deadline of the operation started at
 * d->t0_s (0 when past it). */
static int wait_left_ms(const db *d)
{
    double left = DB_BUSY_MS - 1e3 * (mono_s() - d->t0_s);
    return left > 0 ? (int)left : 0;
}

/* 1 if the last failure was busy and time is left: then sleeps 2-20 ms
 * (spread by process id and attempt, so writers that collided do not
 * collide again in step) and re-arms SQLite's timeout with what is left. */
static int retry_busy(db *d, unsigned attempt)
{
    struct timespec ts;
    unsigned ms;
    if (!d->busy || wait_left_ms(d) == 0)
        return 0;
    ms = 2 + ((unsigned)getpid() * 2654435761u + attempt * 40503u) % 19u;
    ts.tv_sec = 0;
    ts.tv_nsec = (long)ms * 1000000L;
    nanosleep(&ts, NULL);
    sqlite3_busy_timeout(d->h, wait_left_ms(d) > 0 ? wait_left_ms(d) : 1);
    d->busy = 0;
    return 1;
}

/* Rolls back the open transaction, if any. */
static void db_rollback(db *d)
{
    if (!sqlite3_get_autocommit(d->h))
        sqlite3_exec(d->h, "ROLLBACK;", NULL, NULL, NULL);
}

/* BEGIN IMMEDIATE, retried while busy up to DB_BUSY_MS. */
static int db_begin_write(db *d, sim_err *err, const char *what)
{
    unsigned attempt = 0;
    int rc;
    d->t0_s = mono_s();
    sqlite3_busy_timeout(d->h, DB_BUSY_MS);
    while ((rc = db_exec(d, "BEGIN IMMEDIATE;", err, what)) != SIM_OK &&
           retry_busy(d, attempt++))
        ;
    sqlite3_busy_timeout(d->h, DB_BUSY_MS);
    return rc;
}

/* Creates the schema in a fresh database, in one BEGIN IMMEDIATE
 * transaction. Another process may be doing the same: the version is read
 * again inside the write transaction, and a schema created meanwhile is
 * left alone (the caller's header check then runs again). A busy database
 * fails with d->busy set, for the caller's retry loop. */
static int create_schema(db *d, sim_err *err)
{
    int64_t uv = 0;
    char *sql;
    int rc;
    if ((rc = db_exec(d, "BEGIN IMMEDIATE;", err, "creating the schema")) !=
        SIM_OK)
        return rc;
    if ((rc = db_int(d, "PRAGMA user_version;", &uv, err)) != SIM_OK)
        goto fail;
    if (uv != 0) /* created meanwhile; the caller's checks run again */
        return db_exec(d, "ROLLBACK;", err, "creating the schema");
    sql = schema_sql();
    rc = db_exec(d, sql, err, "creating the schema");
    free(sql);
    if (rc != SIM_OK)
        goto fail;
    if ((rc = db_exec(d, "COMMIT;", err, "creating the schema")) != SIM_OK)
        goto fail;
    return SIM_OK;
fail:
    db_rollback(d);
    return rc;
}

/* ---- migration of older databases ----
 *
 * A database written by an older factorysim is upgraded in place when it is
 * opened for writing, in one transaction: first the renames and rescalings
 * of each version step (below), then every result field of
 * models/resfield.h that the file lacks is added as a column, NULL in the
 * rows stored before (the older version never computed it). Opened
 * read-only, an older database is refused with what to do. */

/* Version 1 -> 2 (issue 14: one vocabulary): tokens_per_s_per_gpu became
 * tokens_per_sec_per_gpu; hours_short [h] became time_short_s [s]. */
static const char migrate_1_to_2[] =
    "ALTER TABLE job_reps RENAME COLUMN tokens_per_s_per_gpu TO "
    "tokens_per_sec_per_gpu;\n"
    "UPDATE job_summary SET metric = 'tokens_per_sec_per_gpu' "
    "WHERE metric = 'tokens_per_s_per_gpu';\n"
    "ALTER TABLE site_reps RENAME COLUMN hours_short TO time_short_s;\n"
    "UPDATE site_reps SET time_short_s = time_short_s * 3600.0;\n"
    "UPDATE site_summary SET metric = 'time_short_s', mean = mean * 3600.0,"
    " p10 = p10 * 3600.0, p50 = p50 * 3600.0, p90 = p90 * 3600.0,"
    " min = min * 3600.0, max = max * 3600.0 WHERE metric = 'hours_short';\n";

/* Version 2 -> 3 (issue 17): each job's parallel layout, one column per
 * field; NULL in the runs stored before (their layout was not recorded). */
static const char migrate_2_to_3[] =
    "ALTER TABLE jobs ADD COLUMN layout_tp INTEGER;\n"
    "ALTER TABLE jobs ADD COLUMN layout_pp INTEGER;\n"
    "ALTER TABLE jobs ADD COLUMN layout_vp INTEGER;\n"
    "ALTER TABLE jobs ADD COLUMN layout_cp INTEGER;\n"
    "ALTER TABLE jobs ADD COLUMN layout_ep INTEGER;\n"
    "ALTER TABLE jobs ADD COLUMN layout_mbs INTEGER;\n"
    "ALTER TABLE jobs ADD COLUMN layout_recompute TEXT;\n"
    "ALTER TABLE jobs ADD COLUMN layout_distributed_optimizer INTEGER;\n"
    "ALTER TABLE jobs ADD COLUMN layout_chosen TEXT;\n";

/* Version 3 -> 4 (issue 15: onshore wind): site_reps gains
 * wind_capacity_factor, which add_missing_columns adds as NULL (rows stored
 * before had no wind model). energy_wind_mwh already existed (always 0),
 * so nothing is renamed or rescaled. */
static const char migrate_3_to_4[] = "-- wind_capacity_factor: added below\n";

/* The SQL that takes version v to v + 1, indexed by v. */
static const char *const migrate_step[DB_SCHEMA_VERSION] = {
    NULL, /* 0: not a version */
    migrate_1_to_2,
    migrate_2_to_3,
    migrate_3_to_4,
};

/* Adds every field of t missing from table (as a nullable column). */
static int add_missing_columns(db *d, const char *table, const resfield *t,
                               size_t n, sim_err *err)
{
    for (size_t i = 0; i < n; i++) {
        sqlite3_stmt *st;
        char sql[256];
        int64_t have = 0;
        int rc;
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM pragma_table_info('%s') "
                 "WHERE name = ?1;",
                 table);
        if ((rc = db_prep(d, sql, &st, err)) != SIM_OK)
            return rc;
        sqlite3_bind_text(st, 1, t[i].name, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            have = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        if (have)
            continue;
        snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN %s %s;", table,
                 t[i].name, t[i].type == RESFIELD_DOUBLE ? "REAL" : "INTEGER");
        if ((rc = db_exec(d, sql, err, "upgrading the schema")) != SIM_OK)
            return rc;
    }
    return SIM_OK;
}

/* Upgrades d from d->old_version to DB_SCHEMA_VERSION in one transaction.
 * Another process may be upgrading the same file: the version is read
 * again inside the write transaction. */
static int migrate_schema(db *d, sim_err *err)
{
    int64_t uv = 0;
    int rc;
    if ((rc = db_exec(d, "BEGIN IMMEDIATE;", err, "upgrading the schema")) !=
        SIM_OK)
        return rc;
    if ((rc = db_int(d, "PRAGMA user_version;", &uv, err)) != SIM_OK)
        goto fail;
    for (; uv >= 1 && uv < DB_SCHEMA_VERSION; uv++)
        if ((rc = db_exec(d, migrate_step[uv], err, "upgrading the schema")) !=
            SIM_OK)
            goto fail;
    if ((rc = add_missing_columns(d, "job_reps", resfield_job, resfield_n_job,
                                  err)) != SIM_OK ||
        (rc = add_missing_columns(d, "site_reps", resfield_site,
                                  resfield_n_site, err)) != SIM_OK ||
        (rc = add_missing_columns(d, "timeseries", resfield_step,
                                  resfield_n_step, err)) != SIM_OK)
        goto fail;
    {
        char sql[64];
        snprintf(sql, sizeof sql, "PRAGMA user_version = %d;",
                 DB_SCHEMA_VERSION);
        if ((rc = db_exec(d, sql, err, "upgrading the schema")) != SIM_OK)
            goto fail;
    }
    d->old_version = 0;
    return db_exec(d, "COMMIT;", err, "upgrading the schema");
fail:
    sqlite3_exec(d->h, "ROLLBACK;", NULL, NULL, NULL);
    return rc;
}

/* ---- open ---- */

/* Runs the check pragma sql; on anything but one "ok" row, sets the first
 * message (a busy database is reported as such, not as foreign). */
static int check_pragma(db *d, const char *sql, sim_err *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(d->h, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        if (is_busy_code(sqlite3_extended_errcode(d->h)))
            return db_fail(d, err, "checking the results database");
        return sim_err_set(err, SIM_ECONFIG, d->path, 0, DB_NOT_OURS " (%s)",
                           sqlite3_errmsg(d->h));
    }
    rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        if (is_busy_code(sqlite3_extended_errcode(d->h)))
            rc = db_fail(d, err, "checking the results database");
        else
            rc = sim_err_set(err, SIM_ECONFIG, d->path, 0, DB_NOT_OURS " (%s)",
                             sqlite3_errmsg(d->h));
    } else {
        const char *r = (const char *)sqlite3_column_text(st, 0);
        if (r && strcmp(r, "ok") == 0)
            rc = SIM_OK;
        else
            rc = sim_err_set(err, SIM_ECONFIG, d->path, 0,
                             DB_NOT_OURS " (integrity check: %s)",
                             r ? r : "no answer");
    }
    sqlite3_finalize(st);
    return rc;
}

/* The header check proper; called inside a read transaction. */
static int check_header_txn(db *d, int *fresh, sim_err *err)
{
    int64_t app = 0, uv = 0, nobj = 0;
    int rc;
    if (db_int(d, "PRAGMA application_id;", &app, err) != SIM_OK) {
        int x = sqlite3_errcode(d->h);
        /* A WAL database in a read-only folder or file system cannot
         * create its -shm file: that is not a foreign file
         * (tests/test_faults.c). */
        if (x == SQLITE_CANTOPEN || x == SQLITE_READONLY)
            return sim_err_set(
                err, SIM_EIO, d->path, 0,
                "database is read-only (%s: a WAL database needs "
                "to create %s-shm beside it; check the file's and "
                "folder's permissions)",
                sqlite3_errmsg(d->h), d->path);
        if (x != SQLITE_NOTADB && x != SQLITE_CORRUPT)
            return db_fail(d, err, "opening the results database");
        return sim_err_set(err, SIM_ECONFIG, d->path, 0, DB_NOT_OURS " (%s)",
                           sqlite3_errmsg(d->h));
    }
    if ((rc = check_pragma(d, "PRAGMA quick_check;", err)) != SIM_OK)
        return rc;
    if ((rc = db_int(d, "PRAGMA user_version;", &uv, err)) != SIM_OK ||
        (rc = db_int(d, "SELECT count(*) FROM sqlite_schema;", &nobj, err)) !=
            SIM_OK)
        return rc;
    if (app == 0 && uv == 0 && nobj == 0) {
        *fresh = 1;
        return SIM_OK;
    }
    if (app != DB_APPLICATION_ID)
        return sim_err_set(
            err, SIM_ECONFIG, d->path, 0,
            DB_NOT_OURS " (application_id 0x%08llx, expected 0x%08x)",
            (unsigned long long)(uint32_t)app, DB_APPLICATION_ID);
    if (uv > DB_SCHEMA_VERSION)
        return sim_err_set(
            err, SIM_ECONFIG, d->path, 0,
            "written by a newer factorysim (schema version %lld; "
            "this build reads version %d)",
            (long long)uv, DB_SCHEMA_VERSION);
    if (uv < 1)
        return sim_err_set(err, SIM_ECONFIG, d->path, 0,
                           DB_NOT_OURS " (schema version %lld, expected %d)",
                           (long long)uv, DB_SCHEMA_VERSION);
    d->old_version = uv < DB_SCHEMA_VERSION ? uv : 0;
    return SIM_OK;
}

/* Checks that d is ours and of our version; *fresh = 1 if it is an empty
 * SQLite file with no schema yet (a new file, or one another writer has
 * just created and not yet filled). application_id, user_version and the
 * schema are read inside one read transaction, so a schema committed by
 * another process between two of the reads cannot make a healthy database
 * look foreign (application_id still 0, schema already there). */
static int check_header(db *d, int *fresh, sim_err *err)
{
    int rc;
    *fresh = 0;
    if ((rc = db_exec(d, "BEGIN;", err, "opening the results database")) !=
        SIM_OK)
        return rc;
    rc = check_header_txn(d, fresh, err);
    d->header_code = rc == SIM_OK ? SQLITE_OK : sqlite3_errcode(d->h);
    if (rc == SIM_OK)
        sqlite3_exec(d->h, "COMMIT;", NULL, NULL, NULL);
    else
        db_rollback(d);
    return rc;
}

int db_integrity_check(db *d, sim_err *err)
{
    return check_pragma(d, "PRAGMA integrity_check;", err);
}

/* Switches to WAL. Another connection that reads the file meanwhile makes
 * SQLite answer BUSY, or keep the old mode and answer its name: both are
 * marked busy for the caller's retry loop (the second only until the
 * deadline, after which the answer is reported). */
static int set_wal(db *d, sim_err *err)
{
    sqlite3_stmt *st;
    const char *mode;
    int rc;
    if ((rc = db_prep(d, "PRAGMA journal_mode=WAL;", &st, err)) != SIM_OK)
        return rc;
    if (sqlite3_step(st) != SQLITE_ROW) {
        rc = db_fail(d, err, "setting WAL mode");
        sqlite3_finalize(st);
        return rc;
    }
    mode = (const char *)sqlite3_column_text(st, 0);
    if (!mode || strcmp(mode, "wal") != 0) {
        rc = sim_err_set(err, SIM_EIO, d->path, 0,
                         "cannot use WAL journal mode (SQLite answered \"%s\")",
                         mode ? mode : "");
        d->busy = 1;
    }
    sqlite3_finalize(st);
    return rc;
}

/* A WAL database on read-only media (a read-only mount, a folder without
 * write permission) cannot be read the usual way: SQLite must create its
 * -shm file. When no -wal file with commits is beside it, nothing can be
 * missed by reading the main file alone, so d is reopened with the URI
 * parameter immutable=1 (https://sqlite.org/uri.html), which takes no lock
 * and needs no -shm. Returns an SQLite code. (tests/test_faults.c) */
static int reopen_immutable(db *d)
{
    char wal[1100], uri[3200];
    struct stat sb;
    size_t k = 0;
    snprintf(wal, sizeof wal, "%s-wal", d->path);
    if (stat(wal, &sb) == 0 && sb.st_size > 0)
        return SQLITE_CANTOPEN;
    k += (size_t)snprintf(uri, sizeof uri, "file:");
    for (const char *p = d->path; *p && k + 4 < sizeof uri; p++) {
        if (*p == '?' || *p == '#' || *p == '%')
            k += (size_t)snprintf(uri + k, sizeof uri - k, "%%%02X",
                                  (unsigned char)*p);
        else
            uri[k++] = *p;
    }
    uri[k] = '\0';
    if (k + 13 >= sizeof uri)
        return SQLITE_CANTOPEN;
    strcat(uri, "?immutable=1");
    sqlite3_close(d->h);
    d->h = NULL;
    if (sqlite3_open_v2(uri, &d->h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
                        NULL) != SQLITE_OK)
        return SQLITE_CANTOPEN;
    sqlite3_extended_result_codes(d->h, 1);
    return SQLITE_OK;
}

/* ---- network file systems ----
 *
 * SQLite's locks rely on POSIX advisory locks and, in WAL mode, on shared
 * memory (the -shm file mapped by every connection). Across hosts neither
 * is reliable on network file systems (https://sqlite.org/useovernet.html):
 * NFS and Lustre locks may be lost or not honoured, and a mapped -shm is
 * not shared between hosts, so two nodes of a Slurm array can corrupt the
 * file or lose commits. Writers therefore refuse these file systems (by
 * statfs f_type of the folder) and point to per-task databases + merge.
 * Left out on purpose: FUSE (0x65735546, mostly local: encrypted or NTFS
 * volumes; sshfs is the exception) and 9p (VM shares, one host), which
 * cannot be told apart from local ones by f_type alone. */

static const struct {
    unsigned long magic;
    const char *name;
} net_fs[] = {
    {0x6969UL, "nfs"},        /* NFS_SUPER_MAGIC */
    {0x0BD00BD0UL, "lustre"}, /* LL_SUPER_MAGIC */
    {0x517BUL, "smb"},        /* SMB_SUPER_MAGIC */
    {0xFF534D42UL, "cifs"},   /* CIFS_SUPER_MAGIC */
    {0xFE534D42UL, "smb2"},   /* SMB2_SUPER_MAGIC */
    {0x00C36400UL, "ceph"},   /* CEPH_SUPER_MAGIC */
    {0x47504653UL, "gpfs"},   /* "GPFS" */
    {0x19830326UL, "beegfs"}, /* BEEGFS_MAGIC */
    {0x5346414FUL, "afs"},    /* AFS_SUPER_MAGIC */
    {0x013111A8UL, "ibrix"},  /* IBRIX */
    {0xAAD7AAEAUL, "panfs"},  /* PANFS_SUPER_MAGIC */
};

const char *db_network_fs_name(unsigned long f_type)
{
    for (size_t i = 0; i < sizeof net_fs / sizeof net_fs[0]; i++)
        if ((f_type & 0xFFFFFFFFUL) == net_fs[i].magic)
            return net_fs[i].name;
    return NULL;
}

/* Refuses to write path when its folder is on a network file system. */
static int check_local_fs(const char *path, sim_err *err)
{
#ifdef __linux__
    char dir[1024];
    const char *slash = strrchr(path, '/'), *name;
    struct statfs fs;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (statfs(dir, &fs) != 0)
        return SIM_OK; /* opening will say what is wrong with the folder */
    name = db_network_fs_name((unsigned long)fs.f_type);
    if (name)
        return sim_err_set(
            err, SIM_EIO, path, 0,
            "is on a network file system (%s): SQLite's locks are not safe "
            "there, and writers on several hosts can lose or corrupt "
            "results; write each task's database on local disk (e.g. --db "
            "$TMPDIR/task-$SLURM_ARRAY_TASK_ID.db), then combine them with "
            "'factorysim merge --db OUT.db TASK.db ...' (docs/sweeps.md)",
            name);
#else
    (void)path;
    (void)err;
#endif
    return SIM_OK;
}

/* One attempt at making d ready for storing: header check, WAL, pragmas
 * and, in a fresh file, the schema. Fails with d->busy set when another
 * process held a lock, for open_common's retry loop; every step may run
 * again (WAL and the pragmas are idempotent, create_schema checks inside
 * its transaction). */
static int open_for_writing(db *d, sim_err *err)
{
    int rc, fresh = 0;
    d->busy = 0;
    if ((rc = check_header(d, &fresh, err)) != SIM_OK)
        return rc;
    if (sqlite3_db_readonly(d->h, "main") == 1)
        return sim_err_set(err, SIM_EIO, d->path, 0,
                           "database is read-only (cannot store results; "
                           "check the file's and folder's permissions)");
    if ((rc = set_wal(d, err)) != SIM_OK ||
        (rc = db_exec(d, "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;",
                      err, "setting pragmas")) != SIM_OK)
        return rc;
    if (fresh) {
        if ((rc = create_schema(d, err)) != SIM_OK ||
            (rc = check_header(d, &fresh, err)) != SIM_OK)
            return rc;
        if (fresh) { /* not possible after a committed schema */
            d->busy = 1;
            return sim_err_set(err, SIM_EIO, d->path, 0,
                               "the schema is still missing after creating it");
        }
    }
    if (d->old_version)
        return migrate_schema(d, err);
    return SIM_OK;
}

static int open_common(const char *path, int ro, db **out, sim_err *err)
{
    db *d;
    int rc, fresh = 0;
    struct stat sb;

    *out = NULL;
    if (ro && stat(path, &sb) != 0)
        return sim_err_set(err, SIM_ENOTFOUND, path, 0,
                           "cannot open results database (%s)",
                           strerror(errno));
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return sim_err_set(err, SIM_EIO, path, 0,
                           "is a directory, expected a results database file");
    if (!ro && (rc = check_local_fs(path, err)) != SIM_OK)
        return rc;
    d = sim_xcalloc(1, sizeof *d);
    d->readonly = ro;
    snprintf(d->path, sizeof d->path, "%s", path);
    rc = sqlite3_open_v2(path, &d->h,
                         ro ? SQLITE_OPEN_READONLY
                            : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                         NULL);
    if (rc != SQLITE_OK) {
        rc = sim_err_set(
            err, SIM_EIO, path, 0, "cannot open results database (%s%s)",
            d->h ? sqlite3_errmsg(d->h) : "out of memory",
            ro ? "" : "; does the folder exist and is it writable?");
        goto fail;
    }
    sqlite3_extended_result_codes(d->h, 1);
    d->t0_s = mono_s();
    sqlite3_busy_timeout(d->h, DB_BUSY_MS);
    if (ro) {
        unsigned attempt = 0;
        while ((rc = check_header(d, &fresh, err)) != SIM_OK &&
               retry_busy(d, attempt++))
            ;
        if (rc != SIM_OK && (d->header_code & 0xff) == SQLITE_CANTOPEN &&
            reopen_immutable(d) == SQLITE_OK)
            rc = check_header(d, &fresh, err);
        if (rc != SIM_OK)
            goto fail;
        if (fresh) {
            rc = sim_err_set(err, SIM_ECONFIG, path, 0,
                             DB_NOT_OURS " (empty file, no runs stored)");
            goto fail;
        }
        if (d->old_version) {
            rc = sim_err_set(
                err, SIM_ECONFIG, path, 0,
                "written by an older factorysim (schema version %lld; this "
                "build reads version %d): upgrade it in place with "
                "`factorysim schema --upgrade %s` (keeps every run)",
                (long long)d->old_version, DB_SCHEMA_VERSION, path);
            goto fail;
        }
    } else {
        unsigned attempt = 0;
        while ((rc = open_for_writing(d, err)) != SIM_OK &&
               retry_busy(d, attempt++))
            ;
        sqlite3_busy_timeout(d->h, DB_BUSY_MS);
        if (rc != SIM_OK)
            goto fail;
    }
    *out = d;
    return SIM_OK;
fail:
    db_close(d);
    return rc;
}

int db_open(const char *path, db **out, sim_err *err)
{
    return open_common(path, 0, out, err);
}

int db_open_readonly(const char *path, db **out, sim_err *err)
{
    return open_common(path, 1, out, err);
}

void db_close(db *d)
{
    if (!d)
        return;
    sqlite3_close(d->h);
    free(d);
}

/* ---- store ---- */

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
    sbuf b = {NULL, 0, 0};
    sb_add(&b, "INSERT INTO %s(%s", table, prefix);
    for (size_t i = 0; i < n; i++)
        sb_add(&b, ", %s", t[i].name);
    sb_add(&b, ") VALUES(");
    for (size_t i = 0; i < (size_t)n_prefix + n; i++)
        sb_add(&b, i ? ", ?%zu" : "?%zu", i + 1);
    sb_add(&b, ");");
    return b.s;
}

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

static void now_utc(char buf[32])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The scenario row for (name, text), inserted if new. */
static int store_scenario(db *d, const db_run_meta *m, int64_t *id,
                          sim_err *err)
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
             "layout_distributed_optimizer, layout_chosen) VALUES(?1, ?2, ?3, "
             "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
             "?17);",
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
        rc = db_done(d, st, err, "storing jobs");
    }
    sqlite3_finalize(st);
    return rc;
}

/* The run row; *run_id receives its id. */
static int store_run_row(db *d, int64_t scen_id, const db_run_meta *m,
                         size_t n_reps, int64_t *run_id, sim_err *err)
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
             "overrides_json, mpi_rank, status) VALUES(?1, ?2, ?3, ?4, ?5, ?6, "
             "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18);",
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
done:
    sqlite3_finalize(sj);
    sqlite3_finalize(ss);
    sqlite3_finalize(sts);
    sqlite3_finalize(sev);
    return rc;
}

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

int db_store_run(db *d, const db_run_meta *meta, const res_rep *reps,
                 size_t n_reps, int64_t *run_id, sim_err *err)
{
    int64_t scen_id = 0, id = 0;
    int rc;
    if (d->readonly)
        return sim_err_set(
            err, SIM_EIO, d->path, 0,
            "database is opened read-only (cannot store results)");
    if ((rc = check_run(d, meta, reps, n_reps, err)) != SIM_OK)
        return rc;
    if ((rc = db_begin_write(d, err, "starting to store a run")) != SIM_OK)
        return rc;
    if ((rc = store_scenario(d, meta, &scen_id, err)) != SIM_OK ||
        (rc = store_run_row(d, scen_id, meta, n_reps, &id, err)) != SIM_OK ||
        (rc = store_site_facts(d, id, meta, err)) != SIM_OK ||
        (rc = store_reps(d, id, meta, reps, n_reps, err)) != SIM_OK ||
        (rc = store_summaries(d, id, meta, reps, n_reps, err)) != SIM_OK)
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

/* ---- read ---- */

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

static char *col_str(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? sim_xstrdup((const char *)s) : NULL;
}

static double col_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL
               ? (double)NAN
               : sqlite3_column_double(st, i);
}

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
    free(m);
}

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
             "r.overrides_json, r.mpi_rank, r.status FROM runs r JOIN "
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
    mt->scenario = keep(m, col_str(st, 0));
    mt->config_text = keep(m, col_str(st, 1));
    snprintf(m->pub.config_hash, sizeof m->pub.config_hash, "%s",
             (const char *)sqlite3_column_text(st, 2));
    mt->seed = (uint64_t)sqlite3_column_int64(st, 3);
    mt->replications = (uint32_t)sqlite3_column_int64(st, 4);
    m->pub.n_reps = (size_t)sqlite3_column_int64(st, 5);
    mt->version = keep(m, col_str(st, 6));
    mt->created_utc = keep(m, col_str(st, 7));
    mt->horizon_s = sqlite3_column_double(st, 8);
    mt->step_s = sqlite3_column_type(st, 9) == SQLITE_NULL
                     ? 0
                     : sqlite3_column_double(st, 9);
    mt->ts_downsample = (uint32_t)sqlite3_column_int64(st, 10);
    mt->store_timeseries = mt->ts_downsample > 0;
    mt->store_events = sqlite3_column_int(st, 11);
    mt->site_name = keep(m, col_str(st, 12));
    mt->it_capacity_w = col_real(st, 13);
    mt->sweep_key = keep(m, col_str(st, 14));
    mt->case_key = keep(m, col_str(st, 15));
    mt->case_index = sqlite3_column_type(st, 16) == SQLITE_NULL
                         ? -1
                         : sqlite3_column_int64(st, 16);
    mt->overrides_json = keep(m, col_str(st, 17));
    mt->mpi_rank = sqlite3_column_type(st, 18) == SQLITE_NULL
                       ? -1
                       : sqlite3_column_int(st, 18);
    mt->status = keep(m, col_str(st, 19));
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

static void row_module(sqlite3_stmt *st, run_mem *m, size_t i)
{
    m->modules = sim_xrealloc(m->modules, (i + 1) * sizeof *m->modules);
    m->modules[i].type = col_str(st, 0);
    m->modules[i].count = sqlite3_column_int64(st, 1);
    m->pub.meta.n_modules = i + 1;
}

static void row_gpu(sqlite3_stmt *st, run_mem *m, size_t i)
{
    m->gpus = sim_xrealloc(m->gpus, (i + 1) * sizeof *m->gpus);
    m->gpus[i].type = col_str(st, 0);
    m->gpus[i].count = sqlite3_column_int64(st, 1);
    m->pub.meta.n_gpus = i + 1;
}

static void row_source(sqlite3_stmt *st, run_mem *m, size_t i)
{
    m->sources = sim_xrealloc(m->sources, (i + 1) * sizeof *m->sources);
    m->sources[i].kind = col_str(st, 0);
    m->sources[i].name = col_str(st, 1);
    m->sources[i].power_w = sqlite3_column_double(st, 2);
    m->sources[i].energy_j = sqlite3_column_double(st, 3);
    m->pub.meta.n_sources = i + 1;
}

static void row_job(sqlite3_stmt *st, run_mem *m, size_t i)
{
    m->jobs = sim_xrealloc(m->jobs, (i + 1) * sizeof *m->jobs);
    m->jobs[i].name = col_str(st, 0);
    m->jobs[i].model = col_str(st, 1);
    m->jobs[i].precision = col_str(st, 2);
    m->jobs[i].gpu_type = col_str(st, 3);
    m->jobs[i].gpus = (int32_t)sqlite3_column_int64(st, 4);
    m->jobs[i].tokens = col_real(st, 5);
    m->jobs[i].tp = (int32_t)sqlite3_column_int64(st, 6); /* NULL reads 0 */
    m->jobs[i].pp = (int32_t)sqlite3_column_int64(st, 7);
    m->jobs[i].vp = (int32_t)sqlite3_column_int64(st, 8);
    m->jobs[i].cp = (int32_t)sqlite3_column_int64(st, 9);
    m->jobs[i].ep = (int32_t)sqlite3_column_int64(st, 10);
    m->jobs[i].mbs = (int32_t)sqlite3_column_int64(st, 11);
    m->jobs[i].recompute = col_str(st, 12);
    m->jobs[i].distopt = sqlite3_column_type(st, 13) == SQLITE_NULL
                             ? -1
                             : (int32_t)sqlite3_column_int64(st, 13);
    m->jobs[i].chosen = col_str(st, 14);
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

static int load_reps(db *d, db_run *r, sim_err *err)
{
    sqlite3_stmt *st;
    sbuf b = {NULL, 0, 0};
    size_t i = 0, nj = r->meta.n_jobs;
    int rc;
    sb_add(&b, "SELECT replication");
    for (size_t f = 0; f < resfield_n_site; f++)
        sb_add(&b, ", %s", resfield_site[f].name);
    sb_add(&b, " FROM site_reps WHERE run_id = ?1 ORDER BY replication;");
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
    sb_add(&b, "SELECT replication, job");
    for (size_t f = 0; f < resfield_n_job; f++)
        sb_add(&b, ", %s", resfield_job[f].name);
    sb_add(&b, " FROM job_reps WHERE run_id = ?1;");
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

static int load_steps(db *d, db_run *r, sim_err *err)
{
    sqlite3_stmt *st;
    sbuf b = {NULL, 0, 0};
    size_t *cap = sim_xcalloc(r->n_reps ? r->n_reps : 1, sizeof *cap);
    int rc;
    sb_add(&b, "SELECT replication, dt_s");
    for (size_t f = 0; f < resfield_n_step; f++)
        sb_add(&b, ", %s", resfield_step[f].name);
    sb_add(&b,
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

static int name_index(const char *const *names, int n, const char *s)
{
    for (int i = 0; s && i < n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

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
             "layout_chosen FROM jobs WHERE run_id = ?1 ORDER BY job;",
             run_id, row_job, m, err)) != SIM_OK)
        goto fail;
    m->pub.meta.jobs = m->jobs;
    m->pub.meta.modules = m->modules;
    m->pub.meta.gpus = m->gpus;
    m->pub.meta.sources = m->sources;
    if ((rc = load_reps(d, &m->pub, err)) != SIM_OK ||
        (rc = load_summaries(d, &m->pub, err)) != SIM_OK ||
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
        w->scenario = col_str(st, 1);
        w->config_hash = col_str(st, 2);
        w->version = col_str(st, 3);
        w->created_utc = col_str(st, 4);
        w->status = col_str(st, 5);
        w->sweep_key = col_str(st, 6);
        w->case_key = col_str(st, 7);
        w->overrides_json = col_str(st, 8);
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
 * before children: jobs before job_reps). */
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
                      "LIKE 'sqlite_%' ORDER BY rowid;",
                      &st, err)) != SIM_OK)
        return rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        sim_grow((void **)names, &cap, *n + 1, sizeof **names);
        (*names)[(*n)++] = col_str(st, 0);
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
    sbuf b = {NULL, 0, 0};
    int rc, k = 0;
    *run_col = *id_col = -1;
    if ((rc = db_prep(d, "SELECT name FROM pragma_table_info(?1) ORDER BY cid;",
                      &st, err)) != SIM_OK)
        return rc;
    sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
    sb_add(&b, "%s", "");
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(st, 0);
        if (strcmp(c, "run_id") == 0)
            *run_col = k;
        if (strcmp(c, "id") == 0)
            *id_col = k;
        sb_add(&b, "%s%s", k ? ", " : "", c);
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
    sbuf q = {NULL, 0, 0};
    int rc;
    sb_add(&q, "SELECT %s FROM %s WHERE %s = ?1;", cols, t, key);
    rc = db_prep(src, q.s, rd, err);
    free(q.s);
    if (rc != SIM_OK)
        return rc;
    q.s = NULL;
    q.len = q.cap = 0;
    sb_add(&q, "INSERT INTO %s(%s) VALUES(", t, cols);
    for (int i = 0; i < n; i++)
        sb_add(&q, i ? ", ?%d" : "?%d", i + 1);
    sb_add(&q, ");");
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
    sbuf q = {NULL, 0, 0};
    int rc;
    sb_add(&q, "SELECT count(*) FROM runs WHERE scenario_id = ?1");
    for (int i = 0; i < N_RUN_IDENTITY; i++)
        sb_add(&q, " AND %s IS ?%d", names[i], i + 2);
    sb_add(&q, ";");
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

/* Merges every run of src into out inside the open write transaction. */
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
        if ((rc = store_scenario(out, &m, &scen_id, err)) != SIM_OK)
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
    if ((rc = merge_runs(src, out, &st, err)) != SIM_OK) {
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
