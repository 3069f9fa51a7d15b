/* io/plot_compare.c: the comparison chart (see plot_compare.h), drawn with
 * the shared kit of io/plot_int.h.
 *
 * Layout: the first panel (the jobs) takes the upper half of the plot area,
 * the others (site totals, up to two) are stacked below it; the legend
 * column on the right names the runs. Each row of a panel is a band split
 * into one lane per run, run 1 at the top, so the baseline is read first as
 * in the table. A lane holds a P10-P90 bar in the run's colour and a black
 * tick at the P50; a run whose value is a single point (P10 = P90) still
 * shows its tick. Axes start at zero: a comparison of magnitudes read from
 * a truncated axis exaggerates differences, and the table has the numbers. */
#include "io/plot_compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/plot_int.h"

/* Run colours, distinct from each other and from the black P50 tick. */
static const int run_col[PLOT_CMP_MAX_RUNS] = {
    PC_BLUE, PC_ORANGE, PC_GREEN, PC_PURPLE, PC_RED, PC_GREY, PC_QUEUE};

/* Largest P90 (else P50) of a panel, 0 when it has nothing to draw. */
static double panel_top(const plot_cmp_panel *p, size_t n_runs)
{
    double top = 0;
    for (size_t i = 0; i < p->n_rows * n_runs; i++) {
        const stat_summary *s = &p->s[i];
        if (s->n == 0)
            continue;
        if (isfinite(s->p90))
            top = fmax(top, s->p90);
        if (isfinite(s->p50))
            top = fmax(top, s->p50);
    }
    return top;
}

/* One panel in the viewport [vx0,vx1] x [vy0,vy1]; rows labelled left of
 * it. */
static void draw_panel(const plot_cmp_panel *p, size_t n_runs, double vx0,
                       double vx1, double vy0, double vy1)
{
    double top = panel_top(p, n_runs), nr = (double)p->n_rows;
    double lane = 0.8 / (double)n_runs;
    if (!(top > 0))
        top = 1.0;
    /* Up to seven digits before PLplot switches the x labels to a shared
     * "(x10^4)" multiplier, which reads as a unit change next to "[MWh]";
     * the labels are horizontal, so the width is there. */
    plsxax(7, 0);
    plot_panel(vx0, vx1, vy0, vy1, 0, top * 1.08, 0, nr, p->xlabel, NULL,
               p->title, "bcnst", "bc");
    plsxax(0, 0);
    for (size_t j = 0; j < p->n_rows; j++) {
        double yb = nr - (double)j; /* row j spans [yb - 1, yb] */
        char nm[160];
        /* A one-row panel (the site) is named by its title; its label
         * would run into the panel to its left. */
        plcol0(PC_BLACK);
        if (p->n_rows > 1)
            plmtex("lv", 1.0, (yb - 0.5) / nr, 1.0,
                   plot_esc(p->rows[j], nm, sizeof nm));
        for (size_t r = 0; r < n_runs; r++) {
            const stat_summary *s = &p->s[j * n_runs + r];
            double yc = yb - 0.1 - lane * ((double)r + 0.5);
            double h = lane * 0.38;
            if (s->n == 0 || !isfinite(s->p50))
                continue;
            if (isfinite(s->p10) && isfinite(s->p90) && s->p90 > s->p10) {
                PLFLT x[4] = {s->p10, s->p90, s->p90, s->p10},
                      y[4] = {yc - h, yc - h, yc + h, yc + h};
                plcol0(run_col[r]);
                plfill(4, x, y);
            }
            {
                PLFLT x[2] = {s->p50, s->p50},
                      y[2] = {yc - h * 1.4, yc + h * 1.4};
                plcol0(run_col[r]);
                plwidth(5.0);
                plline(2, x, y);
                plcol0(PC_BLACK);
                plwidth(2.0);
                plline(2, x, y);
                plwidth(1.0);
            }
        }
    }
}

/* One function draws the whole page because the panels share the legend and
 * the run colours; the split of the page is fixed (jobs on top, up to two
 * site panels below), since a report compares a handful of quantities and a
 * general grid layout would be code for no reader. */
int plot_compare(const char *path, const plot_cmp_panel *panels,
                 size_t n_panels, const char *const *runs, size_t n_runs,
                 const char *title, sim_err *err)
{
    double any = 0;
    size_t n_low;
    int rc;
    plot_legend L;
    if (n_runs == 0 || n_runs > PLOT_CMP_MAX_RUNS)
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "comparison chart: %zu runs (1 to %d can be told "
                           "apart by colour)",
                           n_runs, PLOT_CMP_MAX_RUNS);
    for (size_t k = 0; k < n_panels; k++)
        any += panel_top(&panels[k], n_runs);
    if (n_panels == 0 || !(any > 0))
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "comparison chart: no value to draw");
    if ((rc = plot_page(path, err)) != SIM_OK)
        return rc;
    plot_page_title(title);
    /* Full-width panels stacked: side by side, a narrow panel's tick labels
     * and PLplot's "(x10^N)" factor ran into each other. */
    draw_panel(&panels[0], n_runs, VP_ROWS, VP_X1, 0.58, 0.89);
    n_low = n_panels - 1 > 2 ? 2 : n_panels - 1;
    for (size_t k = 0; k < n_low; k++)
        draw_panel(&panels[k + 1], n_runs, VP_ROWS, VP_X1,
                   0.355 - 0.245 * (double)k, 0.435 - 0.245 * (double)k);
    memset(&L, 0, sizeof L);
    for (size_t r = 0; r < n_runs; r++)
        plot_leg_add(&L, PL_LEGEND_COLOR_BOX, run_col[r], 1, 1.0, runs[r]);
    plot_leg_add(&L, PL_LEGEND_LINE, PC_BLACK, 1, 2.0, "P50 (bar: P10-P90)");
    /* The legend column is placed against the current viewport; restore the
     * top panel's so it is top aligned with the page's plot area. */
    plvpor(VP_ROWS, VP_X1, 0.58, 0.89);
    plot_leg_draw(&L);
    return plot_finish(path, err);
}
