/* models/reliability.h: interruptions of training jobs, and the checkpoint
 * interval that balances them.
 *
 * Failure model. Unexpected interruptions of a job are a Poisson process
 * whose rate is proportional to the GPUs it holds: rate = n_gpus x
 * rate_per_gpu_s. The default rate is Llama 3 405B's: 419 unexpected
 * interruptions in 54 days on 16,384 H100 (facts.md 4.1) = 1.97e-5 per
 * GPU-hour (about 50,700 GPU-hours per interruption). Root causes follow the
 * same report's mix (facts.md 4.1): GPU (faulty GPU incl. NVLink 30.1%, HBM3
 * 17.2%, SRAM 4.5%, GPU system processor 4.1% = 55.9%), network switch or
 * cable 8.4%, and host for the remaining 35.7% (software, host maintenance,
 * CPU and the other small classes the report lists; facts.md does not itemise
 * them). Whole-module outages (power train or cooling of one container) are a
 * separate process per module with MTBF and repair time given by the
 * scenario; there is no published figure for them, so the defaults are
 * marked assumptions in the catalog.
 *
 * Checkpoint interval. Young (1974): tau = sqrt(2 delta M); Daly (2006):
 * tau = sqrt(2 delta M) [1 + (1/3) sqrt(delta / 2M) + (1/9) (delta / 2M)] -
 * delta for delta < 2M, else tau = M; delta is the checkpoint write (blocking)
 * time and M the job's mean time between interruptions (facts.md 4.5).
 *
 * Expected time of a segment. With Poisson failures at rate 1/M, a
 * segment of s seconds (tau of training plus the checkpoint write delta)
 * that restarts from its beginning after each failure, each restart taking
 * R and itself exposed to failures, takes on average (Daly 2006, eq. 5)
 *   E[T(s)] = M e^(R/M) (e^(s/M) - 1),
 * which tends to s as M -> infinity. Goodput (useful training time over
 * wall time) of such segments is tau / E[T(tau + delta)]. The simulation
 * does not use these formulas; tests compare its run times with them.
 *
 * All functions are pure and O(1). Times in seconds.
 */
#ifndef MODELS_RELIABILITY_H
#define MODELS_RELIABILITY_H

#include <gsl/gsl_rng.h>

#include "models/results.h"

/* Llama 3's unexpected-interruption rate per GPU [1/s] (facts.md 4.1):
 * 419 / (16,384 GPUs x 54 days x 86,400 s). */
#define REL_LLAMA3_RATE_PER_GPU_S (419.0 / (16384.0 * 54.0 * 86400.0))

/* Defaults for what no source gives (assumptions, scenario keys in the
 * reliability group, docs/scenario-reference.md): mean repair time of a
 * failed system, and whole-module outages (power train or cooling of one
 * container) once per module-year lasting 12 h on average. */
/* Per-GPU speed spread, sd of the per-GPU step time [%]: Sinha et al.,
 * "Not All GPUs Are Created Equal", SC22 (arXiv 2208.11035v3) measured
 * 8 % average performance variation (max 22 %) between GPUs of the same
 * SKU on five clusters, outliers up to 1.5x slower than the median. Read
 * as the whisker-to-whisker range of a normal (2 x 2.70 sd = 5.4 sd, the
 * box plot's), 8 % / 5.4 = 1.5 % (an interpretation, not their figure). */
#define REL_GPU_SPEED_SPREAD_PCT_DEFAULT 1.5
#define REL_NODE_REPAIR_S_DEFAULT (4.0 * 3600.0)
#define REL_MODULE_MTBF_S_DEFAULT (365.0 * 86400.0)
#define REL_MODULE_MTTR_S_DEFAULT (12.0 * 3600.0)

typedef struct rel_mix {
    double frac[RES_CAUSE_N]; /* probability of each cause, sums to 1 */
} rel_mix;

/* The Llama 3 root-cause mix described above (GPU, host, network). */
rel_mix rel_mix_llama3(void);

/* Young's interval sqrt(2 delta M) [s]. delta, M > 0. */
double rel_young_interval_s(double write_s, double mtbi_s);

/* Daly's higher-order interval [s] (formula above). delta, M > 0. */
double rel_daly_interval_s(double write_s, double mtbi_s);

/* Expected wall time to complete a segment of seg_s seconds (formula
 * above) [s]. rate_per_s = 1/M >= 0; rate 0 gives seg_s. */
double rel_expected_segment_s(double rate_per_s, double seg_s,
                              double restart_s);

/* Expected goodput tau / E[T(tau + delta)], in (0, 1]. */
double rel_expected_goodput(double rate_per_s, double interval_s,
                            double write_s, double restart_s);

/* Draws a cause from mix (one uniform draw from r). */
res_cause rel_draw_cause(const rel_mix *mix, gsl_rng *r);

#endif
