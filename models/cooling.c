/* models/cooling.c: PUE curves (models/cooling.h; docs/power-model.md 6). */
#include "models/cooling.h"

#include <math.h>
#include <string.h>

void cooling_cfg_default(cooling_cfg *c, cooling_type t)
{
    memset(c, 0, sizeof *c);
    c->type = t;
    c->wb0_c = 14.0;
    c->wb1_c = 22.0;
    c->wb2_c = 30.0;
    c->pue1 = 1.30;
    c->pue2 = 1.40;
    c->t_wb_limit_c = 21.0;
    c->pue_hot = 1.35;
    c->supply_c = 40.0;
    c->approach_k = 5.0;
    c->chiller_ramp_k = 10.0;
    c->chiller_cop = 5.0;
    switch (t) {
    case COOLING_AIR_ECONOMIZER:
        c->pue_base = 1.09;
        break;
    case COOLING_AIR_ADIABATIC:
        c->pue_base = 1.08;
        break;
    case COOLING_LIQUID_DRY:
        c->pue_base = 1.10;
        break;
    case COOLING_CONSTANT:
        c->pue_base = 1.10;
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
          isfinite(c->t_wb_limit_c)))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "cooling.pue_hot: out of range (got %g, expected %g..3)",
            c->pue_hot, c->pue_base);
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
    case COOLING_AIR_ADIABATIC:
        return t_wb_c <= c->t_wb_limit_c ? c->pue_base : c->pue_hot;
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

static const char *names[] = {"air-economizer", "air-adiabatic", "liquid-dry",
                              "constant"};

const char *cooling_type_name(cooling_type t)
{
    return (unsigned)t < 4 ? names[t] : "?";
}

int cooling_type_parse(const char *s, cooling_type *t)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            *t = (cooling_type)i;
            return 0;
        }
    return -1;
}
