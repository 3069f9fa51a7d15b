/* io/plot_sweep.c: the sweep chart of plot_sweep.h over PLplot. Layout as the
 * run charts: viewport on the left, legend outside on the right, light grid
 * under black axes. Each group gets a colour from a fixed palette; its band is
 * the same colour, lighter (PLplot's alpha is not used, so PNG and SVG stay
 * simple and deterministic).
 *
 * This file owns the sweep chart only; it takes values already summarised per
 * case (app/sweep_table.c does that) and never reads the database. It
 * must never create the chart file before its inputs are checked, so a refused
 * chart leaves nothing behind. */
#include "io/plot_sweep.h"

#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/plot_charts.h"
#include "io/plot_int.h"
#include "sim/mem.h"

enum {
    C_BLACK = 1,
    C_GRID = 2,
    C_LINE0 = 3,
    C_BAND0 = 3 + PLOT_SWEEP_MAX_GROUPS
};

static const int line_rgb[PLOT_SWEEP_MAX_GROUPS][3] = {
    {40, 110, 190}, {200, 30, 30}, {20, 130, 60}, {245, 140, 20},
    {120, 60, 170}, {90, 90, 90},  {0, 150, 160}, {180, 60, 120},
};

/* Copies s into buf with '#' doubled (PLplot's escape character): a copy of
 * plot_charts.c's text_esc, since the two chart files share only plot_int.h,
 * and this helper is too small to widen that interface for. */
static const char *esc(const char *s, char *buf, size_t n)
{
    size_t k = 0;
    for (; s && *s && k + 2 < n; s++) {
        if (*s == '#')
            buf[k++] = '#';
        buf[k++] = *s;
    }
    buf[k] = '\0';
    return buf;
}

typedef struct pt {
    double x, p10, p50, p90;
} pt;

static int cmp_pt(const void *a, const void *b)
{
    const pt *p = a, *q = b;
    return p->x < q->x ? -1 : p->x > q->x;
}

/* One function because the chart is one page whose parts share the ranges:
 * inputs are validated and the x and y ranges found before plot_begin (so a
 * refused chart creates no file), then the axes, then all bands, then all
 * lines, then the legend. Points are sorted by x per group because cases arrive
 * in grid order, which need not be the swept value's order. A case whose metric
 * is NaN (a job that never finished in any replication) is skipped, not plotted
 * as zero. */
int plot_sweep(const char *path, const double *x, const stat_summary *y,
               const size_t *group, size_t n, const char *const *group_names,
               size_t n_groups, const plot_sweep_ref *ref, const char *x_label,
               const char *y_label, const char *title, sim_err *err)
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY, pad;
    pt *pts;
    size_t finite = 0;
    char t[512], xl[256], yl[256];
    int rc;
    plot_legend L;
    int ref_in = 0;

    if (n_groups < 1 || n_groups > PLOT_SWEEP_MAX_GROUPS)
        return sim_err_set(
            err, SIM_EINVAL, path, 0,
            "sweep chart: %zu lines (expected 1..%d; fix the other swept keys)",
            n_groups, PLOT_SWEEP_MAX_GROUPS);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            return sim_err_set(err, SIM_EINVAL, path, 0,
                               "sweep chart: the swept values must be numbers");
        if (group[i] >= n_groups)
            return sim_err_set(err, SIM_EINVAL, path, 0,
                               "sweep chart: bad group %zu", group[i]);
        if (!isfinite(y[i].p50))
            continue;
        finite++;
        x0 = fmin(x0, x[i]);
        x1 = fmax(x1, x[i]);
        y0 = fmin(y0, fmin(y[i].p10, y[i].p50));
        y1 = fmax(y1, fmax(y[i].p90, y[i].p50));
    }
    if (finite == 0)
        return sim_err_set(
            err, SIM_EINVAL, path, 0,
            "sweep chart: no case has a value of the metric (a job that never "
            "finished?)");
    /* The constraint line joins the y range unless it is far away (then
     * the legend says so rather than squashing the lines). */
    if (ref && isfinite(ref->v)) {
        double span = fmax(y1 - y0, fabs(y1) * 0.05);
        ref_in = ref->v >= y0 - 2 * span && ref->v <= y1 + 2 * span;
        if (ref_in) {
            y0 = fmin(y0, ref->v);
            y1 = fmax(y1, ref->v);
        }
    }
    if ((rc = plot_begin(path, PLOT_CHART_W, PLOT_CHART_H, err)) != SIM_OK)
        return rc;
    /* cmap0 has 16 colours by default; lines and bands need 19. */
    plscmap0n(C_BAND0 + PLOT_SWEEP_MAX_GROUPS);
    plscol0(0, 255, 255, 255);
    plscol0(C_BLACK, 0, 0, 0);
    plscol0(C_GRID, 225, 225, 225);
    for (int g = 0; g < PLOT_SWEEP_MAX_GROUPS; g++) {
        const int *c = line_rgb[g];
        plscol0(C_LINE0 + g, c[0], c[1], c[2]);
        /* The band: 75 % of the way to white. */
        plscol0(C_BAND0 + g, c[0] + (255 - c[0]) * 3 / 4,
                c[1] + (255 - c[1]) * 3 / 4, c[2] + (255 - c[2]) * 3 / 4);
    }
    pladv(0);
    plschr(0.0, 0.8);
    plot_meta_text(1.0);
    /* A single x value (or y value) would make a zero-width window, which
     * PLplot refuses; the fallback pad gives it a visible width. */
    pad = x1 > x0 ? 0.04 * (x1 - x0) : fmax(1.0, fabs(x0) * 0.05);
    x0 -= pad;
    x1 += pad;
    pad = y1 > y0 ? 0.08 * (y1 - y0) : fmax(1e-9, fabs(y0) * 0.05);
    y0 -= pad;
    y1 += pad;
    plvpor(0.10, 0.70, 0.11, 0.90);
    plwind(x0, x1, y0, y1);
    plcol0(C_GRID);
    plbox("g", 0, 0, "g", 0, 0);
    plcol0(C_BLACK);
    plbox("bcnst", 0, 0, "bcnstv", 0, 0);
    plmtex("b", 3.2, 0.5, 0.5, esc(x_label, xl, sizeof xl));
    plmtex("l", 5.0, 0.5, 0.5, esc(y_label, yl, sizeof yl));
    plot_title(title);
    (void)t;
    plot_meta_axes(x_label, y_label);

    if (ref_in) { /* under the bands and lines */
        PLFLT lx[2] = {x0, x1}, ly[2] = {ref->v, ref->v};
        plcol0(C_BLACK);
        pllsty(2);
        plwidth(2.0);
        plline(2, lx, ly);
        pllsty(1);
        plwidth(1.0);
    }
    pts = sim_xcalloc(n + 1, sizeof *pts);
    /* Two passes: every band first, then every line, so no band hides a
     * line. */
    for (size_t pass = 0; pass < 2 * n_groups; pass++) {
        size_t g = pass % n_groups, m = 0;
        int bands = pass < n_groups;
        for (size_t i = 0; i < n; i++)
            if (group[i] == g && isfinite(y[i].p50))
                pts[m++] =
                    /* A case with one replication has a P50 but may lack a
                     * spread; its band collapses to the line instead of
                     * dropping the point. */
                    (pt){x[i], isfinite(y[i].p10) ? y[i].p10 : y[i].p50,
                         y[i].p50, isfinite(y[i].p90) ? y[i].p90 : y[i].p50};
        if (m == 0)
            continue;
        qsort(pts, m, sizeof *pts, cmp_pt);
        if (bands && m >= 2) {
            PLFLT *bx = sim_xcalloc(2 * m, sizeof *bx),
                  *by = sim_xcalloc(2 * m, sizeof *by);
            for (size_t k = 0; k < m; k++) {
                bx[k] = pts[k].x;
                by[k] = pts[k].p10;
                bx[2 * m - 1 - k] = pts[k].x;
                by[2 * m - 1 - k] = pts[k].p90;
            }
            plcol0(C_BAND0 + (int)g);
            plfill((PLINT)(2 * m), bx, by);
            free(bx);
            free(by);
        }
        if (!bands) {
            PLFLT *lx = sim_xcalloc(m, sizeof *lx),
                  *ly = sim_xcalloc(m, sizeof *ly);
            for (size_t k = 0; k < m; k++) {
                lx[k] = pts[k].x;
                ly[k] = pts[k].p50;
            }
            plcol0(C_LINE0 + (int)g);
            plwidth(2.5);
            if (m >= 2)
                plline((PLINT)m, lx, ly);
            plstring((PLINT)m, lx, ly, "#(840)"); /* filled circles */
            /* Whiskers show the range where the band cannot (one point). */
            plwidth(1.5);
            for (size_t k = 0; k < m; k++) {
                PLFLT wx[2] = {pts[k].x, pts[k].x},
                      wy[2] = {pts[k].p10, pts[k].p90};
                plline(2, wx, wy);
            }
            plwidth(1.0);
            free(lx);
            free(ly);
        }
    }
    free(pts);
    /* Legend: one line per group, what the band is, the constraint; the
     * kit's legend column (io/plot_int.h): inside the page, text never
     * below the readable size, long labels wrapped. */
    memset(&L, 0, sizeof L);
    for (size_t g = 0; g < n_groups; g++) {
        plot_leg_add(&L, PL_LEGEND_LINE | PL_LEGEND_SYMBOL, C_LINE0 + (int)g, 1,
                     2.5,
                     n_groups > 1 && group_names ? group_names[g]
                                                 : "P50 over replications");
        L.sym[L.n - 1] = "#(840)";
        L.sscale[L.n - 1] = 1.0;
    }
    plot_leg_add(&L, PL_LEGEND_COLOR_BOX, C_BAND0, 1, 1.0,
                 "P10-P90 over replications");
    if (ref) {
        char lab[160];
        snprintf(lab, sizeof lab, "%.100s%s", ref->label,
                 ref_in ? "" : " (off the chart)");
        plot_leg_add(&L, PL_LEGEND_LINE, C_BLACK, 2, 2.0, lab);
    }
    plot_leg_draw_in(&L, 0.715, 0.985, 0.11, 0.90);
    return plot_finish(path, err);
}
