/* models/cooling.h: facility overhead as PUE, a function of the hour's
 * weather, the cooling design and the module's load, and the water the
 * cooling evaporates. See docs/power-model.md 6.
 *
 * Curves. The levels are the LBNL 2024 simulated annual medians per design
 * and climate zone (LBNL-2001637 via data/facts/facts-more.md 3, "Simulated
 * annual PUE by design and climate zone"); the shapes come from running the
 * Lei & Masanet (Energy 201, 2020) model (same section, [D]). Each curve is
 * the PUE of a module at its design IT load:
 *   COOLING_AIR_ECONOMIZER ("air-economizer"; LBNL "AE + adiabatic, WCC
 *     backup": zone 8 and 7 1.127, 5B 1.124, 3B 1.132 (P5-P95
 *     1.066-1.209), 1A 1.197, 2A 1.218): PUE(T_wb) = base for T_wb <= wb0,
 *     linear to pue1 at wb1 and to pue2 at wb2, flat above. base 1.125 is
 *     the cold-zone level (the economizer alone carries the load); the knee
 *     wb0 = 17.5 C, pue1 = 1.30 at 24 C and pue2 = 1.40 at 30 C follow the
 *     Lei-Masanet AE runs (flat to T_wb ~ 20-22 C, then 1.32-1.41 at 80 %
 *     RH); wb0 is set so that the Las Vegas TMY3 year gives 3B's 1.132.
 *   COOLING_AIR_ADIABATIC ("adiabatic"; LBNL "dry cooler + adiabatic
 *     assist, air-cooled IT": zone 8 1.161, 5B 1.170, 3B 1.203, 1A 1.323):
 *     PUE = base + db_slope x max(0, T_db - db0) while the adiabatic assist
 *     can meet the load (T_wb <= t_wb_limit, 21 C, between the Lei-Masanet
 *     working 20 C/80 % point, T_wb 17.9 C, and its failing 25 C/80 %
 *     point, T_wb 22.4 C), pue_hot 1.35 (the model's 1.3-1.4) above. base
 *     1.158 is the cold level; the dry cooler's fan and pump work grows with
 *     the dry bulb: db_slope 0.0060 /K above db0 = 15 C makes the Las Vegas
 *     year 1.203 (3B) [D, fitted here; the linear form is an assumption].
 *   COOLING_LIQUID_DRY ("liquid-dry-cooler"; LBNL "DLC cold plate, dry
 *     cooler + adiabatic": 3B 1.095 (1.057-1.140), 5B 1.102, 1A 1.098, 8
 *     1.095, "almost independent of climate"): base 1.095 while T_db +
 *     approach <= supply set-point (W45 class: 40 C supply with a 5 C
 *     approach, so T_db <= 35 C); above, trim chillers carry a share of the
 *     heat rising linearly to all of it over chiller_ramp_k (10 K) at COP
 *     chiller_cop (5): PUE += share / COP. That penalty form and its numbers
 *     are assumptions (facts-more.md 3 says so). In every climate the LBNL
 *     medians put it at or below both air designs, and so does this curve.
 *   COOLING_CONSTANT ("constant"): a flat PUE (what-if and tests).
 *
 * Partial load. Part of the facility overhead does not shrink with the IT
 * load: UPS and transformer no-load losses, lighting, controls, minimum fan
 * and pump flow. fixed_frac (0.04 of the design IT power, an assumption: no
 * cited split was found; the MGHPCC's 1.29-1.37 at low IT load,
 * facts-more.md 3, shows the effect is real) is that part. At load
 * fraction l = IT / design IT the PUE is curve - fixed_frac + fixed_frac /
 * l: the curve at l = 1, fixed_frac higher at l = 1/2.
 *
 * Water (WUE, litres per kWh of IT energy; data/facts/facts-costs.md 5).
 * Evaporative designs use water only while they evaporate: wue_evap_l_kwh
 * in hours with T_db > t_evap_c (24 C, an assumption: near the Lei-Masanet
 * example's 27.4 C supply air less the 2-3 K an economizer needs), nothing
 * otherwise; wue_evap (2.72, inside the cited 2.3-3.7 L/kWh of
 * evaporative plants) is set so that the Las Vegas TMY3 year gives the
 * cited 1.0 L/kWh annual ("air-cooled with evaporative/adiabatic assist
 * 1.0 L/kWh in Nevada, range 0.5-2.8"). Dry coolers with warm-water DLC use
 * wue_dry_l_kwh 0.05 every hour (the same table: "site domestic use only;
 * assumption"). In cold climates the evaporative designs fall towards 0,
 * as the table's "Iceland/Norway ~0.1 L/kWh (assumption)" says.
 *
 * Every number is a config field with the default above; fixed_frac,
 * t_evap_c and the two WUEs are also scenario keys per module group
 * (modules.[i].cooling_fixed_frac, cooling_evap_threshold_c,
 * cooling_wue_evap_l_per_kwh, cooling_wue_dry_l_per_kwh; models/scenkeys.c
 * cites each or marks it an assumption). PUE >= 1 always.
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

#define COOLING_N 4
#define COOLING_MIN_LOAD 0.05 /* load fractions below count as 0.05 */

typedef struct cooling_cfg {
    cooling_type type;
    double pue_base; /* PUE in mild weather at design load */
    /* AIR_ECONOMIZER: piecewise-linear in wet bulb through
     * (wb0, base), (wb1, pue1), (wb2, pue2). */
    double wb0_c, wb1_c, wb2_c; /* 17.5, 24, 30 */
    double pue1, pue2;          /* 1.30, 1.40 */
    /* AIR_ADIABATIC */
    double db0_c;          /* 15 */
    double db_slope_per_k; /* 0.0060 */
    double t_wb_limit_c;   /* 21 */
    double pue_hot;        /* 1.35 */
    /* LIQUID_DRY */
    double supply_c;       /* facility water supply set-point, 40 */
    double approach_k;     /* dry-cooler approach, 5 */
    double chiller_ramp_k; /* 10 */
    double chiller_cop;    /* 5 */
    /* Partial load and water (all types). */
    double fixed_frac;     /* overhead that does not scale with IT, as a
                              fraction of design IT power, 0.04 */
    double t_evap_c;       /* dry bulb above which evaporation runs, 24 */
    double wue_evap_l_kwh; /* L per kWh of IT while evaporating */
    double wue_dry_l_kwh;  /* L per kWh of IT in every hour */
} cooling_cfg;

/* Fills c with the defaults of type t (above). */
void cooling_cfg_default(cooling_cfg *c, cooling_type t);

/* Checks ranges. Errors: SIM_EINVAL naming the field. */
int cooling_cfg_check(const cooling_cfg *c, sim_err *err);

/* PUE at design load for dry bulb t_db_c and wet bulb t_wb_c [degC].
 * Pure. */
double cooling_pue(const cooling_cfg *c, double t_db_c, double t_wb_c);

/* PUE at load fraction load_frac = IT / design IT (clamped below at
 * COOLING_MIN_LOAD): cooling_pue - fixed_frac + fixed_frac / load_frac.
 * Equal to cooling_pue at 1, never lower than it below 1. Pure. */
double cooling_pue_load(const cooling_cfg *c, double t_db_c, double t_wb_c,
                        double load_frac);

/* Water used per joule of IT energy in this weather [L/J]. Pure. */
double cooling_water_l_per_j(const cooling_cfg *c, double t_db_c);

/* "air-economizer", "adiabatic", "liquid-dry-cooler", "constant" (the
 * scenario key modules.[i].cooling spells them so). */
const char *cooling_type_name(cooling_type t);

/* Parses a name as above. Returns 0 and sets *t, or -1. */
int cooling_type_parse(const char *s, cooling_type *t);

#endif
