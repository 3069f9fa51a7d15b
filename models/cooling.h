/* models/cooling.h: facility overhead as PUE, a function of the hour's
 * weather and the cooling design. See docs/power-model.md 6.
 *
 * Curves (facts-more.md 3, "what a simulator should use"; the published
 * levels are hyperscale best practice, the shapes come from running the
 * Lei & Masanet (Energy 201, 2020) model, [D]):
 *   COOLING_AIR_ECONOMIZER (air-cooled IT, airside/waterside economizer and
 *     cooling towers): PUE(T_wb) = base for T_wb <= 14 C, linear to 1.30 at
 *     22 C, linear to 1.40 at 30 C, flat above (base 1.09);
 *   COOLING_AIR_ADIABATIC (air-cooled with adiabatic assist, dry climates):
 *     base 1.08 while evaporative cooling can meet the load, i.e.
 *     T_wb <= t_wb_limit_c (21 C, an assumption placed between the model
 *     run's working 20 C/80% RH point, T_wb 17.9 C, and its failing
 *     25 C/80% point, T_wb 22.4 C); hot humid hours jump to 1.35 (1.3-1.4);
 *   COOLING_LIQUID_DRY (warm-water direct-to-chip with dry coolers): base
 *     1.10 (LBNL 2024 zone medians 1.095-1.10) while T_db + approach <=
 *     supply set-point (W45 class: 40 C supply with a 5 C approach, so
 *     T_db <= 35 C); above, trim chillers carry a share of the heat rising
 *     linearly to all of it over chiller_ramp_k (10 K) at COP chiller_cop
 *     (5): PUE += share / COP. That penalty form and its numbers are
 *     assumptions (facts-more.md 3 says so).
 *   COOLING_CONSTANT: a flat PUE (what-if and tests).
 * Every number is a config field with the default above. PUE >= 1 always.
 * Pure and O(1).
 */
#ifndef MODELS_COOLING_H
#define MODELS_COOLING_H

#include "sim/err.h"

typedef enum cooling_type {
    COOLING_AIR_ECONOMIZER = 0,
    COOLING_AIR_ADIABATIC = 1,
    COOLING_LIQUID_DRY = 2,
    COOLING_CONSTANT = 3
} cooling_type;

typedef struct cooling_cfg {
    cooling_type type;
    double pue_base; /* PUE in mild weather */
    /* AIR_ECONOMIZER: piecewise-linear in wet bulb through
     * (wb0, base), (wb1, pue1), (wb2, pue2). */
    double wb0_c, wb1_c, wb2_c; /* 14, 22, 30 */
    double pue1, pue2;          /* 1.30, 1.40 */
    /* AIR_ADIABATIC */
    double t_wb_limit_c; /* 21 */
    double pue_hot;      /* 1.35 */
    /* LIQUID_DRY */
    double supply_c;       /* facility water supply set-point, 40 */
    double approach_k;     /* dry-cooler approach, 5 */
    double chiller_ramp_k; /* 10 */
    double chiller_cop;    /* 5 */
} cooling_cfg;

/* Fills c with the defaults of type t (above). */
void cooling_cfg_default(cooling_cfg *c, cooling_type t);

/* Checks ranges. Errors: SIM_EINVAL naming the field. */
int cooling_cfg_check(const cooling_cfg *c, sim_err *err);

/* PUE for dry bulb t_db_c and wet bulb t_wb_c [degC]. Pure. */
double cooling_pue(const cooling_cfg *c, double t_db_c, double t_wb_c);

/* "air-economizer", "air-adiabatic", "liquid-dry", "constant". */
const char *cooling_type_name(cooling_type t);

/* Parses a name as above. Returns 0 and sets *t, or -1. */
int cooling_type_parse(const char *s, cooling_type *t);

#endif
