/* io/plot_views_int.h: what the two halves of the long-series views share
 * (io/plot_views.c: the power stack, monthly energy and typical day;
 * io/plot_heat.c: the day x hour heat maps and the load duration curve).
 * Private to io/plot_views.c and io/plot_heat.c. */
#ifndef IO_PLOT_VIEWS_INT_H
#define IO_PLOT_VIEWS_INT_H

#include "io/plot_int.h"
#include "io/plot_views.h"

#define DAY_S 86400.0

/* A time axis: the x value of time t_s since the start is (t_s + off) x scale:
 * Unix seconds on a date axis, else days (hours below two days of span). */
typedef struct taxis {
    double scale, off; /* x = off + t_s * scale */
    const char *label, *opt;
} taxis;

/* Duration of step i [s]: its own dt_s when stored, else the gap to the
 * next step (the previous one for the last). */
double pv_step_dt(const plot_series *s, size_t i);
/* v when finite, else 0, so a missing value adds nothing to a sum. */
double pv_fin(double v);
/* 1 when the series carries a calendar start date. */
int pv_dated(const plot_series *s);
/* The display scale for powers up to max_w (W, kW or MW) and its unit. */
double pv_power_scale(double max_w, const char **unit);
/* The time axis for a series spanning span_s. */
taxis pv_time_axis(const plot_series *s, double span_s);
/* Index in models/source.h of the grid, -1 if the registry has none. */
int pv_grid_index(void);
/* Horizontal reference lines across [x0, x1] with legend entries in L: the
 * IT capacity the modules can draw and the grid supply contract; ps and unit
 * from pv_power_scale. */
void pv_ref_lines(const plot_series *s, double x0, double x1, double ps,
                  const char *unit, plot_legend *L);

#endif
