/* models/site.c: one replication of a scenario on the engine (see site.h and
 * docs/site-model.md).
 *
 * State. Module groups of the scenario are expanded into individual modules
 * (smod), each a pool of whole systems: free + held by jobs + in repair =
 * installed, while it is up. A job (sjob) holds take[m] systems in module m
 * (its working systems) plus spare systems; its progress is tokens_done,
 * integrated at rate x throttle while it trains, and tokens_saved at its
 * last checkpoint. Invariant: tokens_saved <= tokens_done <= tokens_total.
 *
 * Events (priority: higher runs first at equal times):
 *   module outage / repair 8, power-source outages 10 (site_power), node
 *   repair 7, job interruption 6, job timer 5 (checkpoint start and end,
 *   restart end, completion), submit 4, commissioning 3, step 0.
 * The step event runs last at its instant, so it sees every state change
 * due then: it settles the previous step's energy, runs the scheduler,
 * dispatches power for the new step and applies throttling, pauses and
 * sheds.
 *
 * Energy accounting. The dispatch charges each job for the whole step;
 * a job that releases its systems during the step is refunded the unused
 * fraction, which goes to the site's unattributed (idle) load, so that job
 * shares plus the rest still sum to the audited step totals.
 */
#include "models/site.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "models/sched.h"
#include "models/site_power.h"
#include "models/site_power_scn.h"
#include "models/stats.h"
#include "sim/mem.h"
#include "sim/rng.h"
#include "sim/sim.h"

#define PRIO_MOD 8
#define PRIO_REPAIR 7
#define PRIO_FAIL 6
#define PRIO_TIMER 5
#define PRIO_SUBMIT 4
#define PRIO_ONLINE 3
#define PRIO_STEP 0

#define CKPT_MIN_INTERVAL_S 60.0 /* floor on a computed interval */

enum jstate {
    JS_PENDING = 0, /* not submitted yet */
    JS_QUEUED,      /* waiting for systems */
    JS_RUN,         /* training */
    JS_CKPT,        /* writing a checkpoint (training blocked) */
    JS_RESTART,     /* restarting after an interruption or resume */
    JS_WAIT_REPAIR, /* a failed system must be repaired first */
    JS_PAUSED,      /* power pause (checkpointed, GPUs idle) */
    JS_SHED,        /* power shed (systems off) */
    JS_DONE
};

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
    int state;
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
    double thr; /* throughput factor from dispatch, (0, 1] */
    double total, done, saved;
    double last_t;       /* progress integrated up to here */
    double since_ckpt_s; /* training time since the last checkpoint */
    double tau_s;        /* checkpoint interval (training time) */
    double fail_rate;    /* interruptions per second while training */
    sim_handle timer, fail;
    int timer_kind;
    gsl_rng *r;       /* stream "job/<name>" */
    double est_end_s; /* for backfill */
    /* Accounting. */
    double start_s, end_s, held_since_s, gpu_s;
    int interruptions, checkpoints, pauses;
    double it_j, fac_j, ren_j, co2_g, cost, src_j[SRC_N];
    /* The current step's charge, for refunds when systems are released. */
    double st_t0, st_it_j, st_fac_j, st_ren_j, st_co2_g, st_cost,
        st_src_j[SRC_N];
    int st_charged;
} sjob;

typedef struct run {
    const scenario *s;
    const site_opts *o;
    sim e;
    site_power *sp;
    size_t n_mod;
    smod *mod;
    size_t n_job;
    sjob *job;
    int *place_tmp;      /* [n_mod] */
    sched_module *smv;   /* [n_mod] */
    sched_running *runv; /* [n_job] */
    dispatch_job *dj;    /* [n_job * n_groups] */
    size_t *dj_job;      /* owner job of each dispatch entry */
    double *base_it;     /* [n_groups] */
    double *busy_grp;    /* [n_groups] */
    size_t n_grp;        /* power-model modules = scenario module groups */
    load_cfg *lcfg;      /* [n_grp] */
    load_system *lsys;   /* [n_grp] */
    int *gpu_type_of_grp;
    double step_s, horizon_s, t_step; /* current step start */
    double sys_online_s, sys_busy_s;  /* utilization integrals */
    double last_util_t;
    res_rep *out;
    size_t cap_ev, cap_st;
    double unattributed_j;
    int err_code;
    sim_err *err;
    double src_site_j[SRC_N];
} run;

void site_rel_default(site_rel *r)
{
    r->enabled = 1;
    r->rate_per_gpu_s = REL_LLAMA3_RATE_PER_GPU_S;
    r->mix = rel_mix_llama3();
    r->node_repair_s = REL_NODE_REPAIR_S_DEFAULT;
    r->module_mtbf_s = REL_MODULE_MTBF_S_DEFAULT;
    r->module_mttr_s = REL_MODULE_MTTR_S_DEFAULT;
}

void site_opts_default(site_opts *o)
{
    memset(o, 0, sizeof *o);
    site_rel_default(&o->rel);
}

void site_rel_from_scenario(site_rel *r, const scenario *s)
{
    site_rel_default(r);
    r->enabled = s->reliability.failures;
    r->rate_per_gpu_s = s->reliability.rate_per_gpu_s;
    r->node_repair_s = s->reliability.node_repair_s;
    r->module_mtbf_s = s->reliability.module_mtbf_s;
    r->module_mttr_s = s->reliability.module_mttr_s;
}

/* ---------------------------------------------------------------- events */

static void log_event(run *R, const sjob *j, int kind, int cause, double value)
{
    res_rep *out = R->out;
    res_event *ev;
    if (!R->o->record_events)
        return;
    sim_grow((void **)&out->events, &R->cap_ev, out->n_events + 1,
             sizeof *out->events);
    ev = &out->events[out->n_events++];
    ev->t_s = R->e.now_s;
    ev->job = (int32_t)(j - R->job);
    ev->kind = kind;
    ev->cause = cause;
    ev->value = value;
}

static void fail_run(run *R, int code)
{
    if (R->err_code == SIM_OK)
        R->err_code = code;
    sim_stop(&R->e);
}

/* ------------------------------------------------------------- throughput */

int site_job_throughput(const scenario *s, const scen_job *j,
                        const tp_model *tp, double dp_link_bps,
                        double dp_latency_s, tp_result *out, sim_err *err)
{
    tp_query q;
    int rc;

    memset(&q, 0, sizeof q);
    q.gpu = j->gpu;
    q.llm = j->model;
    if (precision_parse(j->precision, &q.prec) != 0)
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "job '%s': unknown precision '%s' (expected %s)",
                           j->name, j->precision, precision_valid_labels());
    q.n_gpus = j->gpus;
    q.gbs = j->global_batch;
    q.seq_len = j->seq_len;
    /* Every layout key not given (0) is chosen by tp_predict. */
    q.layout.tp = j->tp;
    q.layout.pp = j->pp;
    q.layout.cp = j->cp;
    q.layout.ep = j->ep;
    q.layout.vp = j->vp;
    q.layout.mbs = j->micro_batch;
    q.layout.recompute = j->recompute;
    q.layout.distopt = j->distopt;
    q.layout.fsdp = j->fsdp;
    q.software_efficiency = j->software_efficiency;
    /* In-network reduction is a property of the fabric of the systems the
     * job's GPUs sit in (systems.cfg `sharp`). */
    for (size_t i = 0; i < s->n_modules; i++)
        if (s->modules[i].gpu == j->gpu && s->modules[i].system)
            q.sharp = s->modules[i].system->sharp;
    {
        /* Scenario releases are written as in the data ("NeMo 26.04");
         * the model keys them by short id ("26.04"). */
        static _Thread_local char rel[48];
        q.release =
            j->release[0] ? tp_release_id(j->release, rel, sizeof rel) : NULL;
        if (q.release && tp_model_release(tp, q.release) < 0) {
            char valid[1024] = "";
            for (int i = 0; i < tp->n_releases; i++) {
                size_t l = strlen(valid);
                snprintf(valid + l, sizeof valid - l, "%s%s", i ? ", " : "",
                         tp->releases[i]);
            }
            return sim_err_set(err, SIM_ENOTFOUND, s->path, 0,
                               "jobs.%s.release: no calibration for release "
                               "'%s' (expected one of: %s)",
                               j->name, j->release, valid);
        }
    }
    /* The layout is the job's, chosen once at its reference placement (one
     * module, the GPUs' own NICs), as a launch script fixes it; a placement
     * across modules changes only the bandwidth the DP group crosses. */
    rc = tp_predict(tp, &q, out);
    if (rc == SIM_OK && (dp_link_bps > 0 || dp_latency_s > 0)) {
        unsigned chosen = out->chosen;
        q.layout = out->layout;
        q.dp_link_bps = dp_link_bps;
        q.dp_link_latency_s = dp_latency_s;
        rc = tp_predict(tp, &q, out);
        out->chosen = chosen;
    }
    if (rc != SIM_OK)
        return sim_err_set(
            err, rc, NULL, 0,
            "job '%s': cannot predict its throughput on %d %s: %s", j->name,
            j->gpus, j->gpu->name, out->why[0] ? out->why : sim_strerror(rc));
    return SIM_OK;
}

/* Per-GPU bandwidth of the data-parallel traffic of a placement (take[]):
 * 0 within one module (the GPUs' own NICs); across modules of one group,
 * the scale-out NIC derated by the fabric's oversubscription; across a
 * link between groups, the link's capacity (derated by its
 * oversubscription) shared by the job's GPUs on the smaller side. */
static void placement_link(const run *R, const sjob *j, const int *take,
                           double *bps, double *lat_s)
{
    const scenario *s = R->s;
    size_t used = 0;
    double bw, lat = s->fabric.latency_s;
    double *g_grp = sim_xcalloc(s->n_modules, sizeof *g_grp);

    for (size_t m = 0; m < R->n_mod; m++)
        if (take[m] > 0) {
            used++;
            g_grp[R->mod[m].grp] += (double)take[m] * j->sys_gpus;
        }
    if (used <= 1) {
        *bps = 0.0;
        *lat_s = 0.0;
        free(g_grp);
        return;
    }
    bw = j->sj->gpu->scaleout_bps / s->fabric.oversubscription;
    for (size_t l = 0; l < s->fabric.n_links; l++) {
        const scen_link *lk = &s->fabric.links[l];
        double ga = g_grp[lk->a], gb = g_grp[lk->b], g = ga < gb ? ga : gb;
        if (ga <= 0 || gb <= 0)
            continue;
        if (lk->bandwidth_bps / lk->oversubscription / g < bw)
            bw = lk->bandwidth_bps / lk->oversubscription / g;
        if (lk->latency_s > lat)
            lat = lk->latency_s;
    }
    *bps = bw;
    *lat_s = lat;
    free(g_grp);
}

/* --------------------------------------------------------------- progress */

static void job_advance(run *R, sjob *j)
{
    double now = R->e.now_s;
    if (j->state == JS_RUN && now > j->last_t) {
        double dt = now - j->last_t;
        j->done += j->rate * j->thr * dt;
        if (j->done > j->total)
            j->done = j->total;
        j->since_ckpt_s += dt;
    }
    j->last_t = now;
}

static void job_timer_fn(sim *e, void *ctx, uint64_t arg);
static void job_fail_fn(sim *e, void *ctx, uint64_t arg);

static void set_timer(run *R, sjob *j, double at_s, int kind)
{
    if (j->timer)
        sim_cancel(&R->e, j->timer);
    j->timer = 0;
    j->timer_kind = kind;
    if (isfinite(at_s) &&
        sim_schedule(&R->e, at_s, PRIO_TIMER, job_timer_fn, R,
                     (uint64_t)(j - R->job), &j->timer) != SIM_OK)
        fail_run(R, SIM_EINVAL);
}

/* Schedules the next transition of a training job: completion or the
 * start of its next checkpoint, whichever comes first. */
static void schedule_training(run *R, sjob *j)
{
    double now = R->e.now_s, rate = j->rate * j->thr;
    double t_fin =
        rate > 0 ? now + (j->total - j->done) / rate : (double)INFINITY;
    double t_ck = now + (j->tau_s - j->since_ckpt_s);
    if (t_ck < now)
        t_ck = now;
    if (t_fin <= t_ck)
        set_timer(R, j, t_fin, TM_FINISH);
    else
        set_timer(R, j, t_ck, TM_CKPT_START);
}

static void schedule_failure(run *R, sjob *j)
{
    if (j->fail)
        sim_cancel(&R->e, j->fail);
    j->fail = 0;
    if (!(j->fail_rate > 0))
        return;
    if (sim_schedule(&R->e,
                     R->e.now_s + gsl_ran_exponential(j->r, 1.0 / j->fail_rate),
                     PRIO_FAIL, job_fail_fn, R, (uint64_t)(j - R->job),
                     &j->fail) != SIM_OK)
        fail_run(R, SIM_EINVAL);
}

static void enter_run(run *R, sjob *j)
{
    j->state = JS_RUN;
    j->last_t = R->e.now_s;
    schedule_training(R, j);
}

static void enter_restart(run *R, sjob *j)
{
    j->state = JS_RESTART;
    j->last_t = R->e.now_s;
    set_timer(R, j, R->e.now_s + j->sj->restart_s, TM_RESTART_END);
}

static int held_systems(const run *R, const sjob *j)
{
    int n = 0;
    for (size_t m = 0; m < R->n_mod; m++)
        n += j->take[m] + j->spare[m];
    return n;
}

/* Accrues GPU-seconds held up to now. */
static void accrue_held(run *R, sjob *j)
{
    double now = R->e.now_s;
    if (isfinite(j->held_since_s))
        j->gpu_s += (now - j->held_since_s) * held_systems(R, j) * j->sys_gpus;
    j->held_since_s = now;
}

static void accrue_util(run *R)
{
    double now = R->e.now_s, dt = now - R->last_util_t;
    if (dt > 0) {
        for (size_t m = 0; m < R->n_mod; m++) {
            const smod *md = &R->mod[m];
            if (md->commissioned && md->up) {
                R->sys_online_s += dt * md->n_sys;
                R->sys_busy_s +=
                    dt * (md->n_sys - md->free_sys - md->repairing);
            }
        }
    }
    R->last_util_t = now;
}

/* Refunds the unused part of the current step's charge when a job lets go
 * of its systems at now. */
static void refund_step(run *R, sjob *j)
{
    double f;
    if (!j->st_charged)
        return;
    f = 1.0 - (R->e.now_s - j->st_t0) / R->step_s;
    if (f < 0)
        f = 0;
    j->it_j -= f * j->st_it_j;
    j->fac_j -= f * j->st_fac_j;
    j->ren_j -= f * j->st_ren_j;
    j->co2_g -= f * j->st_co2_g;
    j->cost -= f * j->st_cost;
    for (int k = 0; k < SRC_N; k++)
        j->src_j[k] -= f * j->st_src_j[k];
    R->unattributed_j += f * j->st_fac_j;
    j->st_charged = 0;
}

static void release_systems(run *R, sjob *j)
{
    accrue_util(R);
    accrue_held(R, j);
    refund_step(R, j);
    for (size_t m = 0; m < R->n_mod; m++) {
        R->mod[m].free_sys += j->take[m] + j->spare[m];
        j->take[m] = 0;
        j->spare[m] = 0;
    }
    j->spares = 0;
    j->held_since_s = NAN;
    if (j->timer)
        sim_cancel(&R->e, j->timer);
    if (j->fail)
        sim_cancel(&R->e, j->fail);
    j->timer = j->fail = 0;
}

static void job_finish(run *R, sjob *j)
{
    job_advance(R, j);
    j->done = j->total;
    release_systems(R, j);
    j->state = JS_DONE;
    j->end_s = R->e.now_s;
    log_event(R, j, RES_EV_END, RES_CAUSE_NONE, j->total);
}

/* Loses the work since the last checkpoint. */
static double roll_back(sjob *j)
{
    double lost = j->done - j->saved;
    j->done = j->saved;
    j->since_ckpt_s = 0.0;
    return lost;
}

static void job_timer_fn(sim *e, void *ctx, uint64_t arg)
{
    run *R = ctx;
    sjob *j = &R->job[arg];
    (void)e;
    j->timer = 0;
    job_advance(R, j);
    switch (j->timer_kind) {
    case TM_FINISH:
        job_finish(R, j);
        break;
    case TM_CKPT_START:
        if (j->sj->ckpt_write_s > 0) {
            j->state = JS_CKPT;
            set_timer(R, j, e->now_s + j->sj->ckpt_write_s, TM_CKPT_END);
            break;
        }
        /* A free checkpoint: saved at once. */
        j->saved = j->done;
        j->since_ckpt_s = 0.0;
        j->checkpoints++;
        log_event(R, j, RES_EV_CHECKPOINT, RES_CAUSE_NONE, j->saved);
        schedule_training(R, j);
        break;
    case TM_CKPT_END:
        j->saved = j->done;
        j->since_ckpt_s = 0.0;
        j->checkpoints++;
        log_event(R, j, RES_EV_CHECKPOINT, RES_CAUSE_NONE, j->saved);
        enter_run(R, j);
        break;
    case TM_RESTART_END:
        log_event(R, j, RES_EV_RESTART, RES_CAUSE_NONE, j->done);
        enter_run(R, j);
        break;
    default:
        break;
    }
}

/* --------------------------------------------------------------- failures */

static void node_repair_fn(sim *e, void *ctx, uint64_t arg);

/* One system of module m goes out for repair. */
static void send_to_repair(run *R, size_t m, sjob *waiting)
{
    uint64_t a =
        ((uint64_t)m << 32) | (waiting ? (uint64_t)(waiting - R->job) + 1 : 0);
    double dt = gsl_ran_exponential(waiting ? waiting->r : R->mod[m].r,
                                    R->o->rel.node_repair_s);
    R->mod[m].repairing++;
    if (sim_schedule(&R->e, R->e.now_s + dt, PRIO_REPAIR, node_repair_fn, R, a,
                     NULL) != SIM_OK)
        fail_run(R, SIM_EINVAL);
}

static void node_repair_fn(sim *e, void *ctx, uint64_t arg)
{
    run *R = ctx;
    size_t m = (size_t)(arg >> 32);
    uint64_t jw = arg & 0xffffffffu;
    smod *md = &R->mod[m];
    (void)e;
    accrue_util(R);
    if (md->repairing > 0)
        md->repairing--;
    if (!md->up)
        return; /* the module outage took the systems; its repair restores */
    if (jw) {
        sjob *j = &R->job[jw - 1];
        if (j->state == JS_WAIT_REPAIR && (size_t)j->wait_module == m) {
            accrue_held(R, j);
            j->take[m]++;
            enter_restart(R, j);
            schedule_failure(R, j);
            return;
        }
    }
    md->free_sys++;
}

static void job_fail_fn(sim *e, void *ctx, uint64_t arg)
{
    run *R = ctx;
    sjob *j = &R->job[arg];
    res_cause cause;
    double lost;
    (void)e;
    j->fail = 0;
    if (j->state != JS_RUN && j->state != JS_CKPT && j->state != JS_RESTART)
        return;
    job_advance(R, j);
    cause = rel_draw_cause(&R->o->rel.mix, j->r);
    lost = roll_back(j);
    j->interruptions++;
    log_event(R, j, RES_EV_INTERRUPT, cause, lost);
    if (cause == RES_CAUSE_GPU || cause == RES_CAUSE_HOST) {
        /* One working system fails: pick it by the job's systems. */
        int n = 0, pick;
        size_t m = 0;
        for (size_t k = 0; k < R->n_mod; k++)
            n += j->take[k];
        pick = (int)gsl_rng_uniform_int(j->r, (unsigned long)n);
        for (m = 0; m < R->n_mod; m++) {
            if (pick < j->take[m])
                break;
            pick -= j->take[m];
        }
        accrue_util(R);
        accrue_held(R, j);
        j->take[m]--;
        if (j->spares > 0) {
            /* A hot spare takes over (one in the failed system's module if
             * there is one); the failed system returns to the pool after
             * repair. */
            size_t ms = m;
            if (j->spare[ms] == 0)
                for (ms = 0; ms < R->n_mod && j->spare[ms] == 0; ms++)
                    ;
            j->spare[ms]--;
            j->spares--;
            j->take[ms]++;
            send_to_repair(R, m, NULL);
        } else {
            size_t alt = R->n_mod;
            for (size_t k = 0; k < R->n_mod; k++)
                if (j->take[k] > 0 || k == m) {
                    if (R->mod[k].up && R->mod[k].free_sys > 0) {
                        alt = k;
                        break;
                    }
                }
            if (alt < R->n_mod) {
                R->mod[alt].free_sys--;
                j->take[alt]++;
                send_to_repair(R, m, NULL);
            } else {
                j->state = JS_WAIT_REPAIR;
                j->wait_module = (int)m;
                if (j->timer)
                    sim_cancel(&R->e, j->timer);
                j->timer = 0;
                send_to_repair(R, m, j);
                return; /* no failures while it waits */
            }
        }
    }
    enter_restart(R, j);
    schedule_failure(R, j);
}

static void mod_event_fn(sim *e, void *ctx, uint64_t arg);

static void schedule_module_outage(run *R, size_t m)
{
    const site_rel *rl = &R->o->rel;
    if (!rl->enabled || !(rl->module_mtbf_s > 0))
        return;
    if (sim_schedule(
            &R->e,
            R->e.now_s + gsl_ran_exponential(R->mod[m].r, rl->module_mtbf_s),
            PRIO_MOD, mod_event_fn, R, (uint64_t)m << 1, NULL) != SIM_OK)
        fail_run(R, SIM_EINVAL);
}

static void set_fail_rate(run *R, sjob *j);

/* arg = module << 1 | repair. */
static void mod_event_fn(sim *e, void *ctx, uint64_t arg)
{
    run *R = ctx;
    size_t m = (size_t)(arg >> 1);
    smod *md = &R->mod[m];
    (void)e;
    accrue_util(R);
    if (arg & 1) {
        md->up = 1;
        md->free_sys = md->n_sys;
        md->repairing = 0;
        for (size_t k = 0; k < R->n_job; k++)
            md->free_sys -= R->job[k].take[m];
        schedule_module_outage(R, m);
        return;
    }
    /* Outage: every job with systems here is interrupted and queues again
     * with its checkpoint; its other systems go back to their modules. */
    for (size_t k = 0; k < R->n_job; k++) {
        sjob *j = &R->job[k];
        if (j->take[m] == 0 &&
            !(j->state == JS_WAIT_REPAIR && (size_t)j->wait_module == m))
            continue;
        if (j->state == JS_QUEUED || j->state == JS_DONE ||
            j->state == JS_PENDING)
            continue;
        job_advance(R, j);
        {
            double lost = roll_back(j);
            j->interruptions++;
            log_event(R, j, RES_EV_INTERRUPT, RES_CAUSE_MODULE, lost);
        }
        release_systems(R, j);
        j->state = JS_QUEUED;
        j->restart_pending = 1;
    }
    md->up = 0;
    md->free_sys = 0;
    if (sim_schedule(
            &R->e,
            R->e.now_s + gsl_ran_exponential(md->r, R->o->rel.module_mttr_s),
            PRIO_MOD, mod_event_fn, R, (uint64_t)m << 1 | 1u, NULL) != SIM_OK)
        fail_run(R, SIM_EINVAL);
}

static void mod_online_fn(sim *e, void *ctx, uint64_t arg)
{
    run *R = ctx;
    (void)e;
    accrue_util(R);
    R->mod[arg].commissioned = 1;
    schedule_module_outage(R, (size_t)arg);
}

static void submit_fn(sim *e, void *ctx, uint64_t arg)
{
    run *R = ctx;
    sjob *j = &R->job[arg];
    tp_result tr;
    (void)e;
    /* The backfill estimate, and an early error for a job that cannot be
     * predicted at all. */
    if (site_job_throughput(R->s, j->sj, R->o->tp, 0.0, 0.0, &tr, R->err) !=
        SIM_OK) {
        fail_run(R, SIM_EINVAL);
        return;
    }
    j->rate_est = tr.tokens_per_sec_per_gpu * j->sj->gpus;
    j->state = JS_QUEUED;
    log_event(R, j, RES_EV_SUBMIT, RES_CAUSE_NONE, 0);
}

/* -------------------------------------------------------------- scheduler */

static void set_fail_rate(run *R, sjob *j)
{
    const site_rel *rl = &R->o->rel;
    double lam = 0.0, mtbi;
    int mods = 0;
    for (size_t m = 0; m < R->n_mod; m++)
        mods += j->take[m] > 0;
    if (rl->enabled) {
        lam = rl->rate_per_gpu_s * j->sj->gpus;
        j->fail_rate = lam;
        if (rl->module_mtbf_s > 0)
            lam += mods / rl->module_mtbf_s;
    } else {
        j->fail_rate = 0.0;
    }
    if (j->sj->ckpt == CKPT_FIXED) {
        j->tau_s = j->sj->ckpt_interval_s;
    } else {
        mtbi = lam > 0 ? 1.0 / lam : (double)INFINITY;
        j->tau_s = isfinite(mtbi)
                       ? rel_daly_interval_s(j->sj->ckpt_write_s, mtbi)
                       : (double)INFINITY;
        if (j->tau_s < CKPT_MIN_INTERVAL_S)
            j->tau_s = CKPT_MIN_INTERVAL_S;
    }
}

/* Tries to place job j now; on success it holds its systems and starts. */
static int try_place(run *R, sjob *j, int need_total)
{
    int used;
    for (size_t m = 0; m < R->n_mod; m++) {
        R->smv[m].online = R->mod[m].commissioned && R->mod[m].up;
        R->smv[m].gpu_type = R->mod[m].gpu_type;
        R->smv[m].group = R->mod[m].fabric;
        R->smv[m].free_sys = R->mod[m].free_sys;
    }
    used =
        sched_place(R->smv, R->n_mod, j->gpu_type, need_total, 1, R->place_tmp);
    if (used == 0)
        return 0;
    {
        tp_result tr;
        double bps, lat;
        int spares = j->spares_total;
        accrue_util(R);
        placement_link(R, j, R->place_tmp, &bps, &lat);
        if (site_job_throughput(R->s, j->sj, R->o->tp, bps, lat, &tr, R->err) !=
            SIM_OK) {
            fail_run(R, SIM_EINVAL);
            return 0;
        }
        /* The spares are the last systems taken, from the last modules. */
        for (size_t m = R->n_mod; m-- > 0 && spares > 0;) {
            int k = R->place_tmp[m] < spares ? R->place_tmp[m] : spares;
            R->place_tmp[m] -= k;
            j->spare[m] = k;
            spares -= k;
        }
        j->spares = j->spares_total;
        for (size_t m = 0; m < R->n_mod; m++) {
            j->take[m] = R->place_tmp[m];
            R->mod[m].free_sys -= R->place_tmp[m] + j->spare[m];
        }
        j->rate = tr.tokens_per_sec_per_gpu * j->sj->gpus;
        if (!(j->rate > 0)) {
            sim_err_set(R->err, SIM_EINVAL, NULL, 0,
                        "job '%s': predicted throughput is %g tokens/s",
                        j->sj->name, j->rate);
            fail_run(R, SIM_EINVAL);
            return 0;
        }
        if (!isfinite(j->start_s)) {
            j->start_s = R->e.now_s;
            j->rate0 = j->rate;
            j->tps_gpu0 = tr.tokens_per_sec_per_gpu;
            j->modules0 = used;
        }
        j->held_since_s = R->e.now_s;
        j->thr = 1.0;
        set_fail_rate(R, j);
        log_event(R, j, RES_EV_START, RES_CAUSE_NONE, (double)j->sj->gpus);
        if (j->restart_pending) {
            j->restart_pending = 0;
            enter_restart(R, j);
        } else {
            enter_run(R, j);
        }
        schedule_failure(R, j);
        j->est_end_s = R->e.now_s + (j->total - j->done) / j->rate;
    }
    return 1;
}

static int queue_before(const sjob *a, const sjob *b)
{
    if (a->sj->priority != b->sj->priority)
        return a->sj->priority > b->sj->priority;
    if (a->sj->submit_t_s != b->sj->submit_t_s)
        return a->sj->submit_t_s < b->sj->submit_t_s;
    return a < b;
}

/* FIFO by (priority, submit time, order) with EASY backfill (sched.h). */
static void schedule_jobs(run *R)
{
    for (;;) {
        sjob *head = NULL;
        for (size_t k = 0; k < R->n_job; k++) {
            sjob *j = &R->job[k];
            if (j->state == JS_QUEUED && (!head || queue_before(j, head)))
                head = j;
        }
        if (!head)
            return;
        if (try_place(R, head, head->sys_needed + head->spares_total)) {
            if (R->err_code)
                return;
            continue;
        }
        if (R->err_code)
            return;
        /* The head waits: reserve, then backfill in queue order. */
        {
            double shadow;
            int extra, free_now = 0;
            size_t n_run = 0;
            for (size_t m = 0; m < R->n_mod; m++)
                if (R->mod[m].commissioned && R->mod[m].up &&
                    R->mod[m].gpu_type == head->gpu_type)
                    free_now += R->mod[m].free_sys;
            for (size_t k = 0; k < R->n_job; k++) {
                sjob *j = &R->job[k];
                if (j->state == JS_QUEUED || j->state == JS_DONE ||
                    j->state == JS_PENDING)
                    continue;
                R->runv[n_run].est_end_s = j->est_end_s;
                R->runv[n_run].gpu_type = j->gpu_type;
                R->runv[n_run].systems = held_systems(R, j);
                n_run++;
            }
            sched_shadow(R->runv, n_run, head->gpu_type, free_now,
                         head->sys_needed + head->spares_total, &shadow,
                         &extra);
            for (;;) {
                sjob *best = NULL;
                for (size_t k = 0; k < R->n_job; k++) {
                    sjob *j = &R->job[k];
                    int need = j->sys_needed + j->spares_total;
                    double est;
                    if (j == head || j->state != JS_QUEUED || j->skip)
                        continue;
                    est = R->e.now_s + (j->total - j->done) / j->rate_est;
                    if (j->gpu_type == head->gpu_type &&
                        !sched_may_backfill(est, need, shadow, extra))
                        continue;
                    if (!best || queue_before(j, best))
                        best = j;
                }
                if (!best)
                    break;
                if (try_place(R, best, best->sys_needed + best->spares_total)) {
                    if (best->gpu_type == head->gpu_type &&
                        best->est_end_s > shadow)
                        extra -= best->sys_needed + best->spares_total;
                } else {
                    best->skip = 1; /* for the rest of this pass */
                }
                if (R->err_code)
                    return;
            }
            for (size_t k = 0; k < R->n_job; k++)
                R->job[k].skip = 0;
        }
        return;
    }
}

/* ------------------------------------------------------------------- power */

static void charge_job(run *R, sjob *j, const dispatch_job_out *jo,
                       const double *mix_j_per_j)
{
    double dt = R->step_s;
    j->st_t0 = R->e.now_s;
    j->st_it_j = jo->it_w * dt;
    j->st_fac_j = jo->energy_j;
    j->st_ren_j = jo->renewable_j;
    j->st_co2_g = jo->carbon_g;
    j->st_cost = jo->cost_usd;
    j->it_j += j->st_it_j;
    j->fac_j += j->st_fac_j;
    j->ren_j += j->st_ren_j;
    j->co2_g += j->st_co2_g;
    j->cost += j->st_cost;
    for (int k = 0; k < SRC_N; k++) {
        j->st_src_j[k] = jo->energy_j * mix_j_per_j[k];
        j->src_j[k] += j->st_src_j[k];
    }
    j->st_charged = 1;
}

static int holds_power(const sjob *j)
{
    return j->state == JS_RUN || j->state == JS_CKPT ||
           j->state == JS_RESTART || j->state == JS_WAIT_REPAIR ||
           j->state == JS_PAUSED || j->state == JS_SHED;
}

/* Applies the dispatch decision for job j over the coming step. */
static void apply_decision(run *R, sjob *j, const dispatch_job_out *jo)
{
    int st = jo->state;
    /* A job waiting for a repaired system is idle already; it keeps its
     * place for the system (the repair event hands it over). */
    if (j->state == JS_WAIT_REPAIR)
        return;
    if (st == DISPATCH_PAUSED || st == DISPATCH_SHED) {
        if (j->state == JS_PAUSED || j->state == JS_SHED)
            return;
        job_advance(R, j);
        if (st == DISPATCH_PAUSED) {
            /* Pause: the job checkpoints first, so no completed work is
             * lost (the write happens inside this step's first seconds). */
            if (j->done > j->saved || j->state == JS_CKPT) {
                j->saved = j->done;
                j->checkpoints++;
                log_event(R, j, RES_EV_CHECKPOINT, RES_CAUSE_NONE, j->saved);
            }
            j->since_ckpt_s = 0.0;
            j->state = JS_PAUSED;
            j->pauses++;
            log_event(R, j, RES_EV_PAUSE, RES_CAUSE_POWER, j->saved);
        } else {
            double lost = roll_back(j);
            j->state = JS_SHED;
            log_event(R, j, RES_EV_SHED, RES_CAUSE_POWER, lost);
        }
        if (j->timer)
            sim_cancel(&R->e, j->timer);
        if (j->fail)
            sim_cancel(&R->e, j->fail);
        j->timer = j->fail = 0;
        return;
    }
    if (j->state == JS_PAUSED || j->state == JS_SHED) {
        log_event(R, j, RES_EV_RESUME, RES_CAUSE_NONE, j->saved);
        j->thr = jo->throughput > 0 ? jo->throughput : 1.0;
        enter_restart(R, j);
        schedule_failure(R, j);
        return;
    }
    {
        double thr = jo->throughput > 0 ? jo->throughput : 1.0;
        if (thr > 1.0)
            thr = 1.0;
        if (thr != j->thr) {
            job_advance(R, j);
            j->thr = thr;
            log_event(R, j, RES_EV_THROTTLE, RES_CAUSE_POWER, thr);
            if (j->state == JS_RUN)
                schedule_training(R, j);
        }
    }
}

/* Source mix of the load served this step, as J per J of load. */
static void step_mix(const run *R, const dispatch_out *o, double mix[SRC_N],
                     double w[SRC_N])
{
    double tot = 0.0;
    memset(w, 0, SRC_N * sizeof *w);
    for (size_t i = 0; i < site_power_n_dispatch_sources(R->sp); i++)
        w[site_power_source_kind(R->sp, i)] += o->src_load_w[i];
    w[SRC_BATTERY] += o->discharge_w;
    for (int k = 0; k < SRC_N; k++)
        tot += w[k];
    for (int k = 0; k < SRC_N; k++)
        mix[k] = tot > 0 ? w[k] / tot : 0.0;
}

static void step_fn(sim *e, void *ctx, uint64_t arg)
{
    run *R = ctx;
    const dispatch_out *o = NULL;
    size_t nd = 0;
    double mix[SRC_N], srcw[SRC_N];
    (void)arg;

    R->t_step = e->now_s;
    accrue_util(R);
    for (size_t k = 0; k < R->n_job; k++)
        R->job[k].st_charged = 0;
    schedule_jobs(R);
    if (R->err_code)
        return;
    /* Demand: each job's systems per power-model module (scenario group). */
    memset(R->busy_grp, 0, R->n_grp * sizeof *R->busy_grp);
    for (size_t k = 0; k < R->n_job; k++) {
        sjob *j = &R->job[k];
        if (!holds_power(j))
            continue;
        for (size_t g = 0; g < R->n_grp; g++) {
            double nsys = 0;
            load_demand d;
            /* Hot spares idle: they stay in the module's base load. */
            for (size_t m = 0; m < R->n_mod; m++)
                if (R->mod[m].grp == g)
                    nsys += j->take[m];
            if (nsys <= 0)
                continue;
            R->busy_grp[g] += nsys;
            load_training_demand(&R->lcfg[g], &R->lsys[g],
                                 nsys * R->lsys[g].n_gpus,
                                 LOAD_DEFAULT_COMPUTE_FRAC, &d);
            R->dj[nd].module = g;
            R->dj[nd].gpu_w = d.gpu_w;
            R->dj[nd].other_w = d.other_w;
            R->dj[nd].idle_w = d.idle_w;
            R->dj[nd].gpu_frac_tdp = d.gpu_frac_tdp;
            R->dj[nd].priority = j->sj->priority;
            if (j->state == JS_RESTART || j->state == JS_WAIT_REPAIR) {
                /* Not computing: the GPUs draw their idle power. */
                R->dj[nd].gpu_w = 0.0;
                R->dj[nd].other_w = d.idle_w;
            }
            R->dj_job[nd] = k;
            nd++;
        }
    }
    for (size_t g = 0; g < R->n_grp; g++) {
        double down = 0;
        for (size_t m = 0; m < R->n_mod; m++)
            if (R->mod[m].grp == g &&
                (!R->mod[m].up || !R->mod[m].commissioned))
                down += R->mod[m].n_sys;
        R->base_it[g] = site_power_module_base_it_w(R->sp, g, e->now_s,
                                                    R->busy_grp[g] + down);
    }
    if (site_power_step(R->sp, e->now_s, R->dj, nd, R->base_it, &o, R->err) !=
        SIM_OK) {
        fail_run(R, SIM_ENUMERIC);
        return;
    }
    step_mix(R, o, mix, srcw);
    for (int k = 0; k < SRC_N; k++)
        R->src_site_j[k] += srcw[k] * R->step_s;
    /* A job split across groups has several entries: its decision is the
     * most restrictive one, and its charge the sum. */
    for (size_t i = 0; i < nd; i++) {
        sjob *j = &R->job[R->dj_job[i]];
        dispatch_job_out jo = o->job[i];
        for (size_t k = i + 1; k < nd && R->dj_job[k] == R->dj_job[i]; k++) {
            const dispatch_job_out *x = &o->job[k];
            if (x->state > jo.state)
                jo.state = x->state;
            if (x->throughput < jo.throughput)
                jo.throughput = x->throughput;
            jo.it_w += x->it_w;
            jo.energy_j += x->energy_j;
            jo.renewable_j += x->renewable_j;
            jo.carbon_g += x->carbon_g;
            jo.cost_usd += x->cost_usd;
            i = k;
        }
        charge_job(R, j, &jo, mix);
        apply_decision(R, j, &jo);
    }
    if (R->o->record_steps) {
        res_rep *out = R->out;
        size_t n;
        const site_power_record *rec = site_power_records(R->sp, &n);
        res_step *st;
        sim_grow((void **)&out->steps, &R->cap_st, out->n_steps + 1,
                 sizeof *out->steps);
        st = &out->steps[out->n_steps++];
        memset(st, 0, sizeof *st);
        st->t_s = e->now_s;
        st->it_w = o->it_w;
        st->facility_w = o->load_w;
        st->demand_w = o->demand_w;
        for (int k = 0; k < SRC_N; k++)
            st->source_w[k] = srcw[k];
        st->battery_charge_w = o->charge_w;
        st->curtailed_w = o->curtailed_w;
        st->shortfall_w = o->shortfall_w;
        st->throttle = o->throttle;
        if (rec && n > 0) {
            st->soc_frac =
                site_power_n_batteries(R->sp) ? rec[n - 1].soc : (double)NAN;
            st->soh_frac =
                site_power_n_batteries(R->sp) ? rec[n - 1].soh : (double)NAN;
            st->ambient_c = rec[n - 1].t_db_c;
            st->pue = rec[n - 1].pue;
        }
    }
    if (e->now_s + R->step_s < R->horizon_s - 1e-9 * R->horizon_s) {
        if (sim_schedule(e, e->now_s + R->step_s, PRIO_STEP, step_fn, R, 0,
                         NULL) != SIM_OK)
            fail_run(R, SIM_EINVAL);
    } else {
        R->t_step = e->now_s;
    }
}

/* ------------------------------------------------------------------ set-up */

static int gpu_type_index(const scenario *s, const gpu_spec *g)
{
    int t = 0;
    for (size_t i = 0; i < s->n_modules; i++) {
        if (s->modules[i].gpu == g)
            return t;
        /* Count distinct GPU types in order of first appearance. */
        {
            int seen = 0;
            for (size_t k = 0; k < i; k++)
                seen |= s->modules[k].gpu == s->modules[i].gpu;
            if (!seen)
                t++;
        }
    }
    return -1;
}

static int find_root(int *p, int i)
{
    while (p[i] != i)
        i = p[i] = p[p[i]];
    return i;
}

static void run_free(run *R)
{
    for (size_t m = 0; m < R->n_mod; m++)
        gsl_rng_free(R->mod[m].r);
    for (size_t k = 0; k < R->n_job; k++) {
        gsl_rng_free(R->job[k].r);
        free(R->job[k].take);
        free(R->job[k].spare);
    }
    free(R->mod);
    free(R->job);
    free(R->place_tmp);
    free(R->smv);
    free(R->runv);
    free(R->dj);
    free(R->dj_job);
    free(R->base_it);
    free(R->busy_grp);
    free(R->lcfg);
    free(R->lsys);
    site_power_free(R->sp);
    if (R->e.q)
        sim_fini(&R->e);
}

static void fill_results(run *R)
{
    res_rep *out = R->out;
    const site_power_totals *t = site_power_get_totals(R->sp);
    res_site *st = &out->site;
    /* A site that cannot import grid energy and has no other
     * non-renewable source (registry, models/source.h) has only renewable
     * sources (its batteries' first charge counts as renewable off-grid),
     * so every share is 1 by construction. The ratio of the separately
     * summed renewable and facility energies would miss 1 by rounding, so
     * it is not computed then (issue 12.8). */
    int all_ren = !scenario_grid_connected(R->s);
    for (int k = 0; k < SRC_N; k++)
        if (!source_table[k].renewable && source_table[k].role != SOURCE_GRID &&
            source_table[k].role != SOURCE_STORAGE &&
            scenario_source_rating_w(R->s, (source_kind)k) > 0)
            all_ren = 0;
    out->n_jobs = R->n_job;
    out->jobs = sim_xcalloc(R->n_job, sizeof *out->jobs);
    for (size_t k = 0; k < R->n_job; k++) {
        sjob *j = &R->job[k];
        res_job *rj = &out->jobs[k];
        if (isfinite(j->held_since_s))
            accrue_held(R, j);
        rj->completed = j->state == JS_DONE;
        rj->submit_s = j->sj->submit_t_s;
        rj->start_s = j->start_s;
        rj->end_s = rj->completed ? j->end_s : (double)NAN;
        rj->time_to_train_s =
            rj->completed ? j->end_s - rj->submit_s : (double)NAN;
        rj->run_time_s = rj->completed ? j->end_s - j->start_s : (double)NAN;
        rj->gpu_s = j->gpu_s;
        rj->goodput = rj->completed && rj->run_time_s > 0
                          ? j->total / j->rate0 / rj->run_time_s
                          : (double)NAN;
        rj->tokens = j->done;
        rj->tokens_per_sec_per_gpu = j->tps_gpu0;
        rj->gpus = j->sj->gpus;
        rj->modules_spanned = j->modules0;
        rj->interruptions = j->interruptions;
        rj->checkpoints = j->checkpoints;
        rj->pauses = j->pauses;
        rj->it_energy_j = j->it_j;
        rj->facility_energy_j = j->fac_j;
        for (int s = 0; s < SRC_N; s++)
            rj->energy_by_source_j[s] = j->src_j[s];
        rj->renewable_fraction =
            j->fac_j > 0 ? (all_ren ? 1.0 : j->ren_j / j->fac_j) : (double)NAN;
        rj->co2_kg = j->co2_g / 1000.0;
        rj->cost_usd = j->cost;
    }
    st->it_energy_j = t->it_j;
    st->facility_energy_j = t->facility_j;
    for (int s = 0; s < SRC_N; s++)
        st->energy_by_source_j[s] = R->src_site_j[s];
    st->battery_charge_j = t->charge_j;
    st->curtailed_j = t->curtailed_j;
    st->shortfall_j = t->shortfall_j;
    st->time_short_s = t->time_short_s;
    st->utilization =
        R->sys_online_s > 0 ? R->sys_busy_s / R->sys_online_s : 0.0;
    st->battery_cycles = t->battery_efc;
    st->battery_soh_final =
        site_power_n_batteries(R->sp) ? t->battery_soh : (double)NAN;
    st->renewable_fraction =
        t->facility_j > 0 ? (all_ren ? 1.0 : t->renewable_j / t->facility_j)
                          : (double)NAN;
    st->co2_kg = t->carbon_g / 1000.0;
    st->cost_usd = t->cost_usd;
    st->pue_mean = t->it_j > 0 ? t->facility_j / t->it_j : (double)NAN;
    st->solar_capacity_factor =
        t->solar_p_ac0_w > 0 && t->time_s > 0
            ? t->gen_j[SRC_SOLAR] / (t->solar_p_ac0_w * t->time_s)
            : (double)NAN;
    st->wind_capacity_factor =
        t->wind_capacity_w > 0 && t->time_s > 0
            ? t->gen_j[SRC_WIND] / (t->wind_capacity_w * t->time_s)
            : (double)NAN;
}

int site_run(const scenario *s, const site_opts *o, res_rep *out, sim_err *err)
{
    run R;
    int rc;

    memset(&R, 0, sizeof R);
    memset(out, 0, sizeof *out);
    out->replication = o->replication;
    if (!o->tp)
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "site_run: no throughput model");
    R.s = s;
    R.o = o;
    R.err = err;
    R.out = out;
    R.step_s = s->sim.step_s;
    R.horizon_s = s->sim.horizon_s;
    rc = site_power_from_scenario(s, o->weather, o->seed, o->replication,
                                  o->record_steps, &R.sp, err);
    if (rc != SIM_OK)
        return rc;
    sim_init(&R.e);
    R.n_grp = s->n_modules;
    R.lcfg = sim_xcalloc(R.n_grp, sizeof *R.lcfg);
    R.lsys = sim_xcalloc(R.n_grp, sizeof *R.lsys);
    for (size_t g = 0; g < R.n_grp; g++) {
        const scen_module *sm = &s->modules[g];
        load_cfg_default(&R.lcfg[g], sm->type->it_power_w);
        R.lsys[g].n_gpus = sm->system->gpus;
        R.lsys[g].gpu_tdp_w = sm->gpu->tdp_w;
        R.lsys[g].system_max_w = sm->system->max_power_w;
    }
    /* Fabric groups: union of module groups joined by links; with no links,
     * one spine joins every module. */
    {
        int *p = sim_xmalloc((s->n_modules ? s->n_modules : 1) * sizeof *p);
        for (size_t g = 0; g < s->n_modules; g++)
            p[g] = s->fabric.n_links ? (int)g : 0;
        for (size_t l = 0; l < s->fabric.n_links; l++) {
            int a = find_root(p, (int)s->fabric.links[l].a);
            int b = find_root(p, (int)s->fabric.links[l].b);
            if (a != b)
                p[a < b ? b : a] = a < b ? a : b;
        }
        for (size_t g = 0; g < s->n_modules; g++)
            R.n_mod += (size_t)s->modules[g].count;
        R.mod = sim_xcalloc(R.n_mod ? R.n_mod : 1, sizeof *R.mod);
        {
            size_t m = 0;
            for (size_t g = 0; g < s->n_modules; g++) {
                const scen_module *sm = &s->modules[g];
                for (int k = 0; k < sm->count; k++, m++) {
                    char name[96];
                    smod *md = &R.mod[m];
                    md->grp = g;
                    md->n_sys = sm->units;
                    md->free_sys = sm->units;
                    md->up = 1;
                    md->fabric = find_root(p, (int)g);
                    md->gpu_type = gpu_type_index(s, sm->gpu);
                    snprintf(name, sizeof name, "module/%s/%d", sm->name, k);
                    md->r = rng_stream_new(NULL, o->seed, o->replication,
                                           rng_stream_id(name));
                }
            }
        }
        free(p);
    }
    R.n_job = s->n_jobs;
    R.job = sim_xcalloc(R.n_job ? R.n_job : 1, sizeof *R.job);
    for (size_t k = 0; k < R.n_job; k++) {
        sjob *j = &R.job[k];
        const scen_job *sj = &s->jobs[k];
        char name[96];
        j->sj = sj;
        j->take = sim_xcalloc(R.n_mod ? R.n_mod : 1, sizeof *j->take);
        j->spare = sim_xcalloc(R.n_mod ? R.n_mod : 1, sizeof *j->spare);
        j->gpu_type = gpu_type_index(s, sj->gpu);
        j->sys_gpus = 8;
        for (size_t g = 0; g < s->n_modules; g++)
            if (s->modules[g].gpu == sj->gpu) {
                j->sys_gpus = s->modules[g].system->gpus;
                break;
            }
        j->sys_needed = (sj->gpus + j->sys_gpus - 1) / j->sys_gpus;
        j->spares_total = (sj->hot_spares + j->sys_gpus - 1) / j->sys_gpus;
        j->total = sj->tokens;
        j->start_s = NAN;
        j->end_s = NAN;
        j->held_since_s = NAN;
        j->thr = 1.0;
        j->tau_s = INFINITY;
        snprintf(name, sizeof name, "job/%s", sj->name);
        j->r =
            rng_stream_new(NULL, o->seed, o->replication, rng_stream_id(name));
    }
    R.place_tmp = sim_xcalloc(R.n_mod ? R.n_mod : 1, sizeof *R.place_tmp);
    R.smv = sim_xcalloc(R.n_mod ? R.n_mod : 1, sizeof *R.smv);
    R.runv = sim_xcalloc(R.n_job ? R.n_job : 1, sizeof *R.runv);
    R.dj = sim_xcalloc((R.n_job ? R.n_job : 1) * (R.n_grp ? R.n_grp : 1),
                       sizeof *R.dj);
    R.dj_job = sim_xcalloc((R.n_job ? R.n_job : 1) * (R.n_grp ? R.n_grp : 1),
                           sizeof *R.dj_job);
    R.base_it = sim_xcalloc(R.n_grp ? R.n_grp : 1, sizeof *R.base_it);
    R.busy_grp = sim_xcalloc(R.n_grp ? R.n_grp : 1, sizeof *R.busy_grp);

    /* Initial events. */
    rc = site_power_attach(R.sp, &R.e);
    for (size_t m = 0; m < R.n_mod && rc == SIM_OK; m++)
        rc = sim_schedule(&R.e, s->modules[R.mod[m].grp].commission_t_s,
                          PRIO_ONLINE, mod_online_fn, &R, m, NULL);
    for (size_t k = 0; k < R.n_job && rc == SIM_OK; k++)
        rc = sim_schedule(&R.e, s->jobs[k].submit_t_s, PRIO_SUBMIT, submit_fn,
                          &R, k, NULL);
    if (rc == SIM_OK)
        rc = sim_schedule(&R.e, 0.0, PRIO_STEP, step_fn, &R, 0, NULL);
    if (rc != SIM_OK) {
        run_free(&R);
        return sim_err_set(err, rc, NULL, 0,
                           "site_run: could not schedule the initial events");
    }
    sim_run_until(&R.e, R.horizon_s);
    if (R.err_code != SIM_OK) {
        int code = R.err_code;
        run_free(&R);
        res_rep_free(out);
        if (err && err->code == SIM_OK)
            sim_err_set(err, code, NULL, 0, "site_run failed");
        return code;
    }
    accrue_util(&R);
    fill_results(&R);
    run_free(&R);
    return SIM_OK;
}

int site_run_reps(const scenario *s, const site_opts *base, uint32_t first_rep,
                  size_t n, res_rep *reps, sim_err *err)
{
    site_opts o = *base;
    for (size_t r = 0; r < n; r++) {
        int rc;
        o.replication = first_rep + (uint32_t)r;
        rc = site_run(s, &o, &reps[r], err);
        if (rc != SIM_OK) {
            for (size_t k = 0; k < r; k++)
                res_rep_free(&reps[k]);
            return rc;
        }
    }
    return SIM_OK;
}
