/* models/cost.h: the cost model a financier recognises: capital costs of
 * the site's assets, fixed and variable O&M, purchased energy and demand
 * charges, annualised with a capital recovery factor, and the share of each
 * training run. See docs/cost-model.md for the equations and sources.
 *
 * Units: SI inside. Money in USD, powers in W, energies in J, times in s.
 * Annual figures (annualised costs, O&M rates) are per year of
 * COST_YEAR_S = 365.25 d; the discount rate is real and per year, the
 * period a capital recovery factor compounds over.
 *
 * Ownership rule (why energy is not counted twice): the site owns its solar,
 * wind and battery, so their cost is their capital and O&M and the energy
 * they deliver costs nothing more; it buys the energy of the grid and of the
 * firm sources (geothermal, hydro) at their price (scen_energy
 * cost_usd_per_j, the flat price; time-of-day windows are not in the cost
 * model). The energy-only figure of a run (res_site.cost_usd) prices every
 * source at its own price and is kept as "energy cost".
 *
 * Everything here is a pure function of its arguments: no I/O, no state.
 */
#ifndef MODELS_COST_H
#define MODELS_COST_H

#include <stddef.h>
#include <stdint.h>

#include "models/source.h"

#define COST_YEAR_S (365.25 * 86400.0)

/* Items of the cost breakdown, in output order. */
typedef enum cost_item {
    COST_GPUS = 0,    /* GPU systems (catalog systems.<name>.capex_usd) */
    COST_MODULES = 1, /* module shells, power and cooling per W of IT */
    COST_SOLAR = 2,
    COST_BATTERY = 3, /* incl. replacement of packs below the threshold */
    COST_WIND = 4,
    COST_GRID = 5,   /* interconnection */
    COST_OM = 6,     /* fixed and variable O&M of every asset */
    COST_ENERGY = 7, /* purchased energy and grid demand charges */
    COST_N = 8
} cost_item;

extern const char *const cost_item_name[COST_N];

/* The cost assumptions of a scenario (its `costs` group; defaults and
 * sources in models/scenkeys.c). Per-unit capital costs of GPU systems and
 * module types are catalog entries (models/system.h, models/module.h). */
typedef struct cost_params {
    double discount_rate;     /* real, per year, [0, 1) */
    double npv_horizon_s;     /* span of npv_usd [s], > 0 */
    double module_life_s;     /* module shells, power, cooling [s] */
    double it_om_frac_per_yr; /* modules + GPU systems, of capex per year */
    double solar_tracker_usd_per_w; /* per W DC, single-axis tracking */
    double solar_fixed_usd_per_w;   /* per W DC, fixed tilt */
    double solar_om_usd_per_w_yr;   /* per W DC per year */
    double solar_life_s;
    double wind_usd_per_w;
    double wind_om_usd_per_w_yr;
    double wind_life_s;
    double battery_usd_per_j;      /* energy component, new packs [USD/J] */
    double battery_usd_per_w;      /* power component (inverters) [USD/W] */
    double second_life_factor;     /* second-life packs' energy cost / new */
    double battery_om_frac_per_yr; /* of battery capex per year */
    double battery_life_s;
    double battery_replace_soh; /* a pack below this health is replaced */
    double grid_usd_per_w;      /* interconnection per W of import limit */
    double grid_life_s;
    double demand_usd_per_w_month; /* on the peak import of each month */
    double var_om_usd_per_j;       /* on energy delivered by owned sources */
} cost_params;

/* The `costs` keys of a scenario: the key under `costs`, the cost_params
 * member it sets and the scale from the file's unit to SI. The defaults and
 * ranges are the key table's (models/scenkeys.c, "costs.<key>"). */
typedef struct cost_key {
    const char *key; /* "discount_rate_pct" */
    size_t off;      /* offsetof(cost_params, member) */
    double scale;    /* SI per file unit */
} cost_key;

extern const cost_key cost_keys[];
extern const size_t cost_n_keys;

/* Fills p with the key table's defaults (what a scenario without a `costs`
 * group gets). */
void cost_params_default(cost_params *p);

/* What a run measured that the cost depends on. */
typedef struct cost_run_in {
    double horizon_s;                 /* simulated span [s], > 0 */
    double facility_j;                /* facility energy served [J] */
    double energy_by_source_j[SRC_N]; /* delivered to the load [J] */
    double grid_peak_w;               /* peak grid import [W] */
    double battery_replacements;      /* packs that fell below the threshold */
} cost_run_in;

/* The site's costs. Annual figures are annualised (capital x CRF, O&M per
 * year, energy and replacements scaled from the horizon to a year). */
typedef struct cost_site {
    double capex_usd;                /* all capital at commissioning */
    double capex_item_usd[COST_N];   /* capital by item (OM, ENERGY: 0) */
    double annual_item_usd[COST_N];  /* annualised by item */
    double annualized_usd;           /* sum of annual_item_usd */
    double supply_annual_usd;        /* the energy supply's share: solar,
                                        battery, wind, grid, their O&M, energy */
    double lcoe_usd_per_j;           /* supply_annual / facility energy per
                                        year; NAN with no energy served */
    double npv_usd;                  /* -(PV of annualized over the horizon) */
    double bought_annual_usd;        /* purchased energy per year (in ENERGY,
                                        without demand charges) */
    double var_om_annual_usd;        /* variable O&M per year (in OM) */
    double capital_om_usd_per_gpu_s; /* (annualized - bought - var_om) /
                                        (GPUs x COST_YEAR_S): fixed costs
                                        per GPU-second offered */
    int64_t gpus;                    /* GPUs the site will ever have */
} cost_site;

struct scenario;

/* Capital recovery factor r (1+r)^n / ((1+r)^n - 1) for a real rate r per
 * year and a life of life_s (n = life_s / COST_YEAR_S years, fractional
 * allowed); 1/n when r = 0. The annual payment that repays 1 USD of capital
 * over the life. Errors: none; NAN when life_s <= 0 or r < 0. */
double cost_crf(double r, double life_s);

/* Present value of 1 USD a year for the span horizon_s at rate r (the
 * annuity factor, = 1 / cost_crf). */
double cost_annuity(double r, double horizon_s);

/* The purchased-energy cost of energies by source [USD]: grid and firm kinds
 * at their flat price, owned kinds (solar, wind, battery) at the variable
 * O&M rate (which cost_site books under COST_OM, not COST_ENERGY: see
 * cost_energy_split). */
double cost_energy_usd(const struct scenario *s,
                       const double energy_by_source_j[SRC_N]);

/* The same split in two: *bought (grid, firm) and *var_om (owned kinds at
 * var_om_usd_per_j) [USD]. */
void cost_energy_split(const struct scenario *s,
                       const double energy_by_source_j[SRC_N], double *bought,
                       double *var_om);

/* The site's costs for one run of s (its `costs` parameters and catalog
 * entries). Errors: none (all inputs validated by the loader). */
void cost_site_compute(const struct scenario *s, const cost_run_in *in,
                       cost_site *out);

/* A job's cost per run [USD]: its share of the site's annualised capital,
 * fixed O&M and demand charges while it holds GPUs (gpu_s x
 * capital_om_usd_per_gpu_s), plus its energy (cost_energy_usd of its energy
 * by source: purchased energy and variable O&M). Summed over jobs this
 * is the site's cost of the GPU-time they held plus their energy. */
double cost_job_run_usd(const struct scenario *s, const cost_site *c,
                        double gpu_s, const double energy_by_source_j[SRC_N]);

#endif
