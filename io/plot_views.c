/* io/plot_views.c: the views of io/plot_views.h over a stored per-step
 * series, drawn with the kit of io/plot_int.h.
 *
 * Every view first reduces the steps to a small table (days x sources, months
 * x sources, months x 24 hours, days x 24 hours, sorted values), each step
 * weighted by its duration so a downsampled or uneven series averages right,
 * and only then starts a page: a refused chart writes no file. Energies are
 * sums of power x duration; means are energies over the time covered; a cell
 * no step covers is left empty (NAN), never drawn as zero.
 *
 * Time: steps are seconds since the simulation start, which the loader puts at
 * local midnight of the start date; calendar days, months and hours of day are
 * counted from there, and dates are drawn as UTC so no time zone moves them.
 * This file never opens the database or chooses file names (the report does)
 * and never draws outside the page (plot_leg_draw keeps legends inside). */
#include "io/plot_views.h"
#include "io/plot_views_int.h"

#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/plot_charts.h"
#include "io/plot_int.h"
#include "models/source.h"
#include "sim/mem.h"

#define MAX_MONTHS 240 /* twenty years; longer series are cut with a note */

double pv_step_dt(const plot_series *s, size_t i)
{
    if (s->dt_s && isfinite(s->dt_s[i]) && s->dt_s[i] > 0)
        return s->dt_s[i];
    if (i + 1 < s->n)
        return s->steps[i + 1].t_s - s->steps[i].t_s;
    return s->n >= 2 ? s->steps[i].t_s - s->steps[i - 1].t_s : 3600.0;
}

double pv_fin(double v)
{
    return isfinite(v) ? v : 0.0;
}

int pv_dated(const plot_series *s)
{
    return isfinite(s->t0_unix_s);
}

/* MW from 1 MW up, else kW, so a small test site and a 100 MW campus both get
 * tick labels with a few digits. */
double pv_power_scale(double max_w, const char **unit)
{
    if (max_w >= 1e6) {
        *unit = "MW";
        return 1e-6;
    }
    *unit = "kW";
    return 1e-3;
}

/* Dates when the series has a start date, else hours below two days of span
 * and days above. */
taxis pv_time_axis(const plot_series *s, double span_s)
{
    taxis a;
    if (pv_dated(s)) {
        a.scale = 1.0;
        a.off = s->t0_unix_s;
        a.label = "date";
        a.opt = "bcnstd";
        plot_date_ticks(span_s);
    } else if (span_s < 2 * DAY_S) {
        a.scale = 1.0 / 3600.0;
        a.off = 0;
        a.label = "time since simulation start [h]";
        a.opt = "bcnst";
    } else {
        a.scale = 1.0 / DAY_S;
        a.off = 0;
        a.label = "time since simulation start [days]";
        a.opt = "bcnst";
    }
    return a;
}

/* Index in models/source.h of the grid, -1 if the registry has none. */
int pv_grid_index(void)
{
    for (int k = 0; k < SRC_N; k++)
        if (strcmp(source_table[k].name, "grid") == 0)
            return k;
    return -1;
}

/* Horizontal reference lines across the window, with legend entries: the IT
 * capacity the modules can draw and the grid supply contract. */
void pv_ref_lines(const plot_series *s, double x0, double x1, double ps,
                  const char *unit, plot_legend *L)
{
    char t[96];
    int g = pv_grid_index();
    PLFLT x[2] = {x0, x1}, y[2];
    plwidth(2.0);
    if (isfinite(s->it_capacity_w) && s->it_capacity_w > 0) {
        y[0] = y[1] = s->it_capacity_w * ps;
        plcol0(PC_GREY);
        pllsty(2);
        plline(2, x, y);
        snprintf(t, sizeof t, "IT capacity (%.3g %s)", y[0], unit);
        plot_leg_add(L, PL_LEGEND_LINE, PC_GREY, 2, 2.0, t);
    }
    if (isfinite(s->contract_w) && s->contract_w > 0 && g >= 0) {
        y[0] = y[1] = s->contract_w * ps;
        plcol0(PC_SRC0 + g);
        pllsty(4);
        plline(2, x, y);
        snprintf(t, sizeof t, "Grid supply contract (%.3g %s)", y[0], unit);
        plot_leg_add(L, PL_LEGEND_LINE, PC_SRC0 + g, 4, 2.0, t);
    }
    pllsty(1);
    plwidth(1.0);
}

/* Time-binned means of every quantity a stack draws, bins of bin_s from
 * the first step (bin_s 0: one bin per step). */
typedef struct bins {
    size_t nb;
    double *x0, *x1; /* bin edges, seconds since start */
    double *src;     /* nb x SRC_N mean power [W] */
    double *fac, *dem, *uns, *w;
} bins;

static void bins_free(bins *b)
{
    free(b->x0);
    free(b->x1);
    free(b->src);
    free(b->fac);
    free(b->dem);
    free(b->uns);
    free(b->w);
}

static void bin_series(const plot_series *s, double bin_s, bins *b)
{
    double t_first = s->steps[0].t_s, t_end;
    t_end = s->steps[s->n - 1].t_s + pv_step_dt(s, s->n - 1);
    b->nb = bin_s > 0 ? (size_t)ceil((t_end - t_first) / bin_s - 1e-9) : s->n;
    if (b->nb == 0)
        b->nb = 1;
    b->x0 = sim_xcalloc(b->nb, sizeof *b->x0);
    b->x1 = sim_xcalloc(b->nb, sizeof *b->x1);
    b->src = sim_xcalloc(b->nb * SRC_N, sizeof *b->src);
    b->fac = sim_xcalloc(b->nb, sizeof *b->fac);
    b->dem = sim_xcalloc(b->nb, sizeof *b->dem);
    b->uns = sim_xcalloc(b->nb, sizeof *b->uns);
    b->w = sim_xcalloc(b->nb, sizeof *b->w);
    for (size_t i = 0; i < b->nb; i++) {
        b->x0[i] = bin_s > 0 ? t_first + (double)i * bin_s : s->steps[i].t_s;
        b->x1[i] = bin_s > 0 ? fmin(t_end, b->x0[i] + bin_s)
                             : s->steps[i].t_s + pv_step_dt(s, i);
    }
    for (size_t i = 0; i < s->n; i++) {
        const res_step *p = &s->steps[i];
        double dt = pv_step_dt(s, i);
        size_t k = bin_s > 0 ? (size_t)floor((p->t_s - t_first) / bin_s) : i;
        if (k >= b->nb)
            k = b->nb - 1;
        for (int q = 0; q < SRC_N; q++)
            b->src[k * SRC_N + (size_t)q] += pv_fin(p->source_w[q]) * dt;
        b->fac[k] += pv_fin(p->facility_w) * dt;
        b->dem[k] += pv_fin(p->demand_w) * dt;
        b->uns[k] += fmax(0.0, pv_fin(p->shortfall_w)) * dt;
        b->w[k] += dt;
    }
    for (size_t k = 0; k < b->nb; k++) {
        double w = b->w[k] > 0 ? b->w[k] : 1.0;
        for (int q = 0; q < SRC_N; q++)
            b->src[k * SRC_N + (size_t)q] /= w;
        b->fac[k] /= w;
        b->dem[k] /= w;
        b->uns[k] /= w;
    }
}

/* Fills the band between lo[] and lo[] + v[] as stairs (flat across each
 * bin), then raises lo. */
static void stair_band(const bins *b, const taxis *a, const double *v,
                       size_t stride, double *lo, double ps, PLFLT *x, PLFLT *y)
{
    size_t nb = b->nb, m = 4 * nb;
    for (size_t i = 0; i < nb; i++) {
        double top = lo[i] + pv_fin(v[i * stride]) * ps;
        x[2 * i] = a->off + b->x0[i] * a->scale;
        x[2 * i + 1] = a->off + b->x1[i] * a->scale;
        y[2 * i] = y[2 * i + 1] = top;
        x[m - 1 - 2 * i] = x[2 * i];
        x[m - 2 - 2 * i] = x[2 * i + 1];
        y[m - 1 - 2 * i] = y[m - 2 - 2 * i] = lo[i];
        lo[i] = top;
    }
    plfill((PLINT)m, x, y);
}

static void stair_line(const bins *b, const taxis *a, const double *v,
                       double ps, PLFLT *x, PLFLT *y)
{
    for (size_t i = 0; i < b->nb; i++) {
        x[2 * i] = a->off + b->x0[i] * a->scale;
        x[2 * i + 1] = a->off + b->x1[i] * a->scale;
        y[2 * i] = y[2 * i + 1] = v[i] * ps;
    }
    plline((PLINT)(2 * b->nb), x, y);
}

/* One function because the stack's passes share bins and scales: bins first
 * (daily over ten days of span, so a year is 365 stairs instead of 35,040
 * lines, and solar's daily energy shows as a band), then the y range over
 * stack, demand and reference lines, then bands bottom-up in registry order,
 * unserved on top, lines last. A source that never delivered takes no band
 * and no legend entry. */
int plot_power_stack(const char *path, const plot_series *s, const char *title,
                     sim_err *err)
{
    double span, bin_s, top = 0, ps, any[SRC_N] = {0}, any_uns = 0;
    int demand_differs = 0, rc;
    const char *unit;
    char ylab[96], t[160];
    bins b;
    taxis a;
    PLFLT *x, *y;
    double *lo;
    plot_legend L;

    if (s->n < 2)
        return sim_err_set(
            err, SIM_EINVAL, path, 0,
            "power chart: needs at least 2 time steps (got %zu; store "
            "the time series with the run)",
            s->n);
    span = s->steps[s->n - 1].t_s + pv_step_dt(s, s->n - 1) - s->steps[0].t_s;
    bin_s = span > 10 * DAY_S ? DAY_S : span > DAY_S ? 3600.0 : 0.0;
    bin_series(s, bin_s, &b);
    for (size_t i = 0; i < b.nb; i++) {
        double sum = b.uns[i];
        for (int k = 0; k < SRC_N; k++) {
            sum += b.src[i * SRC_N + (size_t)k];
            any[k] += b.src[i * SRC_N + (size_t)k];
        }
        any_uns += b.uns[i];
        top = fmax(top, fmax(sum, fmax(b.fac[i], b.dem[i])));
        /* Relative 1e-6: equal up to rounding when nothing was shed. */
        if (fabs(b.dem[i] - b.fac[i]) > 1e-6 * fabs(b.fac[i]))
            demand_differs = 1;
    }
    if (!(top > 0)) {
        bins_free(&b);
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "power chart: no power in the series");
    }
    if (isfinite(s->it_capacity_w))
        top = fmax(top, s->it_capacity_w);
    if (isfinite(s->contract_w))
        top = fmax(top, s->contract_w);
    ps = pv_power_scale(top, &unit);
    if ((rc = plot_page(path, err)) != SIM_OK) {
        bins_free(&b);
        return rc;
    }
    a = pv_time_axis(s, span);
    snprintf(ylab, sizeof ylab, "%s power [%s]",
             bin_s >= DAY_S    ? "daily mean"
             : bin_s >= 3600.0 ? "hourly mean"
                               : "",
             unit);
    plot_frame(VP_X0, a.off + s->steps[0].t_s * a.scale,
               a.off + (s->steps[0].t_s + span) * a.scale, 0, top * ps * 1.1,
               a.label, ylab[0] == ' ' ? ylab + 1 : ylab, title, a.opt, NULL);
    x = sim_xmalloc(4 * b.nb * sizeof *x);
    y = sim_xmalloc(4 * b.nb * sizeof *y);
    lo = sim_xcalloc(b.nb, sizeof *lo);
    memset(&L, 0, sizeof L);
    for (int k = 0; k < SRC_N; k++) {
        if (!(any[k] > 0))
            continue;
        plcol0(PC_SRC0 + k);
        stair_band(&b, &a, b.src + k, SRC_N, lo, ps, x, y);
        plot_leg_add(&L, PL_LEGEND_COLOR_BOX, PC_SRC0 + k, 1, 1.0,
                     source_table[k].label);
    }
    if (any_uns > 0) {
        plcol0(PC_RED);
        stair_band(&b, &a, b.uns, 1, lo, ps, x, y);
        plot_leg_add(&L, PL_LEGEND_COLOR_BOX, PC_RED, 1, 1.0,
                     "Unserved demand");
    }
    plcol0(PC_BLACK);
    plwidth(1.5);
    stair_line(&b, &a, b.fac, ps, x, y);
    plot_leg_add(&L, PL_LEGEND_LINE, PC_BLACK, 1, 1.5, "Facility load served");
    if (demand_differs) {
        plcol0(PC_RED);
        pllsty(2);
        stair_line(&b, &a, b.dem, ps, x, y);
        pllsty(1);
        plot_leg_add(&L, PL_LEGEND_LINE, PC_RED, 2, 1.5, "Facility demand");
    }
    pv_ref_lines(s, a.off + s->steps[0].t_s * a.scale,
                 a.off + (s->steps[0].t_s + span) * a.scale, ps, unit, &L);
    if (bin_s > 0) {
        /* Say what a stair is, so a daily mean is not read as a peak. */
        snprintf(t, sizeof t, "Stairs: %s means",
                 bin_s >= DAY_S ? "daily" : "hourly");
        plot_leg_add(&L, PL_LEGEND_NONE, PC_BLACK, 1, 1.0, t);
    }
    plwidth(1.0);
    plot_leg_draw(&L);
    rc = plot_finish(path, err);
    free(x);
    free(y);
    free(lo);
    bins_free(&b);
    return rc;
}

/* Calendar month (year * 12 + month - 1) of time t_s since the start. */
static int month_of(const plot_series *s, double t_s)
{
    time_t u = (time_t)floor(s->t0_unix_s + t_s);
    struct tm tm;
    gmtime_r(&u, &tm);
    return (tm.tm_year + 1900) * 12 + tm.tm_mon;
}

static const char *const month_abbr[12] = {"Jan", "Feb", "Mar", "Apr",
                                           "May", "Jun", "Jul", "Aug",
                                           "Sep", "Oct", "Nov", "Dec"};

/* Months the series covers, from the first step's month: *first and the
 * count (capped at MAX_MONTHS). */
static size_t month_span(const plot_series *s, int *first)
{
    int last;
    *first = month_of(s, s->steps[0].t_s);
    last = month_of(s, s->steps[s->n - 1].t_s);
    return (size_t)(last - *first + 1) > MAX_MONTHS
               ? MAX_MONTHS
               : (size_t)(last - *first + 1);
}

static int need_dated(const plot_series *s, const char *path, const char *what,
                      sim_err *err)
{
    if (s->n < 2)
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "%s: needs the time series stored with the run",
                           what);
    if (!pv_dated(s))
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "%s: the scenario's start date is not stored with "
                           "the run, so calendar months are unknown",
                           what);
    return SIM_OK;
}

/* Per step the demand splits exactly into what the sources delivered, what
 * went unserved and what the shortage policy held back (throttled, paused
 * or shed jobs: dispatch.c's demand is "before the policy", the load
 * served after it); the last is the remainder, never negative beyond
 * rounding (tests/test_report.c checks it against time_short_s). */
int plot_monthly_energy_sums(const plot_series *s, int *first, size_t *nm,
                             double **e)
{
    size_t nmo;
    double *t;
    if (s->n < 2 || !pv_dated(s))
        return SIM_EINVAL;
    nmo = month_span(s, first);
    t = sim_xcalloc(nmo * PLOT_MONTH_ROW, sizeof *t);
    for (size_t i = 0; i < s->n; i++) {
        const res_step *p = &s->steps[i];
        int m = month_of(s, p->t_s) - *first;
        double dt = pv_step_dt(s, i), *row, del = 0, uns, dem;
        if (m < 0 || (size_t)m >= nmo)
            continue;
        row = t + (size_t)m * PLOT_MONTH_ROW;
        for (int k = 0; k < SRC_N; k++) {
            row[k] += pv_fin(p->source_w[k]) * dt;
            del += pv_fin(p->source_w[k]);
        }
        uns = fmax(0.0, pv_fin(p->shortfall_w));
        dem = pv_fin(p->demand_w);
        row[PLOT_MONTH_UNSERVED] += uns * dt;
        row[PLOT_MONTH_HELD] += fmax(0.0, dem - del - uns) * dt;
        row[PLOT_MONTH_DEMAND] += dem * dt;
    }
    *nm = nmo;
    *e = t;
    return SIM_OK;
}

/* Bars of monthly energy: the reduction is a months x (sources, unserved,
 * held back, demand) table of sums (plot_monthly_energy_sums); bars stack
 * sources in registry order with unserved and then the load the shortage
 * policy held back on top, so each bar reaches the black demand tick
 * exactly. Month names are written under each bar (every k-th when there
 * are many). */
int plot_monthly_energy(const char *path, const plot_series *s,
                        const char *title, sim_err *err)
{
    int first, rc;
    size_t nm;
    double *e, top = 0, any[PLOT_MONTH_ROW] = {0}, es;
    const char *unit;
    char ylab[64];
    plot_legend L;

    if ((rc = need_dated(s, path, "monthly energy chart", err)) != SIM_OK)
        return rc;
    plot_monthly_energy_sums(s, &first, &nm, &e);
    for (size_t m = 0; m < nm; m++) {
        double sum = 0, *row = e + m * PLOT_MONTH_ROW;
        for (int k = 0; k <= PLOT_MONTH_HELD; k++) {
            sum += row[k];
            any[k] += row[k];
        }
        top = fmax(top, fmax(sum, row[PLOT_MONTH_DEMAND]));
    }
    if (!(top > 0)) {
        free(e);
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "monthly energy chart: no energy in the series");
    }
    es = top >= 5e3 * 3.6e9 ? 1.0 / 3.6e12 : 1.0 / 3.6e9;
    unit = es < 1.0 / 3.6e10 ? "GWh" : "MWh";
    snprintf(ylab, sizeof ylab, "energy per month [%s]", unit);
    if ((rc = plot_page(path, err)) != SIM_OK) {
        free(e);
        return rc;
    }
    plot_frame(VP_X0, -0.6, (double)nm - 0.4, 0, top * es * 1.1,
               "calendar month (first and last may be partial)", ylab, title,
               "bc", NULL);
    {
        size_t every = nm > 16 ? (nm + 15) / 16 : 1;
        for (size_t m = 0; m < nm; m += every) {
            char lab[32];
            int mk = first + (int)m;
            double pos = ((double)m + 0.6) / ((double)nm + 0.2);
            /* The month under each bar and the year under the first bar
             * and each January: "Mar 2027" under every bar ran into its
             * neighbours at twelve bars. */
            plcol0(PC_BLACK);
            plmtex("b", 1.3, pos, 0.5, month_abbr[mk % 12]);
            if (m == 0 || mk % 12 == 0) {
                snprintf(lab, sizeof lab, "%d", mk / 12);
                plmtex("b", 2.4, pos, 0.5, lab);
            }
        }
    }
    for (size_t m = 0; m < nm; m++) {
        double *row = e + m * PLOT_MONTH_ROW, lo = 0, xc = (double)m;
        for (int k = 0; k <= PLOT_MONTH_HELD; k++) {
            PLFLT bx[4] = {xc - 0.35, xc + 0.35, xc + 0.35, xc - 0.35}, by[4];
            if (!(row[k] > 0))
                continue;
            by[0] = by[1] = lo;
            by[2] = by[3] = lo + row[k] * es;
            plcol0(k < SRC_N                  ? PC_SRC0 + k
                   : k == PLOT_MONTH_UNSERVED ? PC_RED
                                              : PC_GREY);
            plfill(4, bx, by);
            lo += row[k] * es;
        }
        {
            PLFLT dx[2] = {xc - 0.45, xc + 0.45},
                  dy[2] = {row[PLOT_MONTH_DEMAND] * es,
                           row[PLOT_MONTH_DEMAND] * es};
            plcol0(PC_BLACK);
            plwidth(3.0);
            plline(2, dx, dy);
            plwidth(1.0);
        }
    }
    memset(&L, 0, sizeof L);
    for (int k = 0; k < SRC_N; k++)
        if (any[k] > 0)
            plot_leg_add(&L, PL_LEGEND_COLOR_BOX, PC_SRC0 + k, 1, 1.0,
                         source_table[k].label);
    if (any[PLOT_MONTH_UNSERVED] > 0)
        plot_leg_add(&L, PL_LEGEND_COLOR_BOX, PC_RED, 1, 1.0,
                     "Unserved demand");
    if (any[PLOT_MONTH_HELD] > 0)
        plot_leg_add(&L, PL_LEGEND_COLOR_BOX, PC_GREY, 1, 1.0,
                     "Held back by the shortage policy");
    plot_leg_add(&L, PL_LEGEND_LINE, PC_BLACK, 1, 3.0, "Facility demand");
    plot_leg_draw(&L);
    free(e);
    return plot_finish(path, err);
}

/* One function for the grid of panels because every panel shares one y scale
 * (so months compare at a glance) and one legend. The reduction is months x
 * 24 hours x quantities of duration-weighted sums; an hour of a month no step
 * covers is skipped. Panels are laid out 4 wide (fewer when there are fewer
 * months), tick labels only on the outer edges to keep panels large. */
int plot_typical_day(const char *path, const plot_series *s, const char *title,
                     sim_err *err)
{
    enum { Q_UNS = SRC_N, Q_DEM, Q_CHG, Q_W, NQ };
    int first, rc, cols, rows;
    size_t nm;
    double *a, top = 0, any[NQ] = {0}, ps;
    const char *unit;
    char ylab[64];
    plot_legend L;

    if ((rc = need_dated(s, path, "typical day chart", err)) != SIM_OK)
        return rc;
    nm = month_span(s, &first);
    if (nm > 12)
        nm = 12; /* a 4 x 3 grid; later months are in the other charts */
    a = sim_xcalloc(nm * 24 * NQ, sizeof *a);
    for (size_t i = 0; i < s->n; i++) {
        const res_step *p = &s->steps[i];
        int m = month_of(s, p->t_s) - first;
        int h = (int)floor(fmod(p->t_s, DAY_S) / 3600.0);
        double dt = pv_step_dt(s, i), *c;
        if (m < 0 || (size_t)m >= nm || h < 0 || h > 23)
            continue;
        c = a + ((size_t)m * 24 + (size_t)h) * NQ;
        for (int k = 0; k < SRC_N; k++)
            c[k] += pv_fin(p->source_w[k]) * dt;
        c[Q_UNS] += fmax(0.0, pv_fin(p->shortfall_w)) * dt;
        c[Q_DEM] += pv_fin(p->demand_w) * dt;
        c[Q_CHG] += fmax(0.0, pv_fin(p->battery_charge_w)) * dt;
        c[Q_W] += dt;
    }
    for (size_t c = 0; c < nm * 24; c++) {
        double *q = a + c * NQ, sum = 0;
        if (!(q[Q_W] > 0))
            continue;
        for (int k = 0; k < Q_W; k++) {
            q[k] /= q[Q_W];
            any[k] += q[k];
        }
        for (int k = 0; k <= Q_UNS; k++)
            sum += q[k];
        top = fmax(top, fmax(sum, fmax(q[Q_DEM], q[Q_CHG])));
    }
    if (!(top > 0)) {
        free(a);
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "typical day chart: no power in the series");
    }
    ps = pv_power_scale(top, &unit);
    snprintf(ylab, sizeof ylab, "mean power [%s]", unit);
    cols = nm <= 4 ? (int)nm : nm <= 6 ? 3 : 4;
    rows = (int)((nm + (size_t)cols - 1) / (size_t)cols);
    if ((rc = plot_page(path, err)) != SIM_OK) {
        free(a);
        return rc;
    }
    plot_page_title(title);
    plschr(0.0, CH_MIN); /* panels: the smallest readable size */
    plot_meta_text(1.0);
    for (size_t m = 0; m < nm; m++) {
        int col = (int)m % cols, row = (int)m / cols, mk = first + (int)m;
        double gx0 = 0.07, gx1 = 0.78, gy0 = 0.08, gy1 = 0.91;
        double pw = (gx1 - gx0) / cols, ph = (gy1 - gy0) / rows;
        double vx0 = gx0 + col * pw + 0.012, vx1 = gx0 + (col + 1) * pw - 0.012;
        double vy1 = gy1 - row * ph - 0.035, vy0 = gy1 - (row + 1) * ph + 0.03;
        int bottom = (int)m + cols >= (int)nm, left = col == 0;
        char pt[32];
        PLFLT hx[50], hy[50], lo[24] = {0};
        snprintf(pt, sizeof pt, "%s %d", month_abbr[mk % 12], mk / 12);
        plot_panel(vx0, vx1, vy0, vy1, 0, 24, 0, top * ps * 1.1,
                   bottom ? "hour of day" : NULL, left ? ylab : NULL, pt,
                   bottom ? "bcnst" : "bcst", left ? "bcnstv" : "bcstv");
        /* Hourly cells as stairs: each hour's band is flat across it. */
        for (int k = 0; k <= Q_UNS; k++) {
            if (!(any[k] > 0))
                continue;
            for (int h = 0; h < 24; h++) {
                double v = a[((size_t)m * 24 + (size_t)h) * NQ + (size_t)k];
                hx[2 * h] = h;
                hx[2 * h + 1] = h + 1;
                hy[2 * h] = hy[2 * h + 1] = lo[h] + pv_fin(v) * ps;
            }
            /* The band: the top stairs out, the bottom stairs back. */
            {
                PLFLT px[96], py[96];
                int np = 0;
                for (int h = 0; h < 24; h++) {
                    px[np] = h;
                    py[np++] = hy[2 * h];
                    px[np] = h + 1;
                    py[np++] = hy[2 * h + 1];
                }
                for (int h = 23; h >= 0; h--) {
                    px[np] = h + 1;
                    py[np++] = lo[h];
                    px[np] = h;
                    py[np++] = lo[h];
                }
                plcol0(k < SRC_N ? PC_SRC0 + k : PC_RED);
                plfill(np, px, py);
            }
            for (int h = 0; h < 24; h++)
                lo[h] = hy[2 * h];
        }
        for (int q = Q_DEM; q <= Q_CHG; q++) {
            if (!(any[q] > 0))
                continue;
            for (int h = 0; h < 24; h++) {
                hx[2 * h] = h;
                hx[2 * h + 1] = h + 1;
                hy[2 * h] = hy[2 * h + 1] =
                    a[((size_t)m * 24 + (size_t)h) * NQ + (size_t)q] * ps;
            }
            plcol0(q == Q_DEM ? PC_BLACK : PC_PURPLE);
            pllsty(q == Q_DEM ? 1 : 2);
            plwidth(q == Q_DEM ? 1.5 : 2.0);
            plline(48, hx, hy);
            pllsty(1);
            plwidth(1.0);
        }
    }
    plschr(0.0, CH_BASE);
    memset(&L, 0, sizeof L);
    for (int k = 0; k < SRC_N; k++)
        if (any[k] > 0)
            plot_leg_add(&L, PL_LEGEND_COLOR_BOX, PC_SRC0 + k, 1, 1.0,
                         source_table[k].label);
    if (any[Q_UNS] > 0)
        plot_leg_add(&L, PL_LEGEND_COLOR_BOX, PC_RED, 1, 1.0,
                     "Unserved demand");
    plot_leg_add(&L, PL_LEGEND_LINE, PC_BLACK, 1, 1.5, "Facility demand");
    if (any[Q_CHG] > 0)
        plot_leg_add(&L, PL_LEGEND_LINE, PC_PURPLE, 2, 2.0, "Battery charging");
    plot_leg_draw_in(&L, 0.795, 0.99, 0.08, 0.91);
    free(a);
    return plot_finish(path, err);
}
