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
#include "sim/mem.h"

#include <stdlib.h>
#include <string.h>

/* One weather file of s (EPW or hourly CSV, by the scenario's kind) into
 * *ys (OUT: its years, one allocation; a CSV may hold several whole years,
 * at most max_years), with the column cross-checks. */
static int load_one(const scenario *s, const char *path, size_t max_years,
                    climate_year **ys, size_t *n, sim_err *err)
{
    const scen_climate *c = &s->site.climate;
    int rc;
    *ys = NULL;
    *n = 0;
    if (c->kind == CLIMATE_EPW) {
        climate_year *y = sim_xcalloc(1, sizeof *y);
        if ((rc = epw_read(path, y, err)) != SIM_OK) {
            free(y);
            return rc;
        }
        *ys = y;
        *n = 1;
        return SIM_OK;
    }
    {
        profile_site site;
        profile_info info;
        profile_site_default(&site, s->site.latitude_deg, s->site.longitude_deg,
                             s->site.utc_offset_s / 3600.0,
                             s->site.elevation_m);
        site.name = s->site.name;
        rc = profile_read_years(path, &site, max_years, ys, n, &info, err);
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
                path);
        else if (rc == SIM_OK && !info.has_wind && s->energy.present[SRC_WIND])
            rc = sim_err_set(
                err, SIM_ECONFIG, s->path, 0,
                "site.climate.hourly_csv: '%s' has no wind_m_s column, but "
                "energy.wind needs hourly wind speed (got no wind column, "
                "expected wind_m_s at 10 m)",
                path);
        if (rc != SIM_OK) {
            free(*ys);
            *ys = NULL;
            *n = 0;
        }
    }
    return rc;
}

int climate_load_for_scenario(const scenario *s, climate_year **out,
                              size_t *n_years, sim_err *err)
{
    const scen_climate *c = &s->site.climate;
    int n = c->n_files > 1 ? c->n_files : 1;
    climate_year *y = NULL;
    size_t ny = 0;
    *out = NULL;
    if (n_years)
        *n_years = 0;
    /* NULL means "synthesise from normals": the run layer draws the year from
     * its own stream, so nothing is read here. */
    if (c->kind == CLIMATE_NORMALS)
        return SIM_OK;
    /* One block of all the years, so climate_year_free (free) releases
     * them all: each file's years are appended in order. */
    for (int i = 0; i < n; i++) {
        climate_year *f = NULL;
        size_t nf = 0;
        int rc = load_one(s, i ? c->more[i - 1] : c->path,
                          CLIMATE_LOAD_YEARS_MAX - ny, &f, &nf, err);
        if (rc != SIM_OK) {
            climate_year_free(y);
            return rc;
        }
        y = sim_xrealloc(y, (ny + nf) * sizeof *y);
        memcpy(&y[ny], f, nf * sizeof *y);
        ny += nf;
        free(f);
        if (ny >= CLIMATE_LOAD_YEARS_MAX && i + 1 < n) {
            climate_year_free(y);
            return sim_err_set(err, SIM_ECONFIG, s->path, 0,
                               "site.climate: too many weather years (got "
                               "more than %d, expected at most %d)",
                               CLIMATE_LOAD_YEARS_MAX, CLIMATE_LOAD_YEARS_MAX);
        }
    }
    *out = y;
    if (n_years)
        *n_years = ny;
    return SIM_OK;
}
