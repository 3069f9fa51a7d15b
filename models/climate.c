/* models/climate.c: typical-year weather: built-in monthly normals, the
 * synthesis of an hourly year from them, and psychrometrics. See
 * docs/power-model.md 2 for the equations and their sources.
 *
 * Synthesis draws, per day and in this order: one normal variate for the
 * temperature anomaly, one uniform for the sky state transition and one uniform
 * for the day's clearness index, so a year always consumes the same number of
 * draws and two sites never share a stream.
 *
 * This file owns the built-in normals and every psychrometric formula (so the
 * cooling model and the EPW reader agree on what a wet bulb is). It must never
 * read files (io/epw.c and io/climate_load.c do) and never own a stream: the
 * caller passes the generator, which keeps weather draws separate from outage
 * and job draws. Changing the order or number of draws changes every synthetic
 * year and the golden files. */
#include "models/climate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_gamma.h>

#include "models/solar.h"
#include "sim/mem.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* A nominal 365-day year: CLIMATE_HOURS is 8760 and a leap day would shift
 * every later hour against the EPW files, which also have 8760 rows. */
static const int month_days[12] = {31, 28, 31, 30, 31, 30,
                                   31, 31, 30, 31, 30, 31};

/* Mojave daily-Kt chain and quantiles (facts-more.md 5, Daggett TMY [D]):
 * clear = Kt >= 0.6, p_cc 0.867, p_oo 0.350; p10 .53, p25 .66, p50 .73,
 * p75 .76, p90 .77. The 0 and 1 quantiles (0.10, 0.80) are assumptions. */
#define MOJAVE_CHAIN                                                           \
    0.6, 0.867, 0.350, {0.10, 0.53, 0.66, 0.73, 0.76, 0.77, 0.80}, 0.80

/* Hourly wind shape of every built-in set: Weibull k = 2 (the Rayleigh
 * distribution, which IEC 61400-1 assumes for the hub-height speed of its
 * turbine classes) and an hour-to-hour AR(1) coefficient of 0.9. Both are
 * assumptions: no site's fitted Weibull shape or autocorrelation is in the
 * shared facts (docs/power-model.md 4b). */
#define WIND_RAYLEIGH 2.0, 0.9

static const climate_monthly builtin[] = {
    /* Las Vegas: location from the TMY3 EPW header (weather/README.md);
     * monthly means from climatestotravel (facts-more.md 5); daily range =
     * 2 x (Met Office mean daily max - mean) [D]; RH from the Met Office;
     * Kt from the Daggett TMY [D]; wind = the Las Vegas EPW annual mean
     * 4.462 m/s (weather/README.md). */
    {"las-vegas",
     36.08,
     -115.15,
     -8.0,
     648.0,
     {9.0, 11.5, 15.5, 19.5, 25.5, 30.5, 33.5, 32.5, 28.0, 21.0, 13.5, 9.0},
     {11.2, 10.2, 12.2, 11.4, 11.8, 12.8, 13.6, 13.8, 14.0, 12.4, 12.0, 9.6},
     {0.43, 0.41, 0.32, 0.24, 0.20, 0.16, 0.20, 0.22, 0.22, 0.25, 0.33, 0.41},
     {0.62, 0.65, 0.70, 0.71, 0.73, 0.75, 0.69, 0.69, 0.71, 0.69, 0.66, 0.61},
     4.462,
     2.0,
     0.7,
     MOJAVE_CHAIN,
     WIND_RAYLEIGH},
    /* Reykjavik: means and max-min from climatestotravel (facts-more.md 5).
     * Location, RH 0.80, Kt and wind 5 m/s are assumptions (no source in
     * the shared data); the cloud chain reuses the Mojave shape scaled to
     * each month's Kt (assumption). */
    {"reykjavik",
     64.13,
     -21.94,
     0.0,
     30.0,
     {0.0, 0.5, 0.5, 3.5, 7.0, 9.5, 11.5, 11.5, 8.5, 4.5, 2.0, 0.5},
     {4, 5, 5, 5, 6, 5, 5, 5, 5, 5, 4, 5},
     {0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80},
     {0.25, 0.30, 0.35, 0.38, 0.40, 0.38, 0.37, 0.36, 0.36, 0.32, 0.27, 0.22},
     5.0,
     2.0,
     0.7,
     MOJAVE_CHAIN,
     WIND_RAYLEIGH},
    /* Stavanger (1961-90): highs and lows from liquisearch (facts-more.md
     * 5). Location, RH, Kt and wind are assumptions as for Reykjavik. */
    {"stavanger",
     58.97,
     5.73,
     1.0,
     10.0,
     {1.0, 1.0, 2.5, 6.0, 10.5, 12.5, 15.0, 15.0, 12.5, 9.0, 5.5, 3.5},
     {4, 4, 5, 6, 7, 7, 6, 6, 5, 4, 3, 3},
     {0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80},
     {0.30, 0.35, 0.42, 0.45, 0.48, 0.47, 0.46, 0.44, 0.40, 0.35, 0.30, 0.27},
     5.0,
     2.0,
     0.7,
     MOJAVE_CHAIN,
     WIND_RAYLEIGH},
    /* Oslo: daily min and max (WMO via theodora, facts-more.md 5). Location,
     * RH, Kt and wind are assumptions as for Reykjavik. */
    {"oslo",
     59.91,
     10.75,
     1.0,
     94.0,
     {-4.3, -3.9, 0.1, 5.0, 11.2, 15.5, 16.9, 15.7, 11.3, 6.6, 0.9, -3.0},
     {5.0, 5.9, 6.8, 8.3, 9.3, 9.8, 9.3, 8.8, 7.6, 5.5, 4.7, 5.1},
     {0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80, 0.80},
     {0.30, 0.35, 0.42, 0.45, 0.48, 0.47, 0.46, 0.44, 0.40, 0.35, 0.30, 0.27},
     3.0,
     2.0,
     0.7,
     MOJAVE_CHAIN,
     WIND_RAYLEIGH},
};

#define N_BUILTIN (sizeof builtin / sizeof builtin[0])

climate_year *climate_year_new(void)
{
    return sim_xcalloc(1, sizeof(climate_year));
}

void climate_year_free(climate_year *y)
{
    free(y);
}

const climate_monthly *climate_builtin(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < N_BUILTIN; i++)
        if (strcasecmp(name, builtin[i].name) == 0)
            return &builtin[i];
    return NULL;
}

const char *climate_builtin_names(void)
{
    return "las-vegas, reykjavik, stavanger, oslo";
}

int climate_normals_check(const climate_monthly *n, sim_err *err)
{
    if (!(n->lat_deg >= -90 && n->lat_deg <= 90 && n->lon_deg >= -180 &&
          n->lon_deg <= 180 && n->tz_h >= -14 && n->tz_h <= 14))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "climate %s: latitude, longitude or time zone out of range",
            n->name);
    for (int m = 0; m < 12; m++) {
        if (!(n->t_mean_c[m] >= -90 && n->t_mean_c[m] <= 60))
            return sim_err_set(err, SIM_EINVAL, NULL, 0,
                               "climate %s: t_mean_c[%d] out of range (got %g, "
                               "expected -90..60)",
                               n->name, m, n->t_mean_c[m]);
        if (!(n->t_range_k[m] >= 0 && n->t_range_k[m] <= 40))
            return sim_err_set(err, SIM_EINVAL, NULL, 0,
                               "climate %s: t_range_k[%d] out of range (got "
                               "%g, expected 0..40)",
                               n->name, m, n->t_range_k[m]);
        if (!(n->rh[m] > 0 && n->rh[m] <= 1))
            return sim_err_set(
                err, SIM_EINVAL, NULL, 0,
                "climate %s: rh[%d] out of range (got %g, expected (0, 1])",
                n->name, m, n->rh[m]);
        if (!(n->kt[m] >= 0 && n->kt[m] < n->kt_max))
            return sim_err_set(
                err, SIM_EINVAL, NULL, 0,
                "climate %s: kt[%d] out of range (got %g, expected 0..%g)",
                n->name, m, n->kt[m], n->kt_max);
    }
    if (!(n->p_clear_clear > 0 && n->p_clear_clear < 1 &&
          n->p_cloudy_cloudy >= 0 && n->p_cloudy_cloudy < 1))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "climate %s: chain probabilities out of range",
                           n->name);
    for (int i = 1; i < 7; i++)
        if (!(n->kt_q[i] >= n->kt_q[i - 1]) || n->kt_q[0] < 0)
            return sim_err_set(
                err, SIM_EINVAL, NULL, 0,
                "climate %s: kt_q must be non-decreasing and >= 0", n->name);
    if (!(n->kt_clear > n->kt_q[0] && n->kt_clear < n->kt_q[6]))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "climate %s: kt_clear must lie inside the kt_q range", n->name);
    if (!(n->wind_m_s >= 0 && n->t_anom_sd_k >= 0 && n->t_anom_phi >= 0 &&
          n->t_anom_phi < 1 && n->wind_weibull_k >= 0 && n->wind_ar1_phi >= 0 &&
          n->wind_ar1_phi < 1))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "climate %s: wind or anomaly parameters out of range", n->name);
    return SIM_OK;
}

/* Alduchov and Eskridge's Magnus form (docs/power-model.md 2): accurate to
 * about 0.4 % from -40 to 50 degC, the range of any data-centre site. */
double climate_psat_pa(double t_c)
{
    return 610.94 * exp(17.625 * t_c / (t_c + 243.04));
}

double climate_dew_point(double t_db_c, double rh)
{
    /* log(0) would make the dew point -inf; 0.1 % relative humidity is drier
     * than any recorded surface air and keeps the inversion finite. */
    if (rh < 0.001)
        rh = 0.001;
    if (rh > 1)
        rh = 1;
    double g = log(rh) + 17.625 * t_db_c / (t_db_c + 243.04);
    return 243.04 * g / (17.625 - g);
}

double climate_rh(double t_db_c, double t_dp_c)
{
    double r = climate_psat_pa(t_dp_c) / climate_psat_pa(t_db_c);
    return r > 1 ? 1 : r;
}

double climate_wet_bulb(double t_db_c, double t_dp_c, double p_pa)
{
    if (t_dp_c >= t_db_c)
        return t_db_c;
    double e = climate_psat_pa(t_dp_c);
    double lo = t_dp_c, hi = t_db_c;
    /* f(Tw) = e_s(Tw) - A p (T - Tw) - e rises with Tw; f(lo) <= 0 <= f(hi).
     * Bisection rather than Newton: f is monotone on [T_dp, T_db] and 50
     * halvings of a bracket of at most ~60 K reach ~1e-13 K, with no derivative
     * to get wrong. */
    for (int i = 0; i < 50; i++) {
        double tw = 0.5 * (lo + hi);
        double a = 6.53e-4 * (1.0 + 9.44e-4 * tw);
        double f = climate_psat_pa(tw) - a * p_pa * (t_db_c - tw) - e;
        if (f > 0)
            hi = tw;
        else
            lo = tw;
    }
    return 0.5 * (lo + hi);
}

/* Standard atmosphere (ASHRAE Fundamentals): pressure from elevation when the
 * weather gives none. */
double climate_pressure_pa(double elevation_m)
{
    return 101325.0 * pow(1.0 - 2.25577e-5 * elevation_m, 5.25588);
}

int climate_month_of_hour(size_t i)
{
    size_t d = (i % CLIMATE_HOURS) / 24;
    int m = 0;
    while (m < 11 && d >= (size_t)month_days[m]) {
        d -= (size_t)month_days[m];
        m++;
    }
    return m;
}

/* Value on day d (0..364, at its midpoint) of a cyclic piecewise-linear curve
 * through node values v[m] placed at the months' midpoints. */
static double seasonal(const double v[12], double day)
{
    double mid[12], start = 0;
    for (int m = 0; m < 12; m++) {
        mid[m] = start + month_days[m] / 2.0;
        start += month_days[m];
    }
    int m1 = 0;
    while (m1 < 12 && mid[m1] <= day)
        m1++;
    int m0 = (m1 + 11) % 12;
    m1 %= 12;
    double x0 = mid[m0], x1 = mid[m1];
    if (x1 <= x0)
        x1 += 365.0;
    double x = day < x0 ? day + 365.0 : day;
    double w = (x - x0) / (x1 - x0);
    return v[m0] + w * (v[m1] - v[m0]);
}

/* Node values whose piecewise-linear curve keeps each month's mean equal to
 * target[m] (fixed-point correction; converges in a few rounds since each
 * month's mean depends mostly on its own node). Linear interpolation between
 * month midpoints would lower the mean of a month at a peak (July) and raise it
 * at a trough; the nodes are moved until each month's mean of the interpolated
 * curve equals its normal, so a synthetic year reproduces the monthly means it
 * was built from. 30 rounds is far more than needed (each round shrinks the
 * error several-fold). */
static void mean_preserving_nodes(const double target[12], double v[12])
{
    memcpy(v, target, 12 * sizeof(double));
    for (int it = 0; it < 30; it++) {
        double mean[12] = {0};
        int d = 0;
        for (int m = 0; m < 12; m++) {
            for (int k = 0; k < month_days[m]; k++, d++)
                mean[m] += seasonal(v, d + 0.5);
            mean[m] /= month_days[m];
        }
        for (int m = 0; m < 12; m++)
            v[m] += target[m] - mean[m];
    }
}

/* Piecewise-linear inverse CDF of the daily Kt through the quantiles. */
static const double kt_u[7] = {0.0, 0.10, 0.25, 0.50, 0.75, 0.90, 1.0};

static double kt_inv(const climate_monthly *n, double u)
{
    for (int i = 1; i < 7; i++)
        if (u <= kt_u[i]) {
            double w = (u - kt_u[i - 1]) / (kt_u[i] - kt_u[i - 1]);
            return n->kt_q[i - 1] + w * (n->kt_q[i] - n->kt_q[i - 1]);
        }
    return n->kt_q[6];
}

static double kt_cdf(const climate_monthly *n, double kt)
{
    for (int i = 1; i < 7; i++)
        if (kt <= n->kt_q[i]) {
            double span = n->kt_q[i] - n->kt_q[i - 1];
            double w = span > 0 ? (kt - n->kt_q[i - 1]) / span : 1.0;
            return kt_u[i - 1] + w * (kt_u[i] - kt_u[i - 1]);
        }
    return 1.0;
}

/* Mean daily Kt under the chain's stationary state mix when the base
 * distribution is scaled by s and capped at kt_max. Midpoint rule with 400
 * points per state: the inverse CDF is piecewise linear with 6 pieces, so this
 * is accurate to well below the 0.01 precision of the normals, and it is only
 * called during set-up (12 months x 50 bisection steps). */
static double kt_mean_scaled(const climate_monthly *n, double s, double u_thr,
                             double pi_clear)
{
    const int N = 400;
    double ec = 0, eo = 0;
    for (int i = 0; i < N; i++) {
        double uc = u_thr + (1 - u_thr) * (i + 0.5) / N;
        double uo = u_thr * (i + 0.5) / N;
        ec += fmin(n->kt_max, s * kt_inv(n, uc));
        eo += fmin(n->kt_max, s * kt_inv(n, uo));
    }
    return (pi_clear * ec + (1 - pi_clear) * eo) / N;
}

/* One function in the order of the daily draws (see the file-top note): the
 * set-up (nodes, cloud scales) draws nothing, and each day draws exactly three
 * numbers before it computes its 24 hours, so splitting the per-day body into
 * helpers would only hide that order. Keep the three draws unconditional: a
 * draw skipped on some days would shift every later day of the year. */
int climate_synthesize(const climate_monthly *n, gsl_rng *r, climate_year *out,
                       sim_err *err)
{
    int rc = climate_normals_check(n, err);
    if (rc != SIM_OK)
        return rc;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s (synthetic)", n->name);
    out->lat_deg = n->lat_deg;
    out->lon_deg = n->lon_deg;
    out->tz_h = n->tz_h;
    out->elevation_m = n->elevation_m;
    out->from_file = 0;

    double tv[12], dp_target[12], dv[12], rv[12];
    mean_preserving_nodes(n->t_mean_c, tv);
    for (int m = 0; m < 12; m++)
        dp_target[m] = climate_dew_point(n->t_mean_c[m], n->rh[m]);
    mean_preserving_nodes(dp_target, dv);
    memcpy(rv, n->t_range_k, sizeof rv);

    /* Cloud chain: stationary clear share and the per-month scale that
     * matches the month's mean Kt (bisection; the mean rises with s). */
    double u_thr = kt_cdf(n, n->kt_clear);
    double pcc = n->p_clear_clear, poo = n->p_cloudy_cloudy;
    /* Stationary share of clear days of the two-state Markov chain: pi_c = (1 -
     * p_oo) / ((1 - p_cc) + (1 - p_oo)). */
    double pi_clear = (1 - poo) / ((1 - pcc) + (1 - poo));
    double scale[12];
    for (int m = 0; m < 12; m++) {
        /* The scale that matches the month's mean Kt. 4 is enough: at s = 4
         * nearly every day is capped at kt_max, and the normals check
         * requires kt[m] < kt_max; 50 halvings of [0, 4] fix s to ~4e-15. */
        double lo = 0.0, hi = 4.0;
        for (int it = 0; it < 50; it++) {
            double s = 0.5 * (lo + hi);
            if (kt_mean_scaled(n, s, u_thr, pi_clear) < n->kt[m])
                lo = s;
            else
                hi = s;
        }
        scale[m] = 0.5 * (lo + hi);
    }

    double p_pa = climate_pressure_pa(n->elevation_m);
    double sd = n->t_anom_sd_k, phi = n->t_anom_phi;
    double anom = 0;
    int clear = 1;
    for (int d = 0; d < 365; d++) {
        /* Draw 1: the day's temperature anomaly, AR(1) with stationary sd. */
        double z = gsl_ran_gaussian(r, 1.0);
        anom = d == 0 ? sd * z : phi * anom + sqrt(1 - phi * phi) * sd * z;
        /* Draw 2: the sky state (first day from the stationary mix). */
        double u1 = gsl_rng_uniform(r);
        if (d == 0)
            clear = u1 < pi_clear;
        else
            clear = clear ? (u1 < pcc) : !(u1 < poo);
        /* Draw 3: the day's Kt inside its state's part of the distribution. */
        double u2 = gsl_rng_uniform(r);
        double u = clear ? u_thr + (1 - u_thr) * u2 : u_thr * u2;
        size_t h0 = (size_t)d * 24;
        int m = climate_month_of_hour(h0);
        double kt_d = fmin(n->kt_max, scale[m] * kt_inv(n, u));

        double t_day = seasonal(tv, d + 0.5) + anom;
        double dp_day = seasonal(dv, d + 0.5) + anom;
        double range = seasonal(rv, d + 0.5);

        /* Irradiance: the day's total is Kt x extraterrestrial, spread over
         * the hours in proportion to the Haurwitz clear-sky profile. */
        solar_pos sp[24];
        double g0[24], cs[24], h_extra = 0, h_cs = 0;
        for (int k = 0; k < 24; k++) {
            double up =
                solar_position_hour((double)(h0 + (size_t)k), n->lat_deg,
                                    n->lon_deg, n->tz_h, &sp[k]);
            g0[k] = solar_extra_horizontal(&sp[k]) * up;
            cs[k] = solar_clearsky_haurwitz(sp[k].zenith_deg) * up;
            h_extra += g0[k];
            h_cs += cs[k];
        }
        for (int k = 0; k < 24; k++) {
            climate_hour *h = &out->h[h0 + (size_t)k];
            double hour_mid = k + 0.5;
            /* Cosine diurnal cycle peaking at 15:00 local standard time
             * (docs/power-model.md 2), so the daily mean is the day's value. */
            h->t_db_c =
                t_day + range / 2 * cos(2 * M_PI * (hour_mid - 15.0) / 24.0);
            /* The dew point cannot exceed the air temperature: in the cool
             * hours of a humid day the air is saturated rather than
             * super-saturated. */
            h->t_dp_c = dp_day < h->t_db_c ? dp_day : h->t_db_c;
            h->rh = climate_rh(h->t_db_c, h->t_dp_c);
            h->p_pa = p_pa;
            h->t_wb_c = climate_wet_bulb(h->t_db_c, h->t_dp_c, p_pa);
            h->wind_m_s = n->wind_m_s;
            double ghi = h_cs > 0 ? kt_d * h_extra * cs[k] / h_cs : 0.0;
            h->ghi_w_m2 = ghi;
            solar_decompose_erbs(ghi, &sp[k], &h->dni_w_m2, &h->dhi_w_m2);
        }
    }
    return SIM_OK;
}

/* The sentinels (+-1e9) are replaced by the first hour; a year always has 8760
 * hours, so no month count is zero. */
void climate_year_stats(const climate_year *y, climate_stats *s)
{
    memset(s, 0, sizeof *s);
    s->t_max_c = -1e9;
    s->t_min_c = 1e9;
    s->t_wb_max_c = -1e9;
    double msum[12] = {0}, gsum[12] = {0};
    int mcount[12] = {0};
    for (size_t i = 0; i < CLIMATE_HOURS; i++) {
        const climate_hour *h = &y->h[i];
        int m = climate_month_of_hour(i);
        s->ghi_kwh_m2 += h->ghi_w_m2 / 1000.0;
        s->dni_kwh_m2 += h->dni_w_m2 / 1000.0;
        s->dhi_kwh_m2 += h->dhi_w_m2 / 1000.0;
        s->t_mean_c += h->t_db_c;
        s->t_max_c = fmax(s->t_max_c, h->t_db_c);
        s->t_min_c = fmin(s->t_min_c, h->t_db_c);
        s->t_wb_max_c = fmax(s->t_wb_max_c, h->t_wb_c);
        msum[m] += h->t_db_c;
        gsum[m] += h->ghi_w_m2;
        mcount[m]++;
    }
    s->t_mean_c /= CLIMATE_HOURS;
    for (int m = 0; m < 12; m++) {
        s->t_month_mean_c[m] = msum[m] / mcount[m];
        s->ghi_month_wh_m2_day[m] = gsum[m] / (mcount[m] / 24.0);
    }
}

/* Gaussian AR(1) mapped through the Weibull quantile (a Gaussian copula), so
 * the hourly speeds have the Weibull marginal and the hour-to-hour persistence
 * phi at once. The scale c makes the Weibull mean equal the site's mean speed:
 * mean = c Gamma(1 + 1/k). A separate function from climate_synthesize so that
 * adding wind did not shift the temperature and sky draws of existing years. */
void climate_synthesize_wind(const climate_monthly *n, gsl_rng *r,
                             double *v_m_s)
{
    double k = n->wind_weibull_k > 0 ? n->wind_weibull_k : 2.0;
    double phi = n->wind_ar1_phi;
    double c = n->wind_m_s / gsl_sf_gamma(1.0 + 1.0 / k);
    double z = 0;
    for (size_t i = 0; i < CLIMATE_HOURS; i++) {
        double e = gsl_ran_gaussian(r, 1.0);
        z = i == 0 ? e : phi * z + sqrt(1 - phi * phi) * e;
        /* Upper tail Q(z) = 1 - Phi(z), accurate where 1 - Phi rounds. */
        double q = gsl_cdf_ugaussian_Q(z);
        /* q == 0 only beyond z ~ 38, which never happens; 10 c is a finite
         * stand-in far out in the tail. */
        v_m_s[i] = q > 0 ? c * pow(-log(q), 1.0 / k) : c * 10.0;
    }
}
