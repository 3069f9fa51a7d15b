/* models/battery.h: a battery bank of (second-life) EV packs: state of
 * charge, power and energy limits, charge/discharge efficiency, a reserve
 * floor, and wear with cycles and calendar time. See docs/power-model.md 4.
 *
 * Model. The bank is n_packs packs in parallel strings (B2U keeps packs in
 * their casings with native BMS so weak packs do not limit strong ones,
 * facts-more.md 4). Pack i has new capacity pack_energy_j and a state of
 * health at second-life start soh0_i drawn from its own random stream
 * (stream id = stream_base + i): N(soh_mean, soh_sd) clipped to
 * [soh_min, soh_max], default N(0.70, 0.05) on [0.60, 0.85] (facts-more.md 4:
 * EV packs retire at 70-80%, Leaf Gen-1 60-67%; sd is an assumption), or
 * U(soh_min, soh_max) with soh_uniform. Packs
 * share current in proportion to capacity, so all see the same equivalent
 * full cycles (EFC) and calendar time and keep their relative health:
 * SOH_i(t) = soh0_i q(t), bank capacity C(t) = q(t) sum_i pack_energy_j
 * soh0_i. The fade q is either
 *   BATTERY_WEAR_LEAF2L (default): NREL BLAST-Lite's second-life Nissan Leaf
 *     model, q = 1 - k_cal t_days^0.464 - 7.58e-5 EFC^1.08 with
 *     k_cal = 3.25e8 exp(-7580/T) exp(162 SOC/T) (facts-more.md 4), where
 *     a changing k_cal is handled by the state-transition form
 *     q_cal(t+dt) = k (( q_cal / k )^(1/0.464) + dt)^0.464, k the step's
 *     mean of k_cal at its start and end SOC (BLAST-Lite averages k_cal
 *     over time the same way). EFC counts charge throughput over the
 *     capacity at the START of second life, sum(stored + withdrawn) /
 *     (2 C(0)), not over the faded C(t): that is how BLAST-Lite counts it
 *     (its SOC swings times q), and counting over C(t) made cycling fade
 *     run away (issue 20: 0.615 left after 5 years of a cycle a day
 *     against BLAST-Lite's 0.670);
 *   BATTERY_WEAR_LINEAR: q = 1 - fade_per_efc EFC - fade_per_year t_years
 *     (e.g. the LFP proxy of facts-more.md 4: 5.5e-5 per EFC, 1.1%/yr).
 *
 * Energy. stored_j in [floor, C(t)], floor = soc_min C(t). Charging with
 * input power P for dt stores eta_c P dt; discharging delivers P for dt and
 * withdraws P dt / eta_d; eta_c = eta_d = sqrt(rte) (rte 0.88, an assumption
 * inside the 85-92% range, facts-more.md 4), so a full cycle returns exactly
 * rte of its input. Power limits: p_max_w, and c_rate_max C(t) per hour
 * (0.2C, facts-more.md 4). When fade makes C(t) < stored_j the excess is
 * recorded as fade_loss_j, so every joule is accounted for.
 *
 * Temperature. T is the cell temperature of an enclosure model
 * (battery_thermal): FIXED holds temp_c; AMBIENT_RISE follows the outdoor
 * dry bulb given by battery_set_ambient_c plus rise_c (an unconditioned
 * container: self-heating at <= 0.2C and solar gain on the shell, 3 K is an
 * assumption); HVAC holds setpoint_c, and the site serves the heat pump's
 * electricity battery_hvac_w = |UA (T_amb - T_set) + P_loss| / COP (the
 * envelope's gain or loss plus the conversion losses released inside),
 * with UA = hvac_ua_w_per_k_per_j x C(0) (a container envelope,
 * assumption).
 *
 * Complexity: O(1) per step (the per-pack health is one shared factor);
 * construction O(n_packs). Pure: no I/O.
 */
#ifndef MODELS_BATTERY_H
#define MODELS_BATTERY_H

#include <stddef.h>
#include <stdint.h>

#include "sim/err.h"

typedef enum battery_wear {
    BATTERY_WEAR_LEAF2L = 0, /* BLAST-Lite second-life Leaf model */
    BATTERY_WEAR_LINEAR = 1, /* linear in EFC and years */
    BATTERY_WEAR_NONE = 2    /* no fade (tests, what-if) */
} battery_wear;

/* Cell temperature model of the enclosure (see the model note above). */
typedef enum battery_thermal {
    BATTERY_THERMAL_FIXED = 0,        /* cell at temp_c */
    BATTERY_THERMAL_AMBIENT_RISE = 1, /* cell at ambient + rise_c */
    BATTERY_THERMAL_HVAC = 2          /* cell at setpoint_c, energy paid */
} battery_thermal;

typedef struct battery_cfg {
    size_t n_packs;       /* packs, >= 1 */
    double pack_energy_j; /* nameplate of one pack when new, > 0 */
    int second_life;      /* 1: draw soh0 per pack; 0: soh0 = 1 */
    double soh_mean, soh_sd, soh_min, soh_max; /* soh0 draw, see above */
    int soh_uniform;   /* 1: soh0 ~ U(soh_min, soh_max) instead of the
                          clipped normal (soh_mean, soh_sd unused) */
    double p_max_w;    /* charge and discharge limit of the bank,
                          0 = from c_rate_max only */
    double c_rate_max; /* per hour of current capacity, 0.2 */
    double rte;        /* round-trip efficiency, 0.88 */
    double soc_min;    /* reserve floor, 0.10 (assumption) */
    double soc_max;    /* charge ceiling, 1.0 */
    double soc_init;   /* initial state of charge, 0.5 (assumption) */
    battery_wear wear;
    battery_thermal thermal; /* enclosure model, FIXED by default here
                                (the scenario loader picks its own) */
    double temp_c;     /* FIXED: cell temperature, 25 (BLAST-Lite's fit) */
    double rise_c;     /* AMBIENT_RISE: cell above outdoor air [K], 3
                          (assumption) */
    double setpoint_c; /* HVAC: enclosure set point, 25 */
    double hvac_cop;   /* HVAC: heat pump coefficient of performance, 3
                          (assumption, air-source at moderate lift) */
    double hvac_ua_w_per_k_per_j; /* HVAC: envelope conductance per joule
                                     of second-life-start capacity, 15 W/K
                                     per MWh (assumption: an insulated 20 ft
                                     container of ~3 MWh, ~45 W/K) */
    double fade_per_efc;          /* LINEAR: 5.5e-5 */
    double fade_per_year;         /* LINEAR: 0.011 */
} battery_cfg;

typedef struct battery battery;

/* One step's flows (all >= 0, joules over the step). */
typedef struct battery_flow {
    double in_j;        /* energy taken from the bus (charging) */
    double out_j;       /* energy delivered to the bus (discharging) */
    double stored_j;    /* added to storage: eta_c in_j */
    double withdrawn_j; /* removed from storage: out_j / eta_d */
    double loss_j;      /* conversion losses: in - stored + withdrawn - out */
    double fade_loss_j; /* stored energy lost because capacity faded */
} battery_flow;

/* Wear state of one bank (the part of the model that BLAST-Lite also
 * computes): calendar age, EFC over second-life-start capacity, and the two
 * fade terms; q = max(0.01, 1 - q_cal - q_cyc). */
typedef struct battery_wear_state {
    double t_s;   /* calendar age [s] */
    double efc;   /* equivalent full cycles, over C(0) */
    double q_cal; /* calendar fade */
    double q_cyc; /* cycling fade */
} battery_wear_state;

/* Fills c with the defaults above for n_packs packs of pack_energy_j. */
void battery_cfg_default(battery_cfg *c, size_t n_packs, double pack_energy_j);

/* Checks ranges. Errors: SIM_EINVAL naming the field. */
int battery_cfg_check(const battery_cfg *c, sim_err *err);

/* A new bank. soh0 of pack i is drawn from stream
 * (master, rep, stream_base + i) (sim/rng.h), so adding packs or banks never
 * changes another pack's draw. Returns NULL with err set if c is invalid. */
battery *battery_new(const battery_cfg *c, uint64_t master, uint64_t rep,
                     uint64_t stream_base, sim_err *err);

/* Frees b. battery_free(NULL) is a no-op. */
void battery_free(battery *b);

/* Advances the wear *w by dt_s with the cell at temp_c, the state of
 * charge (of the current capacity) going from soc0 to soc1 over the step
 * and d_efc equivalent full cycles (over second-life-start capacity) in
 * it, under c's wear model. Returns the new q. Pure; O(1). Used by
 * battery_step and by models/battery_life.h (SOC-history driven). */
double battery_wear_advance(const battery_cfg *c, battery_wear_state *w,
                            double dt_s, double soc0, double soc1,
                            double temp_c, double d_efc);

/* Cell temperature [degC] of c's enclosure with the outdoor air at
 * t_amb_c. Pure. */
double battery_cell_temp_c(const battery_cfg *c, double t_amb_c);

/* Sets the outdoor dry bulb [degC] for the following steps (AMBIENT_RISE
 * and HVAC use it; FIXED ignores it). Initially 25. */
void battery_set_ambient_c(battery *b, double t_amb_c);

/* Electric power [W] of the enclosure HVAC at the current outdoor air with
 * loss_w [W] of conversion losses released inside: |UA (T_amb - T_set) +
 * loss_w| / COP in HVAC mode, 0 otherwise. Pure. */
double battery_hvac_w(const battery *b, double loss_w);

/* Largest charging input power [W] the bank accepts for a step of dt_s. */
double battery_charge_limit_w(const battery *b, double dt_s);

/* Largest discharging output power [W] it can deliver for dt_s. */
double battery_discharge_limit_w(const battery *b, double dt_s);

/* Applies one step: charge at input p_in_w or discharge at output p_out_w
 * (at most one > 0, each within its limit up to 1e-9 relative, clamped),
 * ages the bank by dt_s and fills *f (OUT, may be NULL).
 * Errors: SIM_EINVAL if both powers are > 0, negative or NaN. */
int battery_step(battery *b, double p_in_w, double p_out_w, double dt_s,
                 battery_flow *f);

double battery_stored_j(const battery *b);   /* energy in storage */
double battery_capacity_j(const battery *b); /* current capacity C(t) */
double battery_soc(const battery *b);        /* stored / capacity */
double battery_soh(const battery *b);        /* C(t) / sum of new caps */
double battery_soh0(const battery *b);       /* bank soh at start */
double battery_efc(const battery *b);  /* equivalent full cycles over C(0) */
double battery_fade(const battery *b); /* q(t), 1 at start */
double battery_pack_soh(const battery *b, size_t i); /* soh0_i q(t) */
size_t battery_n_packs(const battery *b);
double battery_eta_charge(const battery *b);
double battery_eta_discharge(const battery *b);

#endif
