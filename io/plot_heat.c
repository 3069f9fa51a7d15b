/* io/plot_heat.c: the day x hour heat maps (site power or shortfall,
 * battery state of charge with its health over time) and the load duration
 * curve, over a stored per-step series (io/plot_views.h). Split from
 * io/plot_views.c, which keeps the stacked and monthly views; the two share
 * the series helpers of io/plot_views_int.h. Like every view it reduces the
 * steps to a small table before starting a page, so a refused chart writes
 * no file; it never opens the database or chooses file names. */
#include "io/plot_views_int.h"

#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/plot_charts.h"
#include "io/plot_int.h"
#include "models/source.h"
#include "sim/mem.h"

/* cmap1 ramps: a perceptually ordered blue-green-yellow for levels (power,
 * state of charge) and white-orange-red for shortfall, so "more" reads the
 * same way in every heat map. */
static void ramp(int shortfall)
{
    static const PLFLT pos[5] = {0, 0.25, 0.5, 0.75, 1.0};
    static const PLFLT lr[5] = {0.27, 0.23, 0.13, 0.37, 0.99},
                       lg[5] = {0.00, 0.32, 0.57, 0.79, 0.91},
                       lb[5] = {0.33, 0.55, 0.55, 0.38, 0.14};
    static const PLFLT sr[5] = {1.0, 1.0, 0.99, 0.89, 0.5},
                       sg[5] = {1.0, 0.85, 0.55, 0.10, 0.0},
                       sb[5] = {0.9, 0.45, 0.24, 0.11, 0.15};
    plscmap1n(128);
    if (shortfall)
        plscmap1l(1, 5, pos, sr, sg, sb, NULL);
    else
        plscmap1l(1, 5, pos, lr, lg, lb, NULL);
}

/* Day x hour means of one quantity: z[d * 24 + h], NAN where no step. */
static double *day_hour(const plot_series *s, int which, size_t *nd)
{
    double *z, *w, t_end = s->steps[s->n - 1].t_s + pv_step_dt(s, s->n - 1);
    size_t d0 = (size_t)floor(s->steps[0].t_s / DAY_S);
    *nd = (size_t)ceil(t_end / DAY_S - 1e-9) - d0;
    if (*nd == 0)
        *nd = 1;
    z = sim_xcalloc(*nd * 24, sizeof *z);
    w = sim_xcalloc(*nd * 24, sizeof *w);
    for (size_t i = 0; i < s->n; i++) {
        const res_step *p = &s->steps[i];
        size_t d = (size_t)floor(p->t_s / DAY_S) - d0;
        int h = (int)floor(fmod(p->t_s, DAY_S) / 3600.0);
        double v = which == 0   ? p->facility_w
                   : which == 1 ? fmax(0.0, pv_fin(p->shortfall_w))
                                : 100.0 * p->soc_frac;
        double dt = pv_step_dt(s, i);
        if (d >= *nd || h < 0 || h > 23 || !isfinite(v))
            continue;
        z[d * 24 + (size_t)h] += v * dt;
        w[d * 24 + (size_t)h] += dt;
    }
    for (size_t c = 0; c < *nd * 24; c++)
        z[c] = w[c] > 0 ? z[c] / w[c] : (double)NAN;
    free(w);
    return z;
}

/* One heat map panel with its colour bar to the right. Cells without data
 * are set above zmax, which plimage leaves undrawn (white). */
static void heat_panel(const plot_series *s, const double *z, size_t nd,
                       double vy0, double vy1, double zmin, double zmax,
                       double zscale, const char *zlab, const char *ptitle,
                       int shortfall, int xlabels)
{
    double d0 = floor(s->steps[0].t_s / DAY_S);
    double x0 = pv_dated(s) ? s->t0_unix_s + d0 * DAY_S : d0;
    double x1 =
        pv_dated(s) ? x0 + (double)nd * DAY_S : d0 + (double)nd; /* days */
    PLFLT **img = sim_xcalloc(nd, sizeof *img);
    const char *xopt = pv_dated(s) ? "bcnstd" : "bcnst";
    for (size_t d = 0; d < nd; d++) {
        img[d] = sim_xcalloc(24, sizeof **img);
        for (int h = 0; h < 24; h++) {
            double v = z[d * 24 + (size_t)h];
            img[d][h] = isfinite(v) ? v * zscale : zmax + 1.0;
        }
    }
    if (pv_dated(s))
        plot_date_ticks((double)nd * DAY_S);
    ramp(shortfall);
    plot_panel(VP_X0, 0.84, vy0, vy1, x0, x1, 0, 24,
               xlabels ? (pv_dated(s) ? "date" : "day since simulation start")
                       : NULL,
               "hour of day", ptitle, xlabels ? xopt : "bcst", "bcnstv");
    plimage((const PLFLT *const *)img, (PLINT)nd, 24, x0, x1, 0, 24, zmin, zmax,
            x0, x1, 0, 24);
    /* Axes again on top: the image covers the frame's inner ticks. */
    plcol0(PC_BLACK);
    plbox(xlabels ? xopt : "bcst",
          pv_dated(s) ? plot_date_ticks((double)nd * DAY_S) : 0, 0, "bcstv", 6,
          0);
    {
        PLFLT cw, ch, vals[2] = {zmin, zmax};
        const PLFLT *vp[1] = {vals};
        PLINT lopt[1] = {PL_COLORBAR_LABEL_TOP}, nv[1] = {2}, sub[1] = {0};
        PLFLT ticks[1] = {0.0};
        const char *labs[1] = {zlab}, *aopt[1] = {"bcvtm"};
        plcolorbar(&cw, &ch, PL_COLORBAR_IMAGE, PL_POSITION_RIGHT, 0.03, 0.0,
                   0.03, 0.85, 0, PC_BLACK, 1, 0.0, 0.0, 0, 0.0, 1, lopt, labs,
                   1, aopt, ticks, sub, nv, vp);
    }
    plot_meta_z(zlab);
    for (size_t d = 0; d < nd; d++)
        free(img[d]);
    free(img);
}

/* The load heat map, and below it the shortfall map when any demand went
 * unserved: the pair shows when the site draws most and when it ran short,
 * on the same day axis. */
int plot_power_heatmap(const char *path, const plot_series *s,
                       const char *title, sim_err *err)
{
    size_t nd = 0, nd2 = 0;
    double *z, *u = NULL, zmax = 0, umax = 0, ps, us;
    const char *unit, *uunit;
    char zl[64], ul[64];
    int rc;

    if (s->n < 2)
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "power heat map: needs the time series stored "
                           "with the run");
    z = day_hour(s, 0, &nd);
    for (size_t c = 0; c < nd * 24; c++)
        if (isfinite(z[c]))
            zmax = fmax(zmax, z[c]);
    for (size_t i = 0; i < s->n; i++)
        umax = fmax(umax, pv_fin(s->steps[i].shortfall_w));
    if (!(zmax > 0)) {
        free(z);
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "power heat map: no power in the series");
    }
    if (umax > 0)
        u = day_hour(s, 1, &nd2);
    ps = pv_power_scale(zmax, &unit);
    us = pv_power_scale(umax, &uunit);
    snprintf(zl, sizeof zl, "load [%s]", unit);
    snprintf(ul, sizeof ul, "unserved [%s]", uunit);
    if ((rc = plot_page(path, err)) != SIM_OK) {
        free(z);
        free(u);
        return rc;
    }
    plot_page_title(title);
    if (u) {
        heat_panel(s, z, nd, 0.55, 0.90, 0, zmax * ps, ps, zl,
                   "facility load served (hourly mean)", 0, 0);
        umax = 0;
        for (size_t c = 0; c < nd2 * 24; c++)
            if (isfinite(u[c]))
                umax = fmax(umax, u[c]);
        heat_panel(s, u, nd2, 0.11, 0.46, 0, umax * us, us, ul,
                   "unserved demand (hourly mean)", 1, 1);
    } else {
        heat_panel(s, z, nd, 0.11, 0.90, 0, zmax * ps, ps, zl,
                   "facility load served (hourly mean); no demand went "
                   "unserved",
                   0, 1);
    }
    free(z);
    free(u);
    return plot_finish(path, err);
}

typedef struct vw {
    double v, w;
} vw;

static int cmp_desc(const void *a, const void *b)
{
    const vw *p = a, *q = b;
    return p->v > q->v ? -1 : p->v < q->v;
}

/* Sorts (value, duration) pairs high to low and turns them into a curve
 * against the cumulative share of time [%]: stairs over buckets of at most
 * n/1000 steps, each at its first (highest) value, so the curve is an upper
 * envelope at the chart's resolution and a year of 15-minute steps is 2,000
 * points rather than 70,000 (an SVG of 100 kB, not 2.4 MB). Returns the
 * point count. */
static PLINT duration_curve(const plot_series *s, int which, double ps,
                            PLFLT *x, PLFLT *y)
{
    vw *p = sim_xcalloc(s->n, sizeof *p);
    double total = 0, acc = 0;
    size_t stride = s->n / 1000 + 1, m = 0;
    int g = pv_grid_index();
    for (size_t i = 0; i < s->n; i++) {
        const res_step *q = &s->steps[i];
        p[i].v = pv_fin(which == 0   ? q->demand_w
                        : which == 1 ? q->facility_w
                                     : (g >= 0 ? q->source_w[g] : 0.0));
        p[i].w = pv_step_dt(s, i);
        total += p[i].w;
    }
    qsort(p, s->n, sizeof *p, cmp_desc);
    for (size_t i = 0; i < s->n; i += stride) {
        double v = p[i].v;
        x[m] = 100.0 * acc / total;
        for (size_t k = i; k < i + stride && k < s->n; k++)
            acc += p[k].w;
        x[m + 1] = 100.0 * acc / total;
        y[m] = y[m + 1] = v * ps;
        m += 2;
    }
    free(p);
    return (PLINT)m;
}

/* Sorting each quantity on its own is what a load duration curve is: the
 * share of time the load is at least y. Demand and load served coincide when
 * nothing was shed, so the served line is drawn only when they differ. */
int plot_load_duration(const char *path, const plot_series *s,
                       const char *title, sim_err *err)
{
    double top = 0, any_grid = 0, ps;
    int differs = 0, rc, g = pv_grid_index();
    const char *unit;
    char ylab[64];
    PLFLT *x, *y;
    PLINT np;
    plot_legend L;

    if (s->n < 2)
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "load duration curve: needs the time series "
                           "stored with the run");
    for (size_t i = 0; i < s->n; i++) {
        const res_step *p = &s->steps[i];
        top = fmax(top, fmax(pv_fin(p->demand_w), pv_fin(p->facility_w)));
        if (g >= 0)
            any_grid += pv_fin(p->source_w[g]);
        if (fabs(pv_fin(p->demand_w) - pv_fin(p->facility_w)) >
            1e-6 * fabs(pv_fin(p->facility_w)))
            differs = 1;
    }
    if (!(top > 0))
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "load duration curve: no power in the series");
    if (isfinite(s->it_capacity_w))
        top = fmax(top, s->it_capacity_w);
    if (isfinite(s->contract_w))
        top = fmax(top, s->contract_w);
    ps = pv_power_scale(top, &unit);
    snprintf(ylab, sizeof ylab, "power [%s]", unit);
    if ((rc = plot_page(path, err)) != SIM_OK)
        return rc;
    plot_frame(VP_X0, 0, 100, 0, top * ps * 1.1,
               "share of time at or above the power [%]", ylab, title, NULL,
               NULL);
    x = sim_xmalloc(2 * s->n * sizeof *x);
    y = sim_xmalloc(2 * s->n * sizeof *y);
    memset(&L, 0, sizeof L);
    np = duration_curve(s, 0, ps, x, y);
    plcol0(PC_BLACK);
    plwidth(2.5);
    plline(np, x, y);
    plot_leg_add(&L, PL_LEGEND_LINE, PC_BLACK, 1, 2.5, "Facility demand");
    if (differs) {
        np = duration_curve(s, 1, ps, x, y);
        plcol0(PC_BLUE);
        pllsty(2);
        plline(np, x, y);
        pllsty(1);
        plot_leg_add(&L, PL_LEGEND_LINE, PC_BLUE, 2, 2.5,
                     "Facility load served");
    }
    if (any_grid > 0) {
        np = duration_curve(s, 2, ps, x, y);
        plcol0(PC_SRC0 + g);
        plline(np, x, y);
        plot_leg_add(&L, PL_LEGEND_LINE, PC_SRC0 + g, 1, 2.5, "Grid import");
    }
    pv_ref_lines(s, 0, 100, ps, unit, &L);
    plot_leg_draw(&L);
    free(x);
    free(y);
    return plot_finish(path, err);
}

/* State of charge as a heat map (when in the day the battery is full or
 * empty, across the season) over the state of health as a line on a y range
 * fitted to it, since health moves by a few percent a year and would be a
 * flat line on 0..100 %. */
int plot_battery_heatmap(const char *path, const plot_series *s,
                         const char *title, sim_err *err)
{
    size_t nd = 0, m = 0, nsoh = 0;
    double *z, hlo = INFINITY, hhi = -INFINITY, span;
    int rc;
    PLFLT *x, *y;
    taxis a;

    for (size_t i = 0; i < s->n; i++) {
        if (isfinite(s->steps[i].soc_frac))
            m++;
        if (isfinite(s->steps[i].soh_frac)) {
            nsoh++;
            hlo = fmin(hlo, 100.0 * s->steps[i].soh_frac);
            hhi = fmax(hhi, 100.0 * s->steps[i].soh_frac);
        }
    }
    if (m < 2)
        return sim_err_set(
            err, SIM_EINVAL, path, 0,
            "battery heat map: no state of charge in the series (no battery "
            "at this site, or no time series stored)");
    z = day_hour(s, 2, &nd);
    span = s->steps[s->n - 1].t_s + pv_step_dt(s, s->n - 1) - s->steps[0].t_s;
    if ((rc = plot_page(path, err)) != SIM_OK) {
        free(z);
        return rc;
    }
    plot_page_title(title);
    heat_panel(s, z, nd, nsoh >= 2 ? 0.45 : 0.11, 0.90, 0, 100, 1.0, "SoC [%]",
               "state of charge, SoC (hourly mean)", 0, nsoh < 2);
    free(z);
    if (nsoh >= 2) {
        size_t k = 0;
        double pad = fmax(0.05, 0.1 * (hhi - hlo));
        a = pv_time_axis(s, span);
        plot_panel(VP_X0, 0.84, 0.11, 0.33, a.off + s->steps[0].t_s * a.scale,
                   a.off + (s->steps[0].t_s + span) * a.scale, hlo - pad,
                   hhi + pad, a.label, "state of health [%]",
                   "state of health (capacity left of new)", a.opt, NULL);
        x = sim_xmalloc(s->n * sizeof *x);
        y = sim_xmalloc(s->n * sizeof *y);
        for (size_t i = 0; i < s->n; i++)
            if (isfinite(s->steps[i].soh_frac)) {
                x[k] = a.off + s->steps[i].t_s * a.scale;
                y[k++] = 100.0 * s->steps[i].soh_frac;
            }
        plcol0(PC_PURPLE);
        plwidth(2.0);
        plline((PLINT)k, x, y);
        plwidth(1.0);
        free(x);
        free(y);
    }
    return plot_finish(path, err);
}
