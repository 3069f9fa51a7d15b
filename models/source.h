/* models/source.h: defaults of the energy sources a site can have (solar,
 * battery, geothermal, hydro, grid), from models/sources.cfg.
 *
 * SI throughout: carbon in kg CO2-eq per joule (1 g/kWh = 2.778e-10 kg/J),
 * money in USD per joule (1 USD/MWh = 2.778e-10 USD/J), times in seconds,
 * rates per second. A field that does not apply to a kind is 0. The values
 * are the defaults a scenario's `energy` section starts from.
 */
#ifndef MODELS_SOURCE_H
#define MODELS_SOURCE_H

typedef enum source_kind {
    SRC_SOLAR = 0,
    SRC_BATTERY = 1,
    SRC_GEOTHERMAL = 2,
    SRC_HYDRO = 3,
    SRC_GRID = 4,
    SRC_KIND_N = 5
} source_kind;

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
} source_defaults;

#endif
