/* io/plot_opt.h: the optimize chart (issue 23): every design an optimize
 * run evaluated as a point of two quantities (objective against
 * objective, or the objective against its main constraint's metric),
 * feasible designs as filled circles, infeasible ones as crosses in
 * another colour, the Pareto front joined by a line, the best design
 * ringed, and each constraint that lies on an axis drawn as a dashed
 * reference line named in the legend. Drawn with PLplot through
 * io/plot_int.h like every chart (PNG/SVG/PDF by extension, PLOT_CHART_W
 * x PLOT_CHART_H, legend inside the page); the same input gives
 * byte-identical PNG and SVG files. Not thread-safe (PLplot state).
 */
#ifndef IO_PLOT_OPT_H
#define IO_PLOT_OPT_H

#include <stddef.h>

#include "sim/err.h"

/* Flags of one design (bits). */
enum { PLOT_OPT_FEASIBLE = 1, PLOT_OPT_BEST = 2, PLOT_OPT_PARETO = 4 };

/* A reference line: at value v on the x axis (on_x = 1) or the y axis,
 * named label in the legend. */
typedef struct plot_opt_ref {
    int on_x;
    double v;
    const char *label;
} plot_opt_ref;

/* Draws the n designs (x[i], y[i], flags[i]) into path; labels carry
 * their units. Points with a non-finite coordinate are left out.
 * Errors: SIM_EIO (device or path), SIM_EINVAL (no finite point, or more
 * than 4 reference lines); nothing is written then. */
int plot_optimize(const char *path, const double *x, const double *y,
                  const int *flags, size_t n, const plot_opt_ref *refs,
                  size_t n_refs, const char *x_label, const char *y_label,
                  const char *title, sim_err *err);

#endif
