/* models/battery.c: a second-life battery bank (models/battery.h).
 *
 * State: stored_j in [0, cap_j]; cap_j = q * cap0_j where cap0_j is the sum
 * of the packs' second-life-start capacities; q = 1 - q_cal - q_cyc (floored
 * at 0.01 so a worn-out bank stays a valid, tiny bank). Charging and
 * discharging never both happen in one step. The wear itself lives in
 * battery_wear_advance so that the site model and the SOC-history driver
 * (models/battery_life.c) age packs by one formula; this file must never
 * read weather or files: temperatures come in through the API.
 */
#include "models/battery.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>

#include "sim/mem.h"
#include "sim/rng.h"

/* BLAST-Lite lmo_gr_NissanLeaf66Ah_2ndLife_2020 (facts-more.md 4). */
#define LEAF_KCAL_A 3.25e8
#define LEAF_KCAL_EA 7580.0
#define LEAF_KCAL_SOC 162.0
#define LEAF_T_EXP 0.464
#define LEAF_CYC_A 7.58e-5
#define LEAF_CYC_EXP 1.08

struct battery {
    battery_cfg c;
    double *soh0;     /* per pack */
    double cap_new_j; /* sum of new capacities */
    double cap0_j;    /* sum of second-life-start capacities */
    double cap_j;     /* current capacity */
    double stored_j;
    battery_wear_state w; /* calendar age, EFC over cap0_j, fade terms */
    double t_amb_c;       /* outdoor dry bulb of the current step */
    double eta_c, eta_d;
};

void battery_cfg_default(battery_cfg *c, size_t n_packs, double pack_energy_j)
{
    c->n_packs = n_packs;
    c->pack_energy_j = pack_energy_j;
    c->second_life = 1;
    c->soh_mean = 0.70;
    c->soh_sd = 0.05;
    c->soh_min = 0.60;
    c->soh_max = 0.85;
    c->soh_uniform = 0;
    c->p_max_w = 0.0;
    c->c_rate_max = 0.2;
    c->rte = 0.88;
    c->soc_min = 0.10;
    c->soc_max = 1.0;
    c->soc_init = 0.5;
    c->wear = BATTERY_WEAR_LEAF2L;
    c->thermal = BATTERY_THERMAL_FIXED;
    c->temp_c = 25.0;
    c->rise_c = 3.0;
    c->setpoint_c = 25.0;
    c->hvac_cop = 3.0;
    c->hvac_ua_w_per_k_per_j = 15.0 / 3.6e9;
    c->fade_per_efc = 5.5e-5;
    c->fade_per_year = 0.011;
}

int battery_cfg_check(const battery_cfg *c, sim_err *err)
{
    if (c->n_packs < 1 || c->n_packs > 10000000)
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "battery.n_packs: out of range (got %zu, expected 1..1e7)",
            c->n_packs);
    if (!(c->pack_energy_j > 0 && isfinite(c->pack_energy_j)))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "battery.pack_energy_j: must be > 0 (got %g)",
                           c->pack_energy_j);
    if (c->second_life &&
        !(c->soh_min > 0 && c->soh_min <= c->soh_mean &&
          c->soh_mean <= c->soh_max && c->soh_max <= 1 && c->soh_sd >= 0))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "battery.soh: expected 0 < soh_min <= soh_mean <= soh_max <= 1, "
            "sd >= 0 (got %g, %g, %g, sd %g)",
            c->soh_min, c->soh_mean, c->soh_max, c->soh_sd);
    if (!(c->p_max_w >= 0 && isfinite(c->p_max_w)) || !(c->c_rate_max >= 0) ||
        (c->p_max_w == 0 && c->c_rate_max == 0))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "battery: p_max_w or c_rate_max must be > 0 (got %g W, %g C)",
            c->p_max_w, c->c_rate_max);
    if (!(c->rte > 0 && c->rte <= 1))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "battery.rte: out of range (got %g, expected (0, 1])", c->rte);
    if (!(c->soc_min >= 0 && c->soc_min < c->soc_max && c->soc_max <= 1 &&
          c->soc_init >= c->soc_min && c->soc_init <= c->soc_max))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "battery.soc: expected 0 <= soc_min <= soc_init <= soc_max <= 1 "
            "(got %g, %g, %g)",
            c->soc_min, c->soc_init, c->soc_max);
    if (c->thermal < BATTERY_THERMAL_FIXED ||
        c->thermal > BATTERY_THERMAL_HVAC ||
        !(c->rise_c >= 0 && c->rise_c <= 40) ||
        !(c->setpoint_c > -40 && c->setpoint_c < 80) ||
        !(c->hvac_cop > 0 && c->hvac_cop <= 20) ||
        !(c->hvac_ua_w_per_k_per_j >= 0 && isfinite(c->hvac_ua_w_per_k_per_j)))
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "battery.thermal: out of range (got mode %d, rise %g K, set point "
            "%g degC, COP %g; expected rise 0..40, set point -40..80, COP "
            "(0, 20])",
            (int)c->thermal, c->rise_c, c->setpoint_c, c->hvac_cop);
    if (!(c->temp_c > -40 && c->temp_c < 80) || !(c->fade_per_efc >= 0) ||
        !(c->fade_per_year >= 0) || c->wear < BATTERY_WEAR_LEAF2L ||
        c->wear > BATTERY_WEAR_NONE)
        return sim_err_set(
            err, SIM_EINVAL, NULL, 0,
            "battery: wear parameters out of range (temp %g degC)", c->temp_c);
    return SIM_OK;
}

battery *battery_new(const battery_cfg *c, uint64_t master, uint64_t rep,
                     uint64_t stream_base, sim_err *err)
{
    if (battery_cfg_check(c, err) != SIM_OK)
        return NULL;
    battery *b = sim_xcalloc(1, sizeof *b);
    b->c = *c;
    b->soh0 = sim_xmalloc(c->n_packs * sizeof(double));
    gsl_rng *r =
        c->second_life ? rng_stream_new(NULL, master, rep, stream_base) : NULL;
    for (size_t i = 0; i < c->n_packs; i++) {
        double s = 1.0;
        if (r) {
            /* One stream per pack: reseeding keeps draws independent of how
             * many packs precede it. */
            rng_stream_reset(r, master, rep, stream_base + i);
            if (c->soh_uniform) {
                s = c->soh_min + (c->soh_max - c->soh_min) * gsl_rng_uniform(r);
            } else {
                s = c->soh_mean + gsl_ran_gaussian(r, c->soh_sd);
                s = s < c->soh_min   ? c->soh_min
                    : s > c->soh_max ? c->soh_max
                                     : s;
            }
        }
        b->soh0[i] = s;
        b->cap_new_j += c->pack_energy_j;
        b->cap0_j += c->pack_energy_j * s;
    }
    if (r)
        gsl_rng_free(r);
    b->cap_j = b->cap0_j;
    b->stored_j = c->soc_init * b->cap_j;
    b->eta_c = b->eta_d = sqrt(c->rte);
    b->t_amb_c = 25.0;
    return b;
}

void battery_free(battery *b)
{
    if (!b)
        return;
    free(b->soh0);
    free(b);
}

static double power_limit_w(const battery *b)
{
    double p =
        b->c.c_rate_max > 0 ? b->c.c_rate_max * b->cap_j / 3600.0 : HUGE_VAL;
    if (b->c.p_max_w > 0 && b->c.p_max_w < p)
        p = b->c.p_max_w;
    return p;
}

double battery_charge_limit_w(const battery *b, double dt_s)
{
    double room = b->c.soc_max * b->cap_j - b->stored_j;
    if (room <= 0 || dt_s <= 0)
        return 0.0;
    double p = room / (b->eta_c * dt_s);
    double lim = power_limit_w(b);
    return p < lim ? p : lim;
}

double battery_discharge_limit_w(const battery *b, double dt_s)
{
    double avail = b->stored_j - b->c.soc_min * b->cap_j;
    if (avail <= 0 || dt_s <= 0)
        return 0.0;
    double p = avail * b->eta_d / dt_s;
    double lim = power_limit_w(b);
    return p < lim ? p : lim;
}

double battery_cell_temp_c(const battery_cfg *c, double t_amb_c)
{
    switch (c->thermal) {
    case BATTERY_THERMAL_AMBIENT_RISE:
        return t_amb_c + c->rise_c;
    case BATTERY_THERMAL_HVAC:
        return c->setpoint_c;
    case BATTERY_THERMAL_FIXED:
    default:
        return c->temp_c;
    }
}

void battery_set_ambient_c(battery *b, double t_amb_c)
{
    if (isfinite(t_amb_c))
        b->t_amb_c = t_amb_c;
}

/* BLAST-Lite's calendar rate [1/day^0.464] at SOC soc and tk kelvin. */
static double leaf_kcal(double soc, double tk)
{
    return LEAF_KCAL_A * exp(-LEAF_KCAL_EA / tk) *
           exp(LEAF_KCAL_SOC * soc / tk);
}

double battery_wear_advance(const battery_cfg *c, battery_wear_state *w,
                            double dt_s, double soc0, double soc1,
                            double temp_c, double d_efc)
{
    w->t_s += dt_s;
    w->efc += d_efc;
    switch (c->wear) {
    case BATTERY_WEAR_LEAF2L: {
        double tk = temp_c + 273.15;
        /* The step's mean rate (trapezoid over its end points). */
        double k = 0.5 * (leaf_kcal(soc0, tk) + leaf_kcal(soc1, tk));
        if (dt_s > 0 && k > 0) {
            double t_eq_d = pow(w->q_cal / k, 1.0 / LEAF_T_EXP);
            w->q_cal = k * pow(t_eq_d + dt_s / 86400.0, LEAF_T_EXP);
        }
        w->q_cyc = LEAF_CYC_A * pow(w->efc, LEAF_CYC_EXP);
        break;
    }
    case BATTERY_WEAR_LINEAR:
        w->q_cal = c->fade_per_year * w->t_s / (365.0 * 86400.0);
        w->q_cyc = c->fade_per_efc * w->efc;
        break;
    case BATTERY_WEAR_NONE:
        break;
    }
    double q = 1.0 - w->q_cal - w->q_cyc;
    return q < 0.01 ? 0.01 : q;
}

int battery_step(battery *b, double p_in_w, double p_out_w, double dt_s,
                 battery_flow *f)
{
    if (!(p_in_w >= 0) || !(p_out_w >= 0) || !(dt_s >= 0) ||
        (p_in_w > 0 && p_out_w > 0) || !isfinite(p_in_w) || !isfinite(p_out_w))
        return SIM_EINVAL;
    battery_flow fl = {0};
    double soc0 = battery_soc(b);
    /* Clamp to the limits (callers stay within them up to rounding). */
    if (p_in_w > 0) {
        double lim = battery_charge_limit_w(b, dt_s);
        if (p_in_w > lim)
            p_in_w = lim;
        fl.in_j = p_in_w * dt_s;
        fl.stored_j = b->eta_c * fl.in_j;
        b->stored_j += fl.stored_j;
    } else if (p_out_w > 0) {
        double lim = battery_discharge_limit_w(b, dt_s);
        if (p_out_w > lim)
            p_out_w = lim;
        fl.out_j = p_out_w * dt_s;
        fl.withdrawn_j = fl.out_j / b->eta_d;
        b->stored_j -= fl.withdrawn_j;
        if (b->stored_j < 0)
            b->stored_j = 0;
    }
    fl.loss_j = (fl.in_j - fl.stored_j) + (fl.withdrawn_j - fl.out_j);
    /* Throughput over the second-life-start capacity (BLAST-Lite). */
    double d_efc =
        b->cap0_j > 0 ? (fl.stored_j + fl.withdrawn_j) / (2.0 * b->cap0_j) : 0;
    double soc1 = battery_soc(b);
    double q =
        battery_wear_advance(&b->c, &b->w, dt_s, soc0, soc1,
                             battery_cell_temp_c(&b->c, b->t_amb_c), d_efc);
    b->cap_j = q * b->cap0_j;
    if (b->stored_j > b->cap_j) {
        fl.fade_loss_j = b->stored_j - b->cap_j;
        b->stored_j = b->cap_j;
    }
    if (f)
        *f = fl;
    return SIM_OK;
}

double battery_stored_j(const battery *b)
{
    return b->stored_j;
}
double battery_capacity_j(const battery *b)
{
    return b->cap_j;
}
double battery_soc(const battery *b)
{
    return b->cap_j > 0 ? b->stored_j / b->cap_j : 0;
}
double battery_soh(const battery *b)
{
    return b->cap_j / b->cap_new_j;
}
double battery_soh0(const battery *b)
{
    return b->cap0_j / b->cap_new_j;
}
double battery_efc(const battery *b)
{
    return b->w.efc;
}
double battery_hvac_w(const battery *b, double loss_w)
{
    if (b->c.thermal != BATTERY_THERMAL_HVAC)
        return 0.0;
    /* Heat the heat pump moves: the envelope's gain (or loss, when the air
     * is colder than the set point) plus the conversion losses released
     * inside the enclosure, which offset heating. */
    double ua = b->c.hvac_ua_w_per_k_per_j * b->cap0_j;
    double q_w = ua * (b->t_amb_c - b->c.setpoint_c) + loss_w;
    return fabs(q_w) / b->c.hvac_cop;
}
double battery_fade(const battery *b)
{
    return b->cap0_j > 0 ? b->cap_j / b->cap0_j : 0;
}
size_t battery_n_packs(const battery *b)
{
    return b->c.n_packs;
}
double battery_eta_charge(const battery *b)
{
    return b->eta_c;
}
double battery_eta_discharge(const battery *b)
{
    return b->eta_d;
}

double battery_pack_soh(const battery *b, size_t i)
{
    return i < b->c.n_packs ? b->soh0[i] * battery_fade(b) : 0.0;
}
