/* app/opt_chart.h: the chart of a stored optimize problem (io/db.h
 * db_opt_problem; issue 23) for `report`: every evaluated design as a
 * point, read from its stored sweep case (refined designs from the
 * refined sweep), drawn by io/plot_opt.h.
 *
 * Axes: with two or more objectives, the first objective (x) against the
 * second (y); with one objective, the objective (y) against the first
 * constraint's metric and statistic (x), or against the first varied key
 * when there is no constraint. A constraint whose metric and statistic are
 * an axis's is drawn as a reference line on that axis. Labels and units
 * come from the result-field and scenario-key tables.
 */
#ifndef APP_OPT_CHART_H
#define APP_OPT_CHART_H

#include <stddef.h>
#include <stdint.h>

#include "io/db.h"
#include "sim/err.h"

/* Draws problem id's chart into path; *what (OUT, may be NULL) receives
 * one line saying what it shows. Errors: those of db_opt_load
 * (SIM_ENOTFOUND), sweep_table_load, plot_optimize (SIM_EINVAL: nothing
 * to draw), SIM_EINVAL for a stored term that no longer parses. */
int opt_chart(db *d, int64_t id, const char *path, char *what, size_t what_n,
              sim_err *err);

#endif
