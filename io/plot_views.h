/* io/plot_views.h: views over a run's stored per-step series (issue 24):
 * the year-long power stack at daily resolution, energy by calendar month,
 * the typical day of each month, day x hour heat maps of site power and
 * battery state of charge, and the load duration curve.
 *
 * Every view aggregates (means over days, hours of day, months) so a year of
 * 15-minute steps reads as a picture rather than 35,040 lines. Inputs are SI
 * (W, s); axes are converted at drawing time and carry their unit. Time axes
 * are calendar dates when the scenario's start is known (ref->t0_unix_s),
 * else days since the start. Colours per source come from models/source.h,
 * the same in every chart. Same input, same PNG/SVG bytes. Drawn through
 * io/plot_int.h; PLOT_CHART_W x PLOT_CHART_H pages. Not thread-safe.
 *
 * Errors, for every function: SIM_EIO (device missing, path not writable),
 * SIM_EINVAL when there is nothing to draw (the message says what is
 * missing; nothing is written then).
 */
#ifndef IO_PLOT_VIEWS_H
#define IO_PLOT_VIEWS_H

#include <stddef.h>

#include "models/results.h"
#include "sim/err.h"

/* A stored series and the site facts its charts mark. */
typedef struct plot_series {
    const res_step *steps; /* time order */
    const double *dt_s;    /* step durations [s]; NULL: from t_s spacing */
    size_t n;
    double t0_unix_s;     /* the simulation start as Unix seconds (local
                           * midnight, drawn as UTC); NAN: unknown */
    double it_capacity_w; /* IT capacity line; <= 0 or NAN: none */
    double contract_w;    /* grid supply contract line; <= 0/NAN: none */
} plot_series;

/* Columns of a month's row in plot_monthly_energy_sums: SRC_N sources
 * (energy delivered to the load [J]), then these. */
enum {
    PLOT_MONTH_UNSERVED = SRC_N, /* demand not served [J] */
    PLOT_MONTH_HELD,   /* demand the shortage policy held back (throttled,
                          paused or shed jobs) [J] */
    PLOT_MONTH_DEMAND, /* facility demand before the policy [J] */
    PLOT_MONTH_ROW
};

/* The monthly energy chart's table: per calendar month from *first
 * (year x 12 + month, OUT) for *nm months (OUT), PLOT_MONTH_ROW sums in
 * *e (OUT: caller frees). Per month demand = sum of the sources +
 * unserved + held back (held back is the remainder per step, clamped at
 * 0). Errors: SIM_EINVAL (fewer than 2 steps, or no start date). */
int plot_monthly_energy_sums(const plot_series *s, int *first, size_t *nm,
                             double **e);

/* Power delivered by source, stacked, as daily means (hourly below ten days
 * of span, the steps themselves below one), with unserved demand stacked on
 * top in red, the load served and the demand, and the IT capacity and grid
 * contract as reference lines. Needs n >= 2. */
int plot_power_stack(const char *path, const plot_series *s, const char *title,
                     sim_err *err);

/* Energy per calendar month [MWh]: one stacked bar per month by source,
 * unserved energy on top, a demand marker. Needs the start date. */
int plot_monthly_energy(const char *path, const plot_series *s,
                        const char *title, sim_err *err);

/* The mean 24-hour profile of each calendar month, one small panel per
 * month (up to 12, 4 x 3): sources stacked, unserved on top, demand and
 * battery charging as lines; one y scale for all panels. Needs the start
 * date. */
int plot_typical_day(const char *path, const plot_series *s, const char *title,
                     sim_err *err);

/* Day x hour heat map of the facility load served [MW or kW], and below it
 * the unserved power when any demand went unserved, each with a colour bar
 * that names quantity and unit. */
int plot_power_heatmap(const char *path, const plot_series *s,
                       const char *title, sim_err *err);

/* Load duration curve: facility demand, load served and grid import, each
 * sorted high to low against the share of time [%], with the IT capacity
 * and grid contract lines. */
int plot_load_duration(const char *path, const plot_series *s,
                       const char *title, sim_err *err);

/* Battery state of charge as a day x hour heat map [%] over its state of
 * health over time [%]. SIM_EINVAL when no step has a state of charge. */
int plot_battery_heatmap(const char *path, const plot_series *s,
                         const char *title, sim_err *err);

#endif
