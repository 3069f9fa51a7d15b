/* models/source.h: the registry of energy sources a site can have, and the
 * defaults of each (from models/sources.cfg).
 *
 * One table (SOURCE_TABLE below) names every source kind once: its enum
 * constant, lower-case name (scenario section energy.<name>, sources.cfg
 * group, result-field infix energy_<name>_mwh, database source name), label
 * (charts, reports), chart colour, dispatch role, renewable flag and whether
 * a firm source is must-run. Everything that keeps a value per source keeps
 * an array indexed by source_kind (results, dispatch totals, charts,
 * catalog); the order of the table is the order of result columns, chart
 * stacks and report columns, so a new kind goes where its columns should
 * appear (a new kind appended before battery/grid changes no existing
 * column name, only their positions).
 *
 * Roles (how the dispatch, models/dispatch.h, treats a source):
 *   VARIABLE  weather-driven, must-take: serves the load first, its surplus
 *             charges batteries and the rest is curtailed (solar, wind);
 *   FIRM      dispatchable on demand after the variable sources (hydro);
 *             a must-run firm source is dispatched like a variable one
 *             (geothermal baseload);
 *   STORAGE   charged from surplus, discharged after firm sources (battery);
 *   GRID      import, last (grid).
 *
 * Units of the defaults: SI throughout: carbon in kg CO2-eq per joule (1
 * g/kWh = 2.778e-10 kg/J), money in USD per joule (1 USD/MWh = 2.778e-10
 * USD/J), times in seconds, rates per second. A field that does not apply to
 * a kind is 0. The values are the defaults a scenario's `energy` section
 * starts from; the lifecycle carbon (gco2_per_kwh) and cost (usd_per_mwh)
 * keys of every kind, with their citations, are in models/sources.cfg.
 */
#ifndef MODELS_SOURCE_H
#define MODELS_SOURCE_H

typedef enum source_role {
    SOURCE_VARIABLE = 0,
    SOURCE_FIRM = 1,
    SOURCE_STORAGE = 2,
    SOURCE_GRID = 3
} source_role;

/* X(kind, name, label, rgb, role, renewable, must_run). rgb is 0xRRGGBB. */
#define SOURCE_TABLE(X)                                                        \
    X(SRC_SOLAR, "solar", "Solar", 0xf7b529, SOURCE_VARIABLE, 1, 0)            \
    X(SRC_WIND, "wind", "Wind", 0x6eb4e6, SOURCE_VARIABLE, 1, 0)               \
    X(SRC_GEOTHERMAL, "geothermal", "Geothermal", 0xb05838, SOURCE_FIRM, 1, 1) \
    X(SRC_HYDRO, "hydro", "Hydro", 0x1f64aa, SOURCE_FIRM, 1, 0)                \
    X(SRC_BATTERY, "battery", "Battery discharge", 0x3ca050, SOURCE_STORAGE,   \
      0, 0)                                                                    \
    X(SRC_GRID, "grid", "Grid", 0x8c8c8c, SOURCE_GRID, 0, 0)

#define SOURCE_ENUM_(k, n, l, c, r, ren, mr) k,
typedef enum source_kind { SOURCE_TABLE(SOURCE_ENUM_) SRC_N } source_kind;
#undef SOURCE_ENUM_

/* One row of the registry. */
typedef struct source_info {
    source_kind kind;
    const char *name;  /* "solar", "wind", ... */
    const char *label; /* "Solar", "Battery discharge", ... */
    int rgb;           /* chart colour 0xRRGGBB */
    source_role role;
    int renewable; /* counts towards the renewable share (battery output
                      carries the mix of what charged it instead) */
    int must_run;  /* firm but dispatched like a variable source */
} source_info;

/* The registry, indexed by source_kind. */
extern const source_info source_table[SRC_N];

/* Name of kind k ("?" out of range). */
const char *source_name(source_kind k);

/* Kind named name (case-insensitive), or -1. */
int source_kind_parse(const char *name);

/* 1 when the dispatch takes all of kind k's output first (variable or
 * must-run), else 0. */
int source_must_take(source_kind k);

typedef struct source_defaults {
    char name[16]; /* "solar", "battery", ... */
    source_kind kind;
    double carbon_kg_per_j; /* lifecycle (or grid operational) carbon */
    double cost_usd_per_j;  /* levelized cost or price of energy */
    double availability;    /* fraction of time available, [0, 1] */
    double capacity_factor; /* mean output / nameplate, [0, 1] */
    double mtbf_s;          /* forced-outage mean time between [s] */
    double mttr_s;          /* forced-outage mean time to repair [s] */
    /* solar */
    double losses;            /* PVWatts system losses, [0, 1) */
    double dc_ac_ratio;       /* DC nameplate / inverter AC limit */
    double inverter_eff;      /* inverter efficiency, (0, 1] */
    double temp_coeff_per_k;  /* power temperature coefficient [1/K] */
    double degradation_per_s; /* capacity loss rate [1/s] */
    /* battery */
    double round_trip_eff;   /* round-trip efficiency, (0, 1] */
    double c_rate_max_per_s; /* max power / energy capacity [1/s]
                                (= C-rate / 3600) */
    double reserve_floor;    /* minimum state of charge kept, [0, 1) */
    double soh_mean;         /* second-life state of health, mean */
    double soh_sd;           /* ... its standard deviation */
    double soh_min, soh_max; /* ... clip range */
    /* wind */
    double hub_height_m;   /* hub height */
    double shear_exponent; /* power-law shear alpha */
    double wake_loss;      /* wake losses, [0, 1) */
    char turbine[48];      /* power curve name (models/wind.h) */
} source_defaults;

#endif
