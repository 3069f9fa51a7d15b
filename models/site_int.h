/* models/site_int.h: what the files of a site run share and nothing outside
 * them may use (models/site.h is the public contract).
 *
 * The run is split by concern:
 *   models/site.c        the run: set-up, the step event, results, replications
 *   models/site_sched.c  placement and the queue (EASY backfill)
 *   models/job_fsm.c     the job state machine: every write of a job's state,
 *                        progress, checkpoints, failures, repairs, outages
 *   models/site_energy.c energy attribution: each step's demand, dispatch and
 *                        the charge (and refunds) of each job
 *
 * Pools. Module groups of the scenario are expanded into individual modules
 * (smod), each a pool of whole systems: free + held by jobs + in repair =
 * installed, while it is up. A job (sjob) holds take[m] systems in module m
 * (its working systems) plus spare systems; its progress is done (tokens),
 * integrated at rate x throttle while it trains, and saved at its last
 * checkpoint. Invariant: saved <= done <= total.
 *
 * Events (priority: higher runs first at equal times):
 *   module outage / repair 8, power-source outages 10 (site_power), node
 *   repair 7, job interruption 6, job timer 5 (checkpoint start and end,
 *   restart end, completion), submit 4, commissioning 3, step 0.
 * The step event runs last at its instant, so it sees every state change
 * due then: it settles the previous step's energy, runs the scheduler,
 * dispatches power for the new step and applies throttling, pauses and
 * sheds.
 */
#ifndef MODELS_SITE_INT_H
#define MODELS_SITE_INT_H

#include <gsl/gsl_rng.h>

#include "models/job_fsm.h"
#include "models/sched.h"
#include "models/site.h"
#include "models/site_power.h"
#include "sim/sim.h"

#define PRIO_MOD 8
#define PRIO_REPAIR 7
#define PRIO_FAIL 6
#define PRIO_TIMER 5
#define PRIO_SUBMIT 4
#define PRIO_ONLINE 3
#define PRIO_STEP 0

enum timer_kind { TM_CKPT_START = 1, TM_CKPT_END, TM_RESTART_END, TM_FINISH };

typedef struct smod {
    size_t grp; /* scenario module group */
    int n_sys;  /* installed systems */
    int free_sys;
    int repairing; /* systems out for repair */
    int commissioned;
    int up;     /* 0 during a module outage */
    int fabric; /* fabric group id, -1 isolated */
    int gpu_type;
    gsl_rng *r; /* outage stream "module/<group>/<k>" */
} smod;

typedef struct sjob {
    const scen_job *sj;
    job_state state;  /* written only by job_set_state (job_fsm.c) */
    int *take;        /* [n_mod] working systems per module */
    int *spare;       /* [n_mod] hot-spare systems per module */
    int sys_needed;   /* working systems the job needs */
    int spares_total; /* spare systems requested */
    int spares;       /* spare systems still held (sum of spare[]) */
    int sys_gpus;
    int gpu_type;
    int wait_module;     /* JS_WAIT_REPAIR: module whose repair it awaits */
    int restart_pending; /* re-placed after an outage: restart first */
    double rate;         /* tokens/s of the whole job, undisturbed */
    double rate0;        /* rate at the first placement (goodput) */
    double rate_est;     /* rate in one module, for backfill estimates */
    int skip;            /* scheduler: could not be placed in this pass */
    double tps_gpu0;
    int modules0;
    double thr;   /* throughput factor from dispatch, (0, 1] */
    load_step ph; /* its step's phases at the current placement [s] */
    double total, done, saved;
    double last_t;       /* progress integrated up to here */
    double since_ckpt_s; /* training time since the last checkpoint */
    double tau_s;        /* checkpoint interval (training time) */
    double fail_rate;    /* interruptions per second while training */
    sim_handle timer, fail;
    int timer_kind;
    gsl_rng *r;         /* stream "job/<name>" */
    double model_z;     /* standard normal of the job's model-error group
                           (site.h), 0 without model uncertainty */
    double straggler_f; /* throughput factor of stragglers beyond the
                           calibrated scale (models/straggler.h); 1 at or
                           below it */
    double est_end_s;   /* for backfill */
    /* Accounting. */
    double start_s, end_s, held_since_s, gpu_s;
    int interruptions, checkpoints, pauses;
    double power_s, paused_s, throttled_s; /* steps holding power; of them
                                              paused or shed; throttled */
    double it_j, fac_j, ren_j, co2_g, cost, src_j[SRC_N];
    double gpu_j; /* of it_j, drawn by its GPUs */
    /* The current step's charge, for refunds when systems are released. */
    double st_gpu_j;
    double st_t0, st_it_j, st_fac_j, st_ren_j, st_co2_g, st_cost,
        st_src_j[SRC_N];
    int st_charged;
} sjob;

typedef struct site_pd site_pd; /* models/site_powerdyn.c */

typedef struct run {
    const scenario *s;
    const site_opts *o;
    sim e;
    site_power *sp;
    size_t n_mod;
    smod *mod;
    size_t n_job;
    sjob *job;
    int *place_tmp;        /* [n_mod] */
    sched_module *smv;     /* [n_mod] */
    sched_running *runv;   /* [n_job] */
    dispatch_job *dj;      /* [n_job * n_groups] */
    size_t n_dj;           /* entries of the current step in dj */
    size_t *dj_job;        /* owner job of each dispatch entry */
    double *dj_gpu_idle_w; /* idle power of each entry's GPUs */
    double *base_it;       /* [n_groups] */
    double *busy_grp;      /* [n_groups] */
    size_t n_grp;          /* power-model modules = scenario module groups */
    load_cfg *lcfg;        /* [n_grp] */
    load_system *lsys;     /* [n_grp] */
    int *gpu_type_of_grp;
    double step_s, horizon_s, t_step; /* current step start */
    double sys_online_s, sys_busy_s;  /* utilization integrals */
    double last_util_t;
    res_rep *out;
    size_t cap_ev, cap_st;
    double unattributed_j; /* refunds of released systems (idle load) */
    double base_j;         /* served energy of the modules' base loads */
    int err_code;
    sim_err *err;
    double src_site_j[SRC_N];
    site_pd *pd; /* power dynamics (issue 21) */
} run;

/* models/site.c */
void site_log_event(run *R, const sjob *j, int kind, int cause, double value);
void site_fail_run(run *R, int code); /* records code, stops the engine */
void site_accrue_util(run *R);        /* utilization integrals up to now */
/* Applies job j's model-error draw to a throughput prediction of j (scales
 * tokens/s and TFLOP/s up, the step time down, by exp(model_z sd)). */
void site_apply_model_draw(const run *R, const sjob *j, tp_result *tr);

/* models/site_sched.c: places queued jobs (FIFO by priority and submit
 * time, EASY backfill); a placed job starts through job_start. */
void site_schedule_jobs(run *R);

/* models/job_fsm.c */
void job_start(run *R, sjob *j);
void job_apply_decision(run *R, sjob *j, const dispatch_job_out *jo);
int job_holds_power(const sjob *j);
int job_held_systems(const run *R, const sjob *j);
void job_accrue_held(run *R, sjob *j); /* GPU-seconds held up to now */
void job_submit_fn(sim *e, void *ctx, uint64_t arg);
void site_mod_online_fn(sim *e, void *ctx, uint64_t arg);
/* Pool counts hold (see job_fsm.c); only for FS_ASSERT(site_pools_ok(R)). */
int site_pools_ok(const run *R);

/* models/site_energy.c */
void site_energy_refund(run *R, sjob *j);
int site_energy_step(run *R, const dispatch_out **o, double srcw[SRC_N]);
/* Job shares + refunds + base loads = the site's facility energy; only
 * for FS_ASSERT(site_energy_closes(R)). */
int site_energy_closes(const run *R);

/* models/site_powerdyn.c: training power dynamics over representative
 * windows (issue 21). site_pd_step runs after each step's dispatch,
 * site_pd_event at a job's failure, checkpoint or restart; they only read
 * the run. */
void site_pd_new(run *R);
void site_pd_free(run *R);
void site_pd_step(run *R, const dispatch_out *o);
void site_pd_event(run *R, const sjob *j, int kind);
void site_pd_results(const run *R, res_site *st);
/* The per-module figures and the representative window into out (OUT:
 * out->modules and out->pd_samples allocated; left empty when the
 * analysis is off or saw no steady window). */
void site_pd_rep_results(const run *R, res_rep *out);

#endif
