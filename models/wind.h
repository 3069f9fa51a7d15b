/* models/wind.h: onshore wind plants: hourly output from the 10 m wind
 * speed of the weather, for the dispatch (models/site_power.h). See
 * docs/power-model.md 4b.
 *
 * Model, for each weather hour (speed v10 at z_ref = 10 m, pressure p,
 * dry bulb T):
 *   hub speed       v_hub = v10 (z_hub / z_ref)^alpha      (power-law shear;
 *                   alpha 0.143, the 1/7 law for open terrain,
 *                   facts-costs.md 3.2)
 *   air density     rho = p / (R_d (T + 273.15)), R_d = 287.05 J/(kg K)
 *   density         v_eq = v_hub (rho / rho_ref)^(1/3), rho_ref = 1.225
 *   correction      kg/m^3 (IEC 61400-12-1's normalisation for
 *                   pitch-regulated turbines: the curve is read at the
 *                   speed that carries the same kinetic power flux)
 *   turbine output  P(v_eq) from the power curve: 0 below cut-in and at or
 *                   above cut-out, linear between tabulated points, rated
 *                   between the rated speed and cut-out
 *   plant output    capacity_w x P / P_rated x availability x (1 - wake)
 * The plant output is what the dispatch may take (variable, must-take,
 * like solar); what it cannot use is curtailed. Units SI: m/s, m, W, Pa,
 * degC. Pure; O(8760 x curve points) per year.
 */
#ifndef MODELS_WIND_H
#define MODELS_WIND_H

#include <stddef.h>

#include "models/climate.h"
#include "sim/err.h"

#define WIND_CURVE_MAX 48
#define WIND_REF_HEIGHT_M 10.0 /* height of EPW / synthetic wind speed */
#define WIND_RHO_REF 1.225     /* curve reference air density [kg/m^3] */
#define WIND_R_DRY 287.05      /* gas constant of dry air [J/(kg K)] */

/* A turbine power curve (catalog: models/sources.cfg sources.wind.turbines).
 * v_m_s ascending; p_w >= 0 at sea-level standard density. */
typedef struct wind_curve {
    char name[48];
    double rated_w;     /* nameplate of one turbine */
    double cut_in_m_s;  /* below: 0 */
    double rated_m_s;   /* from here to cut-out: rated_w */
    double cut_out_m_s; /* at and above: 0 (storm shut-down) */
    size_t n;           /* tabulated points, 2..WIND_CURVE_MAX */
    double v_m_s[WIND_CURVE_MAX];
    double p_w[WIND_CURVE_MAX];
} wind_curve;

/* A wind plant. */
typedef struct wind_cfg {
    double capacity_w;      /* plant nameplate, > 0 */
    double hub_height_m;    /* > 0 */
    double shear_exponent;  /* alpha, [0, 1] */
    double availability;    /* fraction of turbine-time available, [0, 1] */
    double wake_loss;       /* fraction lost to wakes, [0, 1) */
    wind_curve curve;       /* turbine */
    double carbon_g_per_j;  /* lifecycle carbon */
    double price_usd_per_j; /* levelized cost */
} wind_cfg;

/* Checks a curve: 2 <= n <= WIND_CURVE_MAX, speeds ascending, powers in
 * [0, rated], 0 < cut_in < rated_m_s < cut_out. Errors: SIM_EINVAL naming
 * the curve and the field. */
int wind_curve_check(const wind_curve *c, sim_err *err);

/* Checks a plant (ranges above and its curve). Errors: SIM_EINVAL. */
int wind_cfg_check(const wind_cfg *c, sim_err *err);

/* Power of one turbine [W] at speed v_m_s at the curve's reference
 * density. Pure. */
double wind_curve_power_w(const wind_curve *c, double v_m_s);

/* Power-law shear: v_ref (z_m / z_ref_m)^alpha. */
double wind_shear(double v_ref_m_s, double z_ref_m, double z_m, double alpha);

/* Dry-air density [kg/m^3] at pressure p_pa and temperature t_c. */
double wind_air_density(double p_pa, double t_c);

/* Plant output [W] for one hour with 10 m speed v10_m_s, pressure p_pa and
 * dry bulb t_c (the model above). */
double wind_plant_power_w(const wind_cfg *c, double v10_m_s, double p_pa,
                          double t_c);

/* Hourly plant output of a year into p_w[CLIMATE_HOURS] (OUT), from the
 * year's pressure and temperature and the 10 m speeds v10_m_s (the year's
 * own wind_m_s when v10_m_s is NULL). */
void wind_year(const wind_cfg *c, const climate_year *y, const double *v10_m_s,
               double *p_w);

#endif
