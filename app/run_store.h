/* app/run_store.h: storing a run of a scenario in the results database:
 * what the command layer knows about the scenario (site facts, jobs,
 * sources) turned into io/db.h's db_run_meta. Used by `run` and `sweep`. */
#ifndef APP_RUN_STORE_H
#define APP_RUN_STORE_H

#include <stdint.h>

#include "io/db.h"
#include "models/results.h"
#include "models/scenario.h"
#include "models/throughput.h"

#define RUN_STORE_DEFAULT_DB "output/factorysim.db"

/* Options of one store. Sweep fields may stay NULL / -1. */
typedef struct run_store_opts {
    const char *scenario_name;
    uint64_t seed;
    int store_timeseries;   /* store the steps reps carry */
    uint32_t ts_downsample; /* 1 = every step */
    int store_events;
    const char *sweep_key, *case_key, *overrides_json;
    int64_t case_index; /* -1 if none */
    int32_t mpi_rank;   /* -1 if none */
    const char *status; /* NULL = "complete" */
    const tp_model *tp; /* the calibration the run used: each job's layout
                           is stored (site_job_throughput); NULL = not
                           stored (NULL columns) */
    const db_var_share *var_shares; /* the run's variance decomposition
                                       (db_run_meta); NULL: none */
    size_t n_var_shares;
} run_store_opts;

/* Default options (no sweep, events and time series stored, every step). */
void run_store_opts_default(run_store_opts *o);

/* Fills *m from s and o. Arrays are malloc'd into the returned holder;
 * release with run_store_meta_free. */
typedef struct run_store_meta {
    db_run_meta m;
    db_count *modules, *gpus;
    db_source_def *sources;
    db_job_def *jobs;
    char (*chosen)[128]; /* per job: the chosen fields' names */
} run_store_meta;

void run_store_meta_fill(run_store_meta *rm, const scenario *s,
                         const run_store_opts *o, uint32_t n_reps);
void run_store_meta_free(run_store_meta *rm);

/* Stores reps[0..n-1] of s into the open database d. */
int run_store(db *d, const scenario *s, const run_store_opts *o,
              const res_rep *reps, size_t n, int64_t *run_id, sim_err *err);

#endif
