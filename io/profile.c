/* io/profile.c: hourly weather CSV -> climate_year (see profile.h for the
 * format). The table comes from io/csv.h (libcsv); this file maps the header to
 * columns, checks every cell and fills the year.
 *
 * Rows are checked in file order against the hour they must hold, so a missing,
 * repeated or shuffled hour fails at its own line. Feb 29 rows of a timestamped
 * leap year are dropped before counting.
 *
 * This file owns the hourly-CSV format: which columns exist, their units and
 * ranges, and what is derived when a column is absent (pressure from the
 * elevation, dew point from RH or the day's minimum, DNI/DHI by Erbs). It must
 * never accept a year that is not all 8760 hours in order, and never invent
 * irradiance: a file without GHI leaves it at 0 and reports has_irradiance = 0,
 * so climate_load.c can refuse it for a site with solar. */
#include "io/profile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv.h"
#include "models/solar.h"
#include "sim/mem.h"

enum {
    C_HOUR,
    C_TS,
    C_TDB,
    C_TDP,
    C_RH,
    C_P,
    C_GHI,
    C_DNI,
    C_DHI,
    C_WIND,
    N_COLS
};

/* Column names, ranges and units, indexed by the enum above. Ranges follow the
 * EPW reader's (io/epw.c) so that one site's weather passes or fails the same
 * way in either format; the hour column's range is the year. */
static const struct {
    const char *name;
    double lo, hi;
    const char *unit;
} cols[N_COLS] = {
    {"hour", 0, CLIMATE_HOURS - 1, "h"},
    {"timestamp", 0, 0, ""},
    {"dry_bulb_c", -70, 70, "degC"},
    {"dew_point_c", -90, 70, "degC"},
    {"rh_pct", 0, 110, "%"},
    {"pressure_pa", 31000, 120000, "Pa"},
    {"ghi_w_m2", 0, 1600, "W/m^2"},
    {"dni_w_m2", 0, 1600, "W/m^2"},
    {"dhi_w_m2", 0, 1000, "W/m^2"},
    {"wind_m_s", 0, 70, "m/s"},
};

static const int month_days[12] = {31, 28, 31, 30, 31, 30,
                                   31, 31, 30, 31, 30, 31};

void profile_site_default(profile_site *site, double lat_deg, double lon_deg,
                          double tz_h, double elevation_m)
{
    site->name = NULL;
    site->lat_deg = lat_deg;
    site->lon_deg = lon_deg;
    site->tz_h = tz_h;
    site->elevation_m = elevation_m;
    site->wind_default_m_s = PROFILE_WIND_DEFAULT_M_S;
}

/* Strict number: the whole cell (surrounding blanks allowed) is a finite
 * number. Returns 0 or -1. */
static int parse_num(const char *s, double *out)
{
    char *end;
    while (isspace((unsigned char)*s))
        s++;
    if (!*s)
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    while (isspace((unsigned char)*end))
        end++;
    if (*end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* Parses "YYYY-MM-DD[ T]HH:MM[:SS]" into year, month (1..12), day and hour.
 * Returns 0, or -1 when malformed, -2 when minutes or seconds are not 0.
 * Minutes and seconds must be zero (-2 gives its own message): the model's
 * hours are whole hours of standard time, and a file stamped at :30 may be in
 * half-hour steps or in a time zone with a 30-minute offset, which this reader
 * would otherwise misalign by half an hour silently. */
static int parse_ts(const char *s, int *y, int *mo, int *d, int *h)
{
    int mi = 0, se = 0, n = 0;
    char sep;
    while (isspace((unsigned char)*s))
        s++;
    if (sscanf(s, "%4d-%2d-%2d%c%2d:%2d%n", y, mo, d, &sep, h, &mi, &n) != 6 ||
        (sep != ' ' && sep != 'T'))
        return -1;
    s += n;
    if (*s == ':') {
        int k = 0;
        if (sscanf(s, ":%2d%n", &se, &k) != 1)
            return -1;
        s += k;
    }
    while (isspace((unsigned char)*s))
        s++;
    if (*s || *mo < 1 || *mo > 12 || *h < 0 || *h > 23 || mi < 0 || mi > 59 ||
        se < 0 || se > 59)
        return -1;
    int leap = (*y % 4 == 0 && *y % 100 != 0) || *y % 400 == 0;
    int dmax = *mo == 2 && leap ? 29 : month_days[*mo - 1];
    if (*d < 1 || *d > dmax)
        return -1;
    return mi || se ? -2 : 0;
}

/* Hour of the non-leap year of month mo (1..12), day d, hour h. */
static long hour_of_year(int mo, int d, int h)
{
    long days = 0;
    for (int m = 0; m < mo - 1; m++)
        days += month_days[m];
    return (days + d - 1) * 24 + h;
}

/* What depends on a whole day or on the sun, once all of a year's rows
 * passed: the dew point from the day's minimum dry bulb when the file has
 * no humidity, relative humidity and wet bulb by the same formulas as
 * synthetic and EPW years (models/climate.c), and DNI/DHI by Erbs when only
 * GHI was given. */
static void fill_derived(climate_year *out, const profile_site *site,
                         const profile_info *inf)
{
    for (size_t d = 0; d < CLIMATE_HOURS / 24; d++) {
        double tmin = INFINITY;
        for (size_t i = 24 * d; i < 24 * d + 24; i++)
            tmin = fmin(tmin, out->h[i].t_db_c);
        for (size_t i = 24 * d; i < 24 * d + 24; i++) {
            climate_hour *h = &out->h[i];
            if (isnan(h->t_dp_c))
                h->t_dp_c = tmin;
            h->rh = climate_rh(h->t_db_c, h->t_dp_c);
            h->t_wb_c = climate_wet_bulb(h->t_db_c, h->t_dp_c, h->p_pa);
            if (inf->has_irradiance && !inf->has_dni_dhi) {
                solar_pos p;
                solar_position_hour((double)i, site->lat_deg, site->lon_deg,
                                    site->tz_h, &p);
                solar_decompose_erbs(h->ghi_w_m2, &p, &h->dni_w_m2,
                                     &h->dhi_w_m2);
            }
        }
    }
}

/* One long function because the header decides how every row is read: the
 * header pass maps names to columns and checks the allowed combinations
 * (exactly one time column, at most one humidity column, GHI alone or all three
 * irradiance columns), the row pass checks each hour's position and cells and,
 * in a multi-year file, starts the next year only where the last one is whole
 * (so the position check restarts at hour 0 of each year), and
 * a final day pass fills what depends on a whole day (the dew point from the
 * day's minimum temperature when no humidity is given) and what depends on the
 * sun (Erbs decomposition). Errors name the row's own line and jump to done,
 * which frees the table; the caller owns `out` and must not use it after an
 * error, since it may be partly filled. */
static int read_years(const char *path, const profile_site *site,
                      climate_year **years, size_t *n_years, size_t max_years,
                      profile_info *info, sim_err *err)
{
    csvt *t = NULL;
    int idx[N_COLS], rc;
    profile_info inf;
    climate_year *ys = sim_xcalloc(1, sizeof *ys), *out = ys;
    size_t ny = 1;
    memset(&inf, 0, sizeof inf);
    *years = NULL;
    *n_years = 0;
    /* Through done: ys is freed on every failure, this one included
     * (fuzz_profile found the early return leaking it). */
    if ((rc = csvt_read(path, &t, err)) != SIM_OK)
        goto done;
    for (int c = 0; c < N_COLS; c++)
        idx[c] = -1;
    for (size_t k = 0; k < t->n_cols; k++) {
        const char *h = t->header[k];
        int c;
        for (c = 0; c < N_COLS; c++)
            if (strcmp(h, cols[c].name) == 0)
                break;
        if (c == N_COLS) {
            rc = sim_err_set(
                err, SIM_ECONFIG, path, 1,
                "column '%.60s': unknown (expected hour or timestamp, "
                "dry_bulb_c, "
                "dew_point_c or rh_pct, pressure_pa, ghi_w_m2, dni_w_m2, "
                "dhi_w_m2, wind_m_s)",
                h);
            goto done;
        }
        if (idx[c] >= 0) {
            rc = sim_err_set(err, SIM_ECONFIG, path, 1,
                             "column '%s': given twice", h);
            goto done;
        }
        idx[c] = (int)k;
    }
    if ((idx[C_HOUR] >= 0) == (idx[C_TS] >= 0)) {
        rc = sim_err_set(
            err, SIM_ECONFIG, path, 1,
            "header: needs exactly one time column (got %s, expected hour or "
            "timestamp)",
            idx[C_HOUR] >= 0 ? "both" : "neither");
        goto done;
    }
    if (idx[C_TDB] < 0) {
        rc = sim_err_set(
            err, SIM_ECONFIG, path, 1,
            "header: dry_bulb_c: missing (expected a dry-bulb column in degC)");
        goto done;
    }
    /* Two humidity columns could disagree, and picking one silently would hide
     * that; the user chooses. */
    if (idx[C_TDP] >= 0 && idx[C_RH] >= 0) {
        rc = sim_err_set(
            err, SIM_ECONFIG, path, 1,
            "header: dew_point_c and rh_pct both given (expected at most one)");
        goto done;
    }
    if ((idx[C_DNI] >= 0) != (idx[C_DHI] >= 0) ||
        (idx[C_DNI] >= 0 && idx[C_GHI] < 0)) {
        rc = sim_err_set(
            err, SIM_ECONFIG, path, 1,
            "header: irradiance columns (got ghi %s, dni %s, dhi %s; expected "
            "ghi_w_m2 alone, all three, or none)",
            idx[C_GHI] >= 0 ? "yes" : "no", idx[C_DNI] >= 0 ? "yes" : "no",
            idx[C_DHI] >= 0 ? "yes" : "no");
        goto done;
    }
    inf.has_irradiance = idx[C_GHI] >= 0;
    inf.has_dni_dhi = idx[C_DNI] >= 0;
    inf.has_humidity = idx[C_TDP] >= 0 || idx[C_RH] >= 0;
    inf.has_pressure = idx[C_P] >= 0;
    inf.has_wind = idx[C_WIND] >= 0;

    double p_std = climate_pressure_pa(site->elevation_m);
    size_t n = 0; /* hours filled */
    int first_year = 0, last_line = 1;
    for (size_t r = 0; r < t->n_rows; r++) {
        char **row = t->rows[r];
        int line = t->line[r];
        long want = (long)n, got;
        last_line = line;
        if (idx[C_TS] >= 0) {
            int y, mo, d, h, tr = parse_ts(row[idx[C_TS]], &y, &mo, &d, &h);
            if (tr != 0) {
                rc = sim_err_set(
                    err, SIM_ECONFIG, path, line,
                    "timestamp: %s (got '%.40s', expected YYYY-MM-DD HH:00 in "
                    "local standard time)",
                    tr == -2 ? "not at the start of an hour" : "malformed",
                    row[idx[C_TS]]);
                goto done;
            }
            /* Leap days are dropped before the position check, so a leap-year
             * file lines up with the nominal 365-day year the models use. */
            if (mo == 2 && d == 29)
                continue;
            if (n == 0 && ny == 1)
                first_year = y;
            if (y != first_year) {
                /* A multi-year file (issue 19.3) is split on the year
                 * boundary: each year must be whole, and years run
                 * forward, so that no year is drawn with hours of another
                 * or a gap filled silently. */
                if (max_years == 1) {
                    rc = sim_err_set(err, SIM_ECONFIG, path, line,
                                     "timestamp: a second year (got %d, "
                                     "expected %d: one year of hours)",
                                     y, first_year);
                    goto done;
                }
                if (y < first_year) {
                    rc = sim_err_set(err, SIM_ECONFIG, path, line,
                                     "timestamp: years out of order (got %d "
                                     "after %d, expected increasing years)",
                                     y, first_year);
                    goto done;
                }
                if (n != CLIMATE_HOURS) {
                    rc = sim_err_set(
                        err, SIM_ECONFIG, path, line,
                        "timestamp: year %d is incomplete (got %zu hours, "
                        "expected %d: a multi-year file holds whole years, "
                        "Jan 1 00:00 to Dec 31 23:00 each)",
                        first_year, n, CLIMATE_HOURS);
                    goto done;
                }
                if (ny >= max_years) {
                    rc = sim_err_set(err, SIM_ECONFIG, path, line,
                                     "timestamp: too many years (got more "
                                     "than %zu, expected at most %zu)",
                                     max_years, max_years);
                    goto done;
                }
                ys = sim_xrealloc(ys, (ny + 1) * sizeof *ys);
                memset(&ys[ny], 0, sizeof *ys);
                out = &ys[ny++];
                first_year = y;
                n = 0;
                want = 0;
            }
            got = hour_of_year(mo, d, h);
        } else {
            double v;
            if (parse_num(row[idx[C_HOUR]], &v) != 0 || v != floor(v)) {
                rc = sim_err_set(
                    err, SIM_ECONFIG, path, line,
                    "hour: not a whole number (got '%.40s', expected 0..8759)",
                    row[idx[C_HOUR]]);
                goto done;
            }
            /* Range first: casting a double beyond long's range is
             * undefined (tests/data/fuzz-regress/fuzz_profile/). */
            if (v < 0 || v > CLIMATE_HOURS) {
                rc = sim_err_set(err, SIM_ECONFIG, path, line,
                                 "hour: out of range (got %g, expected 0..%d)",
                                 v, CLIMATE_HOURS - 1);
                goto done;
            }
            got = (long)v;
        }
        if (n >= CLIMATE_HOURS) {
            rc = sim_err_set(
                err, SIM_ECONFIG, path, line,
                "too many rows (got more than %d, expected one per hour of a "
                "year)",
                CLIMATE_HOURS);
            goto done;
        }
        /* The three messages separate the likely causes: a repeated or skipped
         * hour is almost always a daylight-saving switch in a file written in
         * local clock time, which the message names, while other gaps are plain
         * out-of-order rows. */
        if (got != want) {
            /* A daylight-saving switch skips an hour in spring and repeats
             * one in autumn: say so, since rows must be standard time. */
            const char *col = idx[C_TS] >= 0 ? "timestamp" : "hour";
            if (got == want - 1)
                rc = sim_err_set(
                    err, SIM_ECONFIG, path, line,
                    "%s: hour %ld of the year repeated (got hour %ld, "
                    "expected %ld; rows are local standard time, one per "
                    "hour: a daylight-saving switch repeats an hour)",
                    col, got, got, want);
            else if (got > want)
                rc = sim_err_set(
                    err, SIM_ECONFIG, path, line,
                    "%s: hour %ld of the year missing (got hour %ld, "
                    "expected %ld; rows are local standard time, one per "
                    "hour: a daylight-saving switch skips an hour)",
                    col, want, got, want);
            else
                rc = sim_err_set(err, SIM_ECONFIG, path, line,
                                 "%s: out of order (got hour %ld of the year, "
                                 "expected %ld: rows run Jan 1 00:00 to Dec "
                                 "31 23:00, one per hour)",
                                 col, got, want);
            goto done;
        }
        double v[N_COLS];
        for (int c = C_TDB; c < N_COLS; c++) {
            v[c] = NAN;
            if (idx[c] < 0)
                continue;
            const char *cell = row[idx[c]];
            if (parse_num(cell, &v[c]) != 0) {
                rc = sim_err_set(err, SIM_ECONFIG, path, line,
                                 "%s: %s (got '%.40s', expected %s in %g..%g)",
                                 cols[c].name,
                                 cell[0] ? "not a number" : "missing value",
                                 cell, cols[c].unit, cols[c].lo, cols[c].hi);
                goto done;
            }
            if (v[c] < cols[c].lo || v[c] > cols[c].hi) {
                rc = sim_err_set(
                    err, SIM_ECONFIG, path, line,
                    "%s: out of range (got %g, expected %s in %g..%g)",
                    cols[c].name, v[c], cols[c].unit, cols[c].lo, cols[c].hi);
                goto done;
            }
        }
        climate_hour *h = &out->h[n];
        memset(h, 0, sizeof *h);
        h->t_db_c = v[C_TDB];
        h->p_pa = idx[C_P] >= 0 ? v[C_P] : p_std;
        if (idx[C_TDP] >= 0)
            h->t_dp_c = fmin(v[C_TDP], h->t_db_c);
        /* RH above 100 % is accepted up to the 110 % range bound (sensor
         * overshoot) and treated as saturation. */
        else if (idx[C_RH] >= 0)
            h->t_dp_c =
                climate_dew_point(h->t_db_c, fmin(v[C_RH], 100.0) / 100.0);
        else
            /* Without humidity the dew point is taken as the day's minimum dry
             * bulb, the usual estimate for nights that cool to saturation; it
             * needs the whole day, hence the second pass. */
            h->t_dp_c = NAN; /* the day's minimum, below */
        h->ghi_w_m2 = idx[C_GHI] >= 0 ? v[C_GHI] : 0;
        h->dni_w_m2 = idx[C_DNI] >= 0 ? v[C_DNI] : 0;
        h->dhi_w_m2 = idx[C_DHI] >= 0 ? v[C_DHI] : 0;
        h->wind_m_s = idx[C_WIND] >= 0 ? v[C_WIND] : site->wind_default_m_s;
        n++;
    }
    inf.rows = t->n_rows;
    if (n != CLIMATE_HOURS) {
        if (ny > 1)
            rc = sim_err_set(err, SIM_ECONFIG, path, last_line,
                             "timestamp: year %d is incomplete (got %zu "
                             "hours, expected %d: a multi-year file holds "
                             "whole years, Jan 1 00:00 to Dec 31 23:00 each)",
                             first_year, n, CLIMATE_HOURS);
        else
            rc = sim_err_set(err, SIM_ECONFIG, path, last_line,
                             "too few rows (got %zu hours, expected %d: one "
                             "per hour of a year)",
                             n, CLIMATE_HOURS);
        goto done;
    }
    /* Derived quantities are computed only after all 8760 rows passed, so a
     * file that fails late costs no solar geometry, and every hour's wet bulb
     * uses the same formulas as synthetic and EPW years (models/climate.c). */
    for (size_t yi = 0; yi < ny; yi++) {
        out = &ys[yi];
        fill_derived(out, site, &inf);
        snprintf(out->name, sizeof out->name, "%s",
                 site->name ? site->name : path);
        out->lat_deg = site->lat_deg;
        out->lon_deg = site->lon_deg;
        out->tz_h = site->tz_h;
        out->elevation_m = site->elevation_m;
        out->from_file = 1;
    }
    if (info)
        *info = inf;
    *years = ys;
    *n_years = ny;
    ys = NULL;
    rc = SIM_OK;
done:
    free(ys);
    csvt_free(t);
    return rc;
}

int profile_read(const char *path, const profile_site *site, climate_year *out,
                 profile_info *info, sim_err *err)
{
    climate_year *ys = NULL;
    size_t ny = 0;
    int rc = read_years(path, site, &ys, &ny, 1, info, err);
    if (rc == SIM_OK)
        memcpy(out, ys, sizeof *out);
    free(ys);
    return rc;
}

int profile_read_years(const char *path, const profile_site *site,
                       size_t max_years, climate_year **out, size_t *n_years,
                       profile_info *info, sim_err *err)
{
    return read_years(path, site, out, n_years, max_years ? max_years : 1, info,
                      err);
}
