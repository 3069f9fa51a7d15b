/* app/sweep_exec.h: running the cases of a sweep on worker threads, and
 * with FACTORYSIM_MPI on MPI ranks, handing every finished case to one
 * writer: the calling (main) thread of rank 0.
 *
 * A case is a pure function of (scenario file, base overrides, the case's
 * overrides, catalog, throughput model, options): sweep_case_compute loads
 * the case's scenario and weather and runs its replications, touching no
 * shared mutable state, so threads and ranks give the same results as one
 * worker. Work distribution: the to-do list is split round-robin over the
 * ranks (todo[j] runs on rank j % n_ranks); within a rank, threads take
 * the next case of the rank's share as they become free. Results reach the
 * writer in completion order; each is stored by the caller's callback.
 *
 * Memory: finished cases wait for the writer in a FIFO of at most `jobs`
 * cases; a worker whose case is done waits while it is full, so at most
 * 2 x jobs cases (running or waiting) are held at once, however many cases
 * the sweep has and however slow the writer is.
 *
 * Stopping: SIGINT or SIGTERM (sweep_exec_install_signals) makes every
 * rank stop starting cases; cases in flight finish and are handed over,
 * and sweep_exec returns SIM_EINTR. A second signal kills the process
 * (default action): what is stored stays stored.
 */
#ifndef APP_SWEEP_EXEC_H
#define APP_SWEEP_EXEC_H

#include <stddef.h>

#include "models/catalog.h"
#include "models/results.h"
#include "models/scenario.h"
#include "models/sweep.h"
#include "models/throughput.h"
#include "sim/err.h"

/* What every case shares (read-only while cases run). */
typedef struct sweep_ctx {
    const char *scenario_path;
    const catalog *cat;
    const tp_model *tp;
    const char *const *base_ov; /* overrides before the grid's (--seed...) */
    size_t n_base;
    const sweep_grid *g;
    int failures;          /* 0: no random interruptions */
    int model_uncertainty; /* 0: jobs at the point prediction (site.h) */
    int series;            /* steps kept: 0 none, 1 replication 0, 2 all */
    int events;            /* 1: keep the event log */
} sweep_ctx;

/* Fills c with sweep's defaults: every pointer NULL, failures and model
 * uncertainty on, no series, no events. Every command that stores sweep
 * cases starts from it, because the flags are part of the sweep key: a
 * context zeroed by hand would silently compute another key (and so not find
 * the cases a sweep of the same lattice stored). */
void sweep_ctx_default(sweep_ctx *c);

/* One finished case as the writer receives it. */
typedef struct sweep_result {
    size_t case_i; /* index in the grid */
    int rc;        /* SIM_OK, or the case's error in err */
    sim_err err;
    scenario *s; /* the case's scenario; NULL when it came
                  * from another rank (reload to store) */
    res_rep *reps;
    size_t n_reps;
    int rank; /* rank that ran it (0 without MPI) */
} sweep_result;

/* Called on the writer for every finished case; returns SIM_OK to go on,
 * or an error (e.g. the database is full) to stop the sweep, which
 * sweep_exec then returns. The callback does not free r. */
typedef int (*sweep_store_fn)(void *arg, sweep_result *r, sim_err *err);

/* Loads case i's scenario (base overrides, then the case's). Errors: as
 * scenario_load. */
int sweep_case_scenario(const sweep_ctx *c, size_t i, scenario **s /* OUT */,
                        sim_err *err);

/* Computes case i through runcase_run (app/runcase.h) with c's catalog,
 * calibration, failures, model uncertainty, series and events: scenario,
 * weather and every replication (OUT: caller frees s with scenario_free, each
 * rep with res_rep_free, reps with free). Errors: as runcase_run. */
int sweep_case_compute(const sweep_ctx *c, size_t i, scenario **s,
                       res_rep **reps, size_t *n_reps, sim_err *err);

/* Frees what r holds (not r). */
void sweep_result_clear(sweep_result *r);

/* Installs the SIGINT/SIGTERM handlers (first signal: stop cleanly;
 * second: default action). */
void sweep_exec_install_signals(void);

/* 1 once SIGINT or SIGTERM has arrived. */
int sweep_exec_stopped(void);

/* Runs todo[0..n_todo-1] (case indices; the same list on every rank) on
 * `jobs` threads of this rank, calling store on rank 0's calling thread for
 * every finished case of every rank. Returns SIM_OK when every case ran
 * (failed cases reach store with rc != SIM_OK), SIM_EINTR when a signal
 * stopped it, or store's error. Must be called by every rank. */
int sweep_exec(const sweep_ctx *c, const size_t *todo, size_t n_todo,
               unsigned jobs, sweep_store_fn store, void *arg, sim_err *err);

/* The largest number of finished cases that waited for the writer at once
 * during the last sweep_exec of this process (<= its jobs). For tests. */
size_t sweep_exec_peak_queued(void);

/* MPI: the process's rank and the number of ranks (0 and 1 without MPI,
 * or before sweep_mpi_init). */
int sweep_mpi_rank(void);
int sweep_mpi_size(void);

/* MPI: initializes MPI (thread level FUNNELED) when built with
 * FACTORYSIM_MPI; a no-op otherwise. Returns SIM_OK or SIM_EIO. */
int sweep_mpi_init(int *argc, char ***argv, sim_err *err);

/* MPI: finalizes MPI; a no-op otherwise. */
void sweep_mpi_finalize(void);

/* MPI: ranks on this node (1 without MPI), for the default --jobs. */
int sweep_mpi_local_size(void);

/* MPI: every rank's status combined: returns the smallest (worst) code;
 * code itself without MPI. */
int sweep_mpi_agree(int code);

/* MPI: rank 0's values of n longs sent to every rank (a no-op without
 * MPI). */
void sweep_mpi_bcast_long(long *v, size_t n);

#endif
