/* models/job_fsm.c: the job state machine of a site run (models/job_fsm.h,
 * models/site_int.h): a job's progress, checkpoints, interruptions, system
 * repairs, whole-module outages, submission, the start of a placed job and
 * the power decisions (pause, shed, resume, throttle) applied to it.
 *
 * It owns every write of sjob.state (job_set_state, which checks the move
 * against the table below) and the job's systems once held. It must never
 * choose where a job runs (site_sched.c), price energy (site_energy.c) or
 * touch results beyond the job's event log and counters (site.c).
 *
 * Transitions (from -> to: the function that performs it):
 *
 *   PENDING     -> QUEUED       job_submit_fn (the job's submit time)
 *   QUEUED      -> RUN          job_start via enter_run (placed by the
 *                               scheduler, site_sched.c try_place)
 *   QUEUED      -> RESTART      job_start via enter_restart (re-placed
 *                               after a module outage)
 *   RUN         -> CKPT         job_timer_fn, TM_CKPT_START
 *   CKPT        -> RUN          job_timer_fn via enter_run, TM_CKPT_END
 *   RESTART     -> RUN          job_timer_fn via enter_run, TM_RESTART_END
 *   RUN         -> DONE         job_finish (job_timer_fn, TM_FINISH)
 *   RUN, CKPT, RESTART
 *               -> RESTART      job_fail_fn via enter_restart (interruption;
 *                               a spare or a free system replaces a failed one)
 *               -> WAIT_REPAIR  job_fail_fn (no system to replace it)
 *               -> PAUSED       job_apply_decision (power pause)
 *               -> SHED         job_apply_decision (power shed)
 *   WAIT_REPAIR -> RESTART      node_repair_fn via enter_restart
 *   PAUSED, SHED
 *               -> RESTART      job_apply_decision via enter_restart (resume)
 *   RUN, CKPT, RESTART, WAIT_REPAIR, PAUSED, SHED
 *               -> QUEUED       mod_event_fn (a whole-module outage)
 *
 * DONE is final. The same moves are the data of job_fsm_table; any other
 * write fails FS_ASSERT in a checked build (Makefile ASSERTS=1).
 */
#include "models/job_fsm.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>

#include "models/site_int.h"
#include "sim/fsassert.h"

#define CKPT_MIN_INTERVAL_S 60.0 /* floor on a computed interval */

typedef struct job_move {
    job_state from, to;
    const char *by; /* the function that performs it */
} job_move;

static const job_move job_fsm_table[] = {
    {JS_PENDING, JS_QUEUED, "job_submit_fn"},
    {JS_QUEUED, JS_RUN, "job_start"},
    {JS_QUEUED, JS_RESTART, "job_start"},
    {JS_RUN, JS_CKPT, "job_timer_fn"},
    {JS_CKPT, JS_RUN, "job_timer_fn"},
    {JS_RESTART, JS_RUN, "job_timer_fn"},
    {JS_RUN, JS_DONE, "job_finish"},
    {JS_RUN, JS_RESTART, "job_fail_fn"},
    {JS_CKPT, JS_RESTART, "job_fail_fn"},
    {JS_RESTART, JS_RESTART, "job_fail_fn"},
    {JS_RUN, JS_WAIT_REPAIR, "job_fail_fn"},
    {JS_CKPT, JS_WAIT_REPAIR, "job_fail_fn"},
    {JS_RESTART, JS_WAIT_REPAIR, "job_fail_fn"},
    {JS_RUN, JS_PAUSED, "job_apply_decision"},
    {JS_CKPT, JS_PAUSED, "job_apply_decision"},
    {JS_RESTART, JS_PAUSED, "job_apply_decision"},
    {JS_RUN, JS_SHED, "job_apply_decision"},
    {JS_CKPT, JS_SHED, "job_apply_decision"},
    {JS_RESTART, JS_SHED, "job_apply_decision"},
    {JS_WAIT_REPAIR, JS_RESTART, "node_repair_fn"},
    {JS_PAUSED, JS_RESTART, "job_apply_decision"},
    {JS_SHED, JS_RESTART, "job_apply_decision"},
    {JS_RUN, JS_QUEUED, "mod_event_fn"},
    {JS_CKPT, JS_QUEUED, "mod_event_fn"},
    {JS_RESTART, JS_QUEUED, "mod_event_fn"},
    {JS_WAIT_REPAIR, JS_QUEUED, "mod_event_fn"},
    {JS_PAUSED, JS_QUEUED, "mod_event_fn"},
    {JS_SHED, JS_QUEUED, "mod_event_fn"},
};

#define N_MOVES (sizeof job_fsm_table / sizeof job_fsm_table[0])

const char *job_state_name(job_state s)
{
    static const char *const names[JS_N] = {"PENDING", "QUEUED",  "RUN",
                                            "CKPT",    "RESTART", "WAIT_REPAIR",
                                            "PAUSED",  "SHED",    "DONE"};
    return (unsigned)s < JS_N ? names[s] : "?";
}

const char *job_fsm_performer(job_state from, job_state to)
{
    for (size_t i = 0; i < N_MOVES; i++)
        if (job_fsm_table[i].from == from && job_fsm_table[i].to == to)
            return job_fsm_table[i].by;
    return NULL;
}

int job_fsm_allowed(job_state from, job_state to)
{
    return job_fsm_performer(from, to) != NULL;
}

/* The one write of a job's state. In a checked build an illegal move names
 * the job and both states before FS_ASSERT aborts (a bug, never input). */
static void job_set_state(sjob *j, job_state to)
{
#ifndef FS_NDEBUG
    if (!job_fsm_allowed(j->state, to))
        fprintf(stderr, "job '%s': %s -> %s is not in the transition table\n",
                j->sj->name, job_state_name(j->state), job_state_name(to));
#endif
    FS_ASSERT(job_fsm_allowed(j->state, to));
    j->state = to;
}

/* --------------------------------------------------------------- progress */

/* Integrates the job's progress up to now (it advances only in RUN). */
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
    FS_ASSERT(j->saved <= j->done && j->done <= j->total);
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
        site_fail_run(R, SIM_EINVAL);
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
        site_fail_run(R, SIM_EINVAL);
}

static void enter_run(run *R, sjob *j)
{
    job_set_state(j, JS_RUN);
    j->last_t = R->e.now_s;
    schedule_training(R, j);
}

static void enter_restart(run *R, sjob *j)
{
    job_set_state(j, JS_RESTART);
    j->last_t = R->e.now_s;
    set_timer(R, j, R->e.now_s + j->sj->restart_s, TM_RESTART_END);
}

int job_held_systems(const run *R, const sjob *j)
{
    int n = 0;
    for (size_t m = 0; m < R->n_mod; m++)
        n += j->take[m] + j->spare[m];
    return n;
}

/* Accrues GPU-seconds held up to now. */
void job_accrue_held(run *R, sjob *j)
{
    double now = R->e.now_s;
    if (isfinite(j->held_since_s))
        j->gpu_s +=
            (now - j->held_since_s) * job_held_systems(R, j) * j->sys_gpus;
    j->held_since_s = now;
}

/* The job's interruption rate and checkpoint interval for its placement:
 * Young/Daly from its mean time between interruptions (GPU failures plus
 * outages of the modules it spans), or the scenario's fixed interval. */
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

/* Gives every system the job holds back to its module's free pool, ends its
 * GPU-time and the unused part of its step charge, and cancels its timers. */
static void release_systems(run *R, sjob *j)
{
    site_accrue_util(R);
    job_accrue_held(R, j);
    site_energy_refund(R, j);
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
    FS_ASSERT(site_pools_ok(R));
}

static void job_finish(run *R, sjob *j)
{
    job_advance(R, j);
    j->done = j->total;
    release_systems(R, j);
    job_set_state(j, JS_DONE);
    j->end_s = R->e.now_s;
    site_log_event(R, j, RES_EV_END, RES_CAUSE_NONE, j->total);
}

/* Loses the work since the last checkpoint. */
static double roll_back(sjob *j)
{
    double lost = j->done - j->saved;
    FS_ASSERT(lost >= 0.0); /* saved <= done */
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
            job_set_state(j, JS_CKPT);
            set_timer(R, j, e->now_s + j->sj->ckpt_write_s, TM_CKPT_END);
            break;
        }
        /* A free checkpoint: saved at once. */
        j->saved = j->done;
        j->since_ckpt_s = 0.0;
        j->checkpoints++;
        site_log_event(R, j, RES_EV_CHECKPOINT, RES_CAUSE_NONE, j->saved);
        schedule_training(R, j);
        break;
    case TM_CKPT_END:
        j->saved = j->done;
        j->since_ckpt_s = 0.0;
        j->checkpoints++;
        site_log_event(R, j, RES_EV_CHECKPOINT, RES_CAUSE_NONE, j->saved);
        enter_run(R, j);
        break;
    case TM_RESTART_END:
        site_log_event(R, j, RES_EV_RESTART, RES_CAUSE_NONE, j->done);
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
        site_fail_run(R, SIM_EINVAL);
}

/* A system of module m is back: it goes to the job that waits for it
 * (arg's low half, job index + 1) when that job still waits for this
 * module, else to the free pool; during a module outage the module's own
 * repair restores the pool instead. */
static void node_repair_fn(sim *e, void *ctx, uint64_t arg)
{
    run *R = ctx;
    size_t m = (size_t)(arg >> 32);
    uint64_t jw = arg & 0xffffffffu;
    smod *md = &R->mod[m];
    (void)e;
    site_accrue_util(R);
    if (md->repairing > 0)
        md->repairing--;
    if (!md->up)
        return; /* the module outage took the systems; its repair restores */
    if (jw) {
        sjob *j = &R->job[jw - 1];
        if (j->state == JS_WAIT_REPAIR && (size_t)j->wait_module == m) {
            job_accrue_held(R, j);
            j->take[m]++;
            enter_restart(R, j);
            schedule_failure(R, j);
            FS_ASSERT(site_pools_ok(R));
            return;
        }
    }
    md->free_sys++;
    FS_ASSERT(site_pools_ok(R));
}

/* An interruption of a job that holds systems (RUN, CKPT or RESTART).
 *
 * Why one long function: the order of the draws from the job's stream
 * (cause, then which system failed, then the repair time) is part of the
 * results, so the cause, the pick and the replacement stay in one place,
 * in that order. Every interruption loses the work since the checkpoint;
 * a GPU or host cause also takes one working system out for repair, and
 * the job then restarts on a hot spare, else on a free system of a module
 * it already uses (or the failed one's), else it waits for the repair
 * (WAIT_REPAIR, with no further interruptions while it waits). */
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
    site_log_event(R, j, RES_EV_INTERRUPT, cause, lost);
    if (cause == RES_CAUSE_GPU || cause == RES_CAUSE_HOST) {
        /* One working system fails: pick it by the job's systems. */
        int n = 0, pick;
        size_t m = 0;
        for (size_t k = 0; k < R->n_mod; k++)
            n += j->take[k];
        FS_ASSERT(n > 0); /* a training job holds working systems */
        pick = (int)gsl_rng_uniform_int(j->r, (unsigned long)n);
        for (m = 0; m < R->n_mod; m++) {
            if (pick < j->take[m])
                break;
            pick -= j->take[m];
        }
        site_accrue_util(R);
        job_accrue_held(R, j);
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
                job_set_state(j, JS_WAIT_REPAIR);
                j->wait_module = (int)m;
                if (j->timer)
                    sim_cancel(&R->e, j->timer);
                j->timer = 0;
                send_to_repair(R, m, j);
                FS_ASSERT(site_pools_ok(R));
                return; /* no failures while it waits */
            }
        }
    }
    enter_restart(R, j);
    schedule_failure(R, j);
    FS_ASSERT(site_pools_ok(R));
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
        site_fail_run(R, SIM_EINVAL);
}

/* A whole-module outage or its repair; arg = module << 1 | repair. A repair
 * rebuilds the free pool from what jobs still hold there (working systems
 * and hot spares) and the systems whose own node repair is still pending:
 * a module outage does not repair a failed system, and its repair event
 * will still come and return it (before, the pool was rebuilt as if those
 * were free and spares were not held, and the late node repair then added
 * a system the module does not have: free + in repair + held > installed,
 * which site_pools_ok catches). */
static void mod_event_fn(sim *e, void *ctx, uint64_t arg)
{
    run *R = ctx;
    size_t m = (size_t)(arg >> 1);
    smod *md = &R->mod[m];
    (void)e;
    site_accrue_util(R);
    if (arg & 1) {
        md->up = 1;
        md->free_sys = md->n_sys - md->repairing;
        for (size_t k = 0; k < R->n_job; k++)
            md->free_sys -= R->job[k].take[m] + R->job[k].spare[m];
        schedule_module_outage(R, m);
        FS_ASSERT(site_pools_ok(R));
        return;
    }
    /* Outage: every job with working systems here is interrupted and queues
     * again with its checkpoint; its other systems go back to their modules.
     * A job holding only hot spares here keeps running but loses those
     * spares (they are down too, and a later failure must not swap one in);
     * the module's repair rebuilds its pool without them. */
    for (size_t k = 0; k < R->n_job; k++) {
        sjob *j = &R->job[k];
        if (j->take[m] == 0 && j->spare[m] > 0) {
            job_accrue_held(R, j);
            j->spares -= j->spare[m];
            j->spare[m] = 0;
        }
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
            site_log_event(R, j, RES_EV_INTERRUPT, RES_CAUSE_MODULE, lost);
        }
        release_systems(R, j);
        job_set_state(j, JS_QUEUED);
        j->restart_pending = 1;
    }
    md->up = 0;
    md->free_sys = 0;
    FS_ASSERT(site_pools_ok(R));
    if (sim_schedule(
            &R->e,
            R->e.now_s + gsl_ran_exponential(md->r, R->o->rel.module_mttr_s),
            PRIO_MOD, mod_event_fn, R, (uint64_t)m << 1 | 1u, NULL) != SIM_OK)
        site_fail_run(R, SIM_EINVAL);
}

/* Commissioning: the module joins the pools; its outages begin. */
void site_mod_online_fn(sim *e, void *ctx, uint64_t arg)
{
    run *R = ctx;
    (void)e;
    site_accrue_util(R);
    R->mod[arg].commissioned = 1;
    schedule_module_outage(R, (size_t)arg);
}

/* The submit time: the job queues (PENDING -> QUEUED). */
void job_submit_fn(sim *e, void *ctx, uint64_t arg)
{
    run *R = ctx;
    sjob *j = &R->job[arg];
    tp_result tr;
    (void)e;
    /* The backfill estimate, and an early error for a job that cannot be
     * predicted at all. */
    if (site_job_throughput(R->s, j->sj, R->o->tp, 0.0, 0.0, &tr, R->err) !=
        SIM_OK) {
        site_fail_run(R, SIM_EINVAL);
        return;
    }
    site_apply_model_draw(R, j, &tr);
    j->rate_est = tr.tokens_per_sec_per_gpu * j->sj->gpus;
    job_set_state(j, JS_QUEUED);
    site_log_event(R, j, RES_EV_SUBMIT, RES_CAUSE_NONE, 0);
}

/* 1 in the states in which the job holds systems that draw power. */
int job_holds_power(const sjob *j)
{
    return j->state == JS_RUN || j->state == JS_CKPT ||
           j->state == JS_RESTART || j->state == JS_WAIT_REPAIR ||
           j->state == JS_PAUSED || j->state == JS_SHED;
}

/* Applies the dispatch decision for job j over the coming step: pause (a
 * checkpoint first, so nothing is lost), shed (back to the checkpoint),
 * resume (through a restart) or a new throttle. Why every case is here and
 * not in the energy step: each one changes the job's state, progress or
 * timers, which only this file writes; the energy step only charges. */
void job_apply_decision(run *R, sjob *j, const dispatch_job_out *jo)
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
                site_log_event(R, j, RES_EV_CHECKPOINT, RES_CAUSE_NONE,
                               j->saved);
            }
            j->since_ckpt_s = 0.0;
            job_set_state(j, JS_PAUSED);
            j->pauses++;
            site_log_event(R, j, RES_EV_PAUSE, RES_CAUSE_POWER, j->saved);
        } else {
            double lost = roll_back(j);
            job_set_state(j, JS_SHED);
            site_log_event(R, j, RES_EV_SHED, RES_CAUSE_POWER, lost);
        }
        if (j->timer)
            sim_cancel(&R->e, j->timer);
        if (j->fail)
            sim_cancel(&R->e, j->fail);
        j->timer = j->fail = 0;
        return;
    }
    if (j->state == JS_PAUSED || j->state == JS_SHED) {
        site_log_event(R, j, RES_EV_RESUME, RES_CAUSE_NONE, j->saved);
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
            site_log_event(R, j, RES_EV_THROTTLE, RES_CAUSE_POWER, thr);
            if (j->state == JS_RUN)
                schedule_training(R, j);
        }
    }
}

/* Starts a job the scheduler has just placed (its take[] and spare[] are
 * set): GPU-time starts, the interruption rate and checkpoint interval
 * follow the placement, and it trains, or restarts first when it was
 * re-queued by a module outage. */
void job_start(run *R, sjob *j)
{
    j->held_since_s = R->e.now_s;
    j->thr = 1.0;
    set_fail_rate(R, j);
    site_log_event(R, j, RES_EV_START, RES_CAUSE_NONE, (double)j->sj->gpus);
    if (j->restart_pending) {
        j->restart_pending = 0;
        enter_restart(R, j);
    } else {
        enter_run(R, j);
    }
    schedule_failure(R, j);
    FS_ASSERT(site_pools_ok(R));
}

/* Why a function that returns 1: it is only ever called as
 * FS_ASSERT(site_pools_ok(R)), so a release build never runs its loops;
 * the FS_ASSERTs inside name the pool count that broke. Per module: no
 * count is negative, jobs hold no more systems than are installed, and
 * while the module is up free + in repair + held <= installed, while it is
 * down no job holds a system there (not even a spare). Per job: the
 * spare count matches its spares. */
int site_pools_ok(const run *R)
{
    for (size_t m = 0; m < R->n_mod; m++) {
        const smod *md = &R->mod[m];
        int held = 0;
        for (size_t k = 0; k < R->n_job; k++) {
            FS_ASSERT(R->job[k].take[m] >= 0 && R->job[k].spare[m] >= 0);
            held += R->job[k].take[m] + R->job[k].spare[m];
        }
        FS_ASSERT(md->free_sys >= 0 && md->repairing >= 0);
        FS_ASSERT(held <= md->n_sys);
        FS_ASSERT(!md->up || md->free_sys + md->repairing + held <= md->n_sys);
        FS_ASSERT(md->up || held == 0); /* nothing is held in a down module */
    }
    for (size_t k = 0; k < R->n_job; k++) {
        int sp = 0;
        for (size_t m = 0; m < R->n_mod; m++)
            sp += R->job[k].spare[m];
        FS_ASSERT(sp == R->job[k].spares);
    }
    return 1;
}
