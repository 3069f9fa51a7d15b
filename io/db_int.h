/* io/db_int.h: what the files of the results store share, and nothing else
 * may include (the public contract is io/db.h).
 *
 * The store is split by concern: io/db.c opens a file, checks its header,
 * creates the schema and migrates older versions; io/db_conn.c holds the
 * plumbing every other part uses (SQLite error mapping, statement helpers,
 * the busy-wait loop, the SQL string builder, the config hash);
 * io/db_write.c stores a run; io/db_read.c loads and lists runs;
 * io/db_merge.c copies the runs of one database into another. Only these
 * files include <sqlite3.h>. Every function here follows db.h's error
 * convention: 0 (SIM_OK) or a negative SIM_E* with err set, and d->busy set
 * when SQLite answered BUSY/LOCKED so the caller's retry loop can decide.
 */
#ifndef IO_DB_INT_H
#define IO_DB_INT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <sqlite3.h>

#include "io/db.h"
#include "sim/err.h"

/* The documented bound on waiting for another process's lock (db.h). */
#define DB_BUSY_MS 60000
/* The words every "this file is not ours" error starts with (db.h). */
#define DB_NOT_OURS "not a factorysim results database"

/* One open results database. Owned by the caller of db_open; the parts of
 * the store read and write its fields directly. */
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
static inline double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* SQLite reports a lock held by another connection as BUSY (or LOCKED for
 * a shared cache); both are retried within DB_BUSY_MS. */
static inline int is_busy_code(int rc)
{
    return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
}

/* A growing string for the SQL generated from the result-field tables.
 * Start it as {NULL, 0, 0}; the caller frees s. */
typedef struct db_sbuf {
    char *s;
    size_t len, cap;
} db_sbuf;

/* Appends printf-style text to b. Never fails (out of memory aborts). */
void db_sb_add(db_sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Records SQLite's last error on d in err with what we were doing, and
 * returns its class: SIM_ECONFIG for a file that is not ours, SIM_EIO for
 * everything else (read-only, locked, disk full, I/O). Sets d->busy. */
int db_fail(db *d, sim_err *err, const char *what);

/* Runs sql (no rows expected). Errors: as db_fail. */
int db_exec(db *d, const char *sql, sim_err *err, const char *what);

/* Prepares sql into *st (OUT: the caller finalizes; NULL on error).
 * Errors: as db_fail. */
int db_prep(db *d, const char *sql, sqlite3_stmt **st, sim_err *err);

/* Steps an INSERT/UPDATE to completion and resets it for the next row.
 * Errors: as db_fail. */
int db_done(db *d, sqlite3_stmt *st, sim_err *err, const char *what);

/* One integer from a single-row query (a PRAGMA, a count) into *v (OUT).
 * Errors: as db_fail. */
int db_int(db *d, const char *sql, int64_t *v, sim_err *err);

/* 1 if the last failure was busy and time is left before DB_BUSY_MS after
 * d->t0_s: then it has slept a few ms and re-armed SQLite's timeout, and the
 * caller tries again; 0 otherwise (the caller reports the failure). */
int db_retry_busy(db *d, unsigned attempt);

/* Rolls back the open transaction, if any. Never fails. */
void db_rollback(db *d);

/* BEGIN IMMEDIATE, retried while busy up to DB_BUSY_MS from now.
 * Errors: as db_fail. */
int db_begin_write(db *d, sim_err *err, const char *what);

/* The scenarios row for (m->scenario, m->config_text), inserted if new;
 * *id (OUT) its id. Runs inside the caller's write transaction (a store or
 * a merge). Errors: as db_fail; SIM_EINVAL when another configuration has
 * the same hash. */
int db_store_scenario(db *d, const db_run_meta *m, int64_t *id, sim_err *err);

/* Stores p (io/db_opt.c) inside the caller's write transaction: a problem
 * with the same sweep key and terms is replaced (keep = 0) or kept, p not
 * stored (keep = 1, a merge). Sets p->id when stored. Errors: as db_fail. */
int db_opt_insert(db *d, db_opt_problem *p, int keep, sim_err *err);

/* The variance shares of a run (io/db_vd.c). db_vd_check refuses rows
 * whose job is not one of m's (SIM_EINVAL), before any write;
 * db_vd_store writes m's rows for run_id inside the caller's write
 * transaction; db_vd_load reads run r->id's rows into r->meta.var_shares
 * (owned by r: db_run_free frees it). Errors: as db_fail. */
int db_vd_check(const db *d, const db_run_meta *m, sim_err *err);
int db_vd_store(db *d, int64_t run_id, const db_run_meta *m, sim_err *err);
int db_vd_load(db *d, db_run *r, sim_err *err);

/* Column i of the current row as a new string (the caller frees), NULL for
 * SQL NULL. */
char *db_col_str(sqlite3_stmt *st, int i);

#endif
