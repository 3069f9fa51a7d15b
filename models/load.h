/* models/load.h: a module's IT power from the state of its systems, and
 * the GPU power-cap to throughput curve used when power is short. See
 * docs/power-model.md 7.
 *
 * Model (facts-more.md 2). A system (8-GPU HGX box or NVL72 rack) has
 * n_gpus GPUs of TDP gpu_tdp_w and a maximum input system_max_w; the rest,
 * system_max_w - n_gpus tdp, is its non-GPU part (CPUs, NICs, NVSwitch,
 * fans, conversion: 44-45% of the rating for DGX H100/B200, facts.md 1.8).
 *   training: GPU power follows the predicted step (models/throughput.h,
 *     load_step): compute phases (GEMMs, attention, optimizer) at
 *     u_compute[fmt] x TDP, exposed communication at u_comm and the
 *     pipeline bubble at u_bubble, time-weighted over the step: f_gpu =
 *     sum(t_phase u_phase) / step (arXiv 2508.14318: the compute phase
 *     near TDP, the communication phase near idle).
 *     u_compute = 0.90 for BF16, the Zeus single-GPU training mean
 *     (0.89-0.91 of TDP, facts-more.md 2; one GPU has no communication, so
 *     its mean is the compute phase's). FP8 and FP4 use the same 0.90: no
 *     measurement by format was found (assumption). The 8.4 kW peak of a
 *     DGX H100 (10.2 kW rating, arXiv 2412.08602) bounds it: 8 x 700 W x
 *     1.0 + 0.59 x 4600 W = 8.3 kW, so no phase can sit much above TDP.
 *     u_comm = u_bubble = 0.25 (assumption: "near idle", above the 0.10
 *     idle floor because HBM, NVLink and the NICs are busy);
 *     the non-GPU part draws nongpu_train_frac = 0.59 of its rating, which
 *     with f_gpu 0.90 reproduces the Brookhaven DGX H100 measurement
 *     (0.76 of the 10.2 kW rating: 8 x 630 + 0.59 x 4600 = 7.75 kW) [D];
 *   checkpoint write: GPUs at u_ckpt = 0.15 of TDP, the low end of OLMo's
 *     training power trace ("between 15% and 85% of our hardware's maximum
 *     power draw", attributed to checkpointing, arXiv 2503.05804);
 *   restart, and idle: GPUs at idle_gpu_frac = 0.10 of TDP, non-GPU at
 *     nongpu_idle_frac = 0.35 (both assumptions);
 *   off: 0.
 * The nominal training demand (a module's design load, its overhead) is
 * the all-compute step, f_gpu = u_compute[BF16] = 0.90
 * (LOAD_DEFAULT_COMPUTE_FRAC = 1).
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
 * 0.88, 0.79, 0.57, 0.38. This is an ASSUMPTION for LLM training on
 * H100/B200/B300: no measured throughput-vs-cap curve of LLM pretraining
 * on a recent GPU was found (facts-more.md 1, "Not found"); the
 * cross-checks are NVIDIA's Max-Q training profile (>= 0.97 throughput)
 * and Meta's 80 % cap on GB200. Below x = 0.42 there is no data: the cap
 * cannot go lower.
 * Step shape (issue 21): load_step_shape is the one place for a step's
 * phase order and levels over time; with NVML-style ramp rates or a
 * ramp-down hysteresis (policy.gpu_power_ramp_*) it is the periodic,
 * piecewise-linear drawn level, and load_step_gpu_frac is its mean, so
 * the accounting charges what the waveform (models/powerdyn.h) draws.
 * Every fraction above and the curve's shape (load_cap_curve) are keys of
 * the scenario's `power` group (models/scenkeys.c gives each one's source
 * or marks it an assumption); load_cfg_default holds the same defaults.
 * All functions are pure and O(1).
 */
#ifndef MODELS_LOAD_H
#define MODELS_LOAD_H

#include "models/gpu.h"
#include "sim/err.h"

#define LOAD_CAP_MIN 0.42             /* lowest measured cap / TDP */
#define LOAD_CAP_KNEE 0.92            /* highest cap that slows (Zeus) */
#define LOAD_CAP_R_MIN 0.38           /* throughput at LOAD_CAP_MIN */
#define LOAD_DEFAULT_COMPUTE_FRAC 1.0 /* the nominal step: all compute */

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
    double u_compute[NUM_FMT_N]; /* GPU power / TDP in compute phases, by
                                    the format the GEMMs run in: 0.90 */
    double u_comm;               /* ... in exposed communication, 0.25 */
    double u_bubble;             /* ... in the pipeline bubble, 0.25 */
    double u_ckpt;               /* ... while a checkpoint is written, 0.15 */
    double idle_gpu_frac;        /* 0.10 (assumption), also restarts */
    double nongpu_train_frac;    /* 0.59 [D] */
    double nongpu_idle_frac;     /* 0.35 (assumption) */
    double module_overhead_frac; /* 0.08 [U] */
    double gpu_floor_frac;       /* GPU power floor in every low phase
                                    (comm, bubble, checkpoint), a fraction
                                    of the compute-phase level u_compute;
                                    0 = off (policy.gpu_power_floor_pct) */
    /* NVML-style power smoothing of the drawn GPU power (load_step_shape):
     * rates in fractions of TDP per second (policy.gpu_power_ramp_*_w_per_s
     * / TDP), 0 = unlimited; the hysteresis in seconds, 0 = none. */
    double gpu_ramp_up_per_s;
    double gpu_ramp_down_per_s;
    double gpu_ramp_down_hyst_s;
} load_cfg;

/* The power-cap curve's shape (scenario keys power.cap_curve.*). The Zeus
 * table's points between min_x and knee_x are stretched linearly onto
 * [min_x, knee_x] in x and onto [r_min, 1] in r: a later knee means
 * throughput falls sooner as the cap drops, a lower r_min that it falls
 * further. At the defaults (0.42, 0.92, 0.38) the table itself is used, so
 * a run that sets none of the keys keeps its bytes. */
typedef struct load_cap_curve {
    double min_x;  /* lowest allowed cap / TDP, LOAD_CAP_MIN */
    double knee_x; /* cap / TDP at and above which throughput is 1 */
    double r_min;  /* relative throughput at min_x */
} load_cap_curve;

/* A set of GPUs' demand in three states, for the dispatch. */
typedef struct load_demand {
    double gpu_w;        /* GPU power while training (throttleable) */
    double other_w;      /* non-GPU power while training */
    double idle_w;       /* total power of the same GPUs/systems idle */
    double gpu_frac_tdp; /* f_gpu: mean GPU power / TDP in training */
} load_demand;

/* A training step's phases [s], from the throughput model's breakdown
 * (load_step_from_tp in models/site.c maps tp_result onto it). */
typedef struct load_step {
    double compute_s; /* compute phases: GEMMs, attention, optimizer */
    double comm_s;    /* exposed communication (TP, CP, EP, DP, PP) */
    double bubble_s;  /* pipeline fill and drain */
    /* Micro-batch structure (models/powerdyn.h): the exposed pipeline
     * point-to-point part of comm_s happens between the n_chunks model
     * chunks a stage runs per step (micro-batches x virtual stages), not
     * at the step's end; 0 / n_chunks < 2: none. The energy is the same
     * either way (same phase times); only the waveform differs. */
    double pp_s;
    int n_chunks;
} load_step;

#define LOAD_SHAPE_MAX 12 /* pieces of a shaped step: 4 phases x 3 */

/* The drawn GPU power over one training step, periodic (load_step_shape):
 * n linear pieces, piece i lasting dur_s[i] and going from u0[i] to u1[i]
 * (GPU power / TDP). The phases in order: pipeline fill (half the bubble),
 * compute, drain (the other half), exposed communication. */
typedef struct load_shape {
    int n;                        /* 1..LOAD_SHAPE_MAX; 1 = constant */
    double dur_s[LOAD_SHAPE_MAX]; /* > 0, sum = the step */
    double u0[LOAD_SHAPE_MAX], u1[LOAD_SHAPE_MAX];
} load_shape;

/* Defaults above for a module of it_capacity_w. */
void load_cfg_default(load_cfg *c, double it_capacity_w);

/* Checks ranges. Errors: SIM_EINVAL naming the field. */
int load_cfg_check(const load_cfg *c, const load_system *s, sim_err *err);

/* Mean GPU power / TDP while training with compute fraction c in [0, 1]
 * and the rest exposed communication, at the BF16 compute level. */
double load_gpu_frac(const load_cfg *lc, double compute_frac);

/* GPU power / TDP of a low phase at level u with the floor applied:
 * max(u, gpu_floor_frac x u_compute[fmt]). Pure. */
double load_phase_u(const load_cfg *lc, num_fmt fmt, double u);

/* GPU power / TDP while a checkpoint is written (u_ckpt, floored). */
double load_ckpt_gpu_frac(const load_cfg *lc, num_fmt fmt);

/* Mean GPU power / TDP over the step st whose GEMMs run in format fmt:
 * sum(t_phase u_phase) / sum(t_phase), the low phases floored
 * (load_phase_u); with a ramp limit or hysteresis set, the mean of
 * load_step_shape's periodic shape (so the energy accounting charges what
 * the waveform draws). A step of zero length (or NULL) gives the
 * all-compute value. Pure. */
double load_step_gpu_frac(const load_cfg *lc, num_fmt fmt, const load_step *st);

/* The drawn GPU power of the step st as a periodic shape into *out (OUT).
 * Without smoothing the phases' levels (floored) are constant pieces. With
 * smoothing (gpu_ramp_up_per_s, gpu_ramp_down_per_s, gpu_ramp_down_hyst_s)
 * the drawn level y follows the phase level L: it rises at most at the
 * up rate; when L falls below y it holds y for the hysteresis (counted
 * from the moment L fell below y; a rise resets it), then falls at most
 * at the down rate to L (NVML power smoothing's ramp-up rate, ramp-down
 * rate and ramp-down hysteresis). The shape is the periodic steady state:
 * the step is repeated from its start until the level at the step's start
 * repeats (to 1e-12 of TDP, at most LOAD_SHAPE_ITERS periods). A step of
 * zero length or all compute is one constant piece. Pure, O(periods). */
#define LOAD_SHAPE_ITERS 1000
void load_step_shape(const load_cfg *lc, num_fmt fmt, const load_step *st,
                     load_shape *out);

/* 1 when lc sets any NVML-style smoothing (ramp rates or hysteresis). */
int load_smoothing_on(const load_cfg *lc);

/* Mean of a shape [fraction of TDP]: sum(dur (u0 + u1) / 2) / sum(dur). */
double load_shape_mean(const load_shape *s);

/* Power of one system in state st [W]: the GPU part into *gpu_w and the
 * rest into *other_w (OUT, may be NULL). Returns the total. */
double load_system_w(const load_cfg *lc, const load_system *s, load_state st,
                     double compute_frac, double *gpu_w, double *other_w);

/* Demand of n_gpus GPUs (a fraction of a system is prorated) training
 * at compute fraction compute_frac, into *out (OUT). */
void load_training_demand(const load_cfg *lc, const load_system *s,
                          double n_gpus, double compute_frac, load_demand *out);

/* As load_training_demand, with the mean GPU power / TDP f_gpu given
 * (load_step_gpu_frac, or u_ckpt while a checkpoint is written). */
void load_training_demand_f(const load_cfg *lc, const load_system *s,
                            double n_gpus, double f_gpu, load_demand *out);

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

/* The defaults: min_x LOAD_CAP_MIN, knee_x LOAD_CAP_KNEE, r_min
 * LOAD_CAP_R_MIN. */
void load_cap_curve_default(load_cap_curve *c);

/* Checks 0 < min_x < knee_x <= 1.2 and 0 < r_min <= 1. Errors: SIM_EINVAL
 * naming the field. */
int load_cap_curve_check(const load_cap_curve *c, sim_err *err);

/* As load_cap_throughput and load_throttle_throughput on curve c (NULL:
 * the defaults). Below min_x r falls linearly to 0 at 0, above knee_x it
 * is 1; non-decreasing in x. Pure. */
double load_cap_throughput_c(const load_cap_curve *c, double x);
double load_throttle_throughput_c(const load_cap_curve *c, double y,
                                  double f_gpu);

#endif
