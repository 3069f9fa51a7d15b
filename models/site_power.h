/* models/site_power.h: a site's power over time on the engine: climate,
 * PV plants, wind plants, batteries, firm sources and modules, dispatched
 * every step (default 15 min), with per-step records and run totals. This is
 * the API the site simulation (issue 6) builds on. See docs/power-model.md 9.
 *
 * How to use it.
 *   1. Fill a site_power_cfg (site_power_cfg_default, then the arrays of
 *      solar_cfg, wind_cfg, battery_cfg, supply_cfg and site_power_module).
 *      Weather is either a climate_year (from io/epw.h, borrowed, must
 *      outlive the site) or, when weather is NULL, synthesised from
 *      cfg.normals with the site's climate stream (one fresh year per
 *      simulated year; wind plants add the stream "climate/wind").
 *   2. site_power_new(cfg, seed, rep, &err) builds it: battery pack health
 *      and source outages draw from per-entity streams (sim/rng.h) named
 *      "battery/<i>/pack/<k>", "source/<name>", "climate".
 *   3. Either drive it yourself: site_power_attach(sp, engine) schedules the
 *      sources' failure/repair events on the engine; then, at each step
 *      start t_s (your own engine event), call site_power_step(sp, t_s,
 *      jobs, n_jobs, base_it_w, &out). jobs[] are the running jobs' demands
 *      (dispatch_job: module index, GPU/other/idle IT power from
 *      load_training_demand, f_gpu, priority); base_it_w[m] is module m's
 *      IT power that no job controls (site_power_module_base_it_w helps:
 *      module overhead plus the idle systems no job holds). The returned
 *      dispatch_out says what each job may draw (job[i].state RUN /
 *      THROTTLED with power_frac and throughput / PAUSED / SHED) and what it
 *      is charged this step (energy_j, renewable_j, carbon_g, cost_usd:
 *      its share of the audited step totals).
 *      Or let site_power_run(sp, engine, horizon_s, demand_fn, ctx) do both:
 *      it schedules one step event per step and asks demand_fn for the
 *      jobs of each step.
 *   4. Read site_power_totals and the per-step records
 *      (site_power_records, when cfg.record is set).
 * Invariants: every step's energy balance closes to 1e-9 relative (the
 * worst is kept in totals.balance_max_rel); no limit is exceeded (see
 * dispatch.h). Time: t_s is seconds since the run start, which is hour
 * start_hoy_h of the (nominal, non-leap) year in local standard time.
 * Complexity: O(sources + batteries + modules + jobs) per step, plus
 * O(8760) per PV plant per simulated year (hourly PV is precomputed).
 * A step is piecewise constant within the weather hour.
 */
#ifndef MODELS_SITE_POWER_H
#define MODELS_SITE_POWER_H

#include <stddef.h>
#include <stdint.h>

#include "models/battery.h"
#include "models/climate.h"
#include "models/cooling.h"
#include "models/dispatch.h"
#include "models/load.h"
#include "models/solar.h"
#include "models/supply.h"
#include "models/wind.h"
#include "sim/err.h"
#include "sim/sim.h"

#define SITE_POWER_PRIO_OUTAGE 10 /* outage events run before steps */
#define SITE_POWER_PRIO_STEP 0

/* A module (a Spark unit) for the power model. */
typedef struct site_power_module {
    char name[48];
    load_cfg load;       /* IT capacity and state fractions */
    load_system system;  /* the system type it hosts */
    double n_systems;    /* systems installed */
    cooling_cfg cooling; /* its PUE curve */
    double online_s;     /* time it comes online (0 = from the start) */
} site_power_module;

typedef struct site_power_cfg {
    char name[64];
    const climate_year *weather; /* borrowed; NULL = synthesise */
    climate_monthly normals;     /* used when weather is NULL */
    double start_hoy_h;          /* hour of year at t = 0, [0, 8760) */
    double step_s;               /* dispatch step, 900 s */
    dispatch_policy policy;      /* shortage policy */
    load_cap_curve cap;          /* the throttle's power-cap curve
                                    (models/load.h); defaults from
                                    site_power_cfg_default */
    const solar_cfg *solar;
    size_t n_solar;
    const wind_cfg *wind; /* wind plants (models/wind.h), each carrying its
                             own carbon and price */
    size_t n_wind;
    const battery_cfg *battery;
    size_t n_battery;
    const supply_cfg *source;
    size_t n_source;
    const site_power_module *module;
    size_t n_module;
    double solar_carbon_g_per_j;      /* 48 g/kWh, IPCC AR5 utility PV
                                         median (facts.md 3.5) */
    double solar_price_usd_per_j;     /* 58 $/MWh, middle of Lazard v18
                                         utility PV 38-78 (facts.md 3.7) */
    double solar_degradation_per_s;   /* PV output fades linearly from t = 0:
                                         x (1 - d t); 0 default (the plant's
                                         first-year yield; NREL ATB gives
                                         0.7 %/yr, facts.md 3.1) */
    double battery_carbon_g_per_j;    /* per J discharged, on top of the
                                         stored energy's own mix; 0 */
    double battery_price_usd_per_j;   /* per J discharged (levelized cost
                                         of storage). When > 0 it replaces
                                         the stored energy's own cost: an
                                         LCOS already includes the cost of
                                         the charging energy (Lazard), so
                                         adding both would count it twice.
                                         0: the stored energy's cost only */
    double battery_initial_renewable; /* renewable fraction of the charge
                                       the batteries hold at t = 0, [0, 1];
                                       0 default (site_power_scn: 1 for an
                                       off-grid site, whose packs can only
                                       have been charged on site) */
    int record;                       /* 1 = keep per-step records */
    int weather_rep0; /* 1: synthetic weather of replication 0 in every
                         replication (variance decomposition) */
} site_power_cfg;

/* One step's record (mean powers over the step). */
typedef struct site_power_record {
    double t_s;                   /* step start */
    double t_db_c, t_wb_c;        /* ambient */
    double pue;                   /* facility / IT served (1 if no load) */
    double it_w, facility_w;      /* served */
    double demand_w;              /* facility demand before the policy */
    double gen_w[SRC_N];          /* output by source kind incl. curtailed
                                     (battery: 0, see discharge_w) */
    double discharge_w, charge_w; /* batteries, at the bus */
    double curtailed_w, shortfall_w, loss_w;
    double soc;      /* stored / capacity over all batteries */
    double soh;      /* capacity / new capacity over all batteries */
    double throttle; /* GPU power fraction applied (1 = none) */
    uint32_t n_throttled, n_paused, n_shed;
    double carbon_g, cost_usd, renewable_j; /* of the load served */
} site_power_record;

/* Totals over the steps run so far. */
typedef struct site_power_totals {
    size_t steps;
    double time_s;
    double it_j, facility_j, demand_j;
    double water_m3;     /* cooling water (cooling_water_l_per_j x IT served) */
    double gen_j[SRC_N]; /* generation by source kind incl. curtailed
                            (battery: 0, see discharge_j) */
    double discharge_j, charge_j, curtailed_j, shortfall_j, loss_j, fade_loss_j;
    double battery_hvac_j; /* battery enclosure HVAC electricity served (a
                              facility load outside the modules) */
    double renewable_j, carbon_g, cost_usd; /* of the load served */
    double time_short_s;     /* steps with shortfall or any job not at full
                                power */
    double time_unserved_s;  /* steps with unserved load */
    double pue_min, pue_max; /* over steps with load */
    double t_db_min_c, t_db_max_c;
    double battery_efc;                  /* capacity-weighted mean over banks */
    double battery_soh0, battery_soh;    /* at start and now */
    double solar_p_ac0_w, solar_p_dc0_w; /* nameplates */
    double wind_capacity_w;              /* wind nameplate */
    double stored_j;                     /* added to storage (charge x eta_c) */
    double withdrawn_j;     /* removed from storage (discharge / eta_d) */
    double balance_max_rel; /* worst step energy balance */
    double grid_max_w;      /* peak import */
    uint64_t outages;       /* forced outages begun */
} site_power_totals;

typedef struct site_power site_power;

/* Demand callback for site_power_run: fills *jobs and *n_jobs (borrowed,
 * valid until the next call) and *base_it_w (array of n_module) for the
 * step starting at t_s. Returns SIM_OK or an error code (run stops). */
typedef int (*site_power_demand_fn)(void *ctx, const site_power *sp, double t_s,
                                    const dispatch_job **jobs, size_t *n_jobs,
                                    const double **base_it_w);

/* Defaults: step 900 s, throttle policy, start Jan 1 00:00, Las Vegas
 * normals, solar carbon and price as above, no records, no components. */
void site_power_cfg_default(site_power_cfg *c);

/* Builds the site (copies the cfg arrays). Returns NULL with err set
 * (SIM_EINVAL naming the component) when a component is invalid. */
site_power *site_power_new(const site_power_cfg *c, uint64_t seed, uint64_t rep,
                           sim_err *err);

/* Frees sp. site_power_free(NULL) is a no-op. */
void site_power_free(site_power *sp);

/* Schedules the sources' forced outages on engine e. Errors: from
 * sim_schedule. */
int site_power_attach(site_power *sp, sim *e);

/* Dispatches the step [t_s, t_s + step_s). t_s must not go backwards.
 * *out (OUT, may be NULL) points to the step's dispatch result, owned by sp
 * and valid until the next step. Errors: SIM_EINVAL (bad job/base inputs,
 * t_s going back, more jobs than the capacity grows to is never an error:
 * buffers grow). */
int site_power_step(site_power *sp, double t_s, const dispatch_job *jobs,
                    size_t n_jobs, const double *base_it_w,
                    const dispatch_out **out, sim_err *err);

/* Runs steps from t = now on e up to horizon_s on engine e (attaching
 * outages first), calling demand each step. Errors: from demand or the
 * step, as err. */
int site_power_run(site_power *sp, sim *e, double horizon_s,
                   site_power_demand_fn demand, void *ctx, sim_err *err);

/* Module m's IT power that no job controls at time t_s: 0 before it is
 * online, else module overhead + (n_systems - busy_systems) idle systems. */
double site_power_module_base_it_w(const site_power *sp, size_t m, double t_s,
                                   double busy_systems);

/* Module m's nominal training demand with every system busy (compute
 * fraction LOAD_DEFAULT_COMPUTE_FRAC), clipped to its IT capacity. */
void site_power_module_nominal(const site_power *sp, size_t m,
                               load_demand *out);

const site_power_totals *site_power_get_totals(const site_power *sp);

/* The per-step records so far (NULL without cfg.record); *n (OUT). */
const site_power_record *site_power_records(const site_power *sp, size_t *n);

/* The weather hour used at t_s. */
const climate_hour *site_power_weather(site_power *sp, double t_s);

/* Read access for tests and reports. */
size_t site_power_n_batteries(const site_power *sp);
const battery *site_power_battery(const site_power *sp, size_t i);
size_t site_power_n_sources(const site_power *sp);
/* Number of dispatch sources (solar + wind plants + supplies). */
size_t site_power_n_dispatch_sources(const site_power *sp);
/* Source kind of dispatch source i (dispatch_out.src_* index): the solar
 * plants, then the wind plants, then the supplies in cfg order. */
source_kind site_power_source_kind(const site_power *sp, size_t i);
supply *site_power_supply(site_power *sp, size_t i);
double site_power_step_s(const site_power *sp);

#endif
