/* io/climate_load.c: a scenario's weather file -> climate_year (see
 * climate_load.h).
 *
 * This file owns the one decision of which reader a scenario's weather needs
 * (none for built-in normals, the EPW reader, or the hourly CSV reader) and the
 * cross-check that the file has the columns the scenario's sources need. It
 * sits in io/ because it opens files; the models never do. It must never leave
 * *out set on failure: the year is freed and *out stays NULL, so a caller
 * cannot run on a half-filled year. */
#include "io/climate_load.h"

#include "io/epw.h"
#include "io/profile.h"

int climate_load_for_scenario(const scenario *s, climate_year **out,
                              sim_err *err)
{
    const scen_climate *c = &s->site.climate;
    climate_year *y;
    int rc;
    *out = NULL;
    /* NULL means "synthesise from normals": the run layer draws the year from
     * its own stream, so nothing is read here. */
    if (c->kind == CLIMATE_NORMALS)
        return SIM_OK;
    y = climate_year_new();
    if (c->kind == CLIMATE_EPW) {
        rc = epw_read(c->path, y, err);
    } else {
        profile_site site;
        profile_info info;
        profile_site_default(&site, s->site.latitude_deg, s->site.longitude_deg,
                             s->site.utc_offset_s / 3600.0,
                             s->site.elevation_m);
        site.name = s->site.name;
        rc = profile_read(c->path, &site, y, &info, err);
        /* Checked here, after reading, because only the file tells which
         * columns it has; a CSV without irradiance is valid for a site without
         * solar, so the profile reader itself cannot refuse it. */
        if (rc == SIM_OK && !info.has_irradiance &&
            s->energy.present[SRC_SOLAR])
            rc = sim_err_set(
                err, SIM_ECONFIG, s->path, 0,
                "site.climate.hourly_csv: '%s' has no ghi_w_m2 column, but "
                "energy.solar needs irradiance (got dry bulb only, expected "
                "ghi_w_m2 [and dni_w_m2, dhi_w_m2])",
                c->path);
        else if (rc == SIM_OK && !info.has_wind && s->energy.present[SRC_WIND])
            rc = sim_err_set(
                err, SIM_ECONFIG, s->path, 0,
                "site.climate.hourly_csv: '%s' has no wind_m_s column, but "
                "energy.wind needs hourly wind speed (got no wind column, "
                "expected wind_m_s at 10 m)",
                c->path);
    }
    if (rc != SIM_OK) {
        climate_year_free(y);
        return rc;
    }
    *out = y;
    return SIM_OK;
}
