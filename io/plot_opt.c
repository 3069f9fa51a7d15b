/* io/plot_opt.c: the optimize chart of plot_opt.h over PLplot, with the
 * run charts' kit (io/plot_int.h: palette, frame, legend column, metadata
 * for charts.json).
 *
 * Marks are unicode glyphs drawn with plstring (filled circle, cross,
 * ring) rather than PLplot's Hershey markers, so the legend shows the very
 * glyph the plot does; DejaVu Sans, which cairo uses, has all three.
 * Infeasible designs are drawn first and feasible ones over them, the
 * front and the best design last, so the answer is never hidden under a
 * rejected neighbour. This file owns the drawing only; app/opt_chart.c
 * picks the axes and reads the database. It never creates the file before
 * its inputs are checked. */
#include "io/plot_opt.h"

#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/plot_charts.h"
#include "io/plot_int.h"
#include "sim/mem.h"

#define MAX_REFS 4
#define SYM_FEAS "#[0x25cf]"   /* filled circle */
#define SYM_INFEAS "#[0x00d7]" /* multiplication sign */
#define SYM_BEST "#[0x25ce]"   /* bullseye */

static int cmp_x(const void *a, const void *b)
{
    const double *p = a, *q = b;
    return p[0] < q[0] ? -1 : p[0] > q[0] ? 1 : (p[1] > q[1]) - (p[1] < q[1]);
}

/* The points of n with all of flags want set (and none of not), finite. */
static size_t pick(const double *x, const double *y, const int *flags, size_t n,
                   int want, int not, PLFLT *px, PLFLT *py)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if ((flags[i] & want) == want && !(flags[i] & not ) && isfinite(x[i]) &&
            isfinite(y[i])) {
            px[m] = x[i];
            py[m++] = y[i];
        }
    return m;
}

/* One function, as plot_sweep: the ranges (designs and reference lines)
 * are found before plot_begin so a refused chart writes nothing, then the
 * frame, the reference lines under the points, the points by class, the
 * legend. */
int plot_optimize(const char *path, const double *x, const double *y,
                  const int *flags, size_t n, const plot_opt_ref *refs,
                  size_t n_refs, const char *x_label, const char *y_label,
                  const char *title, sim_err *err)
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY, pad;
    PLFLT *px, *py;
    size_t m, finite = 0, n_inf = 0;
    plot_legend L;
    char xl[256], yl[256];
    int rc;
    static const int ref_style[MAX_REFS] = {2, 3, 4, 5};

    if (n_refs > MAX_REFS)
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "optimize chart: %zu reference lines (at most %d)",
                           n_refs, MAX_REFS);
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && isfinite(y[i])) {
            finite++;
            n_inf += !(flags[i] & PLOT_OPT_FEASIBLE);
            x0 = fmin(x0, x[i]);
            x1 = fmax(x1, x[i]);
            y0 = fmin(y0, y[i]);
            y1 = fmax(y1, y[i]);
        }
    if (finite == 0)
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "optimize chart: no evaluated design has values "
                           "of both quantities");
    /* A constraint line far from every design would squash the points; it
     * is drawn when it lies within twice the designs' span, and otherwise
     * named in the legend as off the chart. */
    for (size_t k = 0; k < n_refs; k++) {
        double lo = refs[k].on_x ? x0 : y0, hi = refs[k].on_x ? x1 : y1,
               span = fmax(hi - lo, fabs(hi) * 0.05);
        if (refs[k].v >= lo - 2 * span && refs[k].v <= hi + 2 * span) {
            if (refs[k].on_x) {
                x0 = fmin(x0, refs[k].v);
                x1 = fmax(x1, refs[k].v);
            } else {
                y0 = fmin(y0, refs[k].v);
                y1 = fmax(y1, refs[k].v);
            }
        }
    }
    if ((rc = plot_page(path, err)) != SIM_OK)
        return rc;
    pad = x1 > x0 ? 0.05 * (x1 - x0) : fmax(1e-9, fabs(x0) * 0.05);
    x0 -= pad;
    x1 += pad;
    pad = y1 > y0 ? 0.07 * (y1 - y0) : fmax(1e-9, fabs(y0) * 0.05);
    y0 -= pad;
    y1 += pad;
    plot_frame(VP_X0 + 0.02, x0, x1, y0, y1, plot_esc(x_label, xl, sizeof xl),
               plot_esc(y_label, yl, sizeof yl), title, NULL, NULL);
    memset(&L, 0, sizeof L);
    px = sim_xcalloc(n + 2, sizeof *px);
    py = sim_xcalloc(n + 2, sizeof *py);

    /* Reference lines first, under the points. */
    for (size_t k = 0; k < n_refs; k++) {
        int in = refs[k].on_x ? refs[k].v >= x0 && refs[k].v <= x1
                              : refs[k].v >= y0 && refs[k].v <= y1;
        char lab[200];
        snprintf(lab, sizeof lab, "%.170s%s", refs[k].label,
                 in ? "" : " (off the chart)");
        if (in) {
            PLFLT lx[2], ly[2];
            lx[0] = refs[k].on_x ? refs[k].v : x0;
            lx[1] = refs[k].on_x ? refs[k].v : x1;
            ly[0] = refs[k].on_x ? y0 : refs[k].v;
            ly[1] = refs[k].on_x ? y1 : refs[k].v;
            plcol0(PC_GREY);
            pllsty(ref_style[k]);
            plwidth(2.0);
            plline(2, lx, ly);
            pllsty(1);
            plwidth(1.0);
        }
        plot_leg_add(&L, PL_LEGEND_LINE, PC_GREY, ref_style[k], 2.0, lab);
    }
    /* Infeasible designs, then feasible ones. */
    m = pick(x, y, flags, n, 0, PLOT_OPT_FEASIBLE, px, py);
    if (m) {
        plcol0(PC_RED);
        plschr(0.0, 1.3);
        plstring((PLINT)m, px, py, SYM_INFEAS);
        plot_leg_add(&L, PL_LEGEND_SYMBOL, PC_RED, 1, 1.0, "infeasible design");
        L.sym[L.n - 1] = SYM_INFEAS;
    }
    m = pick(x, y, flags, n, PLOT_OPT_FEASIBLE, 0, px, py);
    if (m) {
        plcol0(PC_BLUE);
        plschr(0.0, 1.0);
        plstring((PLINT)m, px, py, SYM_FEAS);
        plot_leg_add(&L, PL_LEGEND_SYMBOL, PC_BLUE, 1, 1.0, "feasible design");
        L.sym[L.n - 1] = SYM_FEAS;
    }
    /* The front, joined in x order (a staircase of non-dominated points
     * reads as the trade-off curve). */
    m = pick(x, y, flags, n, PLOT_OPT_PARETO | PLOT_OPT_FEASIBLE, 0, px, py);
    if (m >= 2) {
        double *xy = sim_xcalloc(2 * m, sizeof *xy);
        for (size_t i = 0; i < m; i++) {
            xy[2 * i] = px[i];
            xy[2 * i + 1] = py[i];
        }
        qsort(xy, m, 2 * sizeof *xy, cmp_x);
        for (size_t i = 0; i < m; i++) {
            px[i] = xy[2 * i];
            py[i] = xy[2 * i + 1];
        }
        free(xy);
        plcol0(PC_GREEN);
        plwidth(2.5);
        plline((PLINT)m, px, py);
        plwidth(1.0);
        plot_leg_add(&L, PL_LEGEND_LINE, PC_GREEN, 1, 2.5, "Pareto front");
    }
    m = pick(x, y, flags, n, PLOT_OPT_BEST, 0, px, py);
    if (m) {
        plcol0(PC_ORANGE);
        plschr(0.0, 2.2);
        plstring((PLINT)m, px, py, SYM_BEST);
        plot_leg_add(&L, PL_LEGEND_SYMBOL, PC_ORANGE, 1, 1.0,
                     n_inf == finite ? "best (none feasible)" : "best design");
        L.sym[L.n - 1] = SYM_BEST;
    }
    plschr(0.0, CH_BASE);
    free(px);
    free(py);
    plot_leg_draw(&L);
    return plot_finish(path, err);
}
