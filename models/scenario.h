/* models/scenario.h: a fully resolved scenario: the site, its modules and
 * what they host, the fabric, the energy sources, the jobs, the shortage
 * policy and the simulation settings, as plain structs.
 *
 * Everything is validated and in SI units: seconds (times are seconds since
 * the simulation start, dates are parsed from "YYYY-MM-DD"), watts, joules,
 * bits/s, kg CO2-eq per joule, USD per joule; temperatures in degrees
 * Celsius (differences in kelvin), angles in degrees. Every default has been
 * filled in, so a run never consults the file again. The key names of the
 * file format are documented in docs/scenario-reference.md; the loader is
 * io/scenario_cfg.c (libconfig), declared in io/scenario_cfg.h.
 *
 * A scenario owns its catalog: a copy of the built-in one with the
 * scenario's `catalog` group applied, so the catalog pointers inside it
 * (module types, systems, GPUs, models) live until scenario_free.
 */
#ifndef MODELS_SCENARIO_H
#define MODELS_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "models/catalog.h"
#include "models/cooling.h"
#include "models/cost.h"
#include "models/dispatch.h"
#include "sim/err.h"

#define SCEN_NAME_MAX 64
#define SCEN_PATH_MAX 1024
#define SCEN_WEATHER_MAX 16 /* weather files (years) of one scenario */

typedef enum climate_kind {
    CLIMATE_NORMALS = 0,   /* 12 monthly means + a diurnal range */
    CLIMATE_EPW = 1,       /* EnergyPlus weather file (hourly, 8760 rows) */
    CLIMATE_HOURLY_CSV = 2 /* hourly CSV of dry-bulb temperature */
} climate_kind;

typedef struct scen_climate {
    climate_kind kind;
    char normals[32];          /* built-in normals name, "" when user's */
    double monthly_mean_c[12]; /* dry-bulb monthly means [degC], Jan..Dec
                                  (filled for CLIMATE_NORMALS) */
    double diurnal_range_k;    /* daily max - min [K] (NORMALS) */
    char path[SCEN_PATH_MAX];  /* EPW/CSV file, resolved against the
                                  scenario's folder; "" for NORMALS */
    /* Several weather years (issue 19.3): `epw` or `hourly_csv` given as a
     * list of files, one year each; a replication draws one of them
     * (models/site.h). n_files is 1 for one file (more[] unused), 0 for
     * NORMALS; the first file is `path`, the others more[0..n_files-2]. */
    int n_files;
    char more[SCEN_WEATHER_MAX - 1][SCEN_PATH_MAX];
} scen_climate;

typedef struct scen_site {
    char name[SCEN_NAME_MAX];
    double latitude_deg;  /* [-90, 90], north positive */
    double longitude_deg; /* [-180, 180], east positive */
    double elevation_m;
    double utc_offset_s; /* local standard time - UTC [s] */
    char timezone[48];   /* label only ("America/Los_Angeles"), or "" */
    scen_climate climate;
    char calibration[256];    /* site.calibration as written, "" none */
    struct site_calib *calib; /* owned: its contents (models/site_calib.h),
                                 NULL none; applied to every job on its GPU
                                 types (models/site_sched.c) */
} scen_site;

/* One group of identical modules. */
typedef struct scen_module {
    char name[32];             /* unique in the scenario */
    const module_type *type;   /* into the scenario's catalog */
    const system_spec *system; /* what each module hosts */
    const gpu_spec *gpu;       /* system's GPU type */
    int count;                 /* identical modules in this group, >= 1 */
    int units;                 /* systems per module, 1..max that fit */
    double commission_t_s;     /* online from this time [s], >= 0 */
    int cooling;               /* cooling_type (models/cooling.h): the key
                                  `cooling`, by default from the module type
                                  (liquid: COOLING_LIQUID_DRY, else
                                  COOLING_AIR_ECONOMIZER) */
    cooling_cfg cool;          /* that design's parameters: its defaults
                                  (cooling_cfg_default) with the keys
                                  cooling_fixed_frac, cooling_wue_*,
                                  cooling_evap_threshold_c applied; all
                                  zero in a scenario built in memory, which
                                  scenario_finish fills with the defaults */
    int64_t gpus;              /* count * units * system->gpus */
    double it_power_w;         /* count * units * system->max_power_w [W] */
    double it_capacity_w;      /* count * type->it_power_w [W] */
} scen_module;

typedef enum fabric_topology {
    TOPO_FAT_TREE = 0,
    TOPO_RAIL_OPTIMIZED = 1,
    TOPO_DRAGONFLY = 2,
    TOPO_STAR = 3
} fabric_topology;

/* A link between two module groups (indices into scenario.modules). */
typedef struct scen_link {
    size_t a, b;             /* module group indices, a != b */
    double bandwidth_bps;    /* per direction [bit/s], > 0 */
    double latency_s;        /* one-way [s] */
    double oversubscription; /* >= 1 */
} scen_link;

typedef struct scen_fabric {
    fabric_topology topology;
    double oversubscription; /* default for the scale-out fabric, >= 1 */
    double latency_s;        /* default one-way switch latency [s] */
    size_t n_links;
    scen_link *links;
} scen_fabric;

typedef enum solar_tracking {
    TRACK_NONE = 0,
    TRACK_SINGLE_AXIS = 1
} solar_tracking;

/* PV: its nameplate (DC) and presence are scen_energy.capacity_w[SRC_SOLAR]
 * and present[SRC_SOLAR]; this holds what only PV has. */
typedef struct scen_solar {
    solar_tracking tracking;
    int sky_model;           /* solar_sky of models/solar.h: 0 Perez
                                (default), 1 isotropic */
    double tilt_deg;         /* fixed tilt (tracking none) [deg] */
    double azimuth_deg;      /* array azimuth, 180 = south [deg] */
    double losses;           /* PVWatts system losses, [0, 1) */
    double inverter_limit_w; /* AC limit [W] = capacity / dc_ac_ratio */
    double dc_ac_ratio;      /* 0 before scenario_finish when the limit was
                                given instead (then derived from it) */
    double inverter_eff;
    double temp_coeff_per_k;  /* [1/K], negative */
    double degradation_per_s; /* [1/s] */
} scen_solar;

typedef enum soh_dist { SOH_NORMAL = 0, SOH_UNIFORM = 1 } soh_dist;

/* The battery: its power (max charge/discharge [W]) and presence are
 * scen_energy.capacity_w[SRC_BATTERY] and present[SRC_BATTERY]. */
typedef struct scen_battery {
    double capacity_j;       /* usable energy at commissioning [J] */
    double round_trip_eff;   /* (0, 1] */
    double reserve_floor;    /* minimum state of charge, [0, 1) */
    double initial_soc;      /* state of charge at t = 0, [floor, 1] */
    double c_rate_max_per_s; /* power_w <= this * capacity_j [1/s] */
    int packs;               /* packs the capacity is split into, >= 1 */
    soh_dist soh_dist;       /* how each pack's starting SOH is drawn */
    double soh_mean, soh_sd; /* normal: mean and spread */
    double soh_min, soh_max; /* clip range (normal) or bounds (uniform) */
    /* Enclosure (energy.battery.thermal; models/battery.h battery_thermal):
     * thermal_mode 1 = ambient-rise (default), 2 = hvac. */
    int thermal_mode;
    double rise_c;                /* ambient-rise: cell above outdoor [K] */
    double setpoint_c;            /* hvac: set point [degC] */
    double hvac_cop;              /* hvac: coefficient of performance */
    double hvac_ua_w_per_k_per_j; /* hvac: envelope UA per J of capacity */
} scen_battery;

/* A firm source (registry role SOURCE_FIRM: geothermal, hydro): firm
 * capacity (scen_energy.capacity_w[kind]) with forced outages. */
typedef struct scen_firm {
    double availability;   /* long-run fraction available, [0, 1] */
    double mtbf_s, mttr_s; /* forced outages; 0 = none [s] */
    double monthly_cf[12]; /* hydro: usable fraction per month
                              (1 = full capacity); 1 for geothermal */
} scen_firm;

/* Onshore wind (models/wind.h): a plant of identical turbines, of
 * nameplate scen_energy.capacity_w[SRC_WIND]. */
typedef struct scen_wind {
    double hub_height_m;   /* > 0 */
    double shear_exponent; /* power-law alpha, [0, 1] */
    double availability;   /* [0, 1] */
    double wake_loss;      /* [0, 1) */
    wind_curve turbine;    /* from the catalog, by name */
} scen_wind;

/* A time-of-day price window, in local standard time. */
typedef struct scen_tod_price {
    double start_s, end_s; /* seconds after local midnight, start <
                              end, within [0, 86400] */
    double price_usd_per_j;
} scen_tod_price;

#define SCEN_MAX_TOD 8

/* The grid: its import limit is scen_energy.capacity_w[SRC_GRID] (>= 0;
 * 0 = islanded), present[SRC_GRID] = the group was given. */
typedef struct scen_grid {
    size_t n_tod; /* the flat price is scen_energy.cost */
    scen_tod_price tod[SCEN_MAX_TOD];
} scen_grid;

/* The energy sources. What every source has is an array indexed by the
 * registry's kind (models/source.h), so code that treats sources alike
 * loops over kinds; what only one kind has stays in its struct. */
typedef struct scen_energy {
    /* Per source kind: 1 when the site has it (a nameplate above 0; the
     * grid: its group given), and its nameplate power [W]: PV DC, wind
     * plant, battery charge/discharge power, firm capacity, grid import
     * limit. Zero for kinds the site lacks. */
    int present[SRC_N];
    double capacity_w[SRC_N];
    scen_solar solar;
    scen_wind wind;
    scen_battery battery;
    scen_firm firm[SRC_N]; /* indexed by source_kind; used for the kinds
                              whose registry role is SOURCE_FIRM
                              (geothermal, hydro), zero for the rest */
    scen_grid grid;
    /* Per source kind, whatever its group: lifecycle carbon (the grid's
     * operational intensity) and the levelized cost or flat price of its
     * energy (gco2_per_kwh and usd_per_mwh of each group; defaults from
     * the catalog). */
    double carbon_kg_per_j[SRC_N];
    double cost_usd_per_j[SRC_N];
} scen_energy;

typedef enum ckpt_policy { CKPT_YOUNG_DALY = 0, CKPT_FIXED = 1 } ckpt_policy;

typedef struct scen_job {
    char name[SCEN_NAME_MAX];   /* unique in the scenario */
    const llm_arch *model;      /* into the scenario's catalog */
    const gpu_spec *gpu;        /* GPU type it runs on */
    char precision[16];         /* label as written, lower case: "bf16",
                                   "fp8", "fp8-cs", "fp8-mx", "mxfp8",
                                   "nvfp4" */
    num_fmt fmt;                /* tensor-core format of the precision */
    int gpus;                   /* GPUs it needs, >= 1 */
    double tokens;              /* tokens to train (steps * gbs * seq) */
    int64_t steps;              /* optimizer steps, >= 1 */
    int global_batch;           /* sequences per step */
    int micro_batch;            /* sequences per micro-batch; 0 = not given */
    int seq_len;                /* tokens per sequence */
    int tp, pp, cp, ep, vp;     /* parallel layout; 0 = not given */
    int etp;                    /* expert tensor parallel; 0 = not given */
    int fsdp;                   /* 1 = FSDP instead of TP/PP */
    int recompute;              /* tp_recompute; 0 = not given */
    int distopt;                /* tp_distopt; 0 = not given */
    int cuda_graph;             /* tp_cuda_graph; 0 = not given (the
                                   calibrated recipe) */
    int moe_dispatcher;         /* tp_moe_dispatcher; 0 = not given (the
                                   all-to-all, as the calibration's
                                   unstated rows) */
    int moe_a2a_overlap;        /* tp_a2a_overlap; 0 = not given (the
                                   calibrated default) */
    double software_efficiency; /* stack vs the calibrated releases (compute
                                   times / it), 1 = calibrated */
    ckpt_policy ckpt;
    double ckpt_interval_s;        /* CKPT_FIXED interval [s]; 0 otherwise */
    double ckpt_write_s;           /* blocking time of one checkpoint [s] */
    double restart_s;              /* restart overhead after a failure [s] */
    int hot_spares;                /* GPUs held back to replace failed ones */
    double tokens_per_sec_per_gpu; /* pinned throughput (a published run's,
                                      for validation), or 0: predicted */
    int priority;                  /* higher runs first */
    double submit_t_s;             /* submission time [s since start] */
    char release[48];              /* software release whose calibration to
                                      use ("NeMo 26.08"), or "" */
    char src_file[SCEN_PATH_MAX];  /* file the job was written in (an
                                      @included file names itself) */
    int src_line;                  /* line of its jobs.[i] entry */
    int gpus_line;                 /* line of its gpus key */
} scen_job;

typedef struct scen_sim {
    int64_t start_day;   /* days since 1970-01-01 of the start */
    char start_date[11]; /* "YYYY-MM-DD" */
    double horizon_s;    /* simulated span [s], > 0 */
    double step_s;       /* time step [s], > 0, <= horizon */
    uint64_t seed;       /* master seed */
    int replications;    /* >= 1 */
} scen_sim;

/* Interruptions (models/reliability.h; defaults: Llama 3's rate, and the
 * marked assumptions REL_*_DEFAULT). */
typedef struct scen_reliability {
    int failures;            /* 0: no random interruptions or outages */
    double rate_per_gpu_s;   /* unexpected interruptions [1/(GPU s)] */
    double node_repair_s;    /* mean repair time of a failed system [s] */
    double module_mtbf_s;    /* whole-module outages, mean time between
                                [s]; 0 = none */
    double module_mttr_s;    /* mean module repair time [s] */
    double gpu_speed_spread; /* per-GPU step-time spread (sd, fraction):
                                the straggler term beyond the calibrated
                                scale (models/straggler.h); 0 = off */
} scen_reliability;

typedef struct scenario {
    char path[SCEN_PATH_MAX]; /* file as given */
    char dir[SCEN_PATH_MAX];  /* its folder (relative paths resolve here) */
    char description[256];
    catalog *cat; /* owned: built-in + scenario overrides */
    scen_site site;
    size_t n_modules;
    scen_module *modules;
    scen_fabric fabric;
    scen_energy energy;
    size_t n_jobs;
    scen_job *jobs;
    dispatch_policy policy;    /* shortage policy (models/dispatch.h) */
    load_cfg power;            /* the `power` group: GPU and system power by
                                  step phase (models/load.h; it_capacity_w is
                                  unused here, each module sets its own); all
                                  zero in a scenario built in memory, which
                                  scenario_finish fills with the defaults */
    load_cap_curve cap_curve;  /* power.cap_curve (models/load.h) */
    double gpu_floor_frac;     /* policy.gpu_power_floor_pct / 100 */
    double ramp_limit_w_per_s; /* policy.ramp_limit_mw_per_s, 0 = none */
    /* NVML-style power smoothing (policy.gpu_power_ramp_*; per GPU, 0 =
     * unlimited / none; models/load.h load_step_shape). */
    double gpu_ramp_up_w_per_s, gpu_ramp_down_w_per_s;
    double gpu_ramp_down_hyst_s;
    int power_dynamics_off; /* !policy.power_dynamics: 1 = no analysis
                               (the power_* fields are NAN); 0, the zero
                               value, keeps a scenario built in memory
                               analysed */
    scen_reliability reliability;
    cost_params costs; /* the `costs` group (models/cost.h) */
    scen_sim sim;
    char *resolved_text; /* see scenario_resolved_text */
} scenario;

/* Checks the rules a scenario's values obey together and derives what
 * follows from them, in place: simulation (step within the horizon);
 * names (module groups and jobs unique, a link joins two groups); modules (the
 * module-fit rule: the type hosts the system and at most floor(type IT power /
 * system max power) units fit, units 0 = that many; then gpu, gpus, it_power_w,
 * it_capacity_w; the cooling design's defaults in memory and its fixed
 * fraction within the design's overhead); power (its defaults in memory,
 * idle GPU power at most the BF16 compute level, the cap curve's floor
 * below its knee); energy (PV inverter limit and DC/AC ratio from each other,
 * battery SOH, reserve, C-rate and power/energy pairing, firm MTBF/MTTR
 * pairing, disjoint price windows, present[] from capacity_w[], at least one
 * source that is not storage); jobs (GPU type: given or the site's only one,
 * tensor cores for the precision, steps = ceil(tokens / (global_batch x
 * seq_len)) when steps is 0 and tokens = steps x that, the parallel layout,
 * GPUs the site has). io/scenario_cfg.c calls it after reading; a scenario
 * built in memory (with s->cat set) calls it before use. Errors: SIM_ECONFIG
 * "KEY: message (got X, expected Y)", KEY the file's key path
 * ("modules.[0].units"), err->line a SIM_ERR_AT_* placement (sim/err.h); the
 * scenario may be partly derived on error. */
int scenario_finish(scenario *s, sim_err *err);

/* The naming rules of scenario_finish alone, on what s holds so far (a
 * reader resolving fabric links by module name checks the modules' first).
 * Errors: as scenario_finish. */
int scenario_check_names(const scenario *s, sim_err *err);

/* Frees s. scenario_free(NULL) is a no-op. */
void scenario_free(scenario *s);

/* The configuration as resolved: the libconfig text of the tree after
 * includes and overrides (config_write), the same bytes for the same input
 * and overrides, for storing with results and hashing. Owned by s. */
const char *scenario_resolved_text(const scenario *s);

/* Total GPUs the site will ever have of GPU type gpu (NULL = all types). */
int64_t scenario_gpus(const scenario *s, const gpu_spec *gpu);

/* 1 when the site can import grid energy: a grid group with an import
 * limit above 0. A grid group with import_limit_mw = 0 is an islanded
 * (off-grid) site, exactly as one without a grid group. */
int scenario_grid_connected(const scenario *s);

/* Total IT power of the hosted systems at their max rating [W]. */
double scenario_it_power_w(const scenario *s);

/* The rating of source kind k at the site, 0 when it has none: PV AC
 * (inverter) limit, wind nameplate, battery power, firm capacity, grid
 * import limit [W]. */
double scenario_source_rating_w(const scenario *s, source_kind k);

/* Name of a precision's format, shortage policy, topology... for output. */
const char *scenario_policy_name(dispatch_policy p);
const char *scenario_topology_name(fabric_topology t);

#endif
