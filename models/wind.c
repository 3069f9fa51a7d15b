/* models/wind.c: the onshore wind plant model (see wind.h). The power curve is
 * a table read by linear interpolation; the density correction and shear are
 * closed forms, so a year is one pass over the hours.
 *
 * This file owns the conversion from a 10 m wind speed to plant output and
 * nothing else: it never reads weather files (io/epw.c does) and never draws
 * random speeds (climate.c synthesises them), so the same function serves
 * measured and synthetic years. Checks live here, with the model, so that the
 * catalog loader and tests built in memory refuse the same curves. */
#include "models/wind.h"

#include <math.h>

int wind_curve_check(const wind_curve *c, sim_err *err)
{
    if (c->n < 2 || c->n > WIND_CURVE_MAX)
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "turbine %s: power curve has %zu points (expected "
                           "2..%d)",
                           c->name, c->n, WIND_CURVE_MAX);
    if (!(c->rated_w > 0 && c->cut_in_m_s > 0 && c->cut_in_m_s < c->rated_m_s &&
          c->rated_m_s < c->cut_out_m_s))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "turbine %s: expected rated_kw > 0 and 0 < cut_in "
                           "< rated < cut_out (got %g W, %g / %g / %g m/s)",
                           c->name, c->rated_w, c->cut_in_m_s, c->rated_m_s,
                           c->cut_out_m_s);
    for (size_t i = 0; i < c->n; i++) {
        if (i > 0 && !(c->v_m_s[i] > c->v_m_s[i - 1]))
            return sim_err_set(err, SIM_EINVAL, NULL, 0,
                               "turbine %s: speeds_m_s not ascending at [%zu] "
                               "(got %g after %g)",
                               c->name, i, c->v_m_s[i], c->v_m_s[i - 1]);
        /* The 1e-9 slack absorbs the kW to W conversion of a curve whose top
         * point is the rated power itself. */
        if (!(c->p_w[i] >= 0 && c->p_w[i] <= c->rated_w * (1 + 1e-9)))
            return sim_err_set(err, SIM_EINVAL, NULL, 0,
                               "turbine %s: power_kw[%zu] out of range (got "
                               "%g kW, expected 0..%g)",
                               c->name, i, c->p_w[i] / 1e3, c->rated_w / 1e3);
    }
    return SIM_OK;
}

int wind_cfg_check(const wind_cfg *c, sim_err *err)
{
    if (!(c->capacity_w > 0 && isfinite(c->capacity_w)))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "wind: capacity must be > 0 (got %g W)",
                           c->capacity_w);
    if (!(c->hub_height_m > 0 && c->hub_height_m <= 300))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "wind: hub height out of range (got %g m, "
                           "expected 0 < h <= 300)",
                           c->hub_height_m);
    if (!(c->shear_exponent >= 0 && c->shear_exponent <= 1))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "wind: shear exponent out of range (got %g, "
                           "expected 0..1)",
                           c->shear_exponent);
    if (!(c->availability >= 0 && c->availability <= 1) ||
        !(c->wake_loss >= 0 && c->wake_loss < 1))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "wind: availability %g or wake loss %g out of "
                           "range (expected 0..1 and 0..<1)",
                           c->availability, c->wake_loss);
    if (!(c->carbon_g_per_j >= 0) || !(c->price_usd_per_j >= 0))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "wind: carbon and price must be >= 0");
    return wind_curve_check(&c->curve, err);
}

/* Outside [cut_in, cut_out) the turbine is stopped; at or above rated speed the
 * controller holds rated power, so the table need not extend to cut-out. A NaN
 * speed fails the first comparison and gives 0, not NaN. */
double wind_curve_power_w(const wind_curve *c, double v)
{
    if (!(v >= c->cut_in_m_s) || v >= c->cut_out_m_s)
        return 0.0;
    if (v >= c->rated_m_s)
        return c->rated_w;
    if (v <= c->v_m_s[0])
        return c->p_w[0];
    for (size_t i = 1; i < c->n; i++)
        if (v <= c->v_m_s[i]) {
            double f = (v - c->v_m_s[i - 1]) / (c->v_m_s[i] - c->v_m_s[i - 1]);
            return c->p_w[i - 1] + f * (c->p_w[i] - c->p_w[i - 1]);
        }
    return c->p_w[c->n - 1];
}

double wind_shear(double v_ref, double z_ref_m, double z_m, double alpha)
{
    return v_ref * pow(z_m / z_ref_m, alpha);
}

/* Ideal gas with dry air: even saturated air at 30 degC is under 2 % lighter,
 * under 1 % in equivalent wind speed after the cube root below, well inside a
 * power curve's own uncertainty. */
double wind_air_density(double p_pa, double t_c)
{
    return p_pa / (WIND_R_DRY * (t_c + 273.15));
}

double wind_plant_power_w(const wind_cfg *c, double v10, double p_pa,
                          double t_c)
{
    double v_hub = wind_shear(v10 > 0 ? v10 : 0.0, WIND_REF_HEIGHT_M,
                              c->hub_height_m, c->shear_exponent);
    double rho = wind_air_density(p_pa, t_c);
    /* IEC 61400-12-1 normalises a curve to 1.225 kg/m^3; at another density the
     * power at speed v equals the reference curve's power at v x
     * (rho/rho_ref)^(1/3), since power goes with rho v^3. */
    double v_eq = v_hub * cbrt(rho / WIND_RHO_REF);
    /* The curve is per turbine; the plant scales it to its capacity, so a plant
     * need not be a whole number of turbines. */
    return c->capacity_w * wind_curve_power_w(&c->curve, v_eq) /
           c->curve.rated_w * c->availability * (1.0 - c->wake_loss);
}

void wind_year(const wind_cfg *c, const climate_year *y, const double *v10,
               double *p_w)
{
    for (size_t i = 0; i < CLIMATE_HOURS; i++) {
        const climate_hour *h = &y->h[i];
        p_w[i] = wind_plant_power_w(c, v10 ? v10[i] : h->wind_m_s, h->p_pa,
                                    h->t_db_c);
    }
}
