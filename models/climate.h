/* models/climate.h: hourly weather for one typical year at one site: dry
 * bulb, dew point, wet bulb, relative humidity, pressure, GHI/DNI/DHI and
 * wind. See docs/power-model.md section 2.
 *
 * A climate_year holds exactly CLIMATE_HOURS (8760) hours of a nominal
 * non-leap year in local standard time; hour i covers [i, i+1) h after
 * Jan 1 00:00 (EPW hour h of a day is the hour ending at h:00). It comes
 * either from an EPW file (io/epw.h) or from monthly normals
 * (climate_synthesize): the seasonal cycle interpolates monthly means so that
 * each month keeps its mean, a cosine diurnal cycle peaks at 15:00 with the
 * month's daily range, a daily AR(1) anomaly adds weather, and irradiance
 * comes from a two-state daily Markov chain on the clearness index
 * (facts-more.md 5) shaped by the Haurwitz clear-sky profile and split by
 * Erbs. Runs longer than a year repeat the file's year, or draw a fresh
 * synthetic year per simulated year from the same stream.
 *
 * Units: temperatures degC (t_*_c), irradiance W/m^2 as the hour's mean,
 * pressure Pa, wind m/s, humidity as a fraction. Complexity: synthesis is
 * O(8760) with a few transcendental calls per hour. Pure: no I/O.
 */
#ifndef MODELS_CLIMATE_H
#define MODELS_CLIMATE_H

#include <stddef.h>

#include <gsl/gsl_rng.h>

#include "sim/err.h"

#define CLIMATE_HOURS 8760

/* One hour of weather. */
typedef struct climate_hour {
    double t_db_c;   /* dry-bulb temperature */
    double t_dp_c;   /* dew-point temperature */
    double t_wb_c;   /* thermodynamic wet bulb (climate_wet_bulb) */
    double rh;       /* relative humidity, 0..1 */
    double p_pa;     /* station pressure */
    double ghi_w_m2; /* global horizontal irradiance, hour mean */
    double dni_w_m2; /* direct normal */
    double dhi_w_m2; /* diffuse horizontal */
    double wind_m_s; /* wind speed at 10 m */
} climate_hour;

/* A site's typical year. */
typedef struct climate_year {
    char name[96];  /* site name */
    double lat_deg; /* north + */
    double lon_deg; /* east + */
    double tz_h;    /* UTC offset of local standard time, east + */
    double elevation_m;
    int from_file; /* 1 = measured (EPW), 0 = synthesised */
    climate_hour h[CLIMATE_HOURS];
} climate_year;

/* Monthly normals from which a year is synthesised. The built-in sets
 * (climate_builtin) cite facts-more.md 5 field by field. */
typedef struct climate_monthly {
    char name[64];
    double lat_deg, lon_deg, tz_h, elevation_m;
    double t_mean_c[12];  /* monthly mean dry bulb */
    double t_range_k[12]; /* mean daily max - min */
    double rh[12];        /* monthly mean relative humidity, 0..1 */
    double kt[12];        /* monthly mean daily clearness index */
    double wind_m_s;      /* annual mean wind speed at 10 m */
    double t_anom_sd_k;   /* sd of the daily temperature anomaly, 2 K
                             (assumption) */
    double t_anom_phi;    /* its day-to-day AR(1) coefficient, 0.7
                             (assumption) */
    /* Daily clearness-index chain (facts-more.md 5, Daggett TMY fit). */
    double kt_clear;        /* threshold of a "clear" day, 0.6 */
    double p_clear_clear;   /* P(clear -> clear), 0.867 */
    double p_cloudy_cloudy; /* P(cloudy -> cloudy), 0.350 */
    double kt_q[7];         /* daily Kt at quantiles 0, .10, .25, .50, .75,
                               .90, 1 (ends are assumptions) */
    double kt_max;          /* cap on a day's Kt, 0.80 (assumption) */
    /* Hourly wind model (climate_synthesize_wind). */
    double wind_weibull_k; /* Weibull shape of the hourly 10 m speed, 2 */
    double wind_ar1_phi;   /* hour-to-hour AR(1) coefficient of its
                              Gaussian driver, 0.9 */
} climate_monthly;

/* Allocates a zeroed year (caller frees with climate_year_free). */
climate_year *climate_year_new(void);

/* Frees y. climate_year_free(NULL) is a no-op. */
void climate_year_free(climate_year *y);

/* The built-in normals by name ("las-vegas", "reykjavik", "stavanger",
 * "oslo", case-insensitive), or NULL. Returns a pointer to static data. */
const climate_monthly *climate_builtin(const char *name);

/* Writes "las-vegas, reykjavik, stavanger, oslo" (for error messages). */
const char *climate_builtin_names(void);

/* Checks a normals set (ranges, probabilities, monotone quantiles).
 * Errors: SIM_EINVAL naming the field. */
int climate_normals_check(const climate_monthly *n, sim_err *err);

/* Synthesises one year from normals n into *out, drawing from r (the
 * site's climate stream; the number of draws per year is fixed: 2 per day).
 * Errors: SIM_EINVAL if n fails climate_normals_check. */
int climate_synthesize(const climate_monthly *n, gsl_rng *r,
                       climate_year *out /* OUT */, sim_err *err);

/* Synthesises one year of hourly 10 m wind speed into v_m_s[CLIMATE_HOURS]
 * (OUT) from normals n, drawing exactly CLIMATE_HOURS Gaussians from r (a
 * stream of its own, so adding wind changes no other draw). Model: a
 * stationary Gaussian AR(1) z_t = phi z_{t-1} + sqrt(1 - phi^2) e_t mapped
 * through its CDF to the Weibull distribution with shape k and the scale
 * c = wind_m_s / Gamma(1 + 1/k) that keeps the annual mean:
 * v_t = c (-ln(1 - Phi(z_t)))^(1/k). No seasonal or diurnal cycle. The
 * climate year's own wind_m_s (used for PV cell temperature) stays the
 * annual mean. */
void climate_synthesize_wind(const climate_monthly *n, gsl_rng *r,
                             double *v_m_s);

/* Saturation vapour pressure over water [Pa] at t_c (Alduchov & Eskridge
 * 1996: 610.94 exp(17.625 t / (t + 243.04))). */
double climate_psat_pa(double t_c);

/* Dew point [degC] from dry bulb and relative humidity (inverse of the
 * above). rh is clamped to [0.001, 1]. */
double climate_dew_point(double t_db_c, double rh);

/* Relative humidity (0..1) from dry bulb and dew point. */
double climate_rh(double t_db_c, double t_dp_c);

/* Thermodynamic (psychrometric) wet bulb [degC] from dry bulb, dew point
 * and pressure: solves e = e_s(T_wb) - A p (T_db - T_wb) with the WMO
 * ventilated-psychrometer coefficient A = 6.53e-4 (1 + 9.44e-4 T_wb) /K
 * (WMO-No. 8, annex 4.B) by bisection. t_dp_c > t_db_c is treated as
 * saturation. */
double climate_wet_bulb(double t_db_c, double t_dp_c, double p_pa);

/* Standard-atmosphere pressure [Pa] at elevation_m (ISO 2533 troposphere). */
double climate_pressure_pa(double elevation_m);

/* Month (0..11) and day of month (0-based) of hour of year i. */
int climate_month_of_hour(size_t i);

/* Summary of a year: annual GHI [kWh/m^2], mean and extreme dry bulb,
 * hours above a dry-bulb threshold. Used by tests and the solar command. */
typedef struct climate_stats {
    double ghi_kwh_m2, dni_kwh_m2, dhi_kwh_m2;
    double t_mean_c, t_max_c, t_min_c;
    double t_wb_max_c;
    double t_month_mean_c[12];
    double ghi_month_wh_m2_day[12];
} climate_stats;

/* Fills *s (OUT) from y. Pure. */
void climate_year_stats(const climate_year *y, climate_stats *s);

#endif
