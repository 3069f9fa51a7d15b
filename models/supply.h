/* models/supply.h: firm energy sources: geothermal, hydro and the grid,
 * their available power at a time, their price and lifecycle carbon, and
 * forced outages as failure and repair events on the engine (sim/sim.h).
 * See docs/power-model.md 5.
 *
 * Model. A source has a nameplate capacity_w and, while up, offers
 *   geothermal: capacity_w x derate (baseload, must-run: unused output is
 *               curtailed, the dispatch treats it like solar);
 *   hydro:      capacity_w x month_frac[month] x derate (seasonal
 *               capacity), limited
 *               by a monthly energy budget cf x capacity x month hours when
 *               cf > 0 (reservoir; dispatchable: unused water stays);
 *   grid:       import_limit_w (dispatchable, after batteries).
 * Forced outages: when mtbf_s > 0 the source alternates up and down times
 * drawn Exp(mtbf_s) and Exp(mttr_s) from its own random stream, as events on
 * the engine; availability = mtbf / (mtbf + mttr). While down it offers 0.
 * The state changes at the event's instant; a dispatch step sees the state
 * at its start (outage resolution = the step).
 *
 * Money and carbon: price_usd_per_j (flat, or x tod_mult[local hour]) and
 * carbon_g_per_j (lifecycle: IPCC AR5 medians, facts.md 3.5: geothermal 38,
 * hydro 24 g/kWh; the grid's is the user's, default 481 g/kWh = 2023 world
 * average, facts.md 3.4, because Nevada's was not found).
 *
 * Complexity: O(1) per query; one pending event per source. Pure apart from
 * the engine events it schedules.
 */
#ifndef MODELS_SUPPLY_H
#define MODELS_SUPPLY_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "models/source.h"
#include "sim/err.h"
#include "sim/sim.h"

typedef struct supply_cfg {
    char name[48];
    source_kind kind;       /* SRC_GEOTHERMAL, SRC_HYDRO or SRC_GRID (a firm
                               or grid source of the registry) */
    double capacity_w;      /* nameplate (grid: import limit), >= 0 */
    double derate;          /* geothermal, hydro: fraction available when
                               up, 1 */
    double month_frac[12];  /* hydro: capacity fraction per month, 1 */
    double cf;              /* hydro: monthly energy budget as a capacity
                               factor, 0 = unlimited */
    double mtbf_s;          /* mean time between forced outages, 0 = none */
    double mttr_s;          /* mean time to repair */
    double price_usd_per_j; /* energy price (or cost) */
    double tod_mult[24];    /* time-of-day price multipliers, 1 */
    double carbon_g_per_j;  /* lifecycle carbon intensity */
    int renewable;          /* counts towards the renewable share */
} supply_cfg;

typedef struct supply {
    supply_cfg c;
    int up;              /* 1 while available */
    uint64_t n_outages;  /* failures so far */
    double down_s;       /* total time down so far (closed outages) */
    double down_since_s; /* start of the current outage */
    double month_used_j; /* hydro: energy used this month */
    int month;           /* hydro: month of month_used_j */
    gsl_rng *r;          /* outage stream (owned) */
    sim_handle next;     /* pending failure or repair event */
    int prio;            /* priority of its events */
} supply;

/* Defaults for a source of kind k with capacity_w: geothermal derate 1,
 * availability 0.91 as mtbf 485 h / mttr 48 h (Iceland fleet capacity
 * factor 0.91, facts.md 3.2 [D]; the 48 h repair time is an assumption),
 * IPCC carbon; hydro month_frac 1, cf 0.46 (Norway 0.43-0.49, facts.md
 * 3.3 [D]), no outages; grid no outages, price 80 $/MWh (assumption),
 * carbon 481 g/kWh. */
void supply_cfg_default(supply_cfg *c, source_kind k, double capacity_w);

/* Checks ranges. Errors: SIM_EINVAL naming the field. */
int supply_cfg_check(const supply_cfg *c, sim_err *err);

/* Initialises s (up, no outage) with its outage stream seeded from
 * (master, rep, stream). Pair with supply_fini. Errors: as supply_cfg_check. */
int supply_init(supply *s, const supply_cfg *c, uint64_t master, uint64_t rep,
                uint64_t stream, sim_err *err);

/* Frees the stream. */
void supply_fini(supply *s);

/* Schedules the first failure on engine e (no-op without outages).
 * Events carry priority prio (higher than the dispatch step's, so an outage
 * at a step boundary applies to that step). Errors: from sim_schedule. */
int supply_start_outages(supply *s, sim *e, int prio);

/* Forces the source down (up = 0) or up at time now_s, for tests and
 * planned outages; counts an outage when going down. */
void supply_set_up(supply *s, int up, double now_s);

/* Power the source can offer for a step starting at hour of year hoy_h
 * (local standard time): 0 when down. Hydro subtracts its month's used
 * budget. Pure. */
double supply_available_w(const supply *s, double hoy_h, double dt_s);

/* Records that the source delivered energy_j in the step starting at hoy_h
 * (hydro budget bookkeeping). */
void supply_deliver(supply *s, double hoy_h, double energy_j);

/* Price [USD/J] at hour of year hoy_h. */
double supply_price_usd_per_j(const supply *s, double hoy_h);

/* Fraction of [0, now_s] the source was up. */
double supply_availability(const supply *s, double now_s);

#endif
