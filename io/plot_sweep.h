/* io/plot_sweep.h: the sweep chart: one metric against a swept parameter,
 * the P50 over replications as a line with markers and the P10-P90 range
 * as a shaded band, one line per combination of the other swept keys.
 * Drawn with PLplot through io/plot_int.h, as the run charts
 * (io/plot_charts.h): PNG/SVG/PDF by extension, PLOT_CHART_W x
 * PLOT_CHART_H, title, legend and units on both axes; the same input gives
 * byte-identical PNG and SVG files. Not thread-safe (PLplot state).
 */
#ifndef IO_PLOT_SWEEP_H
#define IO_PLOT_SWEEP_H

#include <stddef.h>

#include "models/stats.h"
#include "sim/err.h"

/* Most lines (groups) one chart draws. */
#define PLOT_SWEEP_MAX_GROUPS 8

/* Draws y[i] (P10, P50, P90 of the metric, in output units) against x[i]
 * for the n points; group[i] in [0, n_groups) says which line point i is
 * on, labelled group_names[g] (may be NULL with n_groups == 1). Points of
 * a group are drawn in x order; NAN summaries are left out. x_label and
 * y_label carry their units, e.g. "energy.battery.capacity_mwh [MWh]".
 * Errors: SIM_EIO (device or path, as plot_charts.h), SIM_EINVAL (no
 * finite point, n_groups out of 1..PLOT_SWEEP_MAX_GROUPS, a non-finite x). */
/* ref (may be NULL): a horizontal reference line at y = ref->v named
 * ref->label in the legend (a sweep's constraint, issue 24); drawn when it
 * lies within twice the data's span, else named "(off the chart)". */
typedef struct plot_sweep_ref {
    double v;
    const char *label;
} plot_sweep_ref;

int plot_sweep(const char *path, const double *x, const stat_summary *y,
               const size_t *group, size_t n, const char *const *group_names,
               size_t n_groups, const plot_sweep_ref *ref, const char *x_label,
               const char *y_label, const char *title, sim_err *err);

#endif
