/* models/site.h: one replication of a scenario: training jobs on the
 * site's modules, their failures and checkpoints, and the site's power,
 * all as events on one engine. This is the main job of factorysim.
 *
 * A run is a pure function of (scenario, options, seed, replication): no
 * I/O, no global state, no wall clock. Replications and sweep cases can run
 * in any order, on any worker, and give the same bytes.
 *
 * What happens (docs/site-model.md has the details and sources):
 *   - Modules come online at their commissioning time; each is a set of
 *     whole systems (8-GPU servers or NVL72 racks).
 *   - Jobs are submitted at their times and queue by priority, then submit
 *     time; the scheduler (models/sched.h: best-fit placement, spanning
 *     modules joined by fabric links, EASY backfill) runs at every step
 *     boundary, so jobs start on a step boundary.
 *   - A placed job trains at the calibrated throughput (models/throughput.h)
 *     for its GPU, model, precision, layout and placement: when it spans
 *     modules, its data-parallel traffic crosses the inter-module links and
 *     the link bandwidth per GPU enters the throughput query.
 *   - Interruptions are Poisson events on the engine at rate n_gpus x
 *     rate_per_gpu (Llama 3 by default, models/reliability.h), with Llama 3's
 *     cause mix; a GPU or host failure takes one system out for repair (a
 *     hot spare or a free system replaces it, else the job waits for the
 *     repair); every interruption loses the work since the last checkpoint
 *     and costs the restart time. Whole-module outages take every job on the
 *     module down; those jobs queue again and restart from their checkpoint.
 *   - Checkpoints every tau of training time (Young/Daly from the job's
 *     mean time between interruptions, or fixed), each blocking training for
 *     the write time.
 *   - Every step (default 15 min) the site's power is dispatched
 *     (models/site_power.h): jobs may be throttled (throughput follows the
 *     power-performance curve), paused (they checkpoint and wait; no work is
 *     lost) or shed (systems off; work since the checkpoint is lost). Each
 *     job is charged its share of each step's served energy, renewable share,
 *     carbon and cost; the shares sum to the audited step totals.
 *
 * Complexity: O(steps x (modules + jobs) + interruptions x modules) per
 * replication; the event queue stays small (a few events per job and
 * module).
 */
#ifndef MODELS_SITE_H
#define MODELS_SITE_H

#include <stdint.h>

#include "models/climate.h"
#include "models/reliability.h"
#include "models/results.h"
#include "models/scenario.h"
#include "models/throughput.h"
#include "sim/err.h"

/* Reliability parameters of a run. Defaults: Llama 3's rate and mix
 * (facts.md 4.1); the repair and module figures have no published source
 * and are assumptions, overridable in the scenario (reliability group). */
typedef struct site_rel {
    int enabled;           /* 0: no random interruptions (tests) */
    double rate_per_gpu_s; /* unexpected interruptions [1/(GPU s)] */
    rel_mix mix;           /* cause mix of those interruptions */
    double node_repair_s;  /* mean time to repair a failed system [s];
                              assumption: 4 h */
    double module_mtbf_s;  /* mean time between whole-module outages
                              [s], 0 = none; assumption: 1 per year */
    double module_mttr_s;  /* mean module repair time [s]; assumption:
                              12 h */
} site_rel;

/* Fills r with the defaults above. */
void site_rel_default(site_rel *r);

/* Fills r from the scenario's reliability group (whose defaults are the
 * same). */
void site_rel_from_scenario(site_rel *r, const scenario *s);

typedef struct site_opts {
    uint64_t seed;        /* master seed */
    uint32_t replication; /* replication index, >= 0 */
    int record_steps;     /* 1: fill res_rep.steps */
    int record_events;    /* 1: fill res_rep.events */
    site_rel rel;
    const tp_model *tp;          /* calibrated throughput model (required) */
    const climate_year *weather; /* the scenario's weather file, loaded by
                                  the caller; NULL for monthly normals */
    int model_uncertainty;       /* 1: each replication draws the
                                    throughput model's error (below) */
    int fixed_weather;           /* 1: every replication has replication
                                    0's synthetic weather year */
    int no_power_outages;        /* 1: firm sources without forced
                                    outages (availability as a derate) */
    size_t n_weather;            /* years in weather[] (0 or 1: one year);
                                    with more, each replication draws one
                                    from its stream "climate/year" (year 0
                                    under fixed_weather) */
} site_opts;

/* Model uncertainty (issue 19). With o->model_uncertainty, a replication
 * draws one standard normal z per (GPU type, model class, precision recipe)
 * from its own stream "model/<gpu>/<class>/<recipe>" (e.g.
 * "model/GB300/moe/MXFP8"), and every job of that group trains at its
 * predicted throughput x exp(z tp_log_sd): the calibrated predictive
 * distribution whose 80% interval `predict` prints, shared by the jobs of a
 * group because they share the model's error. The streams are drawn only
 * here, so the draws of a job depend only on (seed, replication, group):
 * changing solar, batteries or failures changes none (common random
 * numbers), and turning the draws off changes no other stream. */

/* Sets the defaults: seed 0, replication 0, no records, site_rel_default,
 * tp and weather NULL, no model uncertainty (the point prediction). */
void site_opts_default(site_opts *o);

/* Runs one replication of s and fills *out (OUT; free with res_rep_free).
 * Errors: SIM_EINVAL (a job whose throughput cannot be predicted, with the
 * job's name and the reason; a scenario whose power components are
 * invalid), SIM_ENUMERIC (an energy balance that does not close). Nothing
 * is left allocated on failure. */
int site_run(const scenario *s, const site_opts *o, res_rep *out, sim_err *err);

/* Runs replications first_rep .. first_rep + n - 1 of s into reps[0..n-1]
 * (OUT; free each with res_rep_free). base supplies everything but the
 * replication index. Stops at the first error (reps already filled are
 * freed). */
int site_run_reps(const scenario *s, const site_opts *base, uint32_t first_rep,
                  size_t n, res_rep *reps, sim_err *err);

/* The throughput query a job gets when placed on n_modules modules with
 * dp_link_bps per GPU across them (0 = one module). Exposed for tests and
 * for `predict`-style reports. Errors: as tp_predict. */
int site_job_throughput(const scenario *s, const scen_job *j,
                        const tp_model *tp, double dp_link_bps,
                        double dp_latency_s, tp_result *out, sim_err *err);

#endif
