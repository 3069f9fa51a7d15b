/* models/site.c: one replication of a scenario on the engine (see site.h,
 * site_int.h and docs/site-model.md): the run itself. It sets up the
 * modules (pools of systems joined into fabric groups), the jobs and the
 * power model from the scenario, schedules the initial events, runs the
 * step event (scheduler, then the energy step), and turns the end state
 * into results; site_run_reps is the replications glue.
 *
 * It owns the run struct's life (allocation, random streams, freeing) and
 * the results. It must never write a job's state (job_fsm.c), place a job
 * (site_sched.c) or price energy (site_energy.c); and, as site.h says, it
 * does no I/O and keeps no global state, so replications can run anywhere
 * in any order.
 */
#include "models/site.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "models/battery.h"
#include "models/cost.h"
#include "models/site_calib.h"
#include "models/site_int.h"
#include "models/straggler.h"
#include "models/site_power_scn.h"
#include "sim/fsassert.h"
#include "sim/mem.h"
#include "sim/rng.h"

/* ---------------------------------------------------------------- options */

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

/* Appends one event to the results when events are recorded. */
void site_log_event(run *R, const sjob *j, int kind, int cause, double value)
{
    res_rep *out = R->out;
    res_event *ev;
    site_pd_event(R, j, kind);
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

/* Keeps the first error of the run and stops the engine. */
void site_fail_run(run *R, int code)
{
    if (R->err_code == SIM_OK)
        R->err_code = code;
    sim_stop(&R->e);
}

/* Integrates the systems online and busy (utilization) up to now. */
void site_accrue_util(run *R)
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

/* ------------------------------------------------------------------ steps */

/* Appends the step's record (power flows, battery state, weather, PUE). */
static void record_step(run *R, const dispatch_out *o, const double srcw[SRC_N])
{
    res_rep *out = R->out;
    size_t n;
    const site_power_record *rec = site_power_records(R->sp, &n);
    res_step *st;
    sim_grow((void **)&out->steps, &R->cap_st, out->n_steps + 1,
             sizeof *out->steps);
    st = &out->steps[out->n_steps++];
    memset(st, 0, sizeof *st);
    st->t_s = R->e.now_s;
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

/* The step event: runs last at its instant (priority 0), so it sees every
 * change due then. The previous step's charges are settled (st_charged
 * cleared: a release from now on is not refunded), the scheduler places
 * what it can, the new step is dispatched and charged, and the next step
 * is scheduled while it starts before the horizon. */
static void step_fn(sim *e, void *ctx, uint64_t arg)
{
    run *R = ctx;
    const dispatch_out *o = NULL;
    double srcw[SRC_N];
    (void)arg;

    R->t_step = e->now_s;
    site_accrue_util(R);
    for (size_t k = 0; k < R->n_job; k++)
        R->job[k].st_charged = 0;
    site_schedule_jobs(R);
    if (R->err_code)
        return;
    if (site_energy_step(R, &o, srcw) != SIM_OK) {
        site_fail_run(R, SIM_ENUMERIC);
        return;
    }
    site_pd_step(R, o);
    if (R->o->record_steps)
        record_step(R, o, srcw);
    if (e->now_s + R->step_s < R->horizon_s - 1e-9 * R->horizon_s) {
        if (sim_schedule(e, e->now_s + R->step_s, PRIO_STEP, step_fn, R, 0,
                         NULL) != SIM_OK)
            site_fail_run(R, SIM_EINVAL);
    } else {
        R->t_step = e->now_s;
    }
}

/* ------------------------------------------------------------------ set-up */

/* The index of g among the site's distinct GPU types, in order of first
 * appearance in the module groups (-1: not on the site). Jobs and modules
 * compare these small ints, so the scheduler never compares names. */
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

/* Union-find root with path halving (fabric groups of module groups). */
static int find_root(int *p, int i)
{
    while (p[i] != i)
        i = p[i] = p[p[i]];
    return i;
}

/* Frees everything the run allocated; safe on a partly built run (R
 * starts zeroed, and free(NULL) and a NULL engine queue are skipped). */
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
    free(R->dj_gpu_idle_w);
    free(R->base_it);
    free(R->busy_grp);
    free(R->lcfg);
    free(R->lsys);
    site_power_free(R->sp);
    site_pd_free(R);
    if (R->e.q)
        sim_fini(&R->e);
}

/* 1 when every share of the site is renewable by construction. */
static int all_renewable(const scenario *s)
{
    /* A site that cannot import grid energy and has no other
     * non-renewable source (registry, models/source.h) has only renewable
     * sources (its batteries' first charge counts as renewable off-grid),
     * so every share is 1 by construction. The ratio of the separately
     * summed renewable and facility energies would miss 1 by rounding, so
     * it is not computed then (issue 12.8). */
    int all_ren = !scenario_grid_connected(s);
    for (int k = 0; k < SRC_N; k++)
        if (!source_table[k].renewable && source_table[k].role != SOURCE_GRID &&
            source_table[k].role != SOURCE_STORAGE &&
            scenario_source_rating_w(s, (source_kind)k) > 0)
            all_ren = 0;
    return all_ren;
}

/* A job's results: times, GPU-time, goodput, tokens and its energy,
 * renewable share, carbon and cost (all_ren: see fill_results). */
static void fill_job(run *R, sjob *j, res_job *rj, int all_ren)
{
    if (isfinite(j->held_since_s))
        job_accrue_held(R, j);
    rj->completed = j->state == JS_DONE;
    rj->submit_s = j->sj->submit_t_s;
    rj->start_s = j->start_s;
    rj->end_s = rj->completed ? j->end_s : (double)NAN;
    rj->time_to_train_s = rj->completed ? j->end_s - rj->submit_s : (double)NAN;
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
    rj->gpu_energy_j = j->gpu_j;
    rj->facility_energy_j = j->fac_j;
    for (int s = 0; s < SRC_N; s++)
        rj->energy_by_source_j[s] = j->src_j[s];
    rj->renewable_fraction =
        j->fac_j > 0 ? (all_ren ? 1.0 : j->ren_j / j->fac_j) : (double)NAN;
    rj->co2_kg = j->co2_g / 1000.0;
    rj->cost_usd = j->cost;
    rj->paused_s = j->paused_s;
    rj->paused_fraction = j->power_s > 0 ? j->paused_s / j->power_s : 0.0;
    rj->throttled_fraction = j->power_s > 0 ? j->throttled_s / j->power_s : 0.0;
}

/* Packs of every bank whose health is below the replacement threshold at
 * the end: health only falls, so each crossed it once during the run. */
static double packs_below(const site_power *sp, double soh)
{
    double n = 0;
    for (size_t b = 0; b < site_power_n_batteries(sp); b++) {
        const battery *bt = site_power_battery(sp, b);
        for (size_t i = 0; i < battery_n_packs(bt); i++)
            n += battery_pack_soh(bt, i) < soh;
    }
    return n;
}

/* The cost model's figures (models/cost.h) from the run's totals, then each
 * job's cost per run from the site's per-GPU rate. */
static void fill_costs(run *R, const site_power_totals *t)
{
    res_rep *out = R->out;
    res_site *st = &out->site;
    cost_run_in in;
    cost_site c;
    double ren = t->gen_j[SRC_SOLAR] + t->gen_j[SRC_WIND];
    st->curtailed_fraction = ren > 0 ? t->curtailed_j / ren : (double)NAN;
    st->battery_replacements =
        packs_below(R->sp, R->s->costs.battery_replace_soh);
    st->grid_peak_w = t->grid_max_w;
    memset(&in, 0, sizeof in);
    /* The span the energies were integrated over (the run may stop early
     * once every job is done), so energy per year is scaled correctly. */
    in.horizon_s = t->time_s > 0 ? t->time_s : R->horizon_s;
    in.facility_j = st->facility_energy_j;
    memcpy(in.energy_by_source_j, st->energy_by_source_j,
           sizeof in.energy_by_source_j);
    in.grid_peak_w = st->grid_peak_w;
    in.battery_replacements = st->battery_replacements;
    cost_site_compute(R->s, &in, &c);
    st->capex_usd = c.capex_usd;
    st->annualized_cost_usd = c.annualized_usd;
    st->lcoe_usd_per_j = c.lcoe_usd_per_j;
    st->npv_usd = c.npv_usd;
    memcpy(st->annualized_item_usd, c.annual_item_usd,
           sizeof st->annualized_item_usd);
    for (size_t k = 0; k < out->n_jobs; k++) {
        res_job *rj = &out->jobs[k];
        rj->cost_per_run_usd =
            cost_job_run_usd(R->s, &c, rj->gpu_s, rj->energy_by_source_j);
    }
}

/* The run's results: each job's, then the site's totals. */
static void fill_results(run *R)
{
    res_rep *out = R->out;
    const site_power_totals *t = site_power_get_totals(R->sp);
    res_site *st = &out->site;
    int all_ren = all_renewable(R->s);
    out->n_jobs = R->n_job;
    out->jobs = sim_xcalloc(R->n_job, sizeof *out->jobs);
    for (size_t k = 0; k < R->n_job; k++)
        fill_job(R, &R->job[k], &out->jobs[k], all_ren);
    st->it_energy_j = t->it_j;
    st->water_m3 = t->water_m3;
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
    st->solar_energy_j = t->gen_j[SRC_SOLAR];
    site_pd_results(R, st);
    site_pd_rep_results(R, out);
    st->wind_capacity_factor =
        t->wind_capacity_w > 0 && t->time_s > 0
            ? t->gen_j[SRC_WIND] / (t->wind_capacity_w * t->time_s)
            : (double)NAN;
    fill_costs(R, t);
}

/* The load model of each power-model module (scenario group). */
static void setup_load(run *R)
{
    const scenario *s = R->s;
    R->n_grp = s->n_modules;
    R->lcfg = sim_xcalloc(R->n_grp, sizeof *R->lcfg);
    R->lsys = sim_xcalloc(R->n_grp, sizeof *R->lsys);
    for (size_t g = 0; g < R->n_grp; g++) {
        const scen_module *sm = &s->modules[g];
        /* The scenario's power group, at this module type's capacity. */
        R->lcfg[g] = s->power;
        R->lcfg[g].it_capacity_w = sm->type->it_power_w;
        R->lsys[g].n_gpus = sm->system->gpus;
        R->lsys[g].gpu_tdp_w = sm->gpu->tdp_w;
        R->lsys[g].system_max_w = sm->system->max_power_w;
        R->lcfg[g].gpu_floor_frac = s->gpu_floor_frac;
        /* The policy's rates are per GPU in W/s; the shape works in
         * fractions of this group's TDP. */
        R->lcfg[g].gpu_ramp_up_per_s = s->gpu_ramp_up_w_per_s / sm->gpu->tdp_w;
        R->lcfg[g].gpu_ramp_down_per_s =
            s->gpu_ramp_down_w_per_s / sm->gpu->tdp_w;
        R->lcfg[g].gpu_ramp_down_hyst_s = s->gpu_ramp_down_hyst_s;
    }
}

/* Expands the module groups into modules, each with its own outage stream
 * "module/<group>/<k>". Fabric groups: union of module groups joined by
 * links; with no links, one spine joins every module. */
static void setup_modules(run *R)
{
    const scenario *s = R->s;
    const site_opts *o = R->o;
    int *p = sim_xmalloc((s->n_modules ? s->n_modules : 1) * sizeof *p);
    size_t m = 0;
    for (size_t g = 0; g < s->n_modules; g++)
        p[g] = s->fabric.n_links ? (int)g : 0;
    for (size_t l = 0; l < s->fabric.n_links; l++) {
        int a = find_root(p, (int)s->fabric.links[l].a);
        int b = find_root(p, (int)s->fabric.links[l].b);
        if (a != b)
            p[a < b ? b : a] = a < b ? a : b;
    }
    for (size_t g = 0; g < s->n_modules; g++)
        R->n_mod += (size_t)s->modules[g].count;
    R->mod = sim_xcalloc(R->n_mod ? R->n_mod : 1, sizeof *R->mod);
    for (size_t g = 0; g < s->n_modules; g++) {
        const scen_module *sm = &s->modules[g];
        for (int k = 0; k < sm->count; k++, m++) {
            char name[96];
            smod *md = &R->mod[m];
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
    free(p);
}

/* The model-error draw of a job (site.h, "Model uncertainty"): the first
 * standard normal of the stream "model/<gpu>/<class>/<recipe>" of this
 * replication. Every job of a group names the same stream, so they share
 * the draw without a table of groups; a fresh stream per job costs one
 * seeding (microseconds) per job and replication. An unknown precision
 * draws 0: site_job_throughput refuses the job before it trains. A job
 * with a pinned (measured) throughput draws 0 too: a measurement of the
 * job carries none of the model's error. */
static double model_draw(const site_opts *o, const scen_job *sj)
{
    precision pr;
    char name[160];
    gsl_rng *r;
    double z;
    int cls = (int)sj->model->cls;
    if (!o->model_uncertainty || sj->tokens_per_sec_per_gpu > 0 ||
        precision_parse(sj->precision, &pr) != 0)
        return 0.0;
    snprintf(name, sizeof name, "model/%s/%s/%s", sj->gpu->name,
             llm_class_name(cls) ? llm_class_name(cls) : "dense",
             precision_recipe_name(pr.recipe));
    r = rng_stream_new(NULL, o->seed, o->replication, rng_stream_id(name));
    z = gsl_ran_ugaussian(r);
    gsl_rng_free(r);
    return z;
}

/* The spread a job's draw scales: the site calibration's posterior for its
 * (GPU, class, recipe) when the site's rows measured that group, else the
 * published model's (issue 26: the replications draw from the updated
 * distribution). */
static double job_log_sd(const run *R, const sjob *j, const tp_result *tr)
{
    double sd = tp_log_sd(R->o->tp, j->sj->model, j->sj->gpu, tr);
    precision pr;
    int exact = 0;
    const site_calib_entry *e;
    if (!R->s->site.calib || precision_parse(j->sj->precision, &pr) != 0)
        return sd;
    e = site_calib_find(R->s->site.calib, j->sj->gpu->name,
                        (int)j->sj->model->cls, (int)pr.recipe, &exact);
    return e && exact ? e->log_sd : sd;
}

/* Stragglers beyond the calibrated scale (models/straggler.h, issue 19
 * item 2): the reference scale is the job's GPU type's largest calibration
 * row; a GPU type without rows takes the largest row of any type (the
 * scale the whole fit has seen). The uniform is the first draw of the
 * stream "straggler/<job>", so it is the same for the same job whatever
 * else the scenario changes (common random numbers); without model
 * uncertainty the job takes the mean factor, the term's point value; a job
 * with a pinned (measured) throughput takes none. */
static double straggler_draw(const scenario *s, const site_opts *o,
                             const scen_job *sj)
{
    const tp_model *m = o->tp;
    double spread = s->reliability.gpu_speed_spread, u;
    int gi, n_ref = 0;
    char name[96];
    gsl_rng *r;
    /* A pinned throughput was measured at the job's own scale: its
     * stragglers are in it already. */
    if (!m || !(spread > 0) || sj->tokens_per_sec_per_gpu > 0)
        return 1.0;
    gi = tp_model_gpu_factor(m, sj->gpu);
    if (gi >= 0)
        n_ref = m->gpu_n_max[gi];
    else
        for (int k = 0; k < m->n_gpus; k++)
            n_ref = m->gpu_n_max[k] > n_ref ? m->gpu_n_max[k] : n_ref;
    if (n_ref <= 0 || sj->gpus <= n_ref)
        return 1.0;
    if (!o->model_uncertainty)
        return straggler_mean_factor(sj->gpus, n_ref, spread);
    snprintf(name, sizeof name, "straggler/%s", sj->name);
    r = rng_stream_new(NULL, o->seed, o->replication, rng_stream_id(name));
    u = gsl_rng_uniform_pos(r);
    gsl_rng_free(r);
    return straggler_factor(sj->gpus, n_ref, spread, u);
}

void site_apply_model_draw(const run *R, const sjob *j, tp_result *tr)
{
    double f = j->straggler_f;
    if (j->model_z != 0.0)
        f *= exp(j->model_z * job_log_sd(R, j, tr));
    if (f == 1.0)
        return;
    tr->tokens_per_sec_per_gpu *= f;
    tr->model_tflops_per_gpu *= f;
    tr->step_time_s /= f;
}

/* The jobs, PENDING, each with its stream "job/<name>"; a job's systems
 * are those of the first module group with its GPU. */
static void setup_jobs(run *R)
{
    const scenario *s = R->s;
    const site_opts *o = R->o;
    R->n_job = s->n_jobs;
    R->job = sim_xcalloc(R->n_job ? R->n_job : 1, sizeof *R->job);
    for (size_t k = 0; k < R->n_job; k++) {
        sjob *j = &R->job[k];
        const scen_job *sj = &s->jobs[k];
        char name[96];
        j->sj = sj;
        j->take = sim_xcalloc(R->n_mod ? R->n_mod : 1, sizeof *j->take);
        j->spare = sim_xcalloc(R->n_mod ? R->n_mod : 1, sizeof *j->spare);
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
        j->model_z = model_draw(o, sj);
        j->straggler_f = straggler_draw(s, o, sj);
    }
}

/* Scratch arrays of the scheduler and the energy step. */
static void alloc_scratch(run *R)
{
    size_t nm = R->n_mod ? R->n_mod : 1, nj = R->n_job ? R->n_job : 1,
           ng = R->n_grp ? R->n_grp : 1;
    R->place_tmp = sim_xcalloc(nm, sizeof *R->place_tmp);
    R->smv = sim_xcalloc(nm, sizeof *R->smv);
    R->runv = sim_xcalloc(nj, sizeof *R->runv);
    R->dj = sim_xcalloc(nj * ng, sizeof *R->dj);
    R->dj_job = sim_xcalloc(nj * ng, sizeof *R->dj_job);
    R->dj_gpu_idle_w = sim_xcalloc(nj * ng, sizeof *R->dj_gpu_idle_w);
    R->base_it = sim_xcalloc(ng, sizeof *R->base_it);
    R->busy_grp = sim_xcalloc(ng, sizeof *R->busy_grp);
}

/* The power model's events, then commissioning, submissions and the first
 * step, in that order (the order fixes the engine's tie-breaking). */
static int schedule_initial(run *R)
{
    const scenario *s = R->s;
    int rc = site_power_attach(R->sp, &R->e);
    for (size_t m = 0; m < R->n_mod && rc == SIM_OK; m++)
        rc = sim_schedule(&R->e, s->modules[R->mod[m].grp].commission_t_s,
                          PRIO_ONLINE, site_mod_online_fn, R, m, NULL);
    for (size_t k = 0; k < R->n_job && rc == SIM_OK; k++)
        rc = sim_schedule(&R->e, s->jobs[k].submit_t_s, PRIO_SUBMIT,
                          job_submit_fn, R, k, NULL);
    if (rc == SIM_OK)
        rc = sim_schedule(&R->e, 0.0, PRIO_STEP, step_fn, R, 0, NULL);
    return rc;
}

/* The weather year of this replication (site.h, n_weather): with several
 * years of weather files, a uniform draw from the replication's own stream
 * "climate/year", so the draw holds across what-ifs (common random
 * numbers) and drawing it changes no other stream. */
static const climate_year *weather_year(const site_opts *o)
{
    gsl_rng *r;
    size_t k;
    if (!o->weather || o->n_weather <= 1 || o->fixed_weather)
        return o->weather;
    r = rng_stream_new(NULL, o->seed, o->replication,
                       rng_stream_id("climate/year"));
    k = (size_t)gsl_rng_uniform_int(r, (unsigned long)o->n_weather);
    gsl_rng_free(r);
    return &o->weather[k];
}

/* One replication (site.h). Why the order: the power model first (it is
 * the part that can refuse the scenario, before anything else is built),
 * then the pools and jobs, then the initial events; after the horizon the
 * energy attribution must close (checked builds) before results are made.
 * On an error inside the run nothing is left allocated and *out is empty. */
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
    rc = site_power_from_scenario(
        s, weather_year(o), o->seed, o->replication,
        (o->record_steps ? SITE_POWER_RECORD : 0) |
            (o->fixed_weather ? SITE_POWER_WEATHER_REP0 : 0) |
            (o->no_power_outages ? SITE_POWER_NO_OUTAGES : 0),
        &R.sp, err);
    if (rc != SIM_OK)
        return rc;
    sim_init(&R.e);
    setup_load(&R);
    setup_modules(&R);
    setup_jobs(&R);
    alloc_scratch(&R);
    if (!s->power_dynamics_off)
        site_pd_new(&R);
    rc = schedule_initial(&R);
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
    site_accrue_util(&R);
    FS_ASSERT(site_energy_closes(&R));
    fill_results(&R);
    run_free(&R);
    return SIM_OK;
}

/* Replications first_rep.. in order into reps[] (site.h): each is
 * independent (its own streams), so the caller may also split them over
 * workers; here a failure frees what was filled. */
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
