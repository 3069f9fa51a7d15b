/* io/epw.c: the EPW reader (io/epw.h). Each line is split in place on commas
 * into at most EPW_MAX_FIELDS fields; numbers are parsed strictly (the whole
 * field must be a finite number).
 *
 * This is the only file that knows the EPW layout (field numbers, missing-value
 * codes, header lines). It must never accept a file it cannot read fully: a
 * year is all 8760 hours in order or an error naming FILE:LINE, because a short
 * year silently wrapped would shift every season. It hand-splits lines rather
 * than using libcsv because EPW data lines are plain comma lists with no
 * quoting, and the header's free-text fields are never parsed beyond LOCATION.
 * Psychrometric quantities are derived with climate.c's formulas, so EPW and
 * synthetic years agree on what a wet bulb is. */
#include "io/epw.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPW_MAX_FIELDS 64
/* EPW files have 8 header lines (LOCATION, DESIGN CONDITIONS, TYPICAL/EXTREME
 * PERIODS, GROUND TEMPERATURES, HOLIDAYS/DAYLIGHT SAVINGS, COMMENTS 1 and 2,
 * DATA PERIODS); only LOCATION is needed. */
#define EPW_HEADER_LINES 8

static const int month_days[12] = {31, 28, 31, 30, 31, 30,
                                   31, 31, 30, 31, 30, 31};

/* Returns the true field count even past max, so that the caller's "too few
 * fields" check sees the real number; only the first max pointers are stored.
 */
static size_t split(char *line, char **f, size_t max)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        if (n < max)
            f[n] = p;
        n++;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

static int parse_num(const char *s, double *out)
{
    char *end;
    while (*s == ' ')
        s++;
    if (*s == '\0')
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    while (*end == ' ')
        end++;
    if (*end != '\0' || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

typedef struct field_spec {
    int idx;
    const char *name;
    double lo, hi;  /* valid range */
    double missing; /* missing-value code */
    const char *unit;
} field_spec;

/* Field numbers are 0-based positions in the EnergyPlus weather file format
 * (the EPW data dictionary), and the missing-value codes are the ones it
 * defines. Ranges follow its limits where it gives them (dew point and wind
 * speed are accepted a little wider here); irradiance is capped at hourly
 * totals no surface measurement reaches. */
static const field_spec fields[] = {
    {6, "dry bulb", -70, 70, 99.9, "degC"},
    {7, "dew point", -90, 70, 99.9, "degC"},
    {8, "relative humidity", 0, 110, 999, "%"},
    {9, "station pressure", 31000, 120000, 999999, "Pa"},
    {13, "GHI", 0, 1600, 9999, "Wh/m^2"},
    {14, "DNI", 0, 1600, 9999, "Wh/m^2"},
    {15, "DHI", 0, 1000, 9999, "Wh/m^2"},
    {21, "wind speed", 0, 70, 999, "m/s"},
};

#define N_FIELDS (sizeof fields / sizeof fields[0])

/* One pass, one function: a line's meaning depends on its number (header or
 * data) and on the rows read so far (the expected date), and every error must
 * name the line; splitting the body would mean passing the line number, the row
 * and the expected date around for no gain. Every failure jumps to done, which
 * frees the line buffer and closes the file; the caller owns `out` and must not
 * use it after an error (it may be partly filled). */
int epw_read(const char *path, climate_year *out, sim_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return sim_err_set(err, SIM_EIO, path, 0, "cannot open: %s",
                           strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0, rc = SIM_OK;
    size_t row = 0;
    char *fv[EPW_MAX_FIELDS];
    double elevation = 0;

    memset(out, 0, sizeof *out);
    out->from_file = 1;
    while ((len = getline(&line, &cap, f)) != -1) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        /* getline reads embedded NULs, at which the strchr-based split would
         * silently stop; a binary file is refused here with a clear message
         * instead. */
        if (memchr(line, '\0', (size_t)len) != NULL) {
            rc = sim_err_set(
                err, SIM_ECONFIG, path, lineno,
                "binary data in a text line (expected an EPW file)");
            goto done;
        }
        if (lineno == 1) {
            size_t n = split(line, fv, EPW_MAX_FIELDS);
            double v[4];
            if (n < 10 || strcmp(fv[0], "LOCATION") != 0) {
                rc = sim_err_set(
                    err, SIM_ECONFIG, path, lineno,
                    "header: expected a LOCATION line with 10 fields "
                    "(got '%.40s' with %zu fields)",
                    fv[0], n);
                goto done;
            }
            static const char *names[4] = {"latitude", "longitude", "time zone",
                                           "elevation"};
            static const double lo[4] = {-90, -180, -14, -500};
            static const double hi[4] = {90, 180, 14, 9000};
            for (int k = 0; k < 4; k++)
                if (parse_num(fv[6 + k], &v[k]) != 0 || v[k] < lo[k] ||
                    v[k] > hi[k]) {
                    rc = sim_err_set(
                        err, SIM_ECONFIG, path, lineno,
                        "LOCATION field %d (%s): invalid (got '%.40s', "
                        "expected a number in %g..%g)",
                        6 + k, names[k], fv[6 + k], lo[k], hi[k]);
                    goto done;
                }
            snprintf(out->name, sizeof out->name, "%.40s, %.20s, %.20s", fv[1],
                     fv[2], fv[3]);
            out->lat_deg = v[0];
            out->lon_deg = v[1];
            out->tz_h = v[2];
            out->elevation_m = elevation = v[3];
            continue;
        }
        if (lineno <= EPW_HEADER_LINES)
            continue;
        size_t n = split(line, fv, EPW_MAX_FIELDS);
        if (n < 22) {
            rc = sim_err_set(err, SIM_ECONFIG, path, lineno,
                             "data line: too few fields (got %zu, expected 35)",
                             n);
            goto done;
        }
        double mo, dy, hr;
        if (parse_num(fv[1], &mo) || parse_num(fv[2], &dy) ||
            parse_num(fv[3], &hr)) {
            rc = sim_err_set(err, SIM_ECONFIG, path, lineno,
                             "fields 1-3 (month, day, hour): not numbers (got "
                             "'%.10s,%.10s,%.10s')",
                             fv[1], fv[2], fv[3]);
            goto done;
        }
        /* Checked before any cast: a double outside int's range makes the
         * conversion undefined (found by tests/fuzz/fuzz_epw.c, inputs in
         * tests/data/fuzz-regress/fuzz_epw/). */
        if (mo != floor(mo) || dy != floor(dy) || hr != floor(hr) || mo < 1 ||
            mo > 12 || dy < 1 || dy > 31 || hr < 1 || hr > 24) {
            rc = sim_err_set(
                err, SIM_ECONFIG, path, lineno,
                "fields 1-3 (month, day, hour): not a date (got %g/%g hour %g, "
                "expected month 1..12, day 1..31, hour 1..24)",
                mo, dy, hr);
            goto done;
        }
        /* Leap-year files have 8784 rows; dropping 29 February keeps every
         * later day aligned with the nominal 365-day year that the models use.
         */
        if ((int)mo == 2 && (int)dy == 29)
            continue; /* leap day: dropped (nominal non-leap year) */
        if (row >= CLIMATE_HOURS) {
            rc = sim_err_set(err, SIM_ECONFIG, path, lineno,
                             "too many data rows (expected %d hours)",
                             CLIMATE_HOURS);
            goto done;
        }
        /* The expected month/day/hour of this row. Rows must come in calendar
         * order, hour 1 to 24 (EPW hour k covers the hour ending at k): a file
         * with a gap or a repeated hour would otherwise shift every later hour
         * without any other sign. */
        int em = 0;
        size_t ed = row / 24;
        while (ed >= (size_t)month_days[em]) {
            ed -= (size_t)month_days[em];
            em++;
        }
        int eh = (int)(row % 24) + 1;
        if ((int)mo != em + 1 || (int)dy != (int)ed + 1 || (int)hr != eh ||
            mo != floor(mo) || dy != floor(dy) || hr != floor(hr)) {
            rc = sim_err_set(err, SIM_ECONFIG, path, lineno,
                             "fields 1-3 (month, day, hour): out of sequence "
                             "(got %g/%g hour %g, expected %d/%d hour %d)",
                             mo, dy, hr, em + 1, (int)ed + 1, eh);
            goto done;
        }
        double v[N_FIELDS];
        for (size_t k = 0; k < N_FIELDS; k++) {
            const field_spec *s = &fields[k];
            const char *txt = fv[s->idx];
            if (parse_num(txt, &v[k]) != 0) {
                rc = sim_err_set(err, SIM_ECONFIG, path, lineno,
                                 "field %d (%s): not a number (got '%.30s', "
                                 "expected %s in %g..%g)",
                                 s->idx, s->name, txt, s->unit, s->lo, s->hi);
                goto done;
            }
            if (v[k] == s->missing) {
                /* Missing pressure is filled from the elevation and missing
                 * humidity is not needed (it is recomputed from the dew point);
                 * any other missing field has no safe stand-in, so the file is
                 * refused. */
                if (s->idx == 9 || s->idx == 8) {
                    v[k] = NAN; /* filled below */
                    continue;
                }
                rc = sim_err_set(err, SIM_ECONFIG, path, lineno,
                                 "field %d (%s): missing value (got %g, "
                                 "expected %s in %g..%g)",
                                 s->idx, s->name, v[k], s->unit, s->lo, s->hi);
                goto done;
            }
            if (v[k] < s->lo || v[k] > s->hi) {
                rc = sim_err_set(err, SIM_ECONFIG, path, lineno,
                                 "field %d (%s): out of range (got %g, "
                                 "expected %s in %g..%g)",
                                 s->idx, s->name, v[k], s->unit, s->lo, s->hi);
                goto done;
            }
        }
        climate_hour *h = &out->h[row];
        h->t_db_c = v[0];
        /* A dew point above the dry bulb is physically impossible and appears
         * in some files from rounding; it is clamped to saturation. */
        h->t_dp_c = v[1] > v[0] ? v[0] : v[1];
        h->rh = climate_rh(h->t_db_c, h->t_dp_c);
        h->p_pa = isnan(v[3]) ? climate_pressure_pa(elevation) : v[3];
        h->ghi_w_m2 = v[4];
        h->dni_w_m2 = v[5];
        h->dhi_w_m2 = v[6];
        h->wind_m_s = v[7];
        h->t_wb_c = climate_wet_bulb(h->t_db_c, h->t_dp_c, h->p_pa);
        row++;
    }
    if (ferror(f)) {
        rc = sim_err_set(err, SIM_EIO, path, lineno, "read error");
        goto done;
    }
    if (lineno < 1) {
        rc = sim_err_set(err, SIM_ECONFIG, path, 0,
                         "empty file (expected an EPW file)");
        goto done;
    }
    if (row != CLIMATE_HOURS)
        rc = sim_err_set(err, SIM_ECONFIG, path, lineno,
                         "too few data rows (got %zu, expected %d)", row,
                         CLIMATE_HOURS);
done:
    free(line);
    fclose(f);
    return rc;
}
