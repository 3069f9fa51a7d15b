/* app/report_charts.h: the one list of the charts a report draws. `report`
 * iterates it; tests/test_report.c iterates it too and fails when a chart
 * in it has no test of its own (test_report_every_chart_has_its_own_test).
 * Adding a chart is one row here and one draw function in report_charts.c.
 *
 * Each chart draws from a stored run (io/db.h) into DIR/<file>.<ext> and
 * notes what it drew, or why it drew nothing, in a report_out: "nothing to
 * draw" (no series stored, no battery, a sweep chart with too many lines)
 * is noted as not drawn and is not an error; only a failure to write is.
 */
#ifndef APP_REPORT_CHARTS_H
#define APP_REPORT_CHARTS_H

#include <stddef.h>
#include <stdint.h>

#include "app/compare.h"
#include "io/db.h"
#include "io/plot.h"
#include "sim/err.h"

#define REPORT_MAX_CHARTS 64 /* listed in summary.md; more are drawn */

/* What a report drew and what it did not (with the reason). */
typedef struct report_out {
    const char *dir, *ext; /* output folder, chart format "png", ... */
    int n, n_skipped;
    char file[REPORT_MAX_CHARTS][80];
    char what[REPORT_MAX_CHARTS][200];
    plot_meta meta[REPORT_MAX_CHARTS]; /* title, labels, legend drawn
                                        * (charts.json) */
    char skipped[REPORT_MAX_CHARTS][300];
} report_out;

/* What every chart may draw from. */
typedef struct report_src {
    const db_run *run;     /* the stored run, with series and events */
    db *d;                 /* the open store (the sweep chart reads others) */
    const char *sw_metric; /* sweep chart options, NULL for the defaults */
    const char *sw_by;
    const char *sw_constraint; /* sweep chart: 'METRIC.STAT<=V' line, or
                                  NULL (the stored optimize problem's) */
    int64_t opt_id;     /* optimize chart: problem id; 0: the newest problem
                           that evaluated this run, if any */
    const compare *cmp; /* report --runs: the runs compared (the first is
                           run), or NULL for a one-run report */
} report_src;

typedef struct report_chart {
    const char *id;   /* file base: "power", "time_to_train" (+ _N) ... */
    const char *what; /* one line: what it shows */
    /* Draws into o->dir; notes each file in o (report_out_add) or why not
     * (report_out_skip). Returns SIM_OK unless a file could not be written
     * (then *e says why) or a --metric/--by the user gave is wrong. */
    int (*draw)(const report_src *s, report_out *o, sim_err *e);
} report_chart;

extern const report_chart report_charts[];
extern const size_t report_n_charts;

/* Draws every chart of the list into o. Stops at the first error. */
int report_draw_all(const report_src *s, report_out *o, sim_err *e);

/* Notes a chart drawn, with the metadata of the chart drawn last in this
 * process (io/plot.h plot_last_meta): call it right after drawing. */
void report_out_add(report_out *o, const char *file, const char *what);
void report_out_skip(report_out *o, const char *what, const char *why);

#endif
