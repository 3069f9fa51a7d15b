/* models/load.h: a module's IT power from the state of its systems, and
 * the GPU power-cap to throughput curve used when power is short. See
 * docs/power-model.md 7.
 *
 * Model (facts-more.md 2). A system (8-GPU HGX box or NVL72 rack) has
 * n_gpus GPUs of TDP gpu_tdp_w and a maximum input system_max_w; the rest,
 * system_max_w - n_gpus tdp, is its non-GPU part (CPUs, NICs, NVSwitch,
 * fans, conversion: 44-45% of the rating for DGX H100/B200, facts.md 1.8).
 *   training: GPUs draw f_gpu x TDP with f_gpu = c u_compute +
 *     (1 - c) u_comm for compute fraction c of the step (a compute phase
 *     near TDP, u_compute = 1, and a communication phase near idle,
 *     u_comm = idle_gpu_frac; arXiv 2508.14318); the default
 *     c = 0.889 makes f_gpu = 0.90, the Zeus training mean (0.89-0.91);
 *     the non-GPU part draws nongpu_train_frac = 0.59 of its rating, which
 *     with f_gpu 0.90 reproduces the Brookhaven DGX H100 measurement
 *     (0.76 of the 10.2 kW rating: 8 x 630 + 0.59 x 4600 = 7.75 kW) [D];
 *   idle: GPUs at idle_gpu_frac = 0.10 of TDP, non-GPU at
 *     nongpu_idle_frac = 0.35 (both assumptions);
 *   off: 0.
 * Module IT = the systems' power + module overhead (fabric switches and
 * storage outside the systems: module_overhead_frac = 0.08 of the
 * installed systems' training power while the module is on, an [U]
 * assumption from the Meta GB200 note, facts-more.md 2), never above
 * it_capacity_w (500 kW air, 3.5 MW liquid): load_module_it_w clips.
 * Facility power = IT x PUE (models/cooling.h).
 *
 * Power cap. Relative throughput r(x) at a GPU cap x = cap / TDP is the
 * linear interpolation of the Zeus A40 BERT sweep (facts-more.md 1): x =
 * 1.00, 0.92, 0.83, 0.75, 0.67, 0.58, 0.50, 0.42 -> 1.00, 1.00, 0.97, 0.94,
 * 0.88, 0.79, 0.57, 0.38; applying it to LLM training on H100/B200/B300 is
 * an assumption. Below x = 0.42 there is no data: the cap cannot go lower.
 * All functions are pure and O(1).
 */
#ifndef MODELS_LOAD_H
#define MODELS_LOAD_H

#include "sim/err.h"

#define LOAD_CAP_MIN 0.42 /* lowest measured cap / TDP */
#define LOAD_DEFAULT_COMPUTE_FRAC 0.889

typedef enum load_state {
    LOAD_OFF = 0,
    LOAD_IDLE = 1,
    LOAD_TRAINING = 2
} load_state;

/* One system type. */
typedef struct load_system {
    int n_gpus;          /* GPUs per system, >= 1 */
    double gpu_tdp_w;    /* per GPU */
    double system_max_w; /* maximum input of the system, >= n x tdp */
} load_system;

/* Per-module parameters. */
typedef struct load_cfg {
    double it_capacity_w;        /* 500e3 (spark-air) or 3.5e6 (spark-liquid) */
    double u_compute;            /* GPU power / TDP in compute phases, 1.0 */
    double idle_gpu_frac;        /* 0.10 (assumption) */
    double nongpu_train_frac;    /* 0.59 [D] */
    double nongpu_idle_frac;     /* 0.35 (assumption) */
    double module_overhead_frac; /* 0.08 [U] */
} load_cfg;

/* A set of GPUs' demand in three states, for the dispatch. */
typedef struct load_demand {
    double gpu_w;        /* GPU power while training (throttleable) */
    double other_w;      /* non-GPU power while training */
    double idle_w;       /* total power of the same GPUs/systems idle */
    double gpu_frac_tdp; /* f_gpu: mean GPU power / TDP in training */
} load_demand;

/* Defaults above for a module of it_capacity_w. */
void load_cfg_default(load_cfg *c, double it_capacity_w);

/* Checks ranges. Errors: SIM_EINVAL naming the field. */
int load_cfg_check(const load_cfg *c, const load_system *s, sim_err *err);

/* Mean GPU power / TDP while training with compute fraction c in [0, 1]. */
double load_gpu_frac(const load_cfg *lc, double compute_frac);

/* Power of one system in state st [W]: the GPU part into *gpu_w and the
 * rest into *other_w (OUT, may be NULL). Returns the total. */
double load_system_w(const load_cfg *lc, const load_system *s, load_state st,
                     double compute_frac, double *gpu_w, double *other_w);

/* Demand of n_gpus GPUs (a fraction of a system is prorated) training
 * at compute fraction compute_frac, into *out (OUT). */
void load_training_demand(const load_cfg *lc, const load_system *s,
                          double n_gpus, double compute_frac, load_demand *out);

/* Module overhead [W] while on: module_overhead_frac x training power of
 * the n_systems installed. */
double load_module_overhead_w(const load_cfg *lc, const load_system *s,
                              double n_systems);

/* A module's IT power from the sum of its parts, clipped to it_capacity_w.
 * *clipped_w (OUT, may be NULL) gets what was cut. */
double load_module_it_w(const load_cfg *lc, double parts_w, double *clipped_w);

/* Relative throughput at GPU cap x = cap / TDP (Zeus curve above, 1 for
 * x >= 0.92, r(0.42) = 0.38, and 0.38 x / 0.42 below, to 0 at 0). */
double load_cap_throughput(double x);

/* Relative throughput of a job whose GPUs normally draw f_gpu x TDP when
 * their power is scaled to y x that (cap x = y f_gpu): r(y f_gpu) /
 * r(f_gpu), at most 1. */
double load_throttle_throughput(double y, double f_gpu);

#endif
