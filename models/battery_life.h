/* models/battery_life.h: how long packs last. Drives the battery wear of
 * models/battery.h (battery_wear_advance) from a state-of-charge history
 * instead of a dispatched site, the way NREL BLAST-Lite is driven, and
 * reports per year the capacity retained relative to second-life start and
 * the equivalent full cycles. See docs/power-model.md 4.
 *
 * Model. The history is n SOC values (fractions of the current capacity)
 * at the end of equal steps of dt_s; the SOC before the first step equals
 * the last value, so the history repeats seamlessly for as many years as
 * asked (BLAST-Lite tiles its input the same way). A step moving SOC from
 * s0 to s1 adds |s1 - s0| / 2 x q equivalent full cycles over the
 * second-life-start capacity (the swing is of the faded capacity q C(0)).
 * The cell temperature of each step is battery_cell_temp_c of the hour's
 * outdoor dry bulb (an 8760-hour series, repeated yearly) or, without one,
 * of 25 degC. A year is 365 days.
 *
 * Pure: no I/O; O(steps).
 */
#ifndef MODELS_BATTERY_LIFE_H
#define MODELS_BATTERY_LIFE_H

#include <stddef.h>

#include "models/battery.h"
#include "sim/err.h"

#define BATTERY_LIFE_MAX_YEARS 50

/* The duty and the climate of a battery_life_run. */
typedef struct battery_life_in {
    const double *soc;     /* n_soc SOC values in [0, 1], end of each step */
    size_t n_soc;          /* >= 1 */
    double dt_s;           /* step length, > 0 */
    int years;             /* 1 .. BATTERY_LIFE_MAX_YEARS */
    const double *t_amb_c; /* 8760 hourly outdoor dry bulbs, or NULL */
} battery_life_in;

/* Runs the wear of c (its wear and thermal models) over in. Writes the
 * capacity retained q at the end of year y+1 into q_year[y] and the
 * cumulative EFC into efc_year[y] (OUT, in->years entries each).
 * Errors: SIM_EINVAL naming the bad input (SOC outside [0, 1], dt <= 0,
 * years out of range, an invalid c). */
int battery_life_run(const battery_cfg *c, const battery_life_in *in,
                     double *q_year, double *efc_year, sim_err *err);

/* One day of a synthetic duty at steps of dt_s (86400 / dt_s must be a
 * whole number n, and soc has room for n values, OUT): cycles_per_day
 * equal cycles, each charging from soc_min to soc_max at c_rate (SOC per
 * hour), resting full for half the cycle's idle time, discharging back at
 * c_rate and resting empty for the other half (a solar battery: filled by
 * day, held, emptied at night). cycles_per_day = 0 holds the SOC at the
 * middle of [soc_min, soc_max]. Returns n, or 0 with err set when the
 * cycles do not fit the day (2 (soc_max - soc_min) / c_rate hours per
 * cycle > 24 / cycles_per_day) or an argument is out of range. */
size_t battery_life_daily_profile(double cycles_per_day, double soc_min,
                                  double soc_max, double c_rate, double dt_s,
                                  double *soc, size_t n_max, sim_err *err);

#endif
