/* models/scenario.c: what a resolved scenario offers besides its fields
 * (see scenario.h), and the scenario's own rules: the checks its values
 * must pass together and the quantities derived from them (scenario_finish).
 * It must never read a file: io/scenario_cfg.c reads one into these structs
 * and places this file's refusals at FILE:LINE; tests build scenarios in
 * memory and get the same rules. */
#include "models/scenario.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "models/scenkeys.h"

void scenario_free(scenario *s)
{
    if (!s)
        return;
    catalog_free(s->cat);
    free(s->modules);
    free(s->fabric.links);
    free(s->jobs);
    free(s->resolved_text);
    free(s->site.calib);
    free(s);
}

const char *scenario_resolved_text(const scenario *s)
{
    return s->resolved_text ? s->resolved_text : "";
}

int64_t scenario_gpus(const scenario *s, const gpu_spec *gpu)
{
    int64_t n = 0;
    for (size_t i = 0; i < s->n_modules; i++)
        if (!gpu || s->modules[i].gpu == gpu)
            n += s->modules[i].gpus;
    return n;
}

int scenario_grid_connected(const scenario *s)
{
    return s->energy.present[SRC_GRID] && s->energy.capacity_w[SRC_GRID] > 0;
}

double scenario_it_power_w(const scenario *s)
{
    double w = 0;
    for (size_t i = 0; i < s->n_modules; i++)
        w += s->modules[i].it_power_w;
    return w;
}

/* PV is rated at its inverter (AC) limit, not its DC nameplate: that is
 * the most it can deliver to the site. */
double scenario_source_rating_w(const scenario *s, source_kind k)
{
    const scen_energy *e = &s->energy;
    if ((unsigned)k >= SRC_N || !e->present[k])
        return 0.0;
    return k == SRC_SOLAR ? e->solar.inverter_limit_w : e->capacity_w[k];
}

const char *scenario_policy_name(dispatch_policy p)
{
    return dispatch_policy_name(p);
}

const char *scenario_topology_name(fabric_topology t)
{
    switch (t) {
    case TOPO_FAT_TREE:
        return "fat-tree";
    case TOPO_RAIL_OPTIMIZED:
        return "rail-optimized";
    case TOPO_DRAGONFLY:
        return "dragonfly";
    case TOPO_STAR:
        return "star";
    }
    return "?";
}

/* ---- the scenario's rules and derived quantities ----
 *
 * scenario_finish is the one place a scenario's values are checked against
 * each other and the quantities that follow from them are computed, for a
 * scenario read from a file and one built in memory alike. Each refusal
 * names the file key it is about ("KEY: text (got X, expected Y)") and
 * where a reader should place it (sim/err.h SIM_ERR_AT_*), in the file's
 * units, because the people who read it wrote that file. */

#define DAY_S 86400.0
#define HOUR_S 3600.0
#define MW 1e6
#define MWH_J 3.6e9

#define FAIL(at, ...) sim_err_set(err, SIM_ECONFIG, NULL, (at), __VA_ARGS__)

static int finish_simulation(const scenario *s, sim_err *err)
{
    if (s->sim.step_s > s->sim.horizon_s)
        return FAIL(SIM_ERR_AT_GROUP,
                    "simulation.step_min: longer than the horizon (got %g "
                    "min, expected <= %g min)",
                    s->sim.step_s / 60, s->sim.horizon_s / 60);
    return SIM_OK;
}

/* Names are unique (case-insensitive) among module groups and among jobs:
 * results, links and logs refer to them by name. A link joins two
 * different groups. Public so a reader can check the module names before
 * it resolves links by name. */
int scenario_check_names(const scenario *s, sim_err *err)
{
    for (size_t i = 0; i < s->n_modules; i++)
        for (size_t k = 0; k < i; k++)
            if (strcasecmp(s->modules[k].name, s->modules[i].name) == 0)
                return FAIL(SIM_ERR_AT_GROUP,
                            "modules.[%zu].name: duplicate module name (got "
                            "\"%s\", expected a name not used by "
                            "modules.[%zu])",
                            i, s->modules[i].name, k);
    for (size_t i = 0; i < s->fabric.n_links; i++) {
        const scen_link *l = &s->fabric.links[i];
        if (l->a == l->b)
            return FAIL(SIM_ERR_AT_GROUP,
                        "fabric.links.[%zu].to: a link joins two different "
                        "module groups (got \"%s\" at both ends)",
                        i, l->a < s->n_modules ? s->modules[l->a].name : "?");
    }
    for (size_t i = 0; i < s->n_jobs; i++)
        for (size_t k = 0; k < i; k++)
            if (strcasecmp(s->jobs[k].name, s->jobs[i].name) == 0)
                return FAIL(SIM_ERR_AT_GROUP,
                            "jobs.[%zu].name: duplicate job name (got \"%s\", "
                            "expected a name not used by jobs.[%zu])",
                            i, s->jobs[i].name, k);
    return SIM_OK;
}

/* The module-fit rule: a group hosts a system its type lists, at most as
 * many units as the type's IT power allows (units 0 = that many); then
 * the group's GPUs and IT power. */
static int finish_module(scenario *s, size_t i, sim_err *err)
{
    scen_module *m = &s->modules[i];
    int fits = catalog_module_fits(m->type, m->system->name);
    if (fits < 0) {
        char names[1024] = "";
        for (size_t k = 0; k < m->type->n_hosts; k++)
            snprintf(names + strlen(names), sizeof names - strlen(names),
                     "%s%s", k ? ", " : "", m->type->hosts[k]);
        return FAIL(SIM_ERR_AT_KEY,
                    "modules.[%zu].hosts: module type %s cannot host it (got "
                    "\"%s\", expected one of: %s)",
                    i, m->type->name, m->system->name, names);
    }
    if (fits < 1)
        return FAIL(SIM_ERR_AT_GROUP,
                    "modules.[%zu].hosts: not even one %s (%g kW) fits in a "
                    "%s module's %g kW",
                    i, m->system->name, m->system->max_power_w / 1e3,
                    m->type->name, m->type->it_power_w / 1e3);
    if (m->units == 0)
        m->units = fits;
    if (m->units > fits)
        return FAIL(SIM_ERR_AT_KEY,
                    "modules.[%zu].units: more %s than a %s module's power "
                    "allows (got %d x %g kW = %g kW, expected <= %d units in "
                    "%g kW IT)",
                    i, m->system->name, m->type->name, m->units,
                    m->system->max_power_w / 1e3,
                    m->units * m->system->max_power_w / 1e3, fits,
                    m->type->it_power_w / 1e3);
    /* A module built in memory has no cooling parameters yet: its design's
     * defaults (pue_base >= 1 in every resolved design). The loader's keys
     * keep their own ranges; what is left is the rule that ties the fixed
     * part of the overhead to the design's mild-weather PUE. */
    if (m->cool.pue_base == 0)
        cooling_cfg_default(&m->cool, (cooling_type)m->cooling);
    if (m->cool.pue_base - m->cool.fixed_frac < 1.0)
        return FAIL(SIM_ERR_AT_KEY,
                    "modules.[%zu].cooling_fixed_frac: larger than the %s "
                    "design's whole overhead (got %g, expected <= %g)",
                    i, cooling_type_name(m->cool.type), m->cool.fixed_frac,
                    m->cool.pue_base - 1.0);
    m->gpu = catalog_gpu(s->cat, m->system->gpu);
    m->gpus = (int64_t)m->count * m->units * m->system->gpus;
    m->it_power_w = (double)m->count * m->units * m->system->max_power_w;
    m->it_capacity_w = (double)m->count * m->type->it_power_w;
    return SIM_OK;
}

/* power: defaults for a scenario built in memory (u_compute 0 is outside
 * its range, so all-zero means "not given"), then the rules between keys. */
static int finish_power(scenario *s, sim_err *err)
{
    load_cfg *p = &s->power;
    if (p->u_compute[NUM_BF16] == 0) {
        load_cfg_default(p, 0);
        load_cap_curve_default(&s->cap_curve);
    }
    if (p->idle_gpu_frac > p->u_compute[NUM_BF16])
        return FAIL(SIM_ERR_AT_KEY,
                    "power.gpu_idle_frac: above the BF16 compute level (got "
                    "%g, expected <= power.gpu_compute_frac_bf16 = %g)",
                    p->idle_gpu_frac, p->u_compute[NUM_BF16]);
    if (!(s->cap_curve.min_x < s->cap_curve.knee_x))
        return FAIL(SIM_ERR_AT_KEY,
                    "power.cap_curve.min_cap_frac: not below the knee (got "
                    "%g, expected < power.cap_curve.knee_cap_frac = %g)",
                    s->cap_curve.min_x, s->cap_curve.knee_x);
    return SIM_OK;
}

static int finish_solar(scenario *s, sim_err *err)
{
    scen_solar *p = &s->energy.solar;
    double cap_w = s->energy.capacity_w[SRC_SOLAR];
    if (p->inverter_limit_w > 0 && p->dc_ac_ratio == 0) {
        /* The limit was given: the ratio it implies obeys dc_ac_ratio's
         * range. */
        const scen_key *k = scen_key_find("energy.solar.dc_ac_ratio");
        p->dc_ac_ratio = cap_w / p->inverter_limit_w;
        if (cap_w > 0 && !(p->dc_ac_ratio >= k->lo && p->dc_ac_ratio <= k->hi))
            return FAIL(SIM_ERR_AT_KEY,
                        "energy.solar.inverter_limit_mw: gives a DC/AC ratio "
                        "of %g with capacity_mw (got capacity_mw / "
                        "inverter_limit_mw = %g, expected [%g, %g])",
                        p->dc_ac_ratio, p->dc_ac_ratio, k->lo, k->hi);
    } else if (p->dc_ac_ratio > 0) {
        p->inverter_limit_w = cap_w / p->dc_ac_ratio;
    }
    return SIM_OK;
}

static int finish_battery(scenario *s, sim_err *err)
{
    const scen_battery *b = &s->energy.battery;
    double cap_j = b->capacity_j;
    double power_w = s->energy.capacity_w[SRC_BATTERY];
    if (b->soh_min > b->soh_max)
        return FAIL(SIM_ERR_AT_GROUP,
                    "energy.battery.soh_min: above soh_max (got %g, expected "
                    "<= %g)",
                    b->soh_min, b->soh_max);
    if (b->soh_dist == SOH_NORMAL &&
        (b->soh_mean < b->soh_min || b->soh_mean > b->soh_max))
        return FAIL(SIM_ERR_AT_GROUP,
                    "energy.battery.soh_mean: outside [soh_min, soh_max] (got "
                    "%g, expected %g .. %g)",
                    b->soh_mean, b->soh_min, b->soh_max);
    if (b->initial_soc < b->reserve_floor)
        return FAIL(SIM_ERR_AT_GROUP,
                    "energy.battery.initial_soc_pct: below the reserve floor "
                    "(got %g%%, expected >= %g%%)",
                    b->initial_soc * 100, b->reserve_floor * 100);
    /* A pack can deliver at most c_rate_max x its energy (facts-more.md 4:
     * <= 0.2C for second-life packs). */
    if (power_w > b->c_rate_max_per_s * cap_j * (1 + 1e-12))
        return FAIL(SIM_ERR_AT_GROUP,
                    "energy.battery.power_mw: more power than the battery's "
                    "energy allows at its C-rate limit (got %g MW, expected "
                    "<= %g C x %g MWh = %g MW; raise capacity_mwh or "
                    "c_rate_max)",
                    power_w / MW, b->c_rate_max_per_s * HOUR_S, cap_j / MWH_J,
                    b->c_rate_max_per_s * cap_j / MW);
    if ((power_w > 0) != (cap_j > 0))
        return FAIL(SIM_ERR_AT_GROUP,
                    "energy.battery.%s: zero while the other is not (got %g "
                    "MWh, %g MW)",
                    power_w > 0 ? "capacity_mwh" : "power_mw", cap_j / MWH_J,
                    power_w / MW);
    return SIM_OK;
}

/* Time-of-day price windows: each ends after it starts and none overlaps
 * an earlier one, so a step's price is never ambiguous. */
static int finish_grid(scenario *s, sim_err *err)
{
    const scen_grid *gr = &s->energy.grid;
    for (size_t i = 0; i < gr->n_tod; i++) {
        const scen_tod_price *t = &gr->tod[i];
        if (t->end_s <= t->start_s)
            return FAIL(SIM_ERR_AT_GROUP,
                        "energy.grid.tod_prices.[%zu].end_h: not after "
                        "start_h (got %g, expected > %g)",
                        i, t->end_s / HOUR_S, t->start_s / HOUR_S);
        for (size_t k = 0; k < i; k++)
            if (t->start_s < gr->tod[k].end_s && gr->tod[k].start_s < t->end_s)
                return FAIL(SIM_ERR_AT_KEY,
                            "energy.grid.tod_prices.[%zu]: overlaps price "
                            "window [%zu] (got %g-%g h, expected disjoint "
                            "windows)",
                            i, k, t->start_s / HOUR_S, t->end_s / HOUR_S);
    }
    return SIM_OK;
}

/* Every source group in registry order, then the site must have a source
 * of energy that is not storage. */
static int finish_energy(scenario *s, sim_err *err)
{
    scen_energy *e = &s->energy;
    int rc, any = 0;
    if ((rc = finish_solar(s, err)) != SIM_OK ||
        (rc = finish_battery(s, err)) != SIM_OK ||
        (rc = finish_grid(s, err)) != SIM_OK)
        return rc;
    for (int k = 0; k < SRC_N; k++) {
        const scen_firm *f = &e->firm[k];
        if (source_table[k].role != SOURCE_FIRM)
            continue;
        if ((f->mtbf_s > 0) != (f->mttr_s > 0))
            return FAIL(SIM_ERR_AT_GROUP,
                        "energy.%s.%s: forced outages need both MTBF and "
                        "MTTR (got mtbf_h %g, mttr_h %g)",
                        source_table[k].name,
                        f->mtbf_s > 0 ? "mttr_h" : "mtbf_h", f->mtbf_s / HOUR_S,
                        f->mttr_s / HOUR_S);
    }
    /* A kind is present when it has a nameplate (the battery's power and
     * energy are both above 0 or both 0, checked above); the grid when its
     * group was given, even with import limit 0 (an islanded site). */
    for (int k = 0; k < SRC_N; k++)
        if (source_table[k].role != SOURCE_GRID)
            e->present[k] = e->capacity_w[k] > 0;
    for (int k = 0; k < SRC_N; k++)
        any |= source_table[k].role != SOURCE_STORAGE &&
               scenario_source_rating_w(s, (source_kind)k) > 0;
    if (!any) {
        /* The kinds that can supply, from the registry. */
        char names[256] = "";
        for (int k = 0; k < SRC_N; k++)
            if (source_table[k].role == SOURCE_VARIABLE ||
                source_table[k].role == SOURCE_FIRM)
                snprintf(names + strlen(names), sizeof names - strlen(names),
                         "%s%s", names[0] ? ", " : "", source_table[k].name);
        return FAIL(SIM_ERR_AT_KEY,
                    "energy: no source of energy (expected %s or a grid "
                    "import limit above 0; a battery only stores)",
                    names);
    }
    return SIM_OK;
}

/* A job's GPU type (given, or the site's only one), its precision on that
 * GPU, its step count from tokens (rounded up to whole steps) or steps
 * (tokens follow), and its parallel layout against its GPUs and model. */
static int finish_job(scenario *s, size_t i, sim_err *err)
{
    scen_job *j = &s->jobs[i];
    long long tp, pp, cp, mp, dp;
    double per_step;
    int64_t have;

    if (!j->gpu)
        for (size_t m = 0; m < s->n_modules; m++) {
            if (j->gpu && j->gpu != s->modules[m].gpu)
                return FAIL(SIM_ERR_AT_GROUP,
                            "jobs.[%zu].gpu: missing key: the site has more "
                            "than one GPU type (expected \"%s\" or \"%s\")",
                            i, j->gpu->name, s->modules[m].gpu->name);
            j->gpu = s->modules[m].gpu;
        }
    if (!j->gpu || j->gpu->peak_flops[j->fmt] <= 0)
        return FAIL(SIM_ERR_AT_KEY,
                    "jobs.[%zu].precision: %s has no tensor cores for it (got "
                    "\"%s\", expected a format with a peak on %s)",
                    i, j->gpu ? j->gpu->name : "?", j->precision,
                    j->gpu ? j->gpu->name : "?");
    if (j->micro_batch && j->global_batch % j->micro_batch != 0)
        return FAIL(SIM_ERR_AT_GROUP,
                    "jobs.[%zu].global_batch: not a multiple of micro_batch "
                    "(got %d, expected a multiple of %d)",
                    i, j->global_batch, j->micro_batch);
    per_step = (double)j->global_batch * j->seq_len;
    if (j->steps == 0)
        j->steps = (int64_t)ceil(j->tokens / per_step);
    j->tokens = (double)j->steps * per_step;
    tp = j->tp ? j->tp : 1;
    pp = j->pp ? j->pp : 1;
    cp = j->cp ? j->cp : 1;
    mp = tp * pp * cp;
    if (j->gpus % mp != 0)
        return FAIL(SIM_ERR_AT_GROUP,
                    "jobs.[%zu].gpus: not divisible by tp x pp x cp (got %d, "
                    "expected a multiple of %lld)",
                    i, j->gpus, mp);
    dp = j->gpus / mp;
    if ((j->tp || j->pp || j->cp) && j->micro_batch &&
        j->global_batch % ((long long)j->micro_batch * dp) != 0)
        return FAIL(SIM_ERR_AT_GROUP,
                    "jobs.[%zu].global_batch: not divisible by micro_batch x "
                    "data-parallel size (got %d, expected a multiple of %d x "
                    "%lld)",
                    i, j->global_batch, j->micro_batch, dp);
    if (j->ep > 1 && j->model->num_experts == 0)
        return FAIL(SIM_ERR_AT_GROUP,
                    "jobs.[%zu].ep: expert parallelism on a dense model (got "
                    "%d, expected 1 or none for %s)",
                    i, j->ep, j->model->name);
    /* Megatron's rule: ep divides the experts, and the expert-TP x EP
     * group (ep x etp ranks) the GPUs of a pipeline stage, tp x cp x dp;
     * the EP group may span the attention's TP groups. */
    if (j->ep > 1 &&
        (j->model->num_experts % j->ep != 0 ||
         (j->gpus / pp) % ((long long)j->ep * (j->etp ? j->etp : 1)) != 0))
        return FAIL(SIM_ERR_AT_GROUP,
                    "jobs.[%zu].ep: must divide the experts, and ep x etp the "
                    "GPUs of a pipeline stage (got ep %d, etp %d; expected a "
                    "divisor of %d, and ep x etp of %lld)",
                    i, j->ep, j->etp ? j->etp : 1, j->model->num_experts,
                    (long long)j->gpus / pp);
    if (j->etp > 1 && j->model->num_experts == 0)
        return FAIL(SIM_ERR_AT_GROUP,
                    "jobs.[%zu].etp: expert tensor parallelism on a dense "
                    "model (got %d, expected 1 or none for %s)",
                    i, j->etp, j->model->name);
    if (j->etp > 1 && j->model->moe_ffn_hidden_size % j->etp != 0)
        return FAIL(SIM_ERR_AT_GROUP,
                    "jobs.[%zu].etp: must divide the experts' width (got %d, "
                    "expected a divisor of %d)",
                    i, j->etp, j->model->moe_ffn_hidden_size);
    if (j->vp > 1 && pp < 2)
        return FAIL(SIM_ERR_AT_GROUP,
                    "jobs.[%zu].vp: virtual pipeline stages need pp >= 2 (got "
                    "vp %d with pp %lld)",
                    i, j->vp, pp);
    have = scenario_gpus(s, j->gpu);
    if ((int64_t)j->gpus + j->hot_spares > have)
        return FAIL(SIM_ERR_AT_KEY,
                    "jobs.[%zu].gpus: needs more GPUs than the site will ever "
                    "have (got %d + %d hot spares, expected <= %lld %s GPUs "
                    "in all modules)",
                    i, j->gpus, j->hot_spares, (long long)have, j->gpu->name);
    return SIM_OK;
}

/* The order is the order of dependence: names first (links and jobs refer
 * to groups by name), then the modules (a job's default GPU type and the
 * GPUs a job may use come from them), the energy sources, and the jobs
 * last. The first refusal stops, as the loader's first error does. */
int scenario_finish(scenario *s, sim_err *err)
{
    int rc;
    if (!s || !s->cat)
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "scenario_finish: NULL scenario or catalog");
    if ((rc = finish_simulation(s, err)) != SIM_OK ||
        (rc = scenario_check_names(s, err)) != SIM_OK)
        return rc;
    for (size_t i = 0; i < s->n_modules; i++)
        if ((rc = finish_module(s, i, err)) != SIM_OK)
            return rc;
    if ((rc = finish_energy(s, err)) != SIM_OK ||
        (rc = finish_power(s, err)) != SIM_OK)
        return rc;
    for (size_t i = 0; i < s->n_jobs; i++)
        if ((rc = finish_job(s, i, err)) != SIM_OK)
            return rc;
    /* A scenario built in memory leaves its costs zero: it gets the key
     * table's defaults, as a file without a `costs` group does (the loader
     * always sets a horizon > 0). */
    if (!(s->costs.npv_horizon_s > 0))
        cost_params_default(&s->costs);
    return SIM_OK;
}
