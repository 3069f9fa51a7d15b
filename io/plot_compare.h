/* io/plot_compare.h: the comparison chart of several stored runs (issue 25,
 * `report --runs`): one page of panels, each a set of labelled rows (jobs,
 * or the site) with one horizontal P10-P90 bar per run and a tick at its
 * P50, runs told apart by colour in the legend. Values arrive in the unit
 * the panel's axis label names (the caller converts with the result-field
 * registry); a summary with n == 0 (a job the run does not have, or one that
 * never finished) draws nothing in its place. Page size, format, device
 * checks and byte-identical output as in io/plot_charts.h. */
#ifndef IO_PLOT_COMPARE_H
#define IO_PLOT_COMPARE_H

#include <stddef.h>

#include "models/stats.h"
#include "sim/err.h"

/* Runs one chart can tell apart by colour. */
#define PLOT_CMP_MAX_RUNS 7

typedef struct plot_cmp_panel {
    const char *title;       /* small title over the panel */
    const char *xlabel;      /* axis label with its unit */
    size_t n_rows;           /* >= 1 */
    const char *const *rows; /* row labels (job names, "site") */
    const stat_summary *s;   /* n_rows x n_runs, row-major, axis unit */
} plot_cmp_panel;

/* Draws panels[0] across the top half of the page and up to two others
 * stacked below it (one-row panels suit them best); runs[k] labels run k in the
 * legend. Errors: SIM_EIO as io/plot_charts.h; SIM_EINVAL when n_runs is 0 or
 * over PLOT_CMP_MAX_RUNS, or no panel has a value to draw. */
int plot_compare(const char *path, const plot_cmp_panel *panels,
                 size_t n_panels, const char *const *runs, size_t n_runs,
                 const char *title, sim_err *err);

#endif
