/* io/profile.h: reader for hourly weather profiles in CSV (a scenario's
 * site.climate.hourly_csv), turned into a climate_year (models/climate.h).
 *
 * Format (docs/power-model.md 13). A header row, then one row per hour of a
 * nominal year in local standard time, 8760 rows (8784 for a leap year
 * given by timestamp: its Feb 29 rows are dropped, as io/epw.h does).
 * Columns, by name, in any order:
 *   hour          0-based hour of the year, the row covers [hour, hour+1) h
 *                 after Jan 1 00:00; must run 0, 1, ..., 8759; or
 *   timestamp     "YYYY-MM-DD HH:MM" (or with 'T'; ":SS" allowed, minutes
 *                 and seconds 0), the start of the hour; rows in order,
 *                 every hour of one year (the year itself is ignored), or,
 *                 read by profile_read_years, of several whole years in
 *                 increasing order, split on the year boundary (an
 *                 incomplete year is an error naming it);
 *                 exactly one of hour and timestamp;
 *   dry_bulb_c    dry-bulb temperature [degC], required, -70..70;
 *   dew_point_c   dew point [degC], -90..70 (capped at the dry bulb), or
 *   rh_pct        relative humidity [%], 0..110 (capped at 100); at most one
 *                 of them; without either the dew point is the day's minimum
 *                 dry bulb (the FAO-56 Tmin approximation, Allen et al. 1998
 *                 eq. 48; an assumption that overstates humidity in arid
 *                 climates);
 *   pressure_pa   station pressure [Pa], 31000..120000; default the standard
 *                 atmosphere at the site's elevation;
 *   ghi_w_m2      global horizontal irradiance, the hour's mean [W/m^2],
 *                 0..1600; with dni_w_m2 (0..1600) and dhi_w_m2 (0..1000)
 *                 all three, or ghi_w_m2 alone (split by Erbs at the sun's
 *                 position, models/solar.h); none = no irradiance
 *                 (info.has_irradiance 0, every hour 0);
 *   wind_m_s      wind speed at 10 m [m/s], 0..70; default
 *                 site.wind_default_m_s.
 * Any other column is an error (a typo never falls back to a default).
 * Blank lines are skipped; cells may be quoted (libcsv, through io/csv.h).
 * Wet bulb is computed (climate_wet_bulb).
 *
 * Errors read "FILE:LINE: column: message (got X, expected Y)". Complexity
 * O(rows). Only io/csv.c touches libcsv; this file parses the cells.
 */
#ifndef IO_PROFILE_H
#define IO_PROFILE_H

#include <stddef.h>

#include "models/climate.h"
#include "sim/err.h"

#define PROFILE_WIND_DEFAULT_M_S                                               \
    2.0 /* assumption: a light breeze, used                                    \
           only when the file has no wind */

/* Where the profile was measured: the CSV carries no location. */
typedef struct profile_site {
    const char *name;        /* copied into the year, may be NULL */
    double lat_deg, lon_deg; /* north +, east + */
    double tz_h;             /* UTC offset of local standard time */
    double elevation_m;
    double wind_default_m_s; /* PROFILE_WIND_DEFAULT_M_S */
} profile_site;

/* What the file held. */
typedef struct profile_info {
    size_t rows;        /* data rows read (8760 or 8784) */
    int has_irradiance; /* ghi_w_m2 present */
    int has_dni_dhi;    /* dni_w_m2 and dhi_w_m2 present */
    int has_humidity;   /* dew_point_c or rh_pct present */
    int has_pressure, has_wind;
} profile_info;

/* Fills *site with a location and the default wind. */
void profile_site_default(profile_site *site, double lat_deg, double lon_deg,
                          double tz_h, double elevation_m);

/* Reads the CSV at path into *out (OUT, caller-allocated, e.g. with
 * climate_year_new; from_file is set to 1) and *info (OUT, may be NULL).
 * Errors: SIM_EIO (cannot open), SIM_ECONFIG (FILE:LINE: column: message).
 * On failure *out holds scratch values only. */
int profile_read(const char *path, const profile_site *site, climate_year *out,
                 profile_info *info, sim_err *err);

/* Reads a CSV of one or more whole years (timestamped rows; an hour column
 * is one year) into *out (OUT: an array of *n_years years in file order,
 * one allocation, caller frees with climate_year_free), at most max_years
 * (0 = 1). Leap days are dropped per year. Errors as profile_read, plus
 * "timestamp: year Y is incomplete (got N hours, expected 8760 ...)" at the
 * line where the next year starts or the last line, years out of order and
 * too many years. Nothing is allocated on failure (*out NULL). */
int profile_read_years(const char *path, const profile_site *site,
                       size_t max_years, climate_year **out, size_t *n_years,
                       profile_info *info, sim_err *err);

#endif
