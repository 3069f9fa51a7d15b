/* models/scenkeys.c: the scenario-key table (see scenkeys.h). Ranges are the
 * ones the loader enforces; defaults marked "(assumption)" are the project's
 * own and are parameters a user can change; cited defaults name their
 * source (data/facts/). */
#include "models/scenkeys.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const scen_key scen_keys[] = {
    {"description", SK_STRING, "", NAN, NAN, 0, NAN, "", "",
     "`\"Nevada: 8 Spark units\"`", "one line shown by `check`"},
    {"site", SK_GROUP, "", NAN, NAN, 1, NAN, "", "", "",
     "where the site is and its weather (below)"},
    {"simulation", SK_GROUP, "", NAN, NAN, 1, NAN, "", "", "",
     "the simulated span, step, seed, replications"},
    {"modules", SK_LIST, "", NAN, NAN, 1, NAN, "", "at least one", "",
     "module groups"},
    {"energy", SK_GROUP, "", NAN, NAN, 1, NAN, "",
     "at least one supplying source", "", "energy sources"},
    {"jobs", SK_LIST, "", NAN, NAN, 0, NAN, "none (an empty site)", "", "",
     "training jobs"},
    {"fabric", SK_GROUP, "", NAN, NAN, 0, NAN, "one spine joins every module",
     "", "", "scale-out fabric"},
    {"policy", SK_GROUP, "", NAN, NAN, 0, NAN, "", "", "",
     "what to do when power runs short"},
    {"reliability", SK_GROUP, "", NAN, NAN, 0, NAN, "", "", "",
     "interruptions of training jobs"},
    {"catalog", SK_GROUP, "", NAN, NAN, 0, NAN, "", "", "",
     "catalog overrides (below the tables)"},
    {"power", SK_GROUP, "", NAN, NAN, 0, NAN, "", "", "",
     "GPU and system power by step phase, and the power-cap curve "
     "(docs/power-model.md 7; models/load.h)"},
    {"simulation.start_date", SK_DATE, "date", NAN, NAN, 1, NAN, "required",
     "1900-01-01 .. 2200-12-31", "`\"2027-03-01\"`",
     "t = 0 (00:00 local standard time)"},
    {"simulation.horizon_days", SK_NUMBER, "d", 1.0 / 24, 36525, 1, NAN,
     "required", "", "`180.0`", "simulated span"},
    {"simulation.step_min", SK_NUMBER, "min", 1.0 / 60, 1440, 0, 15.0, "15",
     "<= horizon", "`15.0`", "energy-balance time step"},
    {"simulation.seed", SK_INT, "", 0, 9223372036854775807.0, 0, 1, "1", "",
     "`42`", "master seed"},
    {"simulation.replications", SK_INT, "", 1, 100000, 0, 1, "1", "", "`4`",
     "independent runs (streams from seed and index)"},
    {"site.name", SK_STRING, "", NAN, NAN, 1, NAN, "required", "<= 63 chars",
     "`\"Las Vegas, NV\"`", ""},
    {"site.latitude_deg", SK_NUMBER, "deg", -90, 90, 1, NAN, "required", "",
     "`36.08`", "north positive"},
    {"site.longitude_deg", SK_NUMBER, "deg", -180, 180, 1, NAN, "required", "",
     "`-115.15`", "east positive"},
    {"site.elevation_m", SK_NUMBER, "m", -500, 9000, 0, 0, "0", "", "`648.0`",
     ""},
    {"site.utc_offset_h", SK_NUMBER, "h", -12, 14, 0, NAN,
     "round(longitude / 15)", "", "`-8.0`",
     "local standard time - UTC (no daylight saving)"},
    {"site.timezone", SK_STRING, "", NAN, NAN, 0, NAN, "`\"\"`", "<= 47 chars",
     "`\"America/Los_Angeles\"`", "label only"},
    {"site.calibration", SK_PATH, "", NAN, NAN, 0, NAN, "`\"\"` (none)",
     "a site calibration file (format factorysim-site-calibration)",
     "`\"site-calibration.cfg\"`",
     "the cluster's compute and communication speeds from its own Exemplar "
     "rows (`exemplar --write-site-calibration`), applied to every job on "
     "its GPU types; relative to the scenario's folder"},
    {"site.climate", SK_GROUP, "", NAN, NAN, 1, NAN, "",
     "exactly one of normals, monthly_mean_c, epw, hourly_csv", "",
     "the site's weather"},
    {"site.climate.normals", SK_CHOICE, "", NAN, NAN, 0, NAN, "-",
     "`las-vegas`, `reykjavik`, `stavanger`, `oslo`", "`\"las-vegas\"`",
     "built-in monthly normals (facts-more.md 5; models/climate.c)"},
    {"site.climate.monthly_mean_c", SK_NUMBERS, "degC", -80, 60, 0, NAN, "-",
     "", "`[ -4.0, ..., -3.0 ]`",
     "Jan..Dec dry-bulb means; needs `diurnal_range_k`"},
    {"site.climate.diurnal_range_k", SK_NUMBER, "K", 0, 40, 0, NAN,
     "the normals' own: mean of their monthly ranges (Las Vegas 12.1, "
     "Reykjavik 4.9, Stavanger 5.0, Oslo 7.2)",
     "", "`10.0`",
     "mean daily max - min; only with `normals` or `monthly_mean_c`"},
    {"site.climate.epw", SK_PATH, "", NAN, NAN, 0, NAN, "-",
     "readable file, or a list of 1-16",
     "`\"../data/weather/USA_NV_Las.Vegas-McCarran.Intl.AP.723860_TMY3.epw\"`",
     "EnergyPlus hourly weather; a list gives several years, one drawn per "
     "replication (docs/site-model.md)"},
    {"site.climate.hourly_csv", SK_PATH, "", NAN, NAN, 0, NAN, "-",
     "readable file, or a list of 1-16", "`\"weather/site.csv\"`",
     "hourly weather CSV: `hour` or `timestamp`, `dry_bulb_c`, optional "
     "humidity, pressure, irradiance and wind (docs/power-model.md 13); a "
     "timestamped file may hold several whole years (each one year; an "
     "incomplete year is an error); a list gives several files; a "
     "replication draws one year of all of them"},
    {"modules.[].name", SK_STRING, "", NAN, NAN, 1, NAN, "required",
     "unique, <= 31 chars", "`\"spark-a\"`", "referenced by `fabric.links`"},
    {"modules.[].type", SK_STRING, "", NAN, NAN, 1, NAN, "required",
     "a module type (catalog or `catalog.modules`)", "`\"spark-air\"`", ""},
    {"modules.[].count", SK_INT, "", 1, 100000, 0, 1, "1", "", "`6`",
     "modules in the group"},
    {"modules.[].hosts", SK_STRING, "", NAN, NAN, 0, NAN,
     "the type's first host", "one of the type's `hosts`", "`\"hgx-b300\"`",
     "system or rack each module holds"},
    {"modules.[].units", SK_INT, "", 1, 1000000, 0, NAN, "as many as fit",
     "<= floor(type IT power / system max power)", "`30`",
     "systems per module; more than fit is refused"},
    {"modules.[].commission_date", SK_DATE, "date", NAN, NAN, 0, NAN, "start",
     "inside the horizon", "`\"2027-04-01\"`", "online from this day"},
    {"modules.[].commission_days", SK_NUMBER, "d", 0, 1e12, 0, 0, "0",
     "< horizon", "`20.0`",
     "the same, as days after start (not with `commission_date`)"},
    {"modules.[].cooling", SK_CHOICE, "", NAN, NAN, 0, NAN,
     "`\"liquid-dry-cooler\"` for a liquid-cooled type, else "
     "`\"air-economizer\"`",
     "`air-economizer`, `adiabatic`, `liquid-dry-cooler`", "`\"adiabatic\"`",
     "cooling design: PUE curve by weather and load, and water use "
     "(docs/power-model.md 6)"},
    {"modules.[].cooling_fixed_frac", SK_NUMBER, "1", 0, 0.09, 0, 0.04,
     "0.04 (assumption: no cited split; the MGHPCC's 1.29-1.37 at low IT "
     "load, facts-more.md 3, shows the effect)",
     "<= the design's mild-weather PUE - 1 (liquid-dry-cooler 0.095)", "`0.06`",
     "facility overhead that does not shrink with IT load, as a fraction of "
     "design IT power: PUE = curve - f + f / load"},
    {"modules.[].cooling_wue_evap_l_per_kwh", SK_NUMBER, "L/kWh", 0, 20, 0, NAN,
     "2.72 for `air-economizer` and `adiabatic` (fitted so the Las Vegas "
     "TMY3 year gives facts-costs.md 5's 1.0 L/kWh; inside its 2.3-3.7 of "
     "evaporative plants), 0 for `liquid-dry-cooler`",
     "", "`2.5`", "water per kWh of IT in hours the cooling evaporates"},
    {"modules.[].cooling_wue_dry_l_per_kwh", SK_NUMBER, "L/kWh", 0, 20, 0, NAN,
     "0.05 for `liquid-dry-cooler` (facts-costs.md 5: site domestic use "
     "only, an assumption there), 0 for the air designs",
     "", "`0.05`", "water per kWh of IT in every hour"},
    {"modules.[].cooling_evap_threshold_c", SK_NUMBER, "degC", -50, 60, 0, 24.0,
     "24 (assumption: the Lei-Masanet example's 27.4 C supply air less the "
     "2-3 K an economizer needs)",
     "", "`26.0`", "dry bulb above which the cooling evaporates water"},
    {"modules.[].cooling_adiabatic_wb_limit_c", SK_NUMBER, "degC", 0, 35, 0,
     21.0,
     "21 (assumption: between the Lei-Masanet model's working 20 C/80 % "
     "point, T_wb 17.9 C, and its failing 25 C/80 % point, T_wb 22.4 C)",
     "", "`22.0`",
     "`adiabatic` only: wet bulb above which the assist fails and PUE is at "
     "least 1.35"},
    {"modules.[].cooling_chiller_ramp_k", SK_NUMBER, "K", 0.5, 50, 0, 10.0,
     "10 (assumption: facts-more.md 3 gives no trim-chiller figures)", "",
     "`8.0`",
     "`liquid-dry-cooler` only: dry-bulb rise over which trim chillers take "
     "all the heat once the dry cooler cannot meet its supply set point"},
    {"modules.[].cooling_chiller_cop", SK_NUMBER, "1", 0.5, 20, 0, 5.0,
     "5 (assumption)", "", "`4.0`",
     "`liquid-dry-cooler` only: the trim chillers' coefficient of "
     "performance"},
    {"fabric.topology", SK_CHOICE, "", NAN, NAN, 0, NAN, "`\"fat-tree\"`",
     "`fat-tree`, `rail-optimized`, `dragonfly`, `star`", "`\"fat-tree\"`",
     "scale-out topology"},
    {"fabric.oversubscription", SK_NUMBER, "1", 1, 1000, 0, 1.0, "1.0", "",
     "`2.0`", "default for the scale-out fabric"},
    {"fabric.latency_us", SK_NUMBER, "us", 0, 1e6, 0, 2.0, "2.0 (assumption)",
     "", "`2.0`", "default one-way latency"},
    {"fabric.links", SK_LIST, "", NAN, NAN, 0, NAN, "none", "", "",
     "links between module groups"},
    {"fabric.links.[].from", SK_STRING, "", NAN, NAN, 1, NAN, "required",
     "two different module groups", "`\"spark-a\"`", ""},
    {"fabric.links.[].to", SK_STRING, "", NAN, NAN, 1, NAN, "required",
     "two different module groups", "`\"spark-a\"`", ""},
    {"fabric.links.[].bandwidth_gbps", SK_NUMBER, "Gb/s", 1e-3, 1e8, 1, NAN,
     "required", "", "`51200.0`", "per direction"},
    {"fabric.links.[].latency_us", SK_NUMBER, "us", 0, 1e7, 0, NAN,
     "`fabric.latency_us`", "", "`5.0`", "one-way"},
    {"fabric.links.[].oversubscription", SK_NUMBER, "1", 1, 1000, 0, NAN,
     "`fabric.oversubscription`", "", "`1.0`", ""},
    {"energy.solar", SK_GROUP, "", NAN, NAN, 0, NAN, "none", "", "",
     "PV plant"},
    {"energy.solar.capacity_mw", SK_NUMBER, "MW", 0, 1e5, 1, NAN, "required",
     "", "`30.0`", "DC nameplate"},
    {"energy.solar.tracking", SK_CHOICE, "", NAN, NAN, 0, NAN,
     "`\"single-axis\"`", "`none`, `single-axis`", "`\"single-axis\"`", ""},
    {"energy.solar.sky_model", SK_CHOICE, "", NAN, NAN, 0, NAN, "`\"perez\"`",
     "`perez`, `isotropic`", "`\"perez\"`",
     "sky diffuse model: Perez et al. 1990 or isotropic (Liu-Jordan)"},
    {"energy.solar.tilt_deg", SK_NUMBER, "deg", 0, 90, 0, NAN,
     "abs(latitude) when fixed, 0 with tracking", "", "`30.0`", ""},
    {"energy.solar.azimuth_deg", SK_NUMBER, "deg", 0, 360, 0, NAN,
     "180 (north hemisphere), 0 (south)", "", "`180.0`", ""},
    {"energy.solar.losses_pct", SK_NUMBER, "%", 0, 99, 0, NAN,
     "14.08 (PVWatts)", "", "`14.08`", "system losses"},
    {"energy.solar.dc_ac_ratio", SK_NUMBER, "1", 0.5, 3, 0, NAN,
     "1.34 (NREL ATB)", "", "`1.34`", "not with `inverter_limit_mw`"},
    {"energy.solar.inverter_limit_mw", SK_NUMBER, "MW", 1e-6, 1e5, 0, NAN,
     "capacity / dc_ac_ratio", "capacity_mw / inverter_limit_mw in 0.5 .. 3",
     "`22.4`", "AC limit; not with `dc_ac_ratio`"},
    {"energy.solar.inverter_eff", SK_NUMBER, "1", 0.5, 1, 0, NAN, "0.96", "",
     "`0.96`", ""},
    {"energy.solar.temp_coeff_pct_per_k", SK_NUMBER, "%/K", -2, 0, 0, NAN,
     "-0.37", "", "`-0.37`", ""},
    {"energy.solar.degradation_pct_per_yr", SK_NUMBER, "%/yr", 0, 20, 0, NAN,
     "0.7 (NREL ATB)", "", "`0.7`", ""},
    {"energy.solar.gco2_per_kwh", SK_NUMBER, "gCO2/kWh", 0, 5000, 0, NAN,
     "the catalog's (`factorysim catalog sources`)", "", "`30.0`",
     "lifecycle carbon intensity of the energy from this source"},
    {"energy.solar.usd_per_mwh", SK_NUMBER, "USD/MWh", 0, 1e5, 0, NAN,
     "the catalog's (`factorysim catalog sources`)", "", "`70.0`",
     "price of the energy from this source"},
    {"energy.wind", SK_GROUP, "", NAN, NAN, 0, NAN, "none", "", "",
     "onshore wind plant of one turbine type, dispatched like solar "
     "(docs/power-model.md 4b)"},
    {"energy.wind.capacity_mw", SK_NUMBER, "MW", 0, 1e5, 1, NAN, "required", "",
     "`40.0`", "plant nameplate (0: no wind)"},
    {"energy.wind.hub_height_m", SK_NUMBER, "m", 10, 300, 0, NAN,
     "110 (ATB 4 MW reference turbine)", "", "`90.0`",
     "height the 10 m wind speed is extrapolated to"},
    {"energy.wind.shear_exponent", SK_NUMBER, "1", 0, 1, 0, NAN,
     "0.143 (1/7 law, open terrain, facts-costs.md 3.2)", "", "`0.2`",
     "power-law exponent alpha: v_hub = v_10 (h / 10 m)^alpha"},
    {"energy.wind.turbine", SK_CHOICE, "", NAN, NAN, 0, NAN,
     "`\"atb-4mw-150\"`", "a catalog turbine (`sources.wind.turbines`)",
     "`\"coe2019-2.55mw-121\"`", "power curve"},
    {"energy.wind.availability", SK_NUMBER, "1", 0, 1, 0, NAN,
     "0.97 (assumption inside Burfell's 97.5-99 %)", "", "`0.98`",
     "turbine-time available"},
    {"energy.wind.wake_loss_pct", SK_NUMBER, "%", 0, 99, 0, NAN,
     "8 (assumption, facts-costs.md 3.2)", "", "`10.0`",
     "energy lost to wakes"},
    {"energy.wind.gco2_per_kwh", SK_NUMBER, "gCO2/kWh", 0, 5000, 0, NAN,
     "11 (IPCC AR5 onshore median; catalog)", "", "`11.0`",
     "lifecycle carbon intensity of the energy from this source"},
    {"energy.wind.usd_per_mwh", SK_NUMBER, "USD/MWh", 0, 1e5, 0, NAN,
     "61.5 (Lazard v18 onshore 37-86, midpoint; catalog)", "", "`61.5`",
     "price of the energy from this source"},
    {"energy.battery", SK_GROUP, "", NAN, NAN, 0, NAN, "none", "", "",
     "second-life battery bank"},
    {"energy.battery.capacity_mwh", SK_NUMBER, "MWh", 0, 1e6, 1, NAN,
     "required", "0 only with power_mw 0", "`63.0`",
     "usable energy at commissioning"},
    {"energy.battery.power_mw", SK_NUMBER, "MW", 0, 1e5, 0, NAN,
     "- (or from `duration_h`)",
     "exactly one of `power_mw`, `duration_h`; <= c_rate_max x capacity",
     "`12.0`", "charge and discharge limit"},
    {"energy.battery.duration_h", SK_NUMBER, "h", 0.01, 1000, 0, NAN,
     "- (or `power_mw`)", "exactly one of `power_mw`, `duration_h`", "`5.25`",
     "power = capacity_mwh / duration_h; keeps power in step with capacity "
     "in a sweep (>= 1 / c_rate_max: 5 h at 0.2 C)"},
    {"energy.battery.c_rate_max", SK_NUMBER, "1/h", 0.001, 100, 0, NAN,
     "0.2 (second-life, facts-more.md 4)", "", "`0.2`",
     "a power above `c_rate_max x capacity_mwh` is refused"},
    {"energy.battery.round_trip_eff", SK_NUMBER, "1", 0.01, 1, 0, NAN,
     "0.88 (assumption)", "", "`0.88`", ""},
    {"energy.battery.reserve_floor_pct", SK_NUMBER, "%", 0, 99, 0, NAN,
     "10 (assumption)", "", "`10.0`", "minimum state of charge"},
    {"energy.battery.initial_soc_pct", SK_NUMBER, "%", 0, 100, 0, 50.0,
     "50 (assumption)", ">= reserve_floor_pct", "`80.0`",
     "state of charge at t = 0"},
    {"energy.battery.packs", SK_INT, "", 1, 10000000, 0, 1, "1", "", "`805`",
     "packs the capacity is split into"},
    {"energy.battery.soh_dist", SK_CHOICE, "", NAN, NAN, 0, NAN, "`\"normal\"`",
     "`normal`, `uniform`", "`\"uniform\"`",
     "how each pack's starting state of health is drawn"},
    {"energy.battery.soh_mean", SK_NUMBER, "1", 0.05, 1, 0, NAN,
     "0.70 (catalog)", "soh_min <= soh_mean <= soh_max", "`0.70`",
     "normal: mean state of health of the packs"},
    {"energy.battery.soh_sd", SK_NUMBER, "1", 0, 0.5, 0, NAN, "0.05 (catalog)",
     "", "`0.05`", "normal: spread of the packs' state of health"},
    {"energy.battery.soh_min", SK_NUMBER, "1", 0.05, 1, 0, NAN,
     "0.60 (catalog)", "soh_min <= soh_mean <= soh_max", "`0.60`",
     "normal: clip range; uniform: bounds"},
    {"energy.battery.soh_max", SK_NUMBER, "1", 0.05, 1, 0, NAN,
     "0.85 (catalog)", "soh_min <= soh_mean <= soh_max", "`0.60`",
     "normal: clip range; uniform: bounds"},
    {"energy.battery.thermal", SK_GROUP, "", NAN, NAN, 0, NAN,
     "ambient-rise, 3 K", "", "",
     "enclosure: the cell temperature that drives calendar fade"},
    {"energy.battery.thermal.mode", SK_CHOICE, "", NAN, NAN, 0, NAN,
     "`\"ambient-rise\"`", "`ambient-rise`, `hvac`", "`\"hvac\"`",
     "cells at the outdoor dry bulb + `rise_c`, or held at `setpoint_c` by "
     "a heat pump whose electricity the site serves"},
    {"energy.battery.thermal.rise_c", SK_NUMBER, "K", 0, 40, 0, 3.0,
     "3 (assumption)", "", "`5.0`", "ambient-rise: cells above outdoor air"},
    {"energy.battery.thermal.setpoint_c", SK_NUMBER, "degC", -20, 60, 0, 25.0,
     "25 (BLAST-Lite's fit temperature)", "", "`22.0`",
     "hvac: enclosure set point"},
    {"energy.battery.thermal.hvac_cop", SK_NUMBER, "1", 0.5, 20, 0, 3.0,
     "3 (assumption)", "", "`3.5`", "hvac: heat moved per unit of electricity"},
    {"energy.battery.thermal.ua_w_per_k_per_mwh", SK_NUMBER, "W/K/MWh", 0, 1000,
     0, 15.0, "15 (assumption: insulated 20 ft container of ~3 MWh)", "",
     "`15.0`", "hvac: envelope conductance per MWh of capacity"},
    {"energy.battery.gco2_per_kwh", SK_NUMBER, "gCO2/kWh", 0, 5000, 0, NAN,
     "the catalog's (`factorysim catalog sources`)", "", "`30.0`",
     "lifecycle carbon intensity of the energy from this source"},
    {"energy.battery.usd_per_mwh", SK_NUMBER, "USD/MWh", 0, 1e5, 0, NAN,
     "the catalog's (`factorysim catalog sources`)", "", "`70.0`",
     "price of the energy from this source"},
    {"energy.geothermal", SK_GROUP, "", NAN, NAN, 0, NAN, "none", "", "",
     "geothermal plant (firm)"},
    {"energy.geothermal.capacity_mw", SK_NUMBER, "MW", 0, 1e5, 1, NAN,
     "required", "", "`8.0`", "firm capacity"},
    {"energy.geothermal.availability", SK_NUMBER, "1", 0, 1, 0, NAN,
     "geothermal 0.91, hydro 0.95", "", "`0.91`",
     "long-run fraction available"},
    {"energy.geothermal.mtbf_h", SK_NUMBER, "h", 0, 1e7, 0, NAN,
     "geothermal 728 / 72, hydro 1900 / 100 (assumptions)", "both or neither 0",
     "`728.0`", "forced outages"},
    {"energy.geothermal.mttr_h", SK_NUMBER, "h", 0, 1e6, 0, NAN,
     "geothermal 728 / 72, hydro 1900 / 100 (assumptions)", "both or neither 0",
     "`728.0`", "forced outages"},
    {"energy.geothermal.gco2_per_kwh", SK_NUMBER, "gCO2/kWh", 0, 5000, 0, NAN,
     "the catalog's (`factorysim catalog sources`)", "", "`30.0`",
     "lifecycle carbon intensity of the energy from this source"},
    {"energy.geothermal.usd_per_mwh", SK_NUMBER, "USD/MWh", 0, 1e5, 0, NAN,
     "the catalog's (`factorysim catalog sources`)", "", "`70.0`",
     "price of the energy from this source"},
    {"energy.hydro", SK_GROUP, "", NAN, NAN, 0, NAN, "none", "", "",
     "hydro plant (firm, monthly capacity factor)"},
    {"energy.hydro.capacity_mw", SK_NUMBER, "MW", 0, 1e5, 1, NAN, "required",
     "", "`8.0`", "firm capacity"},
    {"energy.hydro.availability", SK_NUMBER, "1", 0, 1, 0, NAN,
     "geothermal 0.91, hydro 0.95", "", "`0.91`",
     "long-run fraction available"},
    {"energy.hydro.mtbf_h", SK_NUMBER, "h", 0, 1e7, 0, NAN,
     "geothermal 728 / 72, hydro 1900 / 100 (assumptions)", "both or neither 0",
     "`728.0`", "forced outages"},
    {"energy.hydro.mttr_h", SK_NUMBER, "h", 0, 1e6, 0, NAN,
     "geothermal 728 / 72, hydro 1900 / 100 (assumptions)", "both or neither 0",
     "`728.0`", "forced outages"},
    {"energy.hydro.monthly_cf", SK_NUMBERS, "1", 0, 1, 0, NAN, "all 1.0", "",
     "`[0.84, ..., 0.84]`",
     "hydro only: usable fraction of capacity per month"},
    {"energy.hydro.gco2_per_kwh", SK_NUMBER, "gCO2/kWh", 0, 5000, 0, NAN,
     "the catalog's (`factorysim catalog sources`)", "", "`30.0`",
     "lifecycle carbon intensity of the energy from this source"},
    {"energy.hydro.usd_per_mwh", SK_NUMBER, "USD/MWh", 0, 1e5, 0, NAN,
     "the catalog's (`factorysim catalog sources`)", "", "`70.0`",
     "price of the energy from this source"},
    {"energy.grid", SK_GROUP, "", NAN, NAN, 0, NAN, "none", "", "",
     "grid connection"},
    {"energy.grid.import_limit_mw", SK_NUMBER, "MW", 0, 1e5, 1, NAN, "required",
     "", "`110.0`", "0 = no import (an islanded site)"},
    {"energy.grid.usd_per_mwh", SK_NUMBER, "USD/MWh", 0, 1e5, 0, NAN,
     "80 (assumption)", "", "`70.0`", "flat price outside the windows"},
    {"energy.grid.gco2_per_kwh", SK_NUMBER, "gCO2/kWh", 0, 5000, 0, NAN,
     "481 (world 2023)", "", "`30.0`", "operational intensity"},
    {"energy.grid.tod_prices", SK_LIST, "", NAN, NAN, 0, NAN, "none",
     "<= 8 disjoint windows",
     "`( { start_h = 17.0; end_h = 21.0; usd_per_mwh = 140.0; } )`",
     "time-of-day prices, local standard time, `0 <= start_h < end_h <= 24`"},
    {"energy.grid.tod_prices.[].start_h", SK_NUMBER, "h", 0, 24, 1, NAN,
     "required", "", "`17.0`", "window start (local standard time)"},
    {"energy.grid.tod_prices.[].end_h", SK_NUMBER, "h", 0, 24, 1, NAN,
     "required", "", "`17.0`", "window end, after start"},
    {"energy.grid.tod_prices.[].usd_per_mwh", SK_NUMBER, "USD/MWh", 0, 1e5, 1,
     NAN, "required", "", "`17.0`", "price inside the window"},
    {"jobs.[].name", SK_STRING, "", NAN, NAN, 1, NAN, "required",
     "unique, <= 63 chars", "`\"llama405b-fp8\"`", ""},
    {"jobs.[].model", SK_STRING, "", NAN, NAN, 1, NAN, "required",
     "a models.csv name or short id", "`\"llama3.1-405b\"`",
     "`factorysim catalog models`"},
    {"jobs.[].precision", SK_STRING, "", NAN, NAN, 1, NAN, "required",
     "`bf16`, `fp8`, `fp8-cs`, `fp8-mx`, `mxfp8`, `nvfp4`", "`\"fp8\"`",
     "must have a peak on the GPU (no FP4 on H100/H200)"},
    {"jobs.[].gpu", SK_STRING, "", NAN, NAN, 0, NAN,
     "the site's GPU type when it has one", "a catalog GPU", "`\"B300\"`", ""},
    {"jobs.[].gpus", SK_INT, "", 1, 100000000, 1, NAN, "required",
     "+ hot_spares <= GPUs of that type on the site", "`1024`", ""},
    {"jobs.[].tokens", SK_NUMBER, "tokens", 1, 1e17, 0, NAN, "-", "",
     "`2.0e12`", "rounded up to whole steps; exactly one of tokens, steps"},
    {"jobs.[].steps", SK_NUMBER, "", 1, 1e12, 0, NAN, "-", "", "`150000`",
     "optimizer steps"},
    {"jobs.[].global_batch", SK_INT, "sequences", 1, 100000000, 1, NAN,
     "required", "multiple of micro_batch", "`1536`", ""},
    {"jobs.[].micro_batch", SK_INT, "sequences", 1, 100000, 0, NAN,
     "not given (the throughput model chooses)", "", "`1`", ""},
    {"jobs.[].seq_len", SK_INT, "tokens", 1, 100000000, 0, NAN,
     "the model's default_seq_len", "", "`8192`", ""},
    {"jobs.[].tp", SK_INT, "", 1, 1024, 0, NAN,
     "not given (each one left out is chosen: the fastest layout that fits, "
     "docs/throughput-model.md 7; never 1 by default)",
     "", "`tp = 4; pp = 8;`",
     "`gpus` divisible by tp x pp x cp; global_batch by micro_batch x dp; ep "
     "divides the experts and ep x etp the GPUs of a pipeline stage; vp "
     "needs pp >= 2"},
    {"jobs.[].pp", SK_INT, "", 1, 1024, 0, NAN,
     "not given (each one left out is chosen: the fastest layout that fits, "
     "docs/throughput-model.md 7; never 1 by default)",
     "", "`tp = 4; pp = 8;`",
     "`gpus` divisible by tp x pp x cp; global_batch by micro_batch x dp; ep "
     "divides the experts and ep x etp the GPUs of a pipeline stage; vp "
     "needs pp >= 2"},
    {"jobs.[].cp", SK_INT, "", 1, 1024, 0, NAN,
     "not given (each one left out is chosen: the fastest layout that fits, "
     "docs/throughput-model.md 7; never 1 by default)",
     "", "`tp = 4; pp = 8;`",
     "`gpus` divisible by tp x pp x cp; global_batch by micro_batch x dp; ep "
     "divides the experts and ep x etp the GPUs of a pipeline stage; vp "
     "needs pp >= 2"},
    {"jobs.[].vp", SK_INT, "", 1, 1024, 0, NAN,
     "not given (each one left out is chosen: the fastest layout that fits, "
     "docs/throughput-model.md 7; never 1 by default)",
     "", "`tp = 4; pp = 8;`",
     "`gpus` divisible by tp x pp x cp; global_batch by micro_batch x dp; ep "
     "divides the experts and ep x etp the GPUs of a pipeline stage; vp "
     "needs pp >= 2"},
    {"jobs.[].ep", SK_INT, "", 1, 4096, 0, NAN,
     "not given (each one left out is chosen: the fastest layout that fits, "
     "docs/throughput-model.md 7; never 1 by default)",
     "", "`tp = 4; pp = 8;`",
     "`gpus` divisible by tp x pp x cp; global_batch by micro_batch x dp; ep "
     "divides the experts and ep x etp the GPUs of a pipeline stage; vp "
     "needs pp >= 2"},
    {"jobs.[].etp", SK_INT, "", 1, 1024, 0, NAN,
     "not given: 1 or tp, whichever is faster and fits "
     "(docs/throughput-model.md"
     " 2, 7)",
     "", "`tp = 4; ep = 8; etp = 4;`",
     "expert tensor parallel size (Megatron expert_tensor_parallel_size): "
     "each expert's weights split over etp GPUs; a MoE model only; divides "
     "the experts' width; ep x etp divides the GPUs of a pipeline stage"},
    {"jobs.[].recompute", SK_CHOICE, "", NAN, NAN, 0, NAN, "not given (chosen)",
     "`none`, `selective`, `full`", "`\"selective\"`",
     "activation recomputation"},
    {"jobs.[].distributed_optimizer", SK_BOOL, "", NAN, NAN, 0, NAN,
     "not given (chosen)", "", "`true`",
     "optimizer state sharded over data parallelism"},
    {"jobs.[].cuda_graph", SK_CHOICE, "", NAN, NAN, 0, NAN,
     "not given (the calibrated recipe)", "`none`, `partial`, `full`",
     "`\"full\"`",
     "the recipe's CUDA graphs: `full` captures the whole iteration and "
     "removes the fitted fixed per-layer times (docs/throughput-model.md "
     "2)"},
    {"jobs.[].moe_dispatcher", SK_CHOICE, "", NAN, NAN, 0, NAN,
     "not given (`alltoall`)",
     "`alltoall`, `allgather`, `flex-deepep`, `flex-hybridep`",
     "`\"flex-hybridep\"`",
     "the MoE token dispatcher: the flex ones (DeepEP, HybridEP) send a "
     "token once per rank holding one of its experts, and across NVLink "
     "domains (8 GPUs for DeepEP) once per other domain over scale-out, "
     "forwarded over NVLink there; `alltoall` once per expert, "
     "`allgather` every token "
     "(docs/throughput-model.md 2)"},
    {"jobs.[].moe_a2a_overlap", SK_BOOL, "", NAN, NAN, 0, NAN,
     "not given (the calibrated recipe)", "", "`true`",
     "the recipe overlaps the EP all-to-all with the adjacent micro-batch "
     "(Megatron `overlap_moe_expert_parallel_comm`): `true` hides up to "
     "the fitted share `ovl_ep_on` of it, `false` none "
     "(docs/throughput-model.md 2)"},
    {"jobs.[].fsdp", SK_BOOL, "", NAN, NAN, 0, 0, "false", "", "`true`", ""},
    {"jobs.[].software_efficiency", SK_NUMBER, "", 0.05, 2, 0, 1, "1",
     "(0.05, 2]", "`0.85`",
     "the job's software stack against the calibrated NeMo/Megatron "
     "releases: every compute time is divided by it; != 1 flags the "
     "prediction extrapolated (docs/throughput-model.md 8)"},
    {"jobs.[].hot_spares", SK_INT, "GPUs", 0, 100000000, 0, 0, "0", "", "`16`",
     "held back to replace failed GPUs"},
    {"jobs.[].tokens_per_sec_per_gpu", SK_NUMBER, "tokens/s", 1e-3, 1e9, 0, 0,
     "predicted", "", "`7122.6`",
     "pins the job's throughput (a published run's, for validation); the "
     "step's phase shares, and so its GPU power, stay the predicted ones"},
    {"jobs.[].priority", SK_INT, "", -1000000, 1000000, 0, 0, "0", "", "`10`",
     "higher runs first"},
    {"jobs.[].submit_date", SK_DATE, "date", NAN, NAN, 0, NAN, "start",
     "inside the horizon", "`\"2027-01-15\"`", "not with `submit_h`"},
    {"jobs.[].submit_h", SK_NUMBER, "h", 0, 1e12, 0, 0, "0", "< horizon",
     "`24.0`", "hours after start"},
    {"jobs.[].release", SK_STRING, "", NAN, NAN, 0, NAN, "`\"\"`",
     "<= 47 chars", "`\"NeMo 26.04\"`",
     "software release whose calibration to use"},
    {"jobs.[].checkpoint", SK_GROUP, "", NAN, NAN, 0, NAN, "young-daly", "", "",
     "checkpoint policy of the job"},
    {"jobs.[].checkpoint.policy", SK_CHOICE, "", NAN, NAN, 0, NAN,
     "`\"young-daly\"`", "`young-daly`, `fixed`", "`\"fixed\"`",
     "young-daly computes the interval from MTBF and write time (facts.md "
     "4.5)"},
    {"jobs.[].checkpoint.interval_min", SK_NUMBER, "min", 0.1, 1e6, 0, NAN, "-",
     "", "`30.0`", "required with `fixed`, refused with young-daly"},
    {"jobs.[].checkpoint.write_s", SK_NUMBER, "s", 0, 1e5, 0, 10.0,
     "10 (facts-more.md 6: async 0.5-10 s)", "", "`6.3`",
     "blocking time per checkpoint"},
    {"jobs.[].checkpoint.restart_min", SK_NUMBER, "min", 0, 1e4, 0, 10.0,
     "10 (facts-more.md 6: synchronous restart)", "", "`3.0`",
     "restart overhead after a failure"},
    {"policy.shortage", SK_CHOICE, "", NAN, NAN, 0, NAN, "`\"throttle\"`",
     "`throttle`, `pause`, `shed`", "`\"pause\"`",
     "what happens when power runs short after batteries and the grid's import "
     "limit: throttle GPU power, pause jobs, or shed low-priority jobs (issue "
     "5)"},
    {"power.gpu_compute_frac_bf16", SK_NUMBER, "1", 0.05, 1.2, 0, 0.90,
     "0.90 (Zeus single-GPU training mean 0.89-0.91 of TDP, facts-more.md 2; "
     "bounded by the DGX H100's 8.4 kW peak, arXiv 2412.08602)",
     ">= `gpu_idle_frac`", "`0.85`",
     "GPU power / TDP in compute phases (GEMMs, attention, optimizer) of "
     "BF16 steps"},
    {"power.gpu_compute_frac_fp8", SK_NUMBER, "1", 0.05, 1.2, 0, 0.90,
     "0.90 (assumption: as BF16, no measurement by format found)", "", "`0.85`",
     "the same, for FP8 steps"},
    {"power.gpu_compute_frac_fp4", SK_NUMBER, "1", 0.05, 1.2, 0, 0.90,
     "0.90 (assumption: as BF16, no measurement by format found)", "", "`0.85`",
     "the same, for FP4 steps"},
    {"power.gpu_comm_frac", SK_NUMBER, "1", 0.01, 1.2, 0, 0.25,
     "0.25 (assumption: \"near idle\", arXiv 2508.14318, above the idle "
     "floor as HBM, NVLink and NICs are busy)",
     "", "`0.30`", "GPU power / TDP during exposed communication"},
    {"power.gpu_bubble_frac", SK_NUMBER, "1", 0.01, 1.2, 0, 0.25,
     "0.25 (assumption: as communication)", "", "`0.20`",
     "GPU power / TDP in the pipeline bubble"},
    {"power.gpu_checkpoint_frac", SK_NUMBER, "1", 0.01, 1.2, 0, 0.15,
     "0.15 (OLMo's training trace, low end of 15-85 % of maximum, "
     "arXiv 2503.05804)",
     "", "`0.20`", "GPU power / TDP while a checkpoint is written"},
    {"power.gpu_idle_frac", SK_NUMBER, "1", 0, 1.2, 0, 0.10,
     "0.10 (assumption)", "<= `gpu_compute_frac_bf16`", "`0.12`",
     "GPU power / TDP when idle or restarting"},
    {"power.nongpu_train_frac", SK_NUMBER, "1", 0, 1, 0, 0.59,
     "0.59 (fitted to the Brookhaven DGX H100 measurement, 0.76 of its "
     "10.2 kW rating, facts-more.md 2)",
     "", "`0.55`",
     "non-GPU part of a system (CPUs, NICs, switches, fans) / its rating "
     "while training"},
    {"power.nongpu_idle_frac", SK_NUMBER, "1", 0, 1, 0, 0.35,
     "0.35 (assumption)", "", "`0.30`", "the same, when idle"},
    {"power.module_overhead_frac", SK_NUMBER, "1", 0, 1, 0, 0.08,
     "0.08 (assumption, from the Meta GB200 note, facts-more.md 2)", "",
     "`0.10`",
     "fabric switches and storage outside the systems / the installed "
     "systems' training power"},
    {"power.cap_curve", SK_GROUP, "", NAN, NAN, 0, NAN,
     "the Zeus A40 BERT sweep (an assumption for LLM training)", "", "",
     "relative throughput at a GPU power cap: the Zeus points stretched onto "
     "[min_cap_frac, knee_cap_frac] x [throughput_at_min, 1]"},
    {"power.cap_curve.min_cap_frac", SK_NUMBER, "1", 0.05, 0.9, 0, 0.42,
     "0.42 (Zeus A40 BERT lowest measured cap, facts-more.md 1; assumption "
     "for LLM training)",
     "< `knee_cap_frac`", "`0.40`",
     "lowest cap / TDP the throttle may set (its floor)"},
    {"power.cap_curve.knee_cap_frac", SK_NUMBER, "1", 0.5, 1.2, 0, 0.92,
     "0.92 (Zeus A40 BERT; assumption for LLM training)", "", "`0.95`",
     "cap / TDP at and above which throughput is unchanged"},
    {"power.cap_curve.throughput_at_min", SK_NUMBER, "1", 0.01, 1, 0, 0.38,
     "0.38 (Zeus A40 BERT; assumption for LLM training)", "", "`0.45`",
     "relative throughput at `min_cap_frac`"},
    {"policy.gpu_power_floor_pct", SK_NUMBER, "%", 0, 100, 0, 0.0, "0 (off)",
     "", "`70.0`",
     "GPU power floor held in every low phase of training (communication, "
     "pipeline bubble, checkpoint write), in percent of the compute-phase "
     "power, as NVML power smoothing does (issue 21); its energy is charged"},
    {"policy.gpu_power_ramp_up_w_per_s", SK_NUMBER, "W/s", 0, 1e9, 0, 0.0,
     "0 (unlimited); NVML power smoothing's ramp-up rate (W/s), no "
     "published value (set it as an assumption)",
     "", "`2000.0`",
     "per GPU: the drawn GPU power rises at most this fast when a phase "
     "asks for more (issue 21; the energy charged is the ramped wave's)"},
    {"policy.gpu_power_ramp_down_w_per_s", SK_NUMBER, "W/s", 0, 1e9, 0, 0.0,
     "0 (unlimited); NVML power smoothing's ramp-down rate (W/s), no "
     "published value (set it as an assumption)",
     "", "`500.0`",
     "per GPU: after the hysteresis the drawn GPU power falls at most this "
     "fast towards a lower phase level (the GPU burns the difference; it "
     "is charged)"},
    {"policy.gpu_power_ramp_down_hysteresis_s", SK_NUMBER, "s", 0, 3600, 0, 0.0,
     "0 (none); NVML power smoothing's ramp-down hysteresis (ms there), no "
     "published value (set it as an assumption)",
     "", "`0.5`",
     "the drawn GPU power holds its level this long after a phase asks "
     "for less before it ramps down: lows shorter than this are bridged"},
    {"policy.power_dynamics", SK_BOOL, "", NAN, NAN, 0, 1, "true", "",
     "`false`",
     "false: no power dynamics analysis (the power_* site and module "
     "fields are left empty, NULL in the database)"},
    {"policy.ramp_limit_mw_per_s", SK_NUMBER, "MW/s", 0, 1e6, 0, 0.0,
     "0 (none)", "", "`5.0`",
     "grid ramp limit the site battery must meet; the battery power it "
     "takes is reported (battery_power_for_ramp_limit_mw), the dispatch is "
     "unchanged"},
    {"reliability.failures", SK_BOOL, "", NAN, NAN, 0, 1, "true", "", "`false`",
     "false: no random interruptions or module outages"},
    {"reliability.interruptions_per_gpu_hour", SK_NUMBER, "1/(GPU h)", 0, 1, 0,
     NAN, "1.97e-5 (Llama 3: 419 in 54 days on 16,384 GPUs, facts.md 4.1)", "",
     "`6.5e-3 / 8 / 24`",
     "unexpected interruptions per GPU-hour while a job trains"},
    {"reliability.node_repair_h", SK_NUMBER, "h", 0, 8760, 0, NAN,
     "4 (assumption)", "", "`2.0`", "mean repair time of a failed system"},
    {"reliability.module_mtbf_days", SK_NUMBER, "d", 0, 1e5, 0, NAN,
     "365 (assumption)", "", "`180.0`",
     "mean time between whole-module outages; 0 = none"},
    {"reliability.module_mttr_h", SK_NUMBER, "h", 0, 8760, 0, NAN,
     "12 (assumption)", "", "`24.0`", "mean module repair time"},
    {"reliability.gpu_speed_spread_pct", SK_NUMBER, "%", 0, 50, 0, NAN,
     "1.5 (Sinha et al. SC22: 8 % average variation between GPUs of one "
     "SKU, read as a normal's whisker range, 5.4 sd)",
     "", "`2.0`",
     "per-GPU step-time spread (sd); a job larger than its GPU type's "
     "largest calibration row runs at the pace of its slowest GPU beyond "
     "that scale (docs/site-model.md, stragglers); 0 = off"},
    {"costs", SK_GROUP, "", NAN, NAN, 0, NAN, "every key's default", "", "",
     "capital and operating costs (docs/cost-model.md); GPU systems and "
     "module types are priced in the catalog (`capex_usd`, "
     "`capex_usd_per_mw`)"},
    {"costs.discount_rate_pct", SK_NUMBER, "%/yr", 0, 50, 0, 7.0,
     "7 (assumption: ATB's WACC not read, facts-costs.md 2)", "", "`8.0`",
     "real discount rate of the capital recovery factor and NPV"},
    {"costs.npv_horizon_years", SK_NUMBER, "yr", 1, 100, 0, 20.0,
     "20 (assumption)", "", "`25.0`",
     "span of `npv_usd`: the annualised cost discounted over it"},
    {"costs.module_life_years", SK_NUMBER, "yr", 1, 100, 0, 20.0,
     "20 (assumption: DC shell 20-30 y, facts-costs.md 2)", "", "`25.0`",
     "life of module shells, power and cooling"},
    {"costs.it_om_pct_per_yr", SK_NUMBER, "%/yr", 0, 100, 0, 2.0,
     "2 (assumption: DC O&M per MW-yr not found, facts-costs.md 6.5)", "",
     "`3.0`", "fixed O&M of modules and GPU systems, of their capital"},
    {"costs.solar_tracker_usd_per_wdc", SK_NUMBER, "USD/Wdc", 0, 100, 0, 1.10,
     "1.10 (LBNL Utility-Scale Solar 2024: $1.08/Wdc for 2023 US plants, "
     "facts-costs.md 1.1)",
     "", "`1.0`", "single-axis PV capital per W of DC capacity"},
    {"costs.solar_fixed_usd_per_wdc", SK_NUMBER, "USD/Wdc", 0, 100, 0, 1.02,
     "1.02 (assumption: the tracker figure less 7.5 %, facts-costs.md 1.1)", "",
     "`0.95`", "fixed-tilt PV capital per W of DC capacity"},
    {"costs.solar_om_usd_per_kwdc_yr", SK_NUMBER, "USD/kWdc/yr", 0, 1000, 0,
     18.0, "18 (NREL ATB 2020 PV fixed O&M, facts-costs.md 2)", "", "`20.0`",
     "PV fixed O&M"},
    {"costs.solar_life_years", SK_NUMBER, "yr", 1, 100, 0, 30.0,
     "30 (ATB cost-recovery period, facts-costs.md 2)", "", "`25.0`",
     "PV life"},
    {"costs.wind_usd_per_kw", SK_NUMBER, "USD/kW", 0, 1e5, 0, 1650.0,
     "1650 (LBNL: US 2023 wind investment $10.8 bn / 6.5 GW, facts-costs.md "
     "1.2)",
     "", "`1500.0`", "onshore wind capital per kW of nameplate"},
    {"costs.wind_om_usd_per_kw_yr", SK_NUMBER, "USD/kW/yr", 0, 1000, 0, 40.0,
     "40 (Wiser, Bolinger, Lantz 2019: 2018 builds, facts-costs.md 2)", "",
     "`45.0`", "wind all-in O&M"},
    {"costs.wind_life_years", SK_NUMBER, "yr", 1, 100, 0, 30.0,
     "30 (ATB cost-recovery period, facts-costs.md 2)", "", "`25.0`",
     "wind life"},
    {"costs.battery_usd_per_kwh", SK_NUMBER, "USD/kWh", 0, 1e5, 0, 326.0,
     "326 (NREL Cole & Karmakar 2023, 4-h BESS mid case 2030, all-in; "
     "facts-costs.md 1.3)",
     "", "`300.0`",
     "new battery capital per kWh (scaled by `second_life_factor`)"},
    {"costs.battery_usd_per_kw", SK_NUMBER, "USD/kW", 0, 1e5, 0, 0.0,
     "0 (assumption: the $/kWh figure is all-in for 4 h; ATB's power "
     "component not read, facts-costs.md 1.3)",
     "", "`150.0`", "battery power-conversion capital per kW"},
    {"costs.second_life_factor", SK_NUMBER, "1", 0, 2, 0, 0.6,
     "0.6 (assumption from B2U's ~40 % saving, facts-costs.md 1.4)", "",
     "`0.7`", "second-life packs' cost per kWh / a new battery's"},
    {"costs.battery_om_pct_per_yr", SK_NUMBER, "%/yr", 0, 100, 0, 2.5,
     "2.5 (assumption, facts-costs.md 2)", "", "`2.0`",
     "battery fixed O&M, of its capital"},
    {"costs.battery_life_years", SK_NUMBER, "yr", 1, 100, 0, 10.0,
     "10 (second-life, facts-costs.md 2 / facts.md 3.6)", "", "`12.0`",
     "battery life"},
    {"costs.battery_replace_soh", SK_NUMBER, "1", 0, 1, 0, 0.5,
     "0.5 (assumption)", "", "`0.55`",
     "a pack whose state of health falls below this is replaced (costed, "
     "counted in `battery_replacements`; its capacity is not restored in "
     "the simulation)"},
    {"costs.grid_usd_per_kw", SK_NUMBER, "USD/kW", 0, 1e5, 0, 0.0,
     "0 (no figure found, facts-costs.md 1.5: give yours)", "", "`200.0`",
     "grid interconnection capital per kW of import limit"},
    {"costs.grid_life_years", SK_NUMBER, "yr", 1, 100, 0, 30.0,
     "30 (assumption)", "", "`40.0`", "interconnection life"},
    {"costs.demand_usd_per_kw_month", SK_NUMBER, "USD/kW/month", 0, 1000, 0,
     15.0, "15 (NREL: demand charges above $15/kW, facts-costs.md 1.5)", "",
     "`12.0`", "demand charge on the run's peak grid import, every month"},
    {"costs.var_om_usd_per_mwh", SK_NUMBER, "USD/MWh", 0, 1e4, 0, 0.0,
     "0 (assumption)", "", "`2.0`",
     "variable O&M on energy delivered by owned solar, wind and battery"},
};
const size_t scen_n_keys = sizeof scen_keys / sizeof scen_keys[0];

void scen_key_normalize(const char *path, char *buf, size_t n)
{
    size_t k = 0;
    for (const char *p = path; *p && k + 1 < n; p++) {
        buf[k++] = *p;
        if (*p == '[') {
            while (p[1] && p[1] != ']')
                p++;
        }
    }
    buf[k] = '\0';
}

const scen_key *scen_key_find(const char *path)
{
    char norm[256];
    scen_key_normalize(path, norm, sizeof norm);
    for (size_t i = 0; i < scen_n_keys; i++)
        if (strcmp(scen_keys[i].path, norm) == 0)
            return &scen_keys[i];
    return NULL;
}

/* Unit suffixes a key name may carry, and the unit each stands for; only a
 * suffix matching the key's own unit is dropped, so "losses_pct" loses "_pct"
 * (unit "%") but "tilt_deg" keeps nothing it should not. */
static const char *const unit_suffix[][2] = {
    {"_mw", "MW"},
    {"_mwh", "MWh"},
    {"_kw", "kW"},
    {"_days", "d"},
    {"_h", "h"},
    {"_min", "min"},
    {"_pct", "%"},
    {"_deg", "deg"},
    {"_m", "m"},
    {"_c", "degC"},
    {"_gbps", "Gb/s"},
    {"_us", "us"},
    {"_usd_per_mwh", "USD/MWh"},
};

/* Splits the path at dots, keeps the last two parts that are names (not
 * "[]" or "[N]"), drops the first of them when it is the top-level group
 * and the path is deeper. Pure string work, no allocation. */
static void key_words(const char *path, const char **unit, char *buf, size_t n)
{
    char norm[256], *parts[16], *save = NULL, *tok;
    int np = 0, from;
    const scen_key *k = scen_key_find(path);
    size_t len = 0;
    *unit =
        k && k->unit && *k->unit && strcmp(k->unit, "1") != 0 ? k->unit : NULL;
    scen_key_normalize(path, norm, sizeof norm);
    for (tok = strtok_r(norm, ".", &save); tok && np < 16;
         tok = strtok_r(NULL, ".", &save))
        if (tok[0] != '[')
            parts[np++] = tok;
    if (np == 0) {
        snprintf(buf, n, "%s", path);
        return;
    }
    from = np >= 3 ? np - 2 : np == 2 ? 1 : 0;
    if (np == 2 &&
        (strcmp(parts[0], "jobs") == 0 || strcmp(parts[0], "modules") == 0))
        from = 0;
    buf[0] = '\0';
    for (int i = from; i < np; i++) {
        char *w = parts[i];
        size_t wl = strlen(w);
        if (i == np - 1 && *unit)
            for (size_t s = 0; s < sizeof unit_suffix / sizeof unit_suffix[0];
                 s++) {
                size_t sl = strlen(unit_suffix[s][0]);
                if (wl > sl && strcmp(w + wl - sl, unit_suffix[s][0]) == 0 &&
                    strcmp(unit_suffix[s][1], *unit) == 0) {
                    w[wl - sl] = '\0';
                    break;
                }
            }
        for (char *c = w; *c; c++)
            if (*c == '_')
                *c = ' ';
        len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s",
                                len ? " " : "", w);
        if (len >= n)
            break;
    }
}

void scen_key_label(const char *path, char *buf, size_t n)
{
    const char *unit;
    char w[200];
    key_words(path, &unit, w, sizeof w);
    if (unit)
        snprintf(buf, n, "%s [%s]", w, unit);
    else
        snprintf(buf, n, "%s", w);
}

void scen_case_label(const char *case_key, char *buf, size_t n)
{
    char tmp[1024], *save = NULL, *tok;
    size_t len = 0;
    snprintf(tmp, sizeof tmp, "%s", case_key ? case_key : "");
    buf[0] = '\0';
    for (tok = strtok_r(tmp, ";", &save); tok;
         tok = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(tok, '='), w[200];
        const char *unit = NULL;
        if (!eq)
            continue;
        *eq = '\0';
        key_words(tok, &unit, w, sizeof w);
        len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s %s%s%s",
                                len ? ", " : "", w, eq + 1, unit ? " " : "",
                                unit ? unit : "");
        if (len >= n)
            break;
    }
}
