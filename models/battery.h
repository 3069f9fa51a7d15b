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
 *     q_cal(t+dt) = k (( q_cal / k )^(1/0.464) + dt)^0.464;
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
    double temp_c;        /* cell temperature for calendar fade, 25
                             (assumption: conditioned enclosure) */
    double fade_per_efc;  /* LINEAR: 5.5e-5 */
    double fade_per_year; /* LINEAR: 0.011 */
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
double battery_efc(const battery *b);        /* equivalent full cycles */
double battery_fade(const battery *b);       /* q(t), 1 at start */
double battery_pack_soh(const battery *b, size_t i); /* soh0_i q(t) */
size_t battery_n_packs(const battery *b);
double battery_eta_charge(const battery *b);
double battery_eta_discharge(const battery *b);

#endif
