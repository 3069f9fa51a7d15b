/* models/cooling.c: PUE curves, the partial-load term and cooling water
 * (models/cooling.h; docs/power-model.md 6).
 *
 * Owns: the numbers of each cooling design and the pure functions of
 * weather and load. Must never: read weather or scenarios, or know about
 * modules; the site (models/site_power.c) supplies the hour and the load.
 * The defaults were fitted to the LBNL medians by running these functions
 * over the bundled Las Vegas TMY3 year (tests/test_cooling.c re-checks every
 * built-in climate against its cited band), so changing a curve's shape
 * means re-fitting its level there.
 */
#include "models/cooling.h"

#include <math.h>
#include <string.h>

#define J_PER_KWH 3.6e6

void cooling_cfg_default(cooling_cfg *c, cooling_type t)
{
    memset(c, 0, sizeof *c);
    c->type = t;
    c->wb0_c = 17.5;
    c->wb1_c = 24.0;
    c->wb2_c = 30.0;
    c->pue1 = 1.30;
    c->pue2 = 1.40;
    c->db0_c = 15.0;
    c->db_slope_per_k = 0.0060;
    c->t_wb_limit_c = 21.0;
    c->pue_hot = 1.35;
    c->supply_c = 40.0;
    c->approach_k = 5.0;
    c->chiller_ramp_k = 10.0;
    c->chiller_cop = 5.0;
    c->fixed_frac = 0.04;
    c->t_evap_c = 24.0;
    /* Evaporative designs: fitted to 1.0 L/kWh over the Las Vegas TMY3
     * year (see the header); the dry-cooler liquid design: site use only. */
    c->wue_evap_l_kwh = 2.72;
    c->wue_dry_l_kwh = 0.0;
    switch (t) {
    case COOLING_AIR_ECONOMIZER:
        c->pue_base = 1.125;
        break;
    case COOLING_AIR_ADIABATIC:
        c->pue_base = 1.158;
        break;
    case COOLING_LIQUID_DRY:
        c->pue_base = 1.095;
        c->wue_evap_l_kwh = 0.0;
        c->wue_dry_l_kwh = 0.05;
        break;
    case COOLING_CONSTANT:
        c->pue_base = 1.10;
        c->fixed_frac = 0.0;
        c->wue_evap_l_kwh = 0.0;
        break;
    }
}

int cooling_cfg_check(const cooling_cfg *c, sim_err *err)
{
    if (c->type < COOLING_AIR_ECONOMIZER || c->type > COOLING_CONSTANT)
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "cooling.type: unknown (%d)", (int)c->type);
    if (!(c->pue_base >= 1.0 && c->pue_base <= 3.0))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "cooling.pue_base: out of range (got %g, expected 1..3)",
            c->pue_base);
    /* The variable part of the overhead, pue_base - fixed_frac, must stay
     * >= 1: a fixed part larger than the whole overhead has no meaning. */
    if (!(c->fixed_frac >= 0 && c->pue_base - c->fixed_frac >= 1.0))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "cooling.fixed_frac: out of range (got %g, "
                           "expected 0..%g)",
                           c->fixed_frac, c->pue_base - 1.0);
    if (!(c->wue_evap_l_kwh >= 0 && c->wue_dry_l_kwh >= 0 &&
          isfinite(c->wue_evap_l_kwh + c->wue_dry_l_kwh) &&
          isfinite(c->t_evap_c)))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "cooling: water use out of range (evap %g, dry "
                           "%g L/kWh, expected >= 0)",
                           c->wue_evap_l_kwh, c->wue_dry_l_kwh);
    if (c->type == COOLING_AIR_ECONOMIZER &&
        !(c->wb0_c < c->wb1_c && c->wb1_c < c->wb2_c &&
          c->pue1 >= c->pue_base && c->pue2 >= c->pue1 && c->pue2 <= 3.0))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "cooling: economizer curve must rise (wb %g < %g < "
                           "%g, pue %g <= %g <= %g)",
                           c->wb0_c, c->wb1_c, c->wb2_c, c->pue_base, c->pue1,
                           c->pue2);
    if (c->type == COOLING_AIR_ADIABATIC &&
        !(c->pue_hot >= c->pue_base && c->pue_hot <= 3.0 &&
          isfinite(c->t_wb_limit_c) && c->db_slope_per_k >= 0 &&
          c->db_slope_per_k <= 0.1 && isfinite(c->db0_c)))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "cooling: adiabatic parameters out of range "
                           "(pue_hot %g, expected %g..3; slope %g /K, "
                           "expected 0..0.1)",
                           c->pue_hot, c->pue_base, c->db_slope_per_k);
    if (c->type == COOLING_LIQUID_DRY &&
        !(c->chiller_cop > 0 && c->chiller_ramp_k > 0 && c->approach_k >= 0 &&
          isfinite(c->supply_c)))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "cooling: liquid parameters out of range (cop %g, ramp %g K)",
            c->chiller_cop, c->chiller_ramp_k);
    return SIM_OK;
}

double cooling_pue(const cooling_cfg *c, double t_db_c, double t_wb_c)
{
    switch (c->type) {
    case COOLING_AIR_ECONOMIZER:
        if (t_wb_c <= c->wb0_c)
            return c->pue_base;
        if (t_wb_c <= c->wb1_c)
            return c->pue_base + (c->pue1 - c->pue_base) * (t_wb_c - c->wb0_c) /
                                     (c->wb1_c - c->wb0_c);
        if (t_wb_c <= c->wb2_c)
            return c->pue1 + (c->pue2 - c->pue1) * (t_wb_c - c->wb1_c) /
                                 (c->wb2_c - c->wb1_c);
        return c->pue2;
    case COOLING_AIR_ADIABATIC: {
        /* The hot-hour level is a floor, not an addition: once the assist
         * fails the chillers carry the load whatever the dry bulb. */
        double p =
            c->pue_base + c->db_slope_per_k * fmax(0.0, t_db_c - c->db0_c);
        return t_wb_c <= c->t_wb_limit_c ? fmin(p, c->pue_hot)
                                         : fmax(p, c->pue_hot);
    }
    case COOLING_LIQUID_DRY: {
        double over = t_db_c + c->approach_k - c->supply_c;
        if (over <= 0)
            return c->pue_base;
        double share = over / c->chiller_ramp_k;
        return c->pue_base + (share > 1 ? 1 : share) / c->chiller_cop;
    }
    case COOLING_CONSTANT:
        return c->pue_base;
    }
    return c->pue_base;
}

double cooling_pue_load(const cooling_cfg *c, double t_db_c, double t_wb_c,
                        double load_frac)
{
    double l = load_frac > COOLING_MIN_LOAD ? load_frac : COOLING_MIN_LOAD;
    double p = cooling_pue(c, t_db_c, t_wb_c);
    /* Above design load the fixed part is spread thinner but never below
     * the variable part alone. */
    return p - c->fixed_frac + c->fixed_frac / l;
}

double cooling_water_l_per_j(const cooling_cfg *c, double t_db_c)
{
    double l_kwh = c->wue_dry_l_kwh;
    if (t_db_c > c->t_evap_c)
        l_kwh += c->wue_evap_l_kwh;
    return l_kwh / J_PER_KWH;
}

static const char *names[COOLING_N] = {"air-economizer", "adiabatic",
                                       "liquid-dry-cooler", "constant"};

const char *cooling_type_name(cooling_type t)
{
    return (unsigned)t < COOLING_N ? names[t] : "?";
}

int cooling_type_parse(const char *s, cooling_type *t)
{
    for (int i = 0; i < COOLING_N; i++)
        if (strcmp(s, names[i]) == 0) {
            *t = (cooling_type)i;
            return 0;
        }
    return -1;
}
