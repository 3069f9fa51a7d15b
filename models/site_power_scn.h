/* models/site_power_scn.h: a scenario's site and energy sections as the
 * power model's configuration (models/site_power.h).
 *
 * Mapping (every field from the resolved scenario, SI units; the table is
 * in docs/power-model.md 12):
 *   - weather: the caller's climate_year for an EPW or hourly-CSV scenario
 *     (io/climate_load.h; required, never replaced by normals), else the
 *     built-in monthly normals named by site.climate.normals, with a
 *     diurnal_range_k that differs from the normals' own rescaling the
 *     monthly ranges to that annual mean; user normals (monthly means and a
 *     diurnal range) replace the temperatures of the Las Vegas normals,
 *     keeping its humidity, clearness and wind (an assumption the user can
 *     avoid with a weather file); the site's location and UTC offset;
 *   - one power-model module per scenario module group: IT capacity =
 *     count x type IT power, systems = count x units, cooling by type
 *     (air: economizer curve, liquid: warm-water dry coolers), online at the
 *     group's commissioning time;
 *   - solar: one plant of the DC size, tracking, tilt, azimuth, losses,
 *     DC/AC ratio, inverter efficiency and temperature coefficient; its
 *     degradation as a linear fade from t = 0;
 *   - battery: `packs` packs whose new nameplate is capacity / (packs x
 *     mean SOH), so the usable energy at commissioning averages the
 *     scenario's capacity; the SOH draw (clipped normal or uniform), power
 *     limit, C-rate, round trip, floor, initial SOC; its gco2_per_kwh and
 *     usd_per_mwh per MWh discharged, on top of the charging energy's;
 *   - geothermal, hydro, grid: firm supplies (carbon kg/J -> g/J, monthly
 *     factors, outages from MTBF/MTTR; `availability` below MTBF / (MTBF +
 *     MTTR) becomes a derate while up, and is all derate without outages);
 *     hydro is contracted firm capacity (no fleet capacity-factor budget);
 *     time-of-day grid prices as hourly multipliers (by each hour's middle);
 *   - wind: one plant of the scenario's turbine, hub height, shear,
 *     availability and wake loss (models/wind.h), its carbon and cost;
 *   - dispatch order: the solar plant is dispatch source 0, then the wind
 *     plant, then geothermal, hydro, grid in that order (those present;
 *     site_power_source_kind gives each one's kind).
 * Errors: SIM_ECONFIG naming the scenario key when a value is out of the
 * power model's range. */
#ifndef MODELS_SITE_POWER_SCN_H
#define MODELS_SITE_POWER_SCN_H

#include <stdint.h>

#include "models/climate.h"
#include "models/scenario.h"
#include "models/site_power.h"

/* Builds the site's power model for replication rep of seed into *out
 * (OUT, free with site_power_free). weather: the loaded EPW year when the
 * scenario names one (borrowed; must outlive *out), else NULL. flags: the
 * SITE_POWER_* bits below (1, SITE_POWER_RECORD, keeps per-step records, so
 * a 0/1 "record" argument means what it always meant). */
int site_power_from_scenario(const scenario *s, const climate_year *weather,
                             uint64_t seed, uint64_t rep, int flags,
                             site_power **out, sim_err *err);

/* Flags of site_power_from_scenario. The last two switch a source of
 * randomness off for `run --variance-decomposition` (docs/site-model.md):
 * with SITE_POWER_WEATHER_REP0 every replication synthesises replication
 * 0's weather year (its streams "climate" and "climate/wind" are seeded as
 * in replication 0), with SITE_POWER_NO_OUTAGES firm sources have no forced
 * outages and their availability becomes a constant derate (the same
 * long-run energy). Neither touches another stream. */
#define SITE_POWER_RECORD 1
#define SITE_POWER_WEATHER_REP0 2
#define SITE_POWER_NO_OUTAGES 4

#endif
