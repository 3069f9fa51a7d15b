/* models/results.h: what a run produces, as plain structs in SI units.
 *
 * A run of a scenario is R replications; each replication yields one
 * run_rep (per-job outcomes, site totals, optionally the per-step site time
 * series and the event log). run_summary (models/stats.h) reduces the R
 * replications to mean, P10, P50, P90, min and max per metric. Adapters
 * (JSON/CSV/table output, the SQLite store, charts) only read these.
 *
 * Conventions: times are seconds since the simulation start (t = 0 at
 * simulation.start); energies in J; powers in W; money in USD; mass of CO2e
 * in kg. A job that did not finish within the horizon has completed = 0 and
 * end_s = NAN; its time-dependent metrics are NAN too, and summaries count
 * only finished replications (n_finished says how many).
 */
#ifndef MODELS_RESULTS_H
#define MODELS_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "models/cost.h"
#include "models/source.h"

/* Energy sources: per-source arrays are indexed by source_kind, in the
 * registry's order (models/source.h). */

/* Kinds of entries in a job's history. */
typedef enum res_event_kind {
    RES_EV_SUBMIT = 0,
    RES_EV_START = 1,      /* placed and started (value: GPUs held) */
    RES_EV_CHECKPOINT = 2, /* a checkpoint finished (value: tokens saved) */
    RES_EV_INTERRUPT = 3,  /* failure (cause: res_cause; value: tokens lost) */
    RES_EV_RESTART = 4,    /* back to training after a restart */
    RES_EV_PAUSE = 5,      /* paused for lack of power */
    RES_EV_RESUME = 6,
    RES_EV_THROTTLE = 7, /* throughput factor changed (value: factor 0..1) */
    RES_EV_SHED = 8,     /* stopped to shed load */
    RES_EV_END = 9,      /* training finished */
    RES_EV_N = 10
} res_event_kind;

extern const char *const res_event_name[RES_EV_N];

/* Interruption root causes (facts.md: Llama 3's 419 interruptions). */
typedef enum res_cause {
    RES_CAUSE_NONE = 0,
    RES_CAUSE_GPU = 1,
    RES_CAUSE_HOST = 2, /* host, memory, CPU, software */
    RES_CAUSE_NETWORK = 3,
    RES_CAUSE_MODULE = 4, /* a whole module went down */
    RES_CAUSE_POWER = 5,  /* power shortage */
    RES_CAUSE_N = 6
} res_cause;

extern const char *const res_cause_name[RES_CAUSE_N];

typedef struct res_event {
    double t_s;    /* when */
    int32_t job;   /* job index in the scenario */
    int32_t kind;  /* res_event_kind */
    int32_t cause; /* res_cause, for interrupts */
    double value;  /* meaning depends on kind (see res_event_kind) */
} res_event;

/* One job in one replication. */
typedef struct res_job {
    int completed;                   /* 1 if training finished in the horizon */
    double submit_s, start_s, end_s; /* start_s NAN if never started */
    double time_to_train_s;          /* end_s - submit_s (queueing included) */
    double run_time_s;               /* end_s - start_s */
    double gpu_s;                    /* GPU-seconds held (GPUs x time held) */
    double goodput;                /* useful training time / time held, 0..1 */
    double tokens;                 /* tokens trained (target when completed) */
    double tokens_per_sec_per_gpu; /* undisturbed throughput at placement */
    int32_t gpus;                  /* GPUs held (excluding hot spares) */
    int32_t modules_spanned;       /* modules the placement crossed */
    int32_t interruptions;         /* failures that cost work */
    int32_t checkpoints;           /* checkpoints written */
    int32_t pauses;                /* power pauses */
    double it_energy_j;            /* the job's share of IT energy */
    double gpu_energy_j;           /* of which its GPUs drew */
    double facility_energy_j;      /* its share of facility energy */
    double energy_by_source_j[SRC_N]; /* facility energy by source */
    double renewable_fraction; /* share of facility energy from renewables */
    double co2_kg;             /* lifecycle CO2e of that energy */
    double cost_usd;           /* energy cost (every source at its price) */
    double cost_per_run_usd;   /* share of the site's annualised capital and
                                  fixed O&M while holding GPUs, plus its
                                  purchased energy (models/cost.h) */
    double paused_s;           /* time paused or shed for lack of power */
    double paused_fraction;    /* paused_s / time holding power, 0..1 */
    double throttled_fraction; /* time throttled / time holding power */
} res_job;

/* Site totals of one replication. */
typedef struct res_site {
    double it_energy_j, facility_energy_j;
    double water_m3; /* cooling water (WUE x IT energy, models/cooling.h) */
    double energy_by_source_j[SRC_N]; /* delivered to the load */
    double battery_charge_j;          /* energy put into batteries */
    double curtailed_j;       /* renewable energy neither used nor stored */
    double shortfall_j;       /* demand not served */
    double time_short_s;      /* time in steps not at full demand: unserved
                                 load, or a job throttled, paused or shed */
    double utilization;       /* GPU-time busy / GPU-time online, 0..1 */
    double battery_cycles;    /* equivalent full cycles */
    double battery_soh_final; /* mean state of health at the end, 0..1 */
    double renewable_fraction;
    double co2_kg, cost_usd;
    double pue_mean;              /* facility / IT energy */
    double solar_capacity_factor; /* AC energy / (AC rating x horizon) */
    double wind_capacity_factor;  /* generation before curtailment /
                                     (nameplate x horizon) */
    double solar_energy_j;        /* PV AC generation over the horizon before
                                     curtailment (energy_by_source_j[SRC_SOLAR]
                                     is the part delivered to the load) */
    double curtailed_fraction;    /* curtailed / solar + wind generation */
    double battery_replacements;  /* packs below costs.battery_replace_soh */
    double grid_peak_w;           /* peak grid import */
    /* The cost model (models/cost.h): annual figures per year. */
    double capex_usd;
    double annualized_cost_usd;
    double lcoe_usd_per_j; /* energy supply's annual cost / energy */
    double npv_usd;        /* -(PV of the annualised cost over
                              costs.npv_horizon_years) */
    double annualized_item_usd[COST_N]; /* by cost_item */
    /* Training power dynamics over representative windows (issue 21,
     * models/powerdyn.h; site_powerdyn.c): facility power at 100 Hz. */
    double power_peak_w, power_min_w; /* over every window */
    double power_swing_w; /* largest peak-to-peak, steady-state windows */
    double power_std_w;   /* largest standard deviation, steady */
    double power_max_ramp_w_per_s;   /* largest ramp over 0.1 s, steady */
    double power_band_0p1_2hz_rms_w; /* largest band RMS, steady */
    double power_band_3_30hz_rms_w;
    double power_largest_drop_w; /* largest job or module drop at once */
    double battery_power_for_ramp_limit_w; /* 0: no limit */
    double power_jobs_mean_w; /* mean over the steady windows of the jobs'
                                 IT power (site power less its constant
                                 part): the sum of the modules'
                                 power_mean_w */
} res_site;

/* One module's training power dynamics (issue 21; site_powerdyn.c): the IT
 * power of the jobs it hosts (each job's wave prorated by the systems it
 * holds there), over the run's steady-state windows at 100 Hz. Idle
 * systems, module overhead, cooling and auxiliaries are constant within a
 * window and stay in the site's constant part, so the modules' means sum
 * to res_site.power_jobs_mean_w. NAN when not analysed. */
typedef struct res_module {
    double power_mean_w; /* mean over the steady windows */
    double power_peak_w, power_min_w;
    double power_swing_w; /* largest peak-to-peak of a window */
    double power_std_w;
    double power_max_ramp_w_per_s;
    double power_band_0p1_2hz_rms_w;
    double power_band_3_30hz_rms_w;
    double power_largest_drop_w; /* the module at its peak to off */
} res_module;

/* One sample of the run's representative window (the steady window with
 * the most training jobs; the report draws it): facility power with the
 * scenario's smoothing and without any (no floor, ramps, hysteresis or
 * rack storage), same jobs and phase offsets. */
typedef struct res_pd_sample {
    double t_s;                /* since the window's start */
    double power_w;            /* as the scenario runs */
    double power_unsmoothed_w; /* without smoothing */
} res_pd_sample;

/* One step of the site time series. */
typedef struct res_step {
    double t_s;              /* step start */
    double it_w, facility_w; /* load served */
    double demand_w;         /* facility load before any shortage action */
    double source_w[SRC_N];  /* delivered to the load, by source */
    double battery_charge_w; /* into batteries */
    double curtailed_w, shortfall_w;
    double soc_frac;  /* battery state of charge, 0..1 (NAN: none) */
    double soh_frac;  /* battery state of health, 0..1 (NAN: none) */
    double ambient_c; /* dry-bulb [degC] */
    double pue;
    double throttle; /* GPU throughput factor applied, 0..1 */
} res_step;

/* One replication. Arrays are owned; res_rep_free releases them. */
typedef struct res_rep {
    uint32_t replication; /* index, 0-based */
    size_t n_jobs;
    res_job *jobs;
    res_site site;
    size_t n_steps; /* 0 unless the series was requested */
    res_step *steps;
    size_t n_events; /* the event log (all job histories) */
    res_event *events;
    size_t n_modules; /* power dynamics per module (0: not analysed) */
    res_module *modules;
    size_t n_pd_samples; /* the representative window, replication 0 only
                            (0: none) */
    res_pd_sample *pd_samples;
} res_rep;

/* Frees the arrays of r (not r itself). NULL is a no-op. */
void res_rep_free(res_rep *r);

/* The annual solar energy exceeded in 90% of years (P90 exceedance, the
 * figure a lender sizes debt on) [J]: the 10th percentile (stats.h) over
 * the n replications of site.solar_energy_j annualized to 365 days
 * (x 365 d / horizon_s). Each replication draws its own weather year
 * (synthetic normals; see models/climate.h), so the replications are the
 * years; with one weather file every replication has the same year and
 * the figure is that year's energy. A horizon longer than a year gives the
 * exceedance of its mean year, narrower than a single year's. NAN when
 * n == 0 or horizon_s <= 0. */
double res_solar_p90_exceedance_j(const res_rep *reps, size_t n,
                                  double horizon_s);

#endif
