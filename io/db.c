/* io/db.c: opening a results database of db.h: the header checks, WAL and
 * pragmas, the schema of a fresh file and the migration of an older one.
 * Schema: docs/results-schema.md.
 *
 * The per-replication and time-series tables take their columns from the
 * field tables of models/resfield.h, so a field added to res_job, res_site
 * or res_step is a column here with no second list to keep in step.
 * Opening checks, in order: SQLite can read the header (else "file is not a
 * database"), PRAGMA quick_check is "ok" (catches truncation and
 * corruption), the application_id and user_version are ours; only then is
 * anything written. This file never stores or reads results (io/db_write.c,
 * io/db_read.c) and never writes to a file it has not checked is ours.
 */
#include "io/db.h"
#include "io/db_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif

#include <sqlite3.h>

#include "models/resfield.h"
#include "sim/mem.h"

/* ---- schema ---- */

static const char *sql_type(const resfield *f)
{
    return f->type == RESFIELD_DOUBLE ? "REAL" : "INTEGER";
}

static void sb_fields(db_sbuf *b, const resfield *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        db_sb_add(b, ",\n  %s %s", t[i].name, sql_type(&t[i]));
}

static void sb_summary_cols(db_sbuf *b)
{
    db_sb_add(
        b, ",\n  metric TEXT NOT NULL, n INTEGER NOT NULL, mean REAL, p10 REAL,"
           " p50 REAL, p90 REAL, min REAL, max REAL");
}

#define RUN_FK "REFERENCES runs(id) ON DELETE CASCADE"

/* The stored optimize problems (issue 23, version 9): the problem as given
 * (its terms, in order), the sweep keys its designs are cases of, and
 * every evaluated design with its feasibility and whether it is the best
 * or on the Pareto front; a design's values are its sweep case's (runs,
 * site_summary, job_summary), never copied. One text for the fresh schema
 * and the 8 -> 9 step, so the two cannot differ. */
#define OPT_TABLES_SQL                                                         \
    "CREATE TABLE optimize_problems(\n"                                        \
    "  id INTEGER PRIMARY KEY,\n"                                              \
    "  scenario TEXT NOT NULL,\n"                                              \
    "  sweep_key TEXT NOT NULL,\n"                                             \
    "  refined_sweep_key TEXT NOT NULL,\n"                                     \
    "  problem_text TEXT NOT NULL,\n"                                          \
    "  seed INTEGER NOT NULL,\n"                                               \
    "  replications INTEGER NOT NULL CHECK(replications >= 1),\n"              \
    "  refined_replications INTEGER NOT NULL,\n"                               \
    "  evaluations INTEGER NOT NULL,\n"                                        \
    "  best_case_index INTEGER NOT NULL) STRICT;\n"                            \
    "CREATE TABLE optimize_terms(\n"                                           \
    "  problem_id INTEGER NOT NULL REFERENCES optimize_problems(id)\n"         \
    "    ON DELETE CASCADE,\n"                                                 \
    "  idx INTEGER NOT NULL,\n"                                                \
    "  role TEXT NOT NULL CHECK(role IN "                                      \
    "('vary', 'objective', 'constraint', 'set')),\n"                           \
    "  text TEXT NOT NULL,\n"                                                  \
    "  PRIMARY KEY(problem_id, idx)) STRICT;\n"                                \
    "CREATE TABLE optimize_designs(\n"                                         \
    "  problem_id INTEGER NOT NULL REFERENCES optimize_problems(id)\n"         \
    "    ON DELETE CASCADE,\n"                                                 \
    "  case_index INTEGER NOT NULL,\n"                                         \
    "  case_key TEXT NOT NULL,\n"                                              \
    "  refined INTEGER NOT NULL CHECK(refined IN (0, 1)),\n"                   \
    "  feasible INTEGER NOT NULL CHECK(feasible IN (0, 1)),\n"                 \
    "  violation REAL NOT NULL,\n"                                             \
    "  best INTEGER NOT NULL CHECK(best IN (0, 1)),\n"                         \
    "  pareto INTEGER NOT NULL CHECK(pareto IN (0, 1)),\n"                     \
    "  PRIMARY KEY(problem_id, case_index)) STRICT;\n"                         \
    "CREATE INDEX optimize_designs_case ON optimize_designs(case_key);\n"

/* The variance decomposition of a run (issue 19.4, version 12): per job
 * and source of randomness, the share of the job's time-to-train variance
 * that goes away when the source is switched off (app/vardecomp.h). Keyed
 * by run_id, so db_merge copies it with the run. One text for the fresh
 * schema and the 11 -> 12 step, so the two cannot differ. */
#define VAR_SHARES_SQL                                                         \
    "CREATE TABLE variance_shares(\n"                                          \
    "  run_id INTEGER NOT NULL " RUN_FK ",\n"                                  \
    "  job INTEGER NOT NULL,\n"                                                \
    "  source TEXT NOT NULL CHECK(source IN ('throughput_model', "             \
    "'failures', 'power', 'weather')),\n"                                      \
    "  finished INTEGER NOT NULL,\n"                                           \
    "  mean_s REAL,\n"                                                         \
    "  var_s2 REAL,\n"                                                         \
    "  var_off_s2 REAL,\n"                                                     \
    "  share REAL,\n"                                                          \
    "  PRIMARY KEY(run_id, job, source),\n"                                    \
    "  FOREIGN KEY(run_id, job) REFERENCES jobs(run_id, job)"                  \
    " ON DELETE CASCADE) STRICT;\n"

/* The whole schema of a fresh database as one SQL script (the caller
 * frees). Why one long function: the fixed tables are written out as SQL so
 * the file reads like docs/results-schema.md, and only the column lists of
 * the per-replication, summary and time-series tables are generated from
 * models/resfield.h; splitting it per table would scatter one schema over
 * nine helpers. The PRAGMAs come last so a file whose script failed
 * halfway never carries our application_id. */
/* The power-dynamics tables (issue 21), used by the schema and by the
 * 9 -> 10 migration (IF NOT EXISTS: a file may have them already). */
static void powerdyn_tables(db_sbuf *b)
{
    db_sb_add(b, "CREATE TABLE IF NOT EXISTS module_reps(\n"
                 "  run_id INTEGER NOT NULL " RUN_FK ",\n"
                 "  replication INTEGER NOT NULL,\n  module INTEGER NOT NULL");
    sb_fields(b, resfield_module, resfield_n_module);
    db_sb_add(b, ",\n  PRIMARY KEY(run_id, replication, module)) STRICT;\n");
    db_sb_add(b, "CREATE TABLE IF NOT EXISTS power_window(\n"
                 "  run_id INTEGER NOT NULL " RUN_FK ",\n"
                 "  replication INTEGER NOT NULL,\n  sample INTEGER NOT NULL");
    sb_fields(b, resfield_pd_sample, resfield_n_pd_sample);
    db_sb_add(b, ",\n  PRIMARY KEY(run_id, replication, sample)) STRICT, "
                 "WITHOUT ROWID;\n");
}

static char *schema_sql(void)
{
    db_sbuf b = {NULL, 0, 0};
    db_sb_add(
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
        "  solar_energy_p90_exceedance_j REAL,\n"
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
        "  layout_chosen TEXT, layout_etp INTEGER,\n"
        "  PRIMARY KEY(run_id, job)) STRICT;\n");
    db_sb_add(&b, "CREATE TABLE job_reps(\n"
                  "  run_id INTEGER NOT NULL " RUN_FK ",\n"
                  "  job INTEGER NOT NULL,\n  replication INTEGER NOT NULL");
    sb_fields(&b, resfield_job, resfield_n_job);
    db_sb_add(&b, ",\n  PRIMARY KEY(run_id, job, replication),\n"
                  "  FOREIGN KEY(run_id, job) REFERENCES jobs(run_id, job)"
                  " ON DELETE CASCADE) STRICT;\n");
    db_sb_add(&b,
              "CREATE TABLE job_summary(\n"
              "  run_id INTEGER NOT NULL " RUN_FK ",\n  job INTEGER NOT NULL");
    sb_summary_cols(&b);
    db_sb_add(&b, ",\n  PRIMARY KEY(run_id, job, metric)) STRICT;\n");
    db_sb_add(&b, "CREATE TABLE site_reps(\n"
                  "  run_id INTEGER NOT NULL " RUN_FK
                  ",\n  replication INTEGER NOT NULL");
    sb_fields(&b, resfield_site, resfield_n_site);
    db_sb_add(&b, ",\n  PRIMARY KEY(run_id, replication)) STRICT;\n");
    db_sb_add(&b, "CREATE TABLE site_summary(\n"
                  "  run_id INTEGER NOT NULL " RUN_FK);
    sb_summary_cols(&b);
    db_sb_add(&b, ",\n  PRIMARY KEY(run_id, metric)) STRICT;\n");
    db_sb_add(&b, "CREATE TABLE timeseries(\n"
                  "  run_id INTEGER NOT NULL " RUN_FK ",\n"
                  "  replication INTEGER NOT NULL,\n  step INTEGER NOT NULL,\n"
                  "  dt_s REAL NOT NULL");
    sb_fields(&b, resfield_step, resfield_n_step);
    db_sb_add(&b,
              ",\n  PRIMARY KEY(run_id, replication, step)) STRICT, WITHOUT "
              "ROWID;\n");
    db_sb_add(
        &b,
        "CREATE TABLE events(\n"
        "  run_id INTEGER NOT NULL " RUN_FK ",\n"
        "  replication INTEGER NOT NULL, seq INTEGER NOT NULL,\n"
        "  t_s REAL NOT NULL, job INTEGER NOT NULL, kind TEXT NOT NULL,\n"
        "  cause TEXT NOT NULL, value REAL,\n"
        "  PRIMARY KEY(run_id, replication, seq)) STRICT, WITHOUT ROWID;\n");
    db_sb_add(&b, "%s", OPT_TABLES_SQL);
    powerdyn_tables(&b);
    db_sb_add(&b, "%s", VAR_SHARES_SQL);
    db_sb_add(&b, "PRAGMA application_id = %d;\nPRAGMA user_version = %d;\n",
              DB_APPLICATION_ID, DB_SCHEMA_VERSION);
    return b.s;
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

/* Version 4 -> 5 (issue 20: cooling water and GPU power from the step):
 * site_reps gains water_m3 and job_reps gpu_energy_j, which
 * add_missing_columns adds as NULL (rows stored before computed neither). */
static const char migrate_4_to_5[] = "-- water_m3, gpu_energy_j: added below\n";

/* Version 5 -> 6 (issue 19): site_reps gains solar_energy_j (PV generation
 * before curtailment), added as NULL by add_missing_columns: runs stored
 * before did not record it, and it cannot be rebuilt from their rows. */
static const char migrate_5_to_6[] = "-- solar_energy_j: added below\n";
/* Version 6 -> 7 (issue 22: costs): only new fields, which
 * add_missing_columns adds as NULL (older runs were not costed; they are
 * never given a made-up cost). */
static const char migrate_6_to_7[] = "-- cost fields: added below\n";

/* Version 7 -> 8 (issue 21: training power dynamics): site_reps gains
 * power_peak_w ... battery_power_for_ramp_limit_w, which
 * add_missing_columns adds as NULL (rows stored before had no analysis). */
static const char migrate_7_to_8[] = "-- power_*: added below\n";

/* Version 8 -> 9 (issue 23): the stored optimize problems, empty (no
 * optimize before stored its problem; its designs stay sweep cases). */
static const char migrate_8_to_9[] = OPT_TABLES_SQL;

/* Version 9 -> 10 (issue 21: power dynamics per module, and the
 * representative window the report draws): site_reps gains
 * power_jobs_mean_w (added as NULL below), and the tables module_reps and
 * power_window are created empty (migrate_schema; runs stored before have
 * no rows: they never computed them). */
static const char migrate_9_to_10[] = "-- module_reps, power_window: below\n";

/* Version 10 -> 11 (issue 19): runs gains solar_energy_p90_exceedance_j, the
 * annual solar energy exceeded in 90 % of the run's replications (a figure
 * of the run, not of one replication, so not a result field). NULL in the
 * runs stored before: it could be rebuilt from their site_reps, but a
 * stored figure is never made up after the fact. Appended last, as in a
 * fresh schema, so both have the same column order. */
static const char migrate_10_to_11[] =
    "ALTER TABLE runs ADD COLUMN solar_energy_p90_exceedance_j REAL;\n";

/* Version 11 -> 12 (issue 19.4): the table variance_shares, empty (no run
 * stored before kept its decomposition). */
static const char migrate_11_to_12[] = VAR_SHARES_SQL;

/* Version 12 -> 13 (issue 18): jobs gains layout_etp, each job's expert
 * tensor parallel size, added as NULL by migrate_schema when missing (the
 * runs stored before did not record it). Appended last, as in a fresh
 * schema. */
static const char migrate_12_to_13[] = "-- jobs.layout_etp: added below\n";

/* The SQL that takes version v to v + 1, indexed by v. */
static const char *const migrate_step[DB_SCHEMA_VERSION] = {
    NULL, /* 0: not a version */
    migrate_1_to_2,
    migrate_2_to_3,
    migrate_3_to_4,
    migrate_4_to_5,
    migrate_5_to_6,
    migrate_6_to_7,
    migrate_7_to_8,
    migrate_8_to_9,
    migrate_9_to_10,
    migrate_10_to_11,
    migrate_11_to_12,
    migrate_12_to_13,
};

/* Adds column name of SQL type to table unless it is there (nullable). */
static int add_column(db *d, const char *table, const char *name,
                      const char *type, sim_err *err)
{
    sqlite3_stmt *st;
    char sql[256];
    int64_t have = 0;
    int rc;
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM pragma_table_info('%s') WHERE name = ?1;",
             table);
    if ((rc = db_prep(d, sql, &st, err)) != SIM_OK)
        return rc;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        have = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (have)
        return SIM_OK;
    snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN %s %s;", table, name,
             type);
    return db_exec(d, sql, err, "upgrading the schema");
}

/* Adds every field of t missing from table (as a nullable column). */
static int add_missing_columns(db *d, const char *table, const resfield *t,
                               size_t n, sim_err *err)
{
    for (size_t i = 0; i < n; i++) {
        int rc =
            add_column(d, table, t[i].name,
                       t[i].type == RESFIELD_DOUBLE ? "REAL" : "INTEGER", err);
        if (rc != SIM_OK)
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
    if ((rc = add_column(d, "jobs", "layout_etp", "INTEGER", err)) != SIM_OK ||
        (rc = add_missing_columns(d, "job_reps", resfield_job, resfield_n_job,
                                  err)) != SIM_OK ||
        (rc = add_missing_columns(d, "site_reps", resfield_site,
                                  resfield_n_site, err)) != SIM_OK ||
        (rc = add_missing_columns(d, "timeseries", resfield_step,
                                  resfield_n_step, err)) != SIM_OK)
        goto fail;
    {
        /* Tables added after version 9 (their SQL is generated, so it
         * cannot sit in a static step). */
        db_sbuf b = {NULL, 0, 0};
        powerdyn_tables(&b);
        rc = db_exec(d, b.s, err, "upgrading the schema");
        free(b.s);
        if (rc != SIM_OK ||
            (rc = add_missing_columns(d, "module_reps", resfield_module,
                                      resfield_n_module, err)) != SIM_OK ||
            (rc = add_missing_columns(d, "power_window", resfield_pd_sample,
                                      resfield_n_pd_sample, err)) != SIM_OK)
            goto fail;
    }
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

/* db_open and db_open_readonly. Why one function for both: the checks
 * before SQLite (the path exists, is not a folder, is on a local file
 * system for writing) and the open itself are shared, and the two modes
 * differ only in what follows the header check: read-only retries the
 * check while busy, falls back to immutable=1 on read-only media, and
 * refuses an empty or older file; writing makes the file ready
 * (open_for_writing) in a retry loop, creating or migrating the schema.
 * Every failure unwinds through one goto fail (STYLE 6.4). */
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
               db_retry_busy(d, attempt++))
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
               db_retry_busy(d, attempt++))
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
