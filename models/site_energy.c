/* models/site_energy.c: energy attribution of a site run (site_int.h):
 * each step's demand of the jobs per power-model module, the dispatch of
 * the step (models/site_power.h), and the charge of each job for the step
 * (facility energy, renewable share, carbon, cost, energy by source), with
 * the refund of the unused part when a job lets its systems go mid-step.
 *
 * Accounting. The dispatch charges each job for the whole step; a job that
 * releases its systems during the step is refunded the unused fraction,
 * which goes to the site's unattributed (idle) load, so that job shares,
 * refunds and the modules' base loads still sum to the audited step totals
 * (site_energy_closes checks it in a checked build).
 *
 * It owns the sjob charge fields (it_j, gpu_j ... st_charged), the
 * shortage times (power_s, paused_s, throttled_s) and run.src_site_j,
 * unattributed_j and base_j. It must never change a job's state or its
 * systems: the decision of the dispatch is handed to job_apply_decision
 * (job_fsm.c), in entry order.
 */
#include <math.h>
#include <string.h>

#include "models/site_int.h"
#include "sim/fsassert.h"

/* Relative tolerance of the attribution sums: they add the same energies
 * in another order, so they differ by rounding only. */
#define ENERGY_REL_TOL 1e-9

static double sum_of(const double *x, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s;
}

/* 1 when a and b agree to ENERGY_REL_TOL of the larger (or 1 J). */
static int close_rel(double a, double b)
{
    double scale = fmax(fmax(fabs(a), fabs(b)), 1.0);
    return fabs(a - b) <= ENERGY_REL_TOL * scale;
}

/* Refunds the unused part of the current step's charge when a job lets go
 * of its systems at now. */
void site_energy_refund(run *R, sjob *j)
{
    double f;
    if (!j->st_charged)
        return;
    FS_ASSERT(R->e.now_s >= j->st_t0); /* refunded within its step */
    f = 1.0 - (R->e.now_s - j->st_t0) / R->step_s;
    if (f < 0)
        f = 0;
    j->it_j -= f * j->st_it_j;
    j->gpu_j -= f * j->st_gpu_j;
    j->fac_j -= f * j->st_fac_j;
    j->ren_j -= f * j->st_ren_j;
    j->co2_g -= f * j->st_co2_g;
    j->cost -= f * j->st_cost;
    for (int k = 0; k < SRC_N; k++)
        j->src_j[k] -= f * j->st_src_j[k];
    R->unattributed_j += f * j->st_fac_j;
    j->st_charged = 0;
}

/* Charges job j for the coming step (and keeps the charge for a refund). */
static void charge_job(run *R, sjob *j, const dispatch_job_out *jo,
                       double gpu_w, const double *mix_j_per_j)
{
    double dt = R->step_s;
    j->st_t0 = R->e.now_s;
    j->st_it_j = jo->it_w * dt;
    j->st_gpu_j = gpu_w * dt;
    j->gpu_j += j->st_gpu_j;
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

/* GPU power granted to dispatch entry i [W]: the training GPU power at
 * the granted fraction, or the GPUs' idle power while restarting (an entry
 * whose gpu_w is 0) or paused, 0 when shed. */
static double entry_gpu_w(const run *R, size_t i, const dispatch_job_out *x)
{
    const dispatch_job *d = &R->dj[i];
    switch (x->state) {
    case DISPATCH_RUN:
    case DISPATCH_THROTTLED:
        return d->gpu_w > 0 ? d->gpu_w * x->power_frac : R->dj_gpu_idle_w[i];
    case DISPATCH_PAUSED:
        return R->dj_gpu_idle_w[i];
    case DISPATCH_SHED:
        return 0.0;
    }
    return 0.0;
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
    FS_ASSERT(tot == 0.0 || fabs(sum_of(mix, SRC_N) - 1.0) <= ENERGY_REL_TOL);
}

/* Fills R->dj with each power-holding job's demand per power-model module
 * (scenario group) and R->busy_grp with its systems; returns the number of
 * entries. A job split across groups has one entry per group, in job
 * order, so a job's entries are adjacent. */
static size_t build_demand(run *R)
{
    size_t nd = 0;
    memset(R->busy_grp, 0, R->n_grp * sizeof *R->busy_grp);
    for (size_t k = 0; k < R->n_job; k++) {
        sjob *j = &R->job[k];
        if (!job_holds_power(j))
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
            /* GPU power follows the job's step (load.h); a checkpoint
             * write holds the GPUs at their own low level. The state is
             * sampled at the step start, like every job state here. */
            load_training_demand_f(
                &R->lcfg[g], &R->lsys[g], nsys * R->lsys[g].n_gpus,
                j->state == JS_CKPT
                    ? load_ckpt_gpu_frac(&R->lcfg[g], j->sj->fmt)
                    : load_step_gpu_frac(&R->lcfg[g], j->sj->fmt, &j->ph),
                &d);
            R->dj[nd].module = g;
            R->dj[nd].gpu_w = d.gpu_w;
            R->dj[nd].other_w = d.other_w;
            R->dj[nd].idle_w = d.idle_w;
            R->dj[nd].gpu_frac_tdp = d.gpu_frac_tdp;
            R->dj_gpu_idle_w[nd] = nsys * R->lsys[g].n_gpus *
                                   R->lsys[g].gpu_tdp_w *
                                   R->lcfg[g].idle_gpu_frac;
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
    return nd;
}

/* Each group's IT power that no job controls: its idle systems, and those
 * of modules that are down or not commissioned yet. */
static void build_base(run *R, double now_s)
{
    for (size_t g = 0; g < R->n_grp; g++) {
        double down = 0;
        for (size_t m = 0; m < R->n_mod; m++)
            if (R->mod[m].grp == g &&
                (!R->mod[m].up || !R->mod[m].commissioned))
                down += R->mod[m].n_sys;
        R->base_it[g] =
            site_power_module_base_it_w(R->sp, g, now_s, R->busy_grp[g] + down);
    }
}

/* Dispatches the step that starts now, charges every job that holds power
 * for it and applies the dispatch's decision to it. *o is the dispatch
 * (owned by R->sp, valid until the next step) and srcw[] the load served
 * by each source kind [W]. Errors: as site_power_step (the caller stops
 * the run). */
int site_energy_step(run *R, const dispatch_out **o, double srcw[SRC_N])
{
    double mix[SRC_N], jobs_j = 0.0;
    size_t nd = build_demand(R);
    int rc;

    R->n_dj = nd;
    build_base(R, R->e.now_s);
    rc = site_power_step(R->sp, R->e.now_s, R->dj, nd, R->base_it, o, R->err);
    if (rc != SIM_OK)
        return rc;
    step_mix(R, *o, mix, srcw);
    for (int k = 0; k < SRC_N; k++)
        R->src_site_j[k] += srcw[k] * R->step_s;
    R->base_j += (*o)->base_energy_j;
    /* A job split across groups has several entries: its decision is the
     * most restrictive one, and its charge the sum. */
    for (size_t i = 0; i < nd; i++) {
        sjob *j = &R->job[R->dj_job[i]];
        dispatch_job_out jo = (*o)->job[i];
        double gpu_w = entry_gpu_w(R, i, &(*o)->job[i]);
        for (size_t k = i + 1; k < nd && R->dj_job[k] == R->dj_job[i]; k++) {
            const dispatch_job_out *x = &(*o)->job[k];
            gpu_w += entry_gpu_w(R, k, x);
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
        jobs_j += jo.energy_j;
        /* The shortage times a sizing question asks for: per step the job
         * holds power, paused/shed or throttled by this step's decision. */
        j->power_s += R->step_s;
        if (jo.state == DISPATCH_PAUSED || jo.state == DISPATCH_SHED)
            j->paused_s += R->step_s;
        else if (jo.throughput < 1.0)
            j->throttled_s += R->step_s;
        charge_job(R, j, &jo, gpu_w, mix);
        job_apply_decision(R, j, &jo);
    }
    /* The step's load is the jobs' shares plus the modules' base loads. */
    FS_ASSERT(
        close_rel(jobs_j + (*o)->base_energy_j, (*o)->load_w * R->step_s));
    (void)jobs_j;
    return SIM_OK;
}

/* Why a function that returns 1: it is only ever called as
 * FS_ASSERT(site_energy_closes(R)) at the end of a run, so a release build
 * never runs it. The jobs' facility energy, plus what they were refunded
 * (unattributed), plus the base loads, is the site's facility energy; and
 * the energy by source kind sums to it too. */
int site_energy_closes(const run *R)
{
    const site_power_totals *t = site_power_get_totals(R->sp);
    double jobs_j = 0.0;
    for (size_t k = 0; k < R->n_job; k++)
        jobs_j += R->job[k].fac_j;
    FS_ASSERT(close_rel(jobs_j + R->unattributed_j + R->base_j, t->facility_j));
    FS_ASSERT(close_rel(sum_of(R->src_site_j, SRC_N), t->facility_j));
    return 1;
}
