/* io/db.h: the SQLite results store (only io/db*.c include <sqlite3.h>:
 * io/db.c opens and migrates, io/db_write.c stores, io/db_read.c loads,
 * io/db_merge.c merges). Schema and units: docs/results-schema.md.
 *
 * A database holds scenarios (name, fully resolved configuration text and
 * its FNV-1a-64 hash) and runs of them: per-job and per-site outcomes of
 * every replication with their summaries (mean, P10, P50, P90, min, max,
 * models/stats.h), optionally the per-step site time series (downsampled by
 * an integer factor, energy preserved) and the event log. Values are SI as
 * in models/results.h; NAN is stored as NULL and read back as NAN.
 *
 * Guarantees: each db_store_run is one transaction (BEGIN IMMEDIATE ...
 * COMMIT), so a process killed at any point leaves the database valid with
 * every earlier run complete; the file is in WAL mode with
 * synchronous=NORMAL (a power loss may lose the last commits, never
 * consistency). db_open refuses a file that is not a factorysim results
 * database (not SQLite, corrupt or truncated, another application's, or a
 * newer schema) with "not a factorysim results database (...)".
 *
 * Concurrency: any number of processes on one host may open, create and
 * store into one file at once; every run is stored exactly once. Opening
 * (header check, the switch to WAL, schema creation) and each store wait
 * up to 60 s in all for locks held by others (SQLite's busy timeout, plus
 * retries where SQLite answers busy without waiting). A brand-new empty
 * file another writer has just created is taken as fresh, never as
 * foreign. Across hosts (NFS, Lustre) SQLite's locks are not reliable:
 * db_open refuses a network file system (db_network_fs_name), and
 * db_merge combines databases written separately.
 * The wall-clock creation time is stored in runs.created_utc only.
 */
#ifndef IO_DB_H
#define IO_DB_H

#include <stddef.h>
#include <stdint.h>

#include "models/results.h"
#include "models/stats.h"
#include "sim/err.h"

/* Schema version kept in PRAGMA user_version. It follows the result-field
 * table: DB_SCHEMA_FIELDS_HASH is resfield_shape_hash() of this version's
 * tables, and tests/test_db.c fails when the table changes without a new
 * version (and a migration step in io/db.c). Version history: 1, the first
 * store (issue 7); 2, one vocabulary (tokens_per_sec_per_gpu, time_short_s
 * in seconds, display order); 3, each job's parallel layout in jobs
 * (layout_tp, layout_pp, layout_vp, layout_cp, layout_ep, layout_mbs,
 * layout_recompute, layout_distributed_optimizer, layout_chosen; issue 17);
 * 4, onshore wind (issue 15: site_reps gains wind_capacity_factor); 5,
 * cooling water and GPU energy (issue 20: site_reps water_m3, job_reps
 * gpu_energy_j); 6, solar generation before curtailment (issue 19:
 * site_reps gains solar_energy_j); 7, costs (issue 22: job_reps gains
 * cost_per_run_usd, paused_s, paused_fraction, throttled_fraction;
 * site_reps gains curtailed_fraction, battery_replacements, grid_peak_w,
 * capex_usd, annualized_cost_usd, lcoe_usd_per_j, npv_usd and the
 * annualized_<item>_usd breakdown); 8, training power dynamics (issue 21:
 * site_reps power_peak_w, power_min_w, power_swing_w, power_std_w,
 * power_max_ramp_w_per_s, power_band_0p1_2hz_rms_w,
 * power_band_3_30hz_rms_w, power_largest_drop_w,
 * battery_power_for_ramp_limit_w); 9, stored optimize problems (issue 23:
 * tables optimize_problems, optimize_terms, optimize_designs; no result
 * field changed); 10, power dynamics per module and the representative
 * window (issue 21: site_reps gains power_jobs_mean_w; new tables
 * module_reps and power_window); 11, the solar P90 exceedance of a run
 * (issue 19: runs gains solar_energy_p90_exceedance_j); 12, where the
 * spread of time to train comes from (issue 19: table variance_shares, the
 * shares of `run --variance-decomposition`; no result field changed); 13,
 * expert tensor parallelism in the layout (issue 18: jobs gains
 * layout_etp). An older database
 * is upgraded in place when opened for writing (db_open); db_open_readonly
 * refuses it with what to do.
 */
#define DB_SCHEMA_VERSION 13
#define DB_SCHEMA_FIELDS_HASH 0x0b5b071571d74508ULL
/* PRAGMA application_id of a factorysim database: "FSim" in ASCII. */
#define DB_APPLICATION_ID 0x4653696d

typedef struct db db;

/* A job of the scenario as the report names it. */
typedef struct db_job_def {
    const char *name;      /* unique within the scenario */
    const char *model;     /* LLM from the catalog, e.g. "llama3-70b" */
    const char *precision; /* e.g. "bf16", "fp8" */
    const char *gpu_type;  /* GPU it runs on, e.g. "GB300" */
    int32_t gpus;          /* GPUs requested, >= 0 */
    double tokens;         /* training target [tokens] */
    /* The parallel layout the job ran with (issue 17), one column each
     * (layout_tp ...): sizes >= 1, or 0 when unknown (stored NULL, as in
     * runs stored before schema version 3). */
    int32_t tp, pp, vp, cp, ep, mbs;
    const char *recompute; /* "none", "selective", "full"; NULL unknown */
    int32_t distopt;       /* distributed optimizer 1/0; -1 unknown */
    const char *chosen;    /* fields the tool chose, "pp,vp,mbs"; NULL
                              unknown, "" none */
    int32_t etp; /* expert tensor parallel size (layout_etp, schema version
                    13); 0 unknown. Last, after the fields of version 3 */
} db_job_def;

/* A count of things of one type: modules by module type, GPUs by GPU type. */
typedef struct db_count {
    const char *type;
    int64_t count; /* >= 0 */
} db_count;

/* An energy source of the site and its size. */
typedef struct db_source_def {
    const char *kind; /* a registry name (models/source.h): "solar", ... */
    const char *name; /* instance name in the scenario, may be NULL */
    double power_w;   /* rated power [W]: AC rating (solar), discharge
                       * power (battery), plant or contract power */
    double energy_j;  /* storage capacity [J], 0 if not storage */
} db_source_def;

/* One job's share of its time-to-train variance from one source of
 * randomness (`run --variance-decomposition`, issue 19.4; method in
 * app/vardecomp.h), a row of table variance_shares. The job-level figures
 * (finished, mean_s, var_s2) repeat on each of the job's rows so that a
 * row reads alone. */
typedef struct db_var_share {
    int32_t job;       /* index into the run's jobs, 0-based */
    char source[24];   /* "throughput_model", "failures", "power" or
                          "weather" (app/vardecomp.h vd_source_name) */
    int64_t finished;  /* replications in which the job finished, all on */
    double mean_s;     /* mean time to train, all sources on [s] */
    double var_s2;     /* its variance, all sources on [s^2]; NAN: < 2
                          finished (stored NULL) */
    double var_off_s2; /* the variance with this source off [s^2] */
    double share;      /* 1 - var_off_s2 / var_s2 (0 when var_s2 is 0; NAN
                          when var_s2 is NAN) */
} db_var_share;

/* What db_store_run records about a run besides the replications. Strings
 * are copied; NULL strings are stored as NULL unless said otherwise. */
typedef struct db_run_meta {
    const char *scenario;    /* scenario name, required */
    const char *config_text; /* fully resolved configuration, required */
    uint64_t seed;           /* master seed */
    uint32_t replications;   /* R requested (n_reps stored may be fewer
                              * only when status is "interrupted") */
    const char *version;     /* factorysim version; NULL: this build's */
    double horizon_s;        /* simulated horizon [s], > 0 */
    double step_s;           /* time-series step [s]; 0: from t_s spacing */
    /* Site facts for the report. */
    const char *site_name;
    double it_capacity_w;    /* IT power the online modules can draw [W] */
    size_t n_modules;        /* entries in modules */
    const db_count *modules; /* modules by module type */
    size_t n_gpus;
    const db_count *gpus; /* GPUs by GPU type */
    size_t n_sources;
    const db_source_def *sources;
    size_t n_jobs; /* must equal every rep's n_jobs */
    const db_job_def *jobs;
    /* What to store. */
    int store_timeseries;   /* 1: the steps of every rep that has them */
    uint32_t ts_downsample; /* merge this many steps into one (0, 1: all) */
    int store_events;       /* 1: the event log of every rep */
    /* Sweeps (issue 8); leave NULL / -1 for a plain run. */
    const char *sweep_key;      /* identifies the sweep (grid + base) */
    const char *case_key;       /* identifies the case within the sweep */
    int64_t case_index;         /* position in the grid, -1 if none */
    const char *overrides_json; /* {"key": value, ...} of the case, or NULL */
    int32_t mpi_rank;           /* rank that ran the case, -1 if none */
    const char *status;         /* "complete" (NULL) or "interrupted" */
    const char *created_utc;    /* NULL: now, "YYYY-MM-DDTHH:MM:SSZ" */
    /* The variance decomposition of the run (issue 19.4), stored in the
     * same transaction; n_var_shares 0 for a run without one. Rows in
     * (job, source) order; each job < n_jobs, each (job, source) once. */
    size_t n_var_shares;
    const db_var_share *var_shares;
} db_run_meta;

/* A run read back (db_load_run). meta's strings and arrays point into this
 * struct's own memory; free it with db_run_free. */
typedef struct db_run {
    int64_t id;
    db_run_meta meta;
    char config_hash[17]; /* FNV-1a-64 of config_text, 16 hex digits */
    size_t n_reps;
    res_rep *reps;              /* replication order; steps and events only
                                 * when stored and asked for */
    double **step_dt_s;         /* n_reps arrays of each stored step's
                                 * duration [s] (NULL where no steps) */
    stat_summary *job_summary;  /* n_jobs x resfield_n_job, row-major */
    stat_summary *site_summary; /* resfield_n_site */
    double solar_energy_p90_exceedance_j; /* runs column: annual solar
                                 energy exceeded in 90 % of the
                                 replications [J] (models/results.h
                                 res_solar_p90_exceedance_j), computed when
                                 stored; NAN for a run without solar or
                                 stored before schema version 11 */
} db_run;

/* One row of the run list (db_list_runs); strings owned by the list. */
typedef struct db_run_row {
    int64_t id;
    char *scenario, *config_hash, *version, *created_utc, *status;
    char *sweep_key, *case_key, *overrides_json; /* NULL for a plain run */
    uint64_t seed;
    uint32_t replications;
    int64_t case_index; /* -1 if none */
    int32_t mpi_rank;   /* -1 if none */
} db_run_row;

/* Flags for db_load_run. */
enum { DB_LOAD_STEPS = 1, DB_LOAD_EVENTS = 2 };

/* Opens path for storing, creating the file and schema if it does not
 * exist (the folder must exist). *out is NULL on failure.
 * Errors: SIM_EIO (cannot open or create, read-only file or folder:
 * "FILE: ..."; a folder on a network file system, see
 * db_network_fs_name), SIM_ECONFIG ("FILE: not a factorysim results
 * database (...)", or a newer schema). */
int db_open(const char *path, db **out /* OUT: db_close */, sim_err *err);

/* Opens an existing database read-only (report, export); never creates or
 * writes. Errors: as db_open, and SIM_ENOTFOUND when path does not exist. */
int db_open_readonly(const char *path, db **out /* OUT */, sim_err *err);

/* Closes d and frees it. NULL is a no-op. */
void db_close(db *d);

/* What db_store_run returns, instead of SIM_OK, when a complete run of the
 * same (sweep_key, case_key) is already stored (by another process
 * meanwhile, or earlier): nothing is stored and it is not an error. */
#define DB_ALREADY_STORED 1

/* Stores one run: the scenario (deduplicated by name and hash), the run row,
 * site facts, every rep's jobs and site totals, the summaries, and when meta
 * asks the time series and event log, in one transaction. *run_id (may be
 * NULL) receives the new run's id. Nothing is stored on failure. A busy
 * database is waited for (up to 60 s from the call).
 * Returns SIM_OK, or DB_ALREADY_STORED (> 0, nothing stored) for a complete
 * sweep case that is already stored.
 * Errors: SIM_EINVAL (missing scenario/config, n_reps == 0, a rep with
 * n_jobs != meta->n_jobs, steps not in time order), SIM_EIO (write failed,
 * read-only database, disk full, locked for more than 60 s). */
int db_store_run(db *d, const db_run_meta *meta, const res_rep *reps,
                 size_t n_reps, int64_t *run_id /* OUT */, sim_err *err);

/* The id of the most recently stored run. Errors: SIM_ENOTFOUND (no run
 * stored yet), SIM_EIO. */
int db_latest_run(db *d, int64_t *run_id /* OUT */, sim_err *err);

/* Reads run run_id into *out with its jobs, site totals and summaries, plus
 * the time series (DB_LOAD_STEPS) and event log (DB_LOAD_EVENTS) when
 * stored. Errors: SIM_ENOTFOUND (no such run), SIM_EIO. */
int db_load_run(db *d, int64_t run_id, int flags, db_run **out /* OUT */,
                sim_err *err);

/* Frees r. NULL is a no-op. */
void db_run_free(db_run *r);

/* Every run, ordered by id (storage order). *rows is NULL when *n is 0.
 * Errors: SIM_EIO. */
int db_list_runs(db *d, db_run_row **rows /* OUT: db_run_rows_free */,
                 size_t *n /* OUT */, sim_err *err);

/* Frees a list from db_list_runs. NULL is a no-op. */
void db_run_rows_free(db_run_row *rows, size_t n);

/* 1 if a complete run of (sweep_key, case_key) is stored, 0 if not, or a
 * negative SIM_E* code (SIM_EINVAL for NULL keys, SIM_EIO). */
int db_case_done(db *d, const char *sweep_key, const char *case_key,
                 sim_err *err);

/* Runs PRAGMA integrity_check (reads every page: O(database size)).
 * Returns SIM_OK when SQLite answers "ok", else SIM_ECONFIG with SQLite's
 * first complaint. */
int db_integrity_check(db *d, sim_err *err);

/* What db_merge did. */
typedef struct db_merge_stats {
    size_t runs_added;   /* runs copied into the destination */
    size_t runs_present; /* runs the destination already held */
} db_merge_stats;

/* Copies into out every run of the results database src_path (opened
 * read-only, never written) that out does not hold yet, with its scenario,
 * site facts, replications, summaries, time series and event log. One
 * transaction per call: a killed merge leaves src either fully merged or
 * not at all. Idempotent: a run equal to one in out (same scenario name and
 * configuration, seed, replications, version, created_utc, storage options,
 * sweep and case keys, rank, status) is not copied again, nor a complete
 * sweep case out already holds; merging the same file twice stores nothing
 * the second time. Sweeps split over several databases (sweep --shard)
 * merge into one sweep: the same sweep key, every case once. Adds to
 * *stats (may be NULL) on success.
 * Errors: as db_open_readonly for src; SIM_EINVAL (src is out);
 * SIM_EIO (write failed, disk full, locked for more than 60 s). */
int db_merge(db *out, const char *src_path, db_merge_stats *stats,
             sim_err *err);

/* The name of the network file system whose statfs f_type is f_type
 * ("nfs", "lustre", "cifs", ...), or NULL for a local one. db_open refuses
 * to create or write a database on a network file system. */
const char *db_network_fs_name(unsigned long f_type);

/* FNV-1a-64 of the n bytes at p as 16 lower-case hex digits plus NUL into
 * hex (at least 17 bytes). Returns hex. */
char *db_hash_hex(const void *p, size_t n, char hex[17]);

/* ---- stored optimize problems (io/db_opt.c; issue 23) ----
 * An optimize problem as `optimize` stored it: its terms as given, the
 * sweep keys its designs are cases of, and every evaluated design. A
 * design's values are read from its sweep case (runs with that sweep key
 * and case key), so nothing is stored twice. */

/* One evaluated design of a problem. */
typedef struct db_opt_design {
    int64_t case_index; /* in the lattice (models/sweep.h order) */
    char *case_key;     /* the sweep case: "k1=v1;k2=v2" */
    int refined;        /* 1: its values are the refined_sweep_key case */
    int feasible;       /* 1: meets every constraint */
    double violation;   /* total normalised violation (0 when feasible) */
    int best, pareto;   /* 1: the best design / on the Pareto front */
} db_opt_design;

/* The role of a term, as stored in optimize_terms.role. */
typedef enum db_opt_role {
    DB_OPT_VARY,
    DB_OPT_OBJECTIVE,
    DB_OPT_CONSTRAINT,
    DB_OPT_SET
} db_opt_role;

typedef struct db_opt_term {
    db_opt_role role;
    char *text; /* as given: "energy.solar.capacity_mw=1:10:1",
                   "site.co2_t.p50<=11.3", "max:site.renewable_fraction.p50" */
} db_opt_term;

typedef struct db_opt_problem {
    int64_t id;              /* set by db_opt_store and db_opt_load */
    char *scenario;          /* scenario name */
    char *sweep_key;         /* designs at R replications */
    char *refined_sweep_key; /* designs refined near a bound */
    uint64_t seed;           /* master seed of every design */
    int64_t replications;    /* R */
    int64_t refined_replications;
    size_t n_terms;
    db_opt_term *terms; /* vary, objectives, constraints, sets in order */
    size_t n_designs;
    db_opt_design *designs; /* by case index */
} db_opt_problem;

/* Stores p as a new problem in one transaction and sets p->id (OUT). A
 * problem with the same sweep key and the same terms stored before is
 * replaced (a rerun is one problem, its id the newest). Errors: as
 * db_store_run (SIM_EIO; SIM_EINVAL for a read-only handle). */
int db_opt_store(db *d, db_opt_problem *p, sim_err *err);

/* Loads problem id into *out (OUT: db_opt_free). Errors: SIM_ENOTFOUND
 * (no such problem; the message lists how to find one), SIM_EIO. */
int db_opt_load(db *d, int64_t id, db_opt_problem **out, sim_err *err);

/* The newest problem that evaluated the run of (sweep_key, case_key) as
 * a design into *id (OUT). Errors: SIM_ENOTFOUND (none), SIM_EIO. */
int db_opt_find_case(db *d, const char *sweep_key, const char *case_key,
                     int64_t *id, sim_err *err);

/* The newest problem whose designs are cases of sweep_key (at R or
 * refined replications) into *id (OUT). Errors: SIM_ENOTFOUND, SIM_EIO. */
int db_opt_find_sweep(db *d, const char *sweep_key, int64_t *id, sim_err *err);

/* The id of the complete run of (sweep_key, case_key) into *run_id (OUT).
 * Errors: SIM_ENOTFOUND, SIM_EIO. */
int db_case_run(db *d, const char *sweep_key, const char *case_key,
                int64_t *run_id, sim_err *err);

/* Frees p and everything it owns. NULL is a no-op. */
void db_opt_free(db_opt_problem *p);

#endif
