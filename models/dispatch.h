/* models/dispatch.h: one step's energy dispatch at a site: which source
 * serves which load, what the batteries do, what is curtailed, and what
 * the shortage policy does to the jobs when supply runs out. Pure: the
 * caller passes this step's limits and gets the flows back; nothing here
 * keeps state, allocates (after dispatch_out_new) or prints. See
 * docs/power-model.md 8.
 *
 * Order (issue 5):
 *   1. must-take sources (variable: solar, wind; must-run: geothermal)
 *      serve the load;
 *   2. their surplus charges the batteries (each up to its charge limit),
 *      and the rest is curtailed;
 *   3. a deficit is met by firm dispatchable renewables (hydro), then the
 *      batteries (each up to its discharge limit), then the grid up to its
 *      import limit;
 *   4. if the facility demand still exceeds the supply that all of these can
 *      give, the shortage policy reduces the jobs' demand first:
 *      DISPATCH_POLICY_THROTTLE caps every running job's GPU power at the same
 *        fraction y of its nominal training power, the largest y that fits,
 *        with throughput r(y f_gpu) / r(f_gpu) (models/load.h); if even
 *        y_min = min_x / f_gpu (the cap curve's floor, LOAD_CAP_MIN by
 *        default) does not fit, jobs are paused lowest
 *        priority first until it does;
 *      DISPATCH_POLICY_PAUSE pauses jobs (GPUs idle, job checkpoints and
 * waits), lowest priority first, until the demand fits; DISPATCH_POLICY_SHED
 * sheds jobs (their systems off), lowest priority first. "Lowest priority
 * first" orders by priority ascending, then by job index descending (the job
 * listed last goes first).
 *   5. load that still cannot be served (base loads with every job paused
 *      or shed) is the shortfall, spread over modules pro rata.
 * Splits among sources of one role, and among batteries, are proportional to
 * their available power. A battery never charges and discharges in one step.
 *
 * Energy balance (checked in every step, dispatch_out.balance_rel):
 *   supply = generation (incl. curtailed) + withdrawn from storage
 *          = load + stored + curtailed + losses,
 * losses being battery conversion: charge in (1 - eta_c) + withdrawn
 * (1 - eta_d). Limits: no source exceeds avail_w, no battery its charge or
 * discharge limit, no module its demand.
 *
 * Attribution. Every joule served to the load carries its source's
 * lifecycle carbon, price and renewable flag; battery output carries the mix
 * of the energy stored in it (per stored joule, kept by the caller, see
 * site_power.h). Each job's facility energy is its share of the step's
 * served load, so jobs are charged energy, renewable share, carbon and cost
 * that sum to the audited totals.
 *
 * Complexity: O(n_sources + n_stores + n_modules + n_jobs) per step, plus
 * O(n_jobs log n_jobs) in steps where the policy acts.
 */
#ifndef MODELS_DISPATCH_H
#define MODELS_DISPATCH_H

#include <stddef.h>

#include "models/load.h"
#include "models/source.h"
#include "sim/err.h"

typedef enum dispatch_policy {
    DISPATCH_POLICY_THROTTLE = 0,
    DISPATCH_POLICY_PAUSE = 1,
    DISPATCH_POLICY_SHED = 2
} dispatch_policy;

/* The dispatch's merit-order classes; a source kind's class follows from
 * its registry role (models/source.h) by dispatch_role_of. */
typedef enum dispatch_role {
    DISPATCH_MUST_TAKE = 0, /* variable and must-run: solar, wind, geothermal */
    DISPATCH_FIRM = 1,      /* firm dispatchable: hydro */
    DISPATCH_GRID = 2       /* grid import */
} dispatch_role;

/* Class of a supply kind: must-take for variable or must-run kinds, grid
 * for the grid role, else firm. (Storage is not a dispatch source.) */
dispatch_role dispatch_role_of(source_kind k);

typedef enum dispatch_job_state {
    DISPATCH_RUN = 0,
    DISPATCH_THROTTLED = 1,
    DISPATCH_PAUSED = 2,
    DISPATCH_SHED = 3
} dispatch_job_state;

/* A source's offer for this step. */
typedef struct dispatch_source {
    dispatch_role role;
    double avail_w;        /* >= 0 */
    double carbon_g_per_j; /* lifecycle */
    double price_usd_per_j;
    int renewable;
} dispatch_source;

/* A battery's limits for this step (battery_charge/discharge_limit_w) and
 * the mix of its stored energy, per stored joule. */
typedef struct dispatch_store {
    double charge_max_w, discharge_max_w;
    double eta_c, eta_d;   /* charge and discharge efficiencies */
    double carbon_g_per_j; /* per stored J */
    double cost_usd_per_j;
    double renewable_frac;
} dispatch_store;

/* A module: IT power that no job controls (idle systems, module overhead)
 * and this step's PUE. */
typedef struct dispatch_module {
    double base_it_w;
    double pue; /* >= 1 */
} dispatch_module;

/* A job's demand (models/load.h load_demand) on a module. */
typedef struct dispatch_job {
    size_t module;       /* index into the modules */
    double gpu_w;        /* GPU IT power at full training power */
    double other_w;      /* the rest of its IT power while training */
    double idle_w;       /* its IT power when paused */
    double gpu_frac_tdp; /* f_gpu, in (0, 1.2] */
    int priority;        /* higher = more important */
} dispatch_job;

/* What a job may draw this step, and what it is charged. */
typedef struct dispatch_job_out {
    dispatch_job_state state;
    double power_frac;   /* y: GPU power / nominal (1 = full) */
    double cap_frac_tdp; /* the GPU cap it implies, y x f_gpu */
    double throughput;   /* relative throughput, 1 = full, 0 paused */
    double it_w;         /* granted IT power */
    double facility_w;   /* granted facility power (x PUE), served */
    double energy_j;     /* facility energy served over the step */
    double renewable_j;  /* of which renewable */
    double carbon_g;     /* lifecycle carbon of that energy */
    double cost_usd;     /* its cost */
} dispatch_job_out;

typedef struct dispatch_in {
    double dt_s; /* > 0 */
    dispatch_policy policy;
    const dispatch_source *src;
    size_t n_src;
    const dispatch_store *st;
    size_t n_st;
    const dispatch_module *mod;
    size_t n_mod;
    const dispatch_job *job;
    size_t n_job;
    double aux_w; /* site load outside the modules (the battery enclosures'
                     HVAC), >= 0: in the demand and the load like a base
                     load, never in IT; its served part is in aux_served_w
                     and base_energy_j */
    const load_cap_curve *cap; /* the power-cap curve and its floor min_x
                                  (models/load.h); NULL: the defaults */
} dispatch_in;

typedef struct dispatch_out {
    size_t cap_src, cap_st, cap_mod, cap_job; /* array sizes */
    double *src_w;           /* [n_src] each source's output incl. curtailed */
    double *src_load_w;      /* [n_src] part that served the load */
    double *src_curtail_w;   /* [n_src] part curtailed */
    double *st_charge_w;     /* [n_st] input power into each battery */
    double *st_discharge_w;  /* [n_st] output power of each battery */
    double *mod_it_w;        /* [n_mod] IT power served */
    double *mod_facility_w;  /* [n_mod] facility power served */
    double *mod_shortfall_w; /* [n_mod] facility power not served */
    dispatch_job_out *job;   /* [n_job] */
    void *ws;                /* scratch for the priority order (private) */
    /* Totals over the step, as mean powers [W]. */
    double demand_w;     /* facility demand before the policy */
    double load_w;       /* facility load served */
    double it_w;         /* IT load served */
    double generation_w; /* all sources, incl. curtailed */
    double charge_w;     /* into batteries (input) */
    double discharge_w;  /* out of batteries (output) */
    double withdrawn_w;  /* removed from storage */
    double stored_w;     /* added to storage */
    double curtailed_w;
    double loss_w;      /* battery conversion losses */
    double shortfall_w; /* facility demand not served after the policy */
    double grid_w;      /* grid import */
    double throttle;    /* y applied (1 = none) */
    size_t n_throttled, n_paused, n_shed;
    double balance_rel; /* |supply - (load+stored+curtailed+losses)| /
                           max(supply, 1 W) */
    /* Attribution of the load served over the step. */
    double load_renewable_j, load_carbon_g, load_cost_usd;
    /* What entered storage this step (to update each battery's mix):
     * per battery, carbon/cost/renewable of its input energy. */
    double *st_in_carbon_g, *st_in_cost_usd, *st_in_renewable_j; /* [n_st] */
    double base_energy_j; /* served energy of the modules' base loads and
                             of the auxiliary load */
    double aux_served_w;  /* served part of aux_w */
} dispatch_out;

/* Allocates an output with room for the given counts. Free with
 * dispatch_out_free. Never fails (allocation aborts). */
dispatch_out *dispatch_out_new(size_t n_src, size_t n_st, size_t n_mod,
                               size_t n_job);

/* Frees o. dispatch_out_free(NULL) is a no-op. */
void dispatch_out_free(dispatch_out *o);

/* Runs one step. Errors: SIM_EINVAL (with a message) if dt_s <= 0, a
 * count exceeds out's capacity, a job names a missing module, or an input
 * is negative or NaN. Never allocates. */
int dispatch_step(const dispatch_in *in, dispatch_out *out, sim_err *err);

/* "throttle", "pause", "shed", NULL, indexed by dispatch_policy (the
 * scenario's policy.shortage choices); parse returns 0 and sets *p, or
 * -1. */
extern const char *const dispatch_policy_names[];
const char *dispatch_policy_name(dispatch_policy p);
int dispatch_policy_parse(const char *s, dispatch_policy *p);

#endif
