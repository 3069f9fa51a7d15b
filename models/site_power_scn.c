/* models/site_power_scn.c: scenario -> site_power configuration (see
 * site_power_scn.h for the mapping). */
#include "models/site_power_scn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/mem.h"

/* Hour of the (non-leap) year at the start date, local standard time. */
static double start_hoy_h(int64_t start_day)
{
    time_t t = (time_t)(start_day * 86400);
    struct tm tm;
    int yday;
    gmtime_r(&t, &tm);
    yday = tm.tm_yday;
    /* In a leap year, days after Feb 28 map onto the non-leap calendar. */
    if (((tm.tm_year + 1900) % 4 == 0 && (tm.tm_year + 1900) % 100 != 0) ||
        (tm.tm_year + 1900) % 400 == 0) {
        if (yday >= 59)
            yday--;
    }
    if (yday > 364)
        yday = 364;
    return 24.0 * yday;
}

int site_power_from_scenario(const scenario *s, const climate_year *weather,
                             uint64_t seed, uint64_t rep, int flags,
                             site_power **out, sim_err *err)
{
    site_power_cfg c;
    solar_cfg pv;
    battery_cfg bat;
    wind_cfg wp;
    supply_cfg sup[SRC_N]; /* firm kinds and the grid */
    size_t n_sup = 0;
    site_power_module *mods;
    const scen_energy *en = &s->energy;

    *out = NULL;
    site_power_cfg_default(&c);
    snprintf(c.name, sizeof c.name, "%s", s->site.name);
    c.step_s = s->sim.step_s;
    c.cap = s->cap_curve;
    c.record = (flags & SITE_POWER_RECORD) != 0;
    c.weather_rep0 = (flags & SITE_POWER_WEATHER_REP0) != 0;
    c.start_hoy_h = start_hoy_h(s->sim.start_day);
    c.policy = s->policy;
    if (s->site.climate.kind != CLIMATE_NORMALS) {
        /* EPW and hourly CSV alike: the caller loads the file
         * (io/climate_load.h); never fall back to normals silently. */
        if (!weather)
            return sim_err_set(
                err, SIM_EINVAL, s->path, 0,
                "site.climate: the weather file '%s' was not loaded",
                s->site.climate.path);
        c.weather = weather;
    } else {
        const climate_monthly *b = climate_builtin(
            s->site.climate.normals[0] ? s->site.climate.normals : "las-vegas");
        if (!b)
            return sim_err_set(err, SIM_ECONFIG, s->path, 0,
                               "site.climate.normals: no built-in normals '%s' "
                               "in the power model "
                               "(expected %s)",
                               s->site.climate.normals,
                               climate_builtin_names());
        c.normals = *b;
        if (!s->site.climate.normals[0]) {
            for (int m = 0; m < 12; m++) {
                c.normals.t_mean_c[m] = s->site.climate.monthly_mean_c[m];
                c.normals.t_range_k[m] = s->site.climate.diurnal_range_k;
            }
        } else {
            /* A diurnal_range_k given with built-in normals rescales the
             * monthly ranges so their annual mean is the given one (the
             * month-to-month shape is kept). */
            double mean = 0;
            for (int m = 0; m < 12; m++)
                mean += b->t_range_k[m] / 12.0;
            if (fabs(s->site.climate.diurnal_range_k - mean) > 1e-9 && mean > 0)
                for (int m = 0; m < 12; m++)
                    c.normals.t_range_k[m] = b->t_range_k[m] *
                                             s->site.climate.diurnal_range_k /
                                             mean;
        }
        snprintf(c.normals.name, sizeof c.normals.name, "%s", s->site.name);
        c.normals.lat_deg = s->site.latitude_deg;
        c.normals.lon_deg = s->site.longitude_deg;
        c.normals.tz_h = s->site.utc_offset_s / 3600.0;
        c.normals.elevation_m = s->site.elevation_m;
    }
    if (en->present[SRC_SOLAR]) {
        solar_cfg_default(&pv, en->capacity_w[SRC_SOLAR]);
        pv.dc_ac_ratio = en->solar.dc_ac_ratio;
        pv.tracking = en->solar.tracking == TRACK_SINGLE_AXIS
                          ? SOLAR_SINGLE_AXIS
                          : SOLAR_FIXED;
        pv.sky = (solar_sky)en->solar.sky_model;
        pv.tilt_deg = en->solar.tilt_deg;
        pv.azimuth_deg = en->solar.azimuth_deg;
        pv.losses = en->solar.losses;
        pv.inv_eff = en->solar.inverter_eff;
        pv.gamma_per_k = en->solar.temp_coeff_per_k;
        c.solar = &pv;
        c.n_solar = 1;
        c.solar_carbon_g_per_j = en->carbon_kg_per_j[SRC_SOLAR] * 1000.0;
        c.solar_price_usd_per_j = en->cost_usd_per_j[SRC_SOLAR];
        c.solar_degradation_per_s = en->solar.degradation_per_s;
    }
    if (en->present[SRC_WIND]) {
        const scen_wind *sw = &en->wind;
        wp.capacity_w = en->capacity_w[SRC_WIND];
        wp.hub_height_m = sw->hub_height_m;
        wp.shear_exponent = sw->shear_exponent;
        wp.availability = sw->availability;
        wp.wake_loss = sw->wake_loss;
        wp.curve = sw->turbine;
        wp.carbon_g_per_j = en->carbon_kg_per_j[SRC_WIND] * 1000.0;
        wp.price_usd_per_j = en->cost_usd_per_j[SRC_WIND];
        c.wind = &wp;
        c.n_wind = 1;
    }
    if (en->present[SRC_BATTERY]) {
        const scen_battery *b = &en->battery;
        double soh = b->soh_dist == SOH_UNIFORM
                         ? 0.5 * (b->soh_min + b->soh_max)
                         : b->soh_mean;
        battery_cfg_default(&bat, (size_t)b->packs,
                            b->capacity_j / (b->packs * soh));
        bat.second_life = 1;
        bat.soh_mean = soh;
        bat.soh_sd = b->soh_dist == SOH_UNIFORM ? 0.0 : b->soh_sd;
        bat.soh_uniform = b->soh_dist == SOH_UNIFORM;
        bat.soh_min = b->soh_min;
        bat.soh_max = b->soh_max;
        bat.p_max_w = en->capacity_w[SRC_BATTERY];
        bat.c_rate_max = b->c_rate_max_per_s * 3600.0;
        bat.rte = b->round_trip_eff;
        bat.soc_min = b->reserve_floor;
        bat.soc_init = b->initial_soc;
        bat.thermal = (battery_thermal)b->thermal_mode;
        bat.rise_c = b->rise_c;
        bat.setpoint_c = b->setpoint_c;
        bat.hvac_cop = b->hvac_cop;
        bat.hvac_ua_w_per_k_per_j = b->hvac_ua_w_per_k_per_j;
        c.battery = &bat;
        c.n_battery = 1;
        c.battery_carbon_g_per_j = en->carbon_kg_per_j[SRC_BATTERY] * 1000.0;
        c.battery_price_usd_per_j = en->cost_usd_per_j[SRC_BATTERY];
        /* Off-grid (no grid group, or one whose import limit is 0), the
         * commissioning charge can only be the site's own renewable
         * energy; with a grid it is counted as grid energy. */
        c.battery_initial_renewable = scenario_grid_connected(s) ? 0.0 : 1.0;
    }
    {
        for (int k = 0; k < SRC_N; k++) {
            const scen_firm *f = &en->firm[k];
            supply_cfg *u;
            if (source_table[k].role != SOURCE_FIRM || !en->present[k])
                continue;
            u = &sup[n_sup++];
            supply_cfg_default(u, (source_kind)k, en->capacity_w[k]);
            u->mtbf_s = flags & SITE_POWER_NO_OUTAGES ? 0.0 : f->mtbf_s;
            u->mttr_s = f->mttr_s;
            /* Long-run availability = outage availability A_o = MTBF /
             * (MTBF + MTTR) x derate while up: a lower `availability` than
             * the outages give becomes a derate; without outages it is
             * all derate. */
            if (u->mtbf_s > 0) {
                double ao = f->mtbf_s / (f->mtbf_s + f->mttr_s);
                u->derate = fmin(1.0, f->availability / ao);
            } else {
                u->derate = f->availability;
            }
            /* A scenario's hydro is contracted firm capacity (sources.cfg
             * notes): its energy is limited by monthly_cf, not by the
             * Norwegian fleet's capacity factor. */
            u->cf = 0.0;
            for (int m = 0; m < 12; m++)
                u->month_frac[m] = f->monthly_cf[m];
            u->price_usd_per_j = en->cost_usd_per_j[k];
            u->carbon_g_per_j = en->carbon_kg_per_j[k] * 1000.0;
        }
    }
    if (en->present[SRC_GRID]) {
        const scen_grid *g = &en->grid;
        supply_cfg *u = &sup[n_sup++];
        supply_cfg_default(u, SRC_GRID, en->capacity_w[SRC_GRID]);
        snprintf(u->name, sizeof u->name, "grid");
        u->price_usd_per_j = en->cost_usd_per_j[SRC_GRID];
        u->carbon_g_per_j = en->carbon_kg_per_j[SRC_GRID] * 1000.0;
        for (size_t w = 0; w < g->n_tod; w++)
            for (int h = 0; h < 24; h++) {
                double mid = (h + 0.5) * 3600.0;
                if (mid >= g->tod[w].start_s && mid < g->tod[w].end_s &&
                    en->cost_usd_per_j[SRC_GRID] > 0)
                    u->tod_mult[h] = g->tod[w].price_usd_per_j /
                                     en->cost_usd_per_j[SRC_GRID];
            }
    }
    c.source = sup;
    c.n_source = n_sup;
    mods = sim_xcalloc(s->n_modules ? s->n_modules : 1, sizeof *mods);
    for (size_t i = 0; i < s->n_modules; i++) {
        const scen_module *sm = &s->modules[i];
        site_power_module *pm = &mods[i];
        snprintf(pm->name, sizeof pm->name, "%s", sm->name);
        pm->load = s->power; /* the power group, at this group's capacity */
        pm->load.it_capacity_w = sm->it_capacity_w;
        pm->system.n_gpus = sm->system->gpus;
        pm->system.gpu_tdp_w = sm->gpu->tdp_w;
        pm->system.system_max_w = sm->system->max_power_w;
        pm->n_systems = (double)sm->count * sm->units;
        pm->cooling = sm->cool; /* the design with its keys applied */
        pm->online_s = sm->commission_t_s;
    }
    c.module = mods;
    c.n_module = s->n_modules;
    *out = site_power_new(&c, seed, rep, err);
    free(mods);
    if (!*out) {
        if (err && err->file[0] == '\0')
            snprintf(err->file, sizeof err->file, "%.500s", s->path);
        return err ? (err->code ? err->code : SIM_ECONFIG) : SIM_ECONFIG;
    }
    return SIM_OK;
}
