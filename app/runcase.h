/* app/runcase.h: one scenario case, run. The one place that turns "this
 * scenario file with these overrides, this catalog, this calibration, this
 * seed, R replications" into R replications' results (models/results.h).
 * `run`, each case of `sweep` (on worker threads), `bench site` and, later,
 * `optimize` call runcase_run; none of them repeats the set-up.
 *
 * Steps, in this order; the first error stops it:
 *   1. the catalog: in->cat, or loaded from in->catalog_dir (NULL: the data
 *      home, io/datadir.h);
 *   2. the scenario: in->scenario_path with in->overrides applied in order
 *      (the later wins), as `--set` does;
 *   3. the throughput calibration: in->tp, or loaded from
 *      in->calibration (NULL: the default, models/calibration.cfg);
 *   4. with in->check_errs, the checks `check` makes (app/run_check.h:
 *      weather, every job's throughput, fabric groups, memory), which also
 *      load the weather; without, the weather alone;
 *   5. in->ready, when set: the caller's last step before simulating (`run`
 *      opens its database there, so a bad --db fails before a long run and
 *      no database is made for a scenario that fails its checks);
 *   6. R replications (in->replications, 0: the scenario's
 *      simulation.replications) from the master seed (in->seed when
 *      in->seed_set, else the scenario's simulation.seed), with random
 *      interruptions and module outages as the scenario says unless
 *      in->no_failures, and the throughput model's error drawn per replication
 *      unless in->no_model_uncertainty. Replication 0 runs first, then
 *      1 .. R-1.
 *
 * Series kept (which replication's per-step site series the results carry):
 * RUNCASE_SERIES_FIRST keeps replication 0's only (what `run` stores by
 * default, and what the report charts), RUNCASE_SERIES_ALL every
 * replication's, RUNCASE_SERIES_NONE none. Recording never changes the
 * simulation: replication r's results are the same whatever is kept, so
 * `run --format json` is the same bytes with or without a database.
 *
 * Reproducible: the results are a pure function of the inputs above (no
 * clock, no thread or completion order); out->sim_wall_s is the only
 * measured quantity and never part of a result.
 *
 * Thread safety: runcase_run writes only to *out and to what it allocates;
 * in->cat and in->tp are only read, so sweep's worker threads share them.
 */
#ifndef APP_RUNCASE_H
#define APP_RUNCASE_H

#include <stddef.h>
#include <stdint.h>

#include "app/run_check.h"
#include "models/catalog.h"
#include "models/climate.h"
#include "models/results.h"
#include "models/scenario.h"
#include "models/throughput.h"
#include "sim/err.h"

/* Which replications keep their per-step site series (see the top). The
 * values are those of run's and sweep's --series none|first|all. */
typedef enum runcase_series {
    RUNCASE_SERIES_NONE = 0,
    RUNCASE_SERIES_FIRST = 1,
    RUNCASE_SERIES_ALL = 2
} runcase_series;

typedef struct runcase_out runcase_out;

/* What to run. Zero it (memset), then set what differs: the zero value of
 * every field is its default. Pointers are borrowed: they must outlive the
 * call, not the results. */
typedef struct runcase_in {
    const char *scenario_path;    /* the scenario file, required */
    const char *const *overrides; /* "key=value" each, in order; may be NULL */
    size_t n_overrides;
    const catalog *cat;       /* shared catalog, or NULL to load one */
    const char *catalog_dir;  /* with cat NULL: folder (NULL: data home) */
    const tp_model *tp;       /* shared calibration, or NULL to load one */
    const char *calibration;  /* with tp NULL: file (NULL: the default) */
    int seed_set;             /* 1: seed replaces simulation.seed */
    uint64_t seed;            /* master seed, <= RNG_SEED_MAX */
    size_t replications;      /* R >= 1; 0: simulation.replications */
    int no_failures;          /* 1: no interruptions or outages; 0: as the
                                 scenario says */
    int no_model_uncertainty; /* 1: every job at its point prediction; 0:
                                 each replication draws the throughput
                                 model's error (models/site.h) */
    int fixed_weather;        /* 1: replication 0's weather year in every
                                 replication (site_opts.fixed_weather) */
    int no_power_outages;     /* 1: no forced outages of power sources */
    runcase_series series;    /* per-step series kept */
    int events;               /* 1: every replication keeps its event log */
    /* Non-NULL (zeroed by the caller): run `check`'s checks and collect
     * every error here; max_memory_mb is their memory limit [MiB]. */
    run_check_errs *check_errs;
    double max_memory_mb;
    /* Step 5, optional: called with the loaded case (out->s, out->tp,
     * out->wx set; no replication yet). Returns SIM_OK to simulate, or an
     * error (with err set) that runcase_run returns. */
    int (*ready)(void *arg, const runcase_out *o, sim_err *err);
    void *ready_arg;
} runcase_in;

/* What ran. runcase_out_free releases what is owned. A caller may take s
 * or reps (and n_reps) by copying the pointer and setting the field to
 * NULL (n_reps to 0) first; it then frees them itself (scenario_free;
 * res_rep_free on each, then free). */
struct runcase_out {
    const catalog *cat; /* the catalog used (in->cat or cat_own) */
    const tp_model *tp; /* the calibration used (in->tp or tp_own) */
    catalog *cat_own;   /* loaded here, else NULL */
    tp_model *tp_own;   /* loaded here, else NULL */
    scenario *s;        /* the case's resolved scenario */
    climate_year *wx;   /* its weather; NULL for monthly normals */
    size_t n_wx;        /* years in wx (a replication draws one), 0 none */
    uint64_t seed;      /* the master seed used */
    res_rep *reps;      /* replications 0 .. n_reps-1 */
    size_t n_reps;      /* R once the replications ran, else 0 */
    double sim_wall_s;  /* wall time of step 6 alone [s] (bench site) */
};

/* Runs the case as described at the top into *out (OUT: always initialized;
 * release with runcase_out_free, also after an error: what was loaded
 * before the failing step is kept there, e.g. out->s for a failed check).
 * Returns SIM_OK, or the error of the failing step in err: as
 * catalog_load, scenario_load, tp_model_load, climate_load_for_scenario,
 * in->ready or site_run. When the checks of step 4 fail, every error is in
 * in->check_errs and err holds a copy of the first. */
int runcase_run(const runcase_in *in, runcase_out *out, sim_err *err);

/* Frees what out owns and zeroes it. runcase_out_free(NULL) is a no-op. */
void runcase_out_free(runcase_out *out);

#endif
