/* io/db_conn.c: the plumbing the parts of the results store share
 * (io/db_int.h): SQLite's errors turned into sim_err with plain words, the
 * statement helpers, the SQL string builder, the wait on a database another
 * process holds locked, and the configuration hash of db.h.
 *
 * It owns no table and no transaction policy: which statements run, and in
 * which transaction, is decided by io/db.c (open), io/db_write.c,
 * io/db_read.c and io/db_merge.c. It must never print or exit; every error
 * goes into the caller's sim_err.
 */
#include "io/db.h"
#include "io/db_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "sim/mem.h"

/* ---- small string builder for the generated SQL ---- */

/* Appends printf-style text to b, growing it (sim_grow aborts on OOM). */
void db_sb_add(db_sbuf *b, const char *fmt, ...)
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
int db_fail(db *d, sim_err *err, const char *what)
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

int db_exec(db *d, const char *sql, sim_err *err, const char *what)
{
    if (sqlite3_exec(d->h, sql, NULL, NULL, NULL) != SQLITE_OK)
        return db_fail(d, err, what);
    return SIM_OK;
}

int db_prep(db *d, const char *sql, sqlite3_stmt **st, sim_err *err)
{
    if (sqlite3_prepare_v2(d->h, sql, -1, st, NULL) != SQLITE_OK) {
        *st = NULL;
        return db_fail(d, err, "preparing a statement");
    }
    return SIM_OK;
}

/* Steps an INSERT/UPDATE to completion and resets it for the next row. */
int db_done(db *d, sqlite3_stmt *st, sim_err *err, const char *what)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return db_fail(d, err, what);
    return SIM_OK;
}

/* One integer from a single-row query (a PRAGMA), into *v. */
int db_int(db *d, const char *sql, int64_t *v, sim_err *err)
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
int db_retry_busy(db *d, unsigned attempt)
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
void db_rollback(db *d)
{
    if (!sqlite3_get_autocommit(d->h))
        sqlite3_exec(d->h, "ROLLBACK;", NULL, NULL, NULL);
}

/* BEGIN IMMEDIATE, retried while busy up to DB_BUSY_MS. */
int db_begin_write(db *d, sim_err *err, const char *what)
{
    unsigned attempt = 0;
    int rc;
    d->t0_s = mono_s();
    sqlite3_busy_timeout(d->h, DB_BUSY_MS);
    while ((rc = db_exec(d, "BEGIN IMMEDIATE;", err, what)) != SIM_OK &&
           db_retry_busy(d, attempt++))
        ;
    sqlite3_busy_timeout(d->h, DB_BUSY_MS);
    return rc;
}
