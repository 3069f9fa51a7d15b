/* app/run_check.h: the one validation path of `run`, `check` and `sweep`
 * (issue 12.5), so that a scenario `check` accepts is one `run` runs.
 *
 * After the scenario loads (models/scenario.h, which stops at its first
 * error), run_check_scenario checks what only shows when the scenario
 * meets its weather, its throughput model and its replications:
 *   - the weather file (EPW or hourly CSV) reads without error;
 *   - every job's throughput query on one module succeeds (a layout that
 *     cannot fit in memory or cannot be formed is refused here, at the
 *     job's FILE:LINE, not when the job is submitted mid-run);
 *   - every job fits in one fabric group (else it could never start);
 *   - the results of R replications (the per-step series kept, the jobs)
 *     fit in --max-memory-mb.
 * Every error is collected (up to RUN_CHECK_MAX_ERRS), not just the first.
 */
#ifndef APP_RUN_CHECK_H
#define APP_RUN_CHECK_H

#include <stddef.h>

#include "models/climate.h"
#include "models/scenario.h"
#include "models/throughput.h"
#include "sim/err.h"

#define RUN_CHECK_MAX_ERRS 64

/* Default of --max-memory-mb (run, check, sweep): 4096 MiB, what a laptop
 * can give one run; docs/scenario-reference.md. */
#define RUN_CHECK_DEFAULT_MAX_MEMORY_MB 4096.0

typedef struct run_check_errs {
    size_t n;       /* errors recorded (<= RUN_CHECK_MAX_ERRS) */
    size_t dropped; /* errors beyond the cap, counted only */
    sim_err e[RUN_CHECK_MAX_ERRS];
} run_check_errs;

/* What the run will do, for the memory estimate. */
typedef struct run_check_opts {
    size_t replications;  /* R, >= 1 */
    int series;           /* per-step series kept: 0 none, 1 rep 0, 2 all */
    double max_memory_mb; /* limit [MiB], > 0 */
} run_check_opts;

/* Bytes the results of a run of s under o hold in memory at once: the
 * kept per-step series (steps x replications kept x one res_step) plus
 * every replication's job and site results. */
double run_check_memory_bytes(const scenario *s, const run_check_opts *o);

/* Checks s as described at the top. On success *wx (OUT: caller frees
 * with climate_year_free; NULL for monthly normals) holds the loaded
 * weather, *n_wx (OUT, may be NULL) its number of years
 * (climate_load_for_scenario). Returns SIM_OK, or the code of the first error
 * with every error in errs. tp may be NULL (the throughput checks are then
 * skipped: only for callers that do not simulate). */
int run_check_scenario(const scenario *s, const tp_model *tp,
                       const run_check_opts *o, climate_year **wx, size_t *n_wx,
                       run_check_errs *errs);

/* Adds e to errs (drops it beyond the cap). Returns e->code. */
int run_check_add(run_check_errs *errs, const sim_err *e);

#endif
