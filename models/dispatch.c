/* models/dispatch.c: one step's dispatch (models/dispatch.h).
 *
 * The step is worked in mean powers over dt_s; energies are powers x dt_s.
 * Phase A settles the demand (applying the shortage policy against the most
 * that every source and battery could give); phase B serves that demand in
 * merit order and routes must-take surplus to batteries, then curtailment;
 * phase C attributes carbon, cost and renewable energy.
 *
 * This file owns the merit order and the shortage policy, and nothing that
 * persists: battery state of charge, outages and the stored-energy mix belong
 * to the caller (site_power.c), which passes this step's limits in. It must
 * never allocate after dispatch_out_new (it runs once per step, thousands of
 * times per replication), never print, and never leave the energy balance
 * unchecked: the balance_rel it reports is what the tests and the run's audit
 * compare. */
#include "models/dispatch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/load.h"
#include "sim/mem.h"

typedef struct prio_key {
    int priority;
    size_t index;
} prio_key;

/* All per-step output is preallocated here, once per run, so dispatch_step
 * itself never allocates; the +1 keeps every array non-empty for a site with no
 * batteries or no jobs. ws is apply_policy's sort scratch. */
dispatch_out *dispatch_out_new(size_t n_src, size_t n_st, size_t n_mod,
                               size_t n_job)
{
    dispatch_out *o = sim_xcalloc(1, sizeof *o);
    o->cap_src = n_src;
    o->cap_st = n_st;
    o->cap_mod = n_mod;
    o->cap_job = n_job;
    o->src_w = sim_xcalloc(n_src + 1, sizeof(double));
    o->src_load_w = sim_xcalloc(n_src + 1, sizeof(double));
    o->src_curtail_w = sim_xcalloc(n_src + 1, sizeof(double));
    o->st_charge_w = sim_xcalloc(n_st + 1, sizeof(double));
    o->st_discharge_w = sim_xcalloc(n_st + 1, sizeof(double));
    o->st_in_carbon_g = sim_xcalloc(n_st + 1, sizeof(double));
    o->st_in_cost_usd = sim_xcalloc(n_st + 1, sizeof(double));
    o->st_in_renewable_j = sim_xcalloc(n_st + 1, sizeof(double));
    o->mod_it_w = sim_xcalloc(n_mod + 1, sizeof(double));
    o->mod_facility_w = sim_xcalloc(n_mod + 1, sizeof(double));
    o->mod_shortfall_w = sim_xcalloc(n_mod + 1, sizeof(double));
    o->job = sim_xcalloc(n_job + 1, sizeof(dispatch_job_out));
    o->ws = sim_xcalloc(n_job + 1, sizeof(prio_key));
    return o;
}

void dispatch_out_free(dispatch_out *o)
{
    if (!o)
        return;
    free(o->src_w);
    free(o->src_load_w);
    free(o->src_curtail_w);
    free(o->st_charge_w);
    free(o->st_discharge_w);
    free(o->st_in_carbon_g);
    free(o->st_in_cost_usd);
    free(o->st_in_renewable_j);
    free(o->mod_it_w);
    free(o->mod_facility_w);
    free(o->mod_shortfall_w);
    free(o->job);
    free(o->ws);
    free(o);
}

/* The one list of policy spellings, in enum order and NULL-terminated so
 * that the scenario loader (io/scenario_cfg.c) can check a value against it
 * and list the allowed ones in its message. */
const char *const dispatch_policy_names[] = {"throttle", "pause", "shed", NULL};

const char *dispatch_policy_name(dispatch_policy p)
{
    return (unsigned)p < 3 ? dispatch_policy_names[p] : "?";
}

int dispatch_policy_parse(const char *s, dispatch_policy *p)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(s, dispatch_policy_names[i]) == 0) {
            *p = (dispatch_policy)i;
            return 0;
        }
    return -1;
}

/* Lowest priority first; among equals the larger index first, the header's
 * rule: the job listed last in the scenario is the first to lose power, so the
 * order of the scenario file decides ties deterministically. */
static int prio_cmp(const void *a, const void *b)
{
    const prio_key *x = a, *y = b;
    if (x->priority != y->priority)
        return x->priority < y->priority ? -1 : 1;
    return x->index > y->index ? -1 : x->index < y->index ? 1 : 0;
}

static int bad(double x)
{
    return !(x >= 0) || !isfinite(x);
}

/* Facility power of job j in its current state and throttle y. */
static double job_it_w(const dispatch_job *j, dispatch_job_state s, double y)
{
    switch (s) {
    case DISPATCH_RUN:
        return j->gpu_w + j->other_w;
    case DISPATCH_THROTTLED:
        return j->other_w + y * j->gpu_w;
    case DISPATCH_PAUSED:
        return j->idle_w;
    case DISPATCH_SHED:
        return 0.0;
    }
    return 0.0;
}

/* Inputs are validated at every step, not once, because avail_w and the
 * batteries' limits change each step (weather, state of charge) and a NaN from
 * upstream would otherwise spread silently into every total. */
static int validate(const dispatch_in *in, const dispatch_out *o, sim_err *err)
{
    if (!(in->dt_s > 0) || !isfinite(in->dt_s))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "dispatch: dt_s must be > 0 (got %g)", in->dt_s);
    if (in->n_src > o->cap_src || in->n_st > o->cap_st ||
        in->n_mod > o->cap_mod || in->n_job > o->cap_job)
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "dispatch: more sources, batteries, modules or jobs than the "
            "output holds");
    if ((unsigned)in->policy > DISPATCH_POLICY_SHED)
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "dispatch: unknown policy %d", (int)in->policy);
    for (size_t i = 0; i < in->n_src; i++)
        if (bad(in->src[i].avail_w) || bad(in->src[i].carbon_g_per_j) ||
            bad(in->src[i].price_usd_per_j) ||
            (unsigned)in->src[i].role > DISPATCH_GRID)
            return sim_err_set(
                err, SIM_EINVAL, NULL, 0,
                "dispatch: source %zu has a negative or NaN input", i);
    for (size_t i = 0; i < in->n_st; i++) {
        const dispatch_store *s = &in->st[i];
        if (bad(s->charge_max_w) || bad(s->discharge_max_w) ||
            !(s->eta_c > 0) || !(s->eta_c <= 1) || !(s->eta_d > 0) ||
            !(s->eta_d <= 1) || bad(s->carbon_g_per_j) ||
            bad(s->cost_usd_per_j) || bad(s->renewable_frac))
            return sim_err_set(err, SIM_EINVAL, NULL, 0,
                               "dispatch: battery %zu has an invalid input", i);
    }
    if (bad(in->aux_w))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "dispatch: auxiliary load negative or NaN (%g)",
                           in->aux_w);
    for (size_t i = 0; i < in->n_mod; i++)
        if (bad(in->mod[i].base_it_w) || !(in->mod[i].pue >= 1) ||
            !isfinite(in->mod[i].pue))
            return sim_err_set(
                err, SIM_EINVAL, NULL, 0,
                "dispatch: module %zu has an invalid base load or PUE (%g)", i,
                in->mod[i].pue);
    for (size_t i = 0; i < in->n_job; i++) {
        const dispatch_job *j = &in->job[i];
        if (j->module >= in->n_mod || bad(j->gpu_w) || bad(j->other_w) ||
            /* 1.2: a training job's GPU power may exceed TDP briefly (boost),
             * but a fraction above 1.2 is a units mistake in the caller, not a
             * measurement. */
            bad(j->idle_w) || !(j->gpu_frac_tdp > 0 && j->gpu_frac_tdp <= 1.2))
            return sim_err_set(
                err, SIM_EINVAL, NULL, 0,
                "dispatch: job %zu has an invalid module or demand", i);
    }
    return SIM_OK;
}

/* Facility demand with the jobs in their current states. */
static double facility_demand(const dispatch_in *in, const dispatch_out *o,
                              double y)
{
    double d = in->aux_w;
    for (size_t m = 0; m < in->n_mod; m++)
        d += in->mod[m].pue * in->mod[m].base_it_w;
    for (size_t i = 0; i < in->n_job; i++)
        d += in->mod[in->job[i].module].pue *
             job_it_w(&in->job[i], o->job[i].state, y);
    return d;
}

/* Settles the jobs' states for supply s_max; returns the throttle y. Jobs are
 * visited lowest priority first (prio_cmp) for every policy; only what happens
 * to a visited job differs. Each pass recomputes the demand from scratch rather
 * than subtracting, so rounding cannot accumulate across many paused jobs. */
static double apply_policy(const dispatch_in *in, dispatch_out *o, double s_max)
{
    prio_key *k = o->ws;
    size_t n = in->n_job;
    for (size_t i = 0; i < n; i++) {
        k[i].priority = in->job[i].priority;
        k[i].index = i;
    }
    qsort(k, n, sizeof *k, prio_cmp);
    if (in->policy == DISPATCH_POLICY_THROTTLE) {
        /* Uniform y over the running jobs; pause the lowest priority while
         * even the floor does not fit. */
        for (size_t next = 0;; next++) {
            double fixed = in->aux_w, gpu = 0, y_floor = 0;
            for (size_t m = 0; m < in->n_mod; m++)
                fixed += in->mod[m].pue * in->mod[m].base_it_w;
            for (size_t i = 0; i < n; i++) {
                const dispatch_job *j = &in->job[i];
                double pue = in->mod[j->module].pue;
                if (o->job[i].state == DISPATCH_PAUSED) {
                    fixed += pue * j->idle_w;
                    continue;
                }
                fixed += pue * j->other_w;
                gpu += pue * j->gpu_w;
                /* The throttle floor: no GPU is capped below LOAD_CAP_MIN of
                 * TDP (the lowest measured cap, load.h), expressed as a
                 * fraction of this job's nominal power. The highest floor among
                 * running jobs binds, since y is uniform. */
                double yf =
                    (in->cap ? in->cap->min_x : LOAD_CAP_MIN) / j->gpu_frac_tdp;
                if (yf > y_floor)
                    y_floor = yf;
            }
            if (gpu > 0) {
                double y = (s_max - fixed) / gpu;
                /* Each pass pauses one more job, so after n passes all are
                 * paused and gpu is 0: the loop ends within n + 1 passes.
                 * next >= n is a guard; whatever the floor still leaves
                 * unserved becomes shortfall in phase B. */
                if (y >= y_floor || next >= n) {
                    if (y > 1)
                        y = 1;
                    if (y < y_floor)
                        y = y_floor;
                    for (size_t i = 0; i < n; i++)
                        if (o->job[i].state == DISPATCH_RUN)
                            o->job[i].state = DISPATCH_THROTTLED;
                    return y;
                }
            }
            if (next >= n)
                return 1.0;
            o->job[k[next].index].state = DISPATCH_PAUSED;
        }
    }
    /* Pause and shed differ only in what a job still draws (idle power versus
     * none), so one loop serves both: stop jobs until the demand fits. */
    dispatch_job_state to =
        in->policy == DISPATCH_POLICY_PAUSE ? DISPATCH_PAUSED : DISPATCH_SHED;
    for (size_t next = 0; next < n && facility_demand(in, o, 1.0) > s_max;
         next++)
        o->job[k[next].index].state = to;
    return 1.0;
}

/* One long function on purpose: phases A, B and C share a dozen running sums
 * (availability per role, charge and discharge limits, served fraction), and
 * splitting them would mean a struct of intermediates passed between three
 * functions that are never called alone. The order is the model: the policy
 * must settle the demand before the merit order serves it (the policy is judged
 * against the most that could be supplied, s_max), and attribution needs the
 * final flows. Invariants a future editor must keep: every output array is
 * reset for the first n entries before use (dispatch_out is reused across
 * steps); a battery never both charges and discharges (charge comes only from
 * must-take surplus, which exists only when the load is covered and then dis is
 * 0); and supply equals sinks up to rounding, reported as balance_rel. */
int dispatch_step(const dispatch_in *in, dispatch_out *o, sim_err *err)
{
    int rc = validate(in, o, err);
    if (rc != SIM_OK)
        return rc;
    double dt = in->dt_s;
    size_t ns = in->n_src, nb = in->n_st, nm = in->n_mod, nj = in->n_job;
    double avail[3] = {0, 0, 0};
    for (size_t i = 0; i < ns; i++) {
        avail[in->src[i].role] += in->src[i].avail_w;
        o->src_w[i] = o->src_load_w[i] = o->src_curtail_w[i] = 0;
    }
    double ch_max = 0, dis_max = 0;
    for (size_t b = 0; b < nb; b++) {
        ch_max += in->st[b].charge_max_w;
        dis_max += in->st[b].discharge_max_w;
        o->st_charge_w[b] = o->st_discharge_w[b] = 0;
        o->st_in_carbon_g[b] = o->st_in_cost_usd[b] = o->st_in_renewable_j[b] =
            0;
    }
    for (size_t i = 0; i < nj; i++) {
        memset(&o->job[i], 0, sizeof o->job[i]);
        o->job[i].state = DISPATCH_RUN;
    }

    /* Phase A: demand and the shortage policy. The most the site could supply
     * this step: every source at its availability plus every battery at its
     * discharge limit. The policy acts only when the unreduced demand exceeds
     * it. */
    double s_max = avail[DISPATCH_MUST_TAKE] + avail[DISPATCH_FIRM] + dis_max +
                   avail[DISPATCH_GRID];
    o->demand_w = facility_demand(in, o, 1.0);
    double y = 1.0;
    if (o->demand_w > s_max && nj > 0)
        y = apply_policy(in, o, s_max);
    o->throttle = y;
    o->n_throttled = o->n_paused = o->n_shed = 0;
    double want = 0, want_it = 0;
    for (size_t m = 0; m < nm; m++) {
        o->mod_it_w[m] = in->mod[m].base_it_w;
        o->mod_facility_w[m] = in->mod[m].pue * in->mod[m].base_it_w;
    }
    for (size_t i = 0; i < nj; i++) {
        const dispatch_job *j = &in->job[i];
        dispatch_job_out *jo = &o->job[i];
        double it = job_it_w(j, jo->state, y);
        jo->it_w = it;
        jo->facility_w = in->mod[j->module].pue * it;
        jo->power_frac = jo->state == DISPATCH_RUN         ? 1.0
                         : jo->state == DISPATCH_THROTTLED ? y
                                                           : 0.0;
        jo->cap_frac_tdp = jo->power_frac * j->gpu_frac_tdp;
        jo->throughput =
            jo->state == DISPATCH_RUN ? 1.0
            : jo->state == DISPATCH_THROTTLED
                ? load_throttle_throughput_c(in->cap, y, j->gpu_frac_tdp)
                : 0.0;
        o->n_throttled += jo->state == DISPATCH_THROTTLED;
        o->n_paused += jo->state == DISPATCH_PAUSED;
        o->n_shed += jo->state == DISPATCH_SHED;
        o->mod_it_w[j->module] += it;
        o->mod_facility_w[j->module] += jo->facility_w;
    }
    want = in->aux_w;
    for (size_t m = 0; m < nm; m++) {
        want += o->mod_facility_w[m];
        want_it += o->mod_it_w[m];
    }

    /* Phase B: merit order. */
    double rest = want;
    double use[3] = {0, 0, 0};
    use[DISPATCH_MUST_TAKE] = fmin(avail[DISPATCH_MUST_TAKE], rest);
    rest -= use[DISPATCH_MUST_TAKE];
    double surplus = avail[DISPATCH_MUST_TAKE] - use[DISPATCH_MUST_TAKE];
    use[DISPATCH_FIRM] = fmin(avail[DISPATCH_FIRM], rest);
    rest -= use[DISPATCH_FIRM];
    /* Batteries discharge before the grid (issue 5's order): stored renewable
     * energy is used before imported energy. */
    double dis = fmin(dis_max, rest);
    rest -= dis;
    use[DISPATCH_GRID] = fmin(avail[DISPATCH_GRID], rest);
    rest -= use[DISPATCH_GRID];
    double shortfall = rest > 0 ? rest : 0;
    /* Only must-take surplus charges batteries; firm sources and the grid never
     * do, so the site never buys energy to store it. */
    double charge = fmin(ch_max, surplus);
    double curtail = surplus - charge;

    /* Split each role's use (and the must-take surplus) by availability.
     * Must-take sources report their whole availability as output (src_w): what
     * the load did not use went to batteries or was curtailed, and the
     * curtailed share is split by availability like the load share. */
    for (size_t i = 0; i < ns; i++) {
        const dispatch_source *s = &in->src[i];
        double share = avail[s->role] > 0 ? s->avail_w / avail[s->role] : 0;
        o->src_load_w[i] = use[s->role] * share;
        if (s->role == DISPATCH_MUST_TAKE) {
            o->src_curtail_w[i] = curtail * share;
            o->src_w[i] = s->avail_w;
        } else {
            o->src_w[i] = o->src_load_w[i];
        }
    }
    double stored = 0, withdrawn = 0;
    for (size_t b = 0; b < nb; b++) {
        const dispatch_store *s = &in->st[b];
        o->st_charge_w[b] = ch_max > 0 ? charge * s->charge_max_w / ch_max : 0;
        o->st_discharge_w[b] =
            dis_max > 0 ? dis * s->discharge_max_w / dis_max : 0;
        stored += o->st_charge_w[b] * s->eta_c;
        withdrawn += o->st_discharge_w[b] / s->eta_d;
    }
    o->generation_w =
        avail[DISPATCH_MUST_TAKE] + use[DISPATCH_FIRM] + use[DISPATCH_GRID];
    o->charge_w = charge;
    o->discharge_w = dis;
    o->stored_w = stored;
    o->withdrawn_w = withdrawn;
    o->loss_w = (charge - stored) + (withdrawn - dis);
    o->curtailed_w = curtail;
    o->grid_w = use[DISPATCH_GRID];
    o->shortfall_w = shortfall;
    o->load_w = want - shortfall;
    /* A shortfall is spread pro rata over modules and jobs (header, step 5):
     * every consumer receives the same served fraction, so per-module and
     * per-job figures still sum to the site's. */
    double served_frac = want > 0 ? o->load_w / want : 1.0;
    o->it_w = want_it * served_frac;
    for (size_t m = 0; m < nm; m++) {
        o->mod_shortfall_w[m] = o->mod_facility_w[m] * (1 - served_frac);
        o->mod_facility_w[m] *= served_frac;
        o->mod_it_w[m] *= served_frac;
    }
    double supply = o->generation_w + withdrawn;
    double sinks = o->load_w + stored + curtail + o->loss_w;
    /* Relative to supply, with a 1 W floor so that an idle site's balance is
     * not 0 / 0. */
    o->balance_rel = fabs(supply - sinks) / fmax(supply, 1.0);

    /* Phase C: attribution. Must-take energy to the load and to charging
     * are the same mix (shares of availability). */
    double carbon = 0, cost = 0, renew = 0;
    double mt_c = 0, mt_cost = 0, mt_r = 0; /* per W of must-take output */
    for (size_t i = 0; i < ns; i++) {
        const dispatch_source *s = &in->src[i];
        carbon += o->src_load_w[i] * s->carbon_g_per_j;
        cost += o->src_load_w[i] * s->price_usd_per_j;
        renew += s->renewable ? o->src_load_w[i] : 0;
        if (s->role == DISPATCH_MUST_TAKE && avail[DISPATCH_MUST_TAKE] > 0) {
            double share = s->avail_w / avail[DISPATCH_MUST_TAKE];
            mt_c += share * s->carbon_g_per_j;
            mt_cost += share * s->price_usd_per_j;
            mt_r += s->renewable ? share : 0;
        }
    }
    for (size_t b = 0; b < nb; b++) {
        const dispatch_store *s = &in->st[b];
        double w = o->st_discharge_w[b] / s->eta_d; /* withdrawn from b */
        carbon += w * s->carbon_g_per_j;
        cost += w * s->cost_usd_per_j;
        renew += o->st_discharge_w[b] * s->renewable_frac;
        o->st_in_carbon_g[b] = o->st_charge_w[b] * mt_c * dt;
        o->st_in_cost_usd[b] = o->st_charge_w[b] * mt_cost * dt;
        o->st_in_renewable_j[b] = o->st_charge_w[b] * mt_r * dt;
    }
    o->load_carbon_g = carbon * dt;
    o->load_cost_usd = cost * dt;
    o->load_renewable_j = renew * dt;
    double load_j = o->load_w * dt;
    o->aux_served_w = in->aux_w * served_frac;
    double base_j = o->aux_served_w * dt;
    for (size_t m = 0; m < nm; m++)
        base_j += in->mod[m].pue * in->mod[m].base_it_w * served_frac * dt;
    o->base_energy_j = base_j;
    /* Jobs are charged their share of the served load's energy, carbon, cost
     * and renewable energy, so the per-job sums equal the step's audited
     * totals; base loads (idle modules) keep the remainder in base_energy_j. */
    for (size_t i = 0; i < nj; i++) {
        dispatch_job_out *jo = &o->job[i];
        jo->facility_w *= served_frac;
        jo->it_w *= served_frac;
        jo->energy_j = jo->facility_w * dt;
        double share = load_j > 0 ? jo->energy_j / load_j : 0;
        jo->carbon_g = share * o->load_carbon_g;
        jo->cost_usd = share * o->load_cost_usd;
        jo->renewable_j = share * o->load_renewable_j;
    }
    return SIM_OK;
}

dispatch_role dispatch_role_of(source_kind k)
{
    if (source_must_take(k))
        return DISPATCH_MUST_TAKE;
    return (unsigned)k < SRC_N && source_table[k].role == SOURCE_GRID
               ? DISPATCH_GRID
               : DISPATCH_FIRM;
}
