/* io/climate_load.h: the weather a scenario names, loaded for the power
 * model: the EPW file (io/epw.h), the hourly CSV profile (io/profile.h), or
 * nothing for monthly normals (the power model synthesises those itself,
 * models/site_power_scn.h). Every command that runs a scenario's power
 * (`power`, `run`) calls this one function, so they see the same weather.
 *
 * EPW years keep the file's own location and time zone (the irradiance is
 * timed to them); CSV profiles carry none and take the scenario site's
 * latitude, longitude, UTC offset and elevation.
 */
#ifndef IO_CLIMATE_LOAD_H
#define IO_CLIMATE_LOAD_H

#include "models/climate.h"
#include "models/scenario.h"
#include "sim/err.h"

/* Most weather years a scenario may load (files x years per CSV), about
 * 0.7 MB each. */
#define CLIMATE_LOAD_YEARS_MAX 64

/* Loads the weather of s into *out (OUT: caller frees with
 * climate_year_free; NULL for CLIMATE_NORMALS, which is not an error) and
 * the number of years into *n_years (OUT, may be NULL; 0 for normals).
 * Every file gives one year, except an hourly CSV of several whole years
 * (timestamped), which gives each of its years in order (io/profile.h
 * profile_read_years). *out is an array of all the years, files in the
 * scenario's order, one allocation; a caller that needs one year uses
 * (*out)[0]. A replication draws one year (models/site.h).
 * Errors: SIM_EIO (cannot open the file), SIM_ECONFIG ("FILE:LINE: ..." from
 * the reader; a CSV without ghi_w_m2 for a site with solar, naming
 * site.climate.hourly_csv). Nothing is allocated on failure. */
int climate_load_for_scenario(const scenario *s, climate_year **out,
                              size_t *n_years, sim_err *err);

#endif
