/* models/cost.c: the cost model (see cost.h; equations and sources in
 * docs/cost-model.md).
 *
 * It owns the arithmetic from capacities, catalog prices and a run's
 * energies to capital, annualised cost, LCOE, NPV and cost per run. It must
 * never read files, hold state or change the scenario: the simulation
 * (models/site.c) calls it once per replication after the run, and the
 * tests call it directly on hand-built inputs.
 */
#include "models/cost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/scenario.h"
#include "models/scenkeys.h"

const char *const cost_item_name[COST_N] = {
    "gpus", "modules", "solar", "battery", "wind", "grid", "om", "energy"};

#define CK(k, m, sc)                                                           \
    {                                                                          \
        k, offsetof(cost_params, m), sc                                        \
    }
const cost_key cost_keys[] = {
    CK("discount_rate_pct", discount_rate, 0.01),
    CK("npv_horizon_years", npv_horizon_s, COST_YEAR_S),
    CK("module_life_years", module_life_s, COST_YEAR_S),
    CK("it_om_pct_per_yr", it_om_frac_per_yr, 0.01),
    CK("solar_tracker_usd_per_wdc", solar_tracker_usd_per_w, 1.0),
    CK("solar_fixed_usd_per_wdc", solar_fixed_usd_per_w, 1.0),
    CK("solar_om_usd_per_kwdc_yr", solar_om_usd_per_w_yr, 1e-3),
    CK("solar_life_years", solar_life_s, COST_YEAR_S),
    CK("wind_usd_per_kw", wind_usd_per_w, 1e-3),
    CK("wind_om_usd_per_kw_yr", wind_om_usd_per_w_yr, 1e-3),
    CK("wind_life_years", wind_life_s, COST_YEAR_S),
    CK("battery_usd_per_kwh", battery_usd_per_j, 1.0 / 3.6e6),
    CK("battery_usd_per_kw", battery_usd_per_w, 1e-3),
    CK("second_life_factor", second_life_factor, 1.0),
    CK("battery_om_pct_per_yr", battery_om_frac_per_yr, 0.01),
    CK("battery_life_years", battery_life_s, COST_YEAR_S),
    CK("battery_replace_soh", battery_replace_soh, 1.0),
    CK("grid_usd_per_kw", grid_usd_per_w, 1e-3),
    CK("grid_life_years", grid_life_s, COST_YEAR_S),
    CK("demand_usd_per_kw_month", demand_usd_per_w_month, 1e-3),
    CK("var_om_usd_per_mwh", var_om_usd_per_j, 1.0 / 3.6e9),
};
#undef CK
const size_t cost_n_keys = sizeof cost_keys / sizeof cost_keys[0];

/* The defaults are read from the key table rather than repeated here, so
 * the documented default and the one used are the same number. */
void cost_params_default(cost_params *p)
{
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < cost_n_keys; i++) {
        char path[64];
        const scen_key *k;
        snprintf(path, sizeof path, "costs.%s", cost_keys[i].key);
        k = scen_key_find(path);
        if (k)
            *(double *)((char *)p + cost_keys[i].off) =
                k->def * cost_keys[i].scale;
    }
}

/* The closed form with a real exponent, so a 7.5-year life is priced between
 * 7 and 8 years rather than rounded; r = 0 is the straight-line limit. */
double cost_crf(double r, double life_s)
{
    double n = life_s / COST_YEAR_S, a;
    if (!(n > 0) || !(r >= 0))
        return (double)NAN;
    if (r == 0)
        return 1.0 / n;
    a = pow(1.0 + r, n);
    return r * a / (a - 1.0);
}

double cost_annuity(double r, double horizon_s)
{
    return 1.0 / cost_crf(r, horizon_s);
}

/* Purchased: the grid and the firm kinds, at their flat price. Owned: the
 * variable and storage kinds, whose capital is counted instead; they carry
 * only the variable O&M rate. */
void cost_energy_split(const scenario *s, const double e_j[SRC_N],
                       double *bought, double *var_om)
{
    double b = 0, v = 0;
    for (int k = 0; k < SRC_N; k++) {
        source_role role = source_table[k].role;
        if (role == SOURCE_GRID || role == SOURCE_FIRM)
            b += e_j[k] * s->energy.cost_usd_per_j[k];
        else
            v += e_j[k] * s->costs.var_om_usd_per_j;
    }
    *bought = b;
    *var_om = v;
}

double cost_energy_usd(const scenario *s, const double e_j[SRC_N])
{
    double b, v;
    cost_energy_split(s, e_j, &b, &v);
    return b + v;
}

/* Capital and its annualisation, item by item: each asset has its own life,
 * so the CRF is applied per asset and the annual figures are summed. */
static void capital(const scenario *s, cost_site *o)
{
    const cost_params *p = &s->costs;
    const scen_energy *en = &s->energy;
    double r = p->discount_rate;
    double solar_w = en->capacity_w[SRC_SOLAR];
    double usd_per_w_solar = en->solar.tracking == TRACK_SINGLE_AXIS
                                 ? p->solar_tracker_usd_per_w
                                 : p->solar_fixed_usd_per_w;
    double bat =
        en->battery.capacity_j * p->battery_usd_per_j * p->second_life_factor +
        en->capacity_w[SRC_BATTERY] * p->battery_usd_per_w;

    for (size_t i = 0; i < s->n_modules; i++) {
        const scen_module *m = &s->modules[i];
        double sys = (double)m->count * m->units * m->system->capex_usd;
        double mod = m->it_capacity_w * m->type->capex_usd_per_w;
        o->capex_item_usd[COST_GPUS] += sys;
        o->capex_item_usd[COST_MODULES] += mod;
        o->annual_item_usd[COST_GPUS] += sys * cost_crf(r, m->system->life_s);
        o->annual_item_usd[COST_MODULES] += mod * cost_crf(r, p->module_life_s);
    }
    o->capex_item_usd[COST_SOLAR] = solar_w * usd_per_w_solar;
    o->capex_item_usd[COST_WIND] = en->capacity_w[SRC_WIND] * p->wind_usd_per_w;
    o->capex_item_usd[COST_BATTERY] = en->present[SRC_BATTERY] ? bat : 0.0;
    o->capex_item_usd[COST_GRID] = en->capacity_w[SRC_GRID] * p->grid_usd_per_w;
    o->annual_item_usd[COST_SOLAR] =
        o->capex_item_usd[COST_SOLAR] * cost_crf(r, p->solar_life_s);
    o->annual_item_usd[COST_WIND] =
        o->capex_item_usd[COST_WIND] * cost_crf(r, p->wind_life_s);
    o->annual_item_usd[COST_BATTERY] =
        o->capex_item_usd[COST_BATTERY] * cost_crf(r, p->battery_life_s);
    o->annual_item_usd[COST_GRID] =
        o->capex_item_usd[COST_GRID] * cost_crf(r, p->grid_life_s);
}

void cost_site_compute(const scenario *s, const cost_run_in *in, cost_site *o)
{
    const cost_params *p = &s->costs;
    const scen_energy *en = &s->energy;
    double per_yr = in->horizon_s > 0 ? COST_YEAR_S / in->horizon_s : 0.0;
    double bought, var_om, om_it, om_supply, repl, fac_yr_j;

    memset(o, 0, sizeof *o);
    capital(s, o);
    for (int k = 0; k < COST_N; k++)
        o->capex_usd += o->capex_item_usd[k];

    /* Second-life packs that fell below the threshold are bought again at
     * the second-life price of an average pack; the count is per horizon,
     * so it is scaled to a year like the energy. */
    repl = en->present[SRC_BATTERY] && en->battery.packs > 0
               ? in->battery_replacements * en->battery.capacity_j /
                     en->battery.packs * p->battery_usd_per_j *
                     p->second_life_factor * per_yr
               : 0.0;
    o->annual_item_usd[COST_BATTERY] += repl;

    cost_energy_split(s, in->energy_by_source_j, &bought, &var_om);
    om_it = p->it_om_frac_per_yr *
            (o->capex_item_usd[COST_GPUS] + o->capex_item_usd[COST_MODULES]);
    om_supply = p->solar_om_usd_per_w_yr * en->capacity_w[SRC_SOLAR] +
                p->wind_om_usd_per_w_yr * en->capacity_w[SRC_WIND] +
                p->battery_om_frac_per_yr * o->capex_item_usd[COST_BATTERY] +
                var_om * per_yr;
    o->annual_item_usd[COST_OM] = om_it + om_supply;
    /* Demand charges: the run's peak import is charged in every month, an
     * upper bound when the peak falls in one month only. */
    o->annual_item_usd[COST_ENERGY] =
        bought * per_yr + in->grid_peak_w * p->demand_usd_per_w_month * 12.0;

    for (int k = 0; k < COST_N; k++)
        o->annualized_usd += o->annual_item_usd[k];
    o->supply_annual_usd =
        o->annual_item_usd[COST_SOLAR] + o->annual_item_usd[COST_BATTERY] +
        o->annual_item_usd[COST_WIND] + o->annual_item_usd[COST_GRID] +
        om_supply + o->annual_item_usd[COST_ENERGY];
    fac_yr_j = in->facility_j * per_yr;
    o->lcoe_usd_per_j =
        fac_yr_j > 0 ? o->supply_annual_usd / fac_yr_j : (double)NAN;
    o->npv_usd =
        -o->annualized_usd * cost_annuity(p->discount_rate, p->npv_horizon_s);
    /* The per-GPU rate spreads every fixed cost (capital, fixed O&M and the
     * demand charges) over the GPU-time the site offers; what scales with
     * energy is charged to each job by its own energy instead. */
    o->var_om_annual_usd = var_om * per_yr;
    o->bought_annual_usd = bought * per_yr;
    o->gpus = scenario_gpus(s, NULL);
    o->capital_om_usd_per_gpu_s =
        o->gpus > 0 ? (o->annualized_usd - o->bought_annual_usd -
                       o->var_om_annual_usd) /
                          ((double)o->gpus * COST_YEAR_S)
                    : 0.0;
}

double cost_job_run_usd(const scenario *s, const cost_site *c, double gpu_s,
                        const double e_j[SRC_N])
{
    return gpu_s * c->capital_om_usd_per_gpu_s + cost_energy_usd(s, e_j);
}
