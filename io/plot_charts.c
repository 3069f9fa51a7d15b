/* io/plot_charts.c: the run charts of plot_charts.h over PLplot.
 *
 * Every chart is one page: a viewport leaving room on the right for the legend
 * (outside the plot, so it never hides data), light grey grid lines under black
 * axes, and cmap0 colours 2..14 set once per page from the fixed palette below
 * (index 15 stays plot_color's). Nothing depends on time, locale or addresses,
 * so equal inputs give equal bytes. Text passes through text_esc because '#' is
 * PLplot's escape character.
 *
 * This file owns how run results look and nothing about where they come from:
 * charts take arrays (steps, jobs, events, summaries) and never open the
 * database or choose a file name (app/report_charts.c does). Each chart
 * validates its input before plot_begin creates the file, so a refused chart
 * leaves no empty file behind; after plot_begin, the only exit is through
 * plot_finish. */
#include "io/plot_charts.h"

#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/plot_int.h"
#include "sim/mem.h"

enum {
    C_BLACK = 1,
    C_GRID = 2,
    C_RED = 3,
    C_BLUE,
    C_QUEUE,
    C_ORANGE,
    C_PURPLE,
    C_GREEN,
    /* One colour per registry source (models/source.h), after index 15
     * (plot_color's), so cmap0 grows with the registry. Source colours come
     * from the registry (source_table[k].rgb), so a source's colour is the same
     * in every chart and a new source needs no edit here. */
    C_SRC0 = 16
};

/* Viewport of every chart, in normalized page coordinates. 0.72 leaves the
 * right 28 % of the page for the legend; 0.08 and 0.11 leave room for the axis
 * labels at CH_BASE. */
#define VP_X0 0.08
#define VP_X1 0.72
#define VP_Y0 0.11
#define VP_Y1 0.90
#define CH_BASE 0.8   /* character scale of labels and ticks */
#define CH_TITLE 1.05 /* and of titles */
#define VP_ROWS 0.22  /* left edge when rows are labelled with job names */

/* Set on every page: each chart is its own plinit ... plend session, which
 * starts again from PLplot's default colours. */
static void palette(void)
{
    /* cmap0 has 16 colours by default; the sources need SRC_N more. Growing
     * it resets the background entry, so it is set white again. */
    plscmap0n(C_SRC0 + SRC_N);
    plscol0(0, 255, 255, 255);
    plscol0(C_BLACK, 0, 0, 0);
    plscol0(C_GRID, 225, 225, 225);
    for (int k = 0; k < SRC_N; k++)
        plscol0(C_SRC0 + k, (source_table[k].rgb >> 16) & 0xff,
                (source_table[k].rgb >> 8) & 0xff, source_table[k].rgb & 0xff);
    plscol0(C_RED, 200, 30, 30);
    plscol0(C_BLUE, 40, 110, 190);
    plscol0(C_QUEUE, 200, 200, 200);
    plscol0(C_ORANGE, 245, 140, 20);
    plscol0(C_PURPLE, 120, 60, 170);
    plscol0(C_GREEN, 20, 130, 60);
}

/* Copies s into buf with '#' doubled (PLplot's escape character). Scenario, job
 * and source names are user text; an unescaped '#' would start a PLplot escape
 * sequence and garble or drop the following characters. */
static const char *text_esc(const char *s, char *buf, size_t n)
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

/* Starts a chart page: pre-checks, palette, a larger font than PLplot's
 * default (legible at 1200 px). */
static int page(const char *path, sim_err *err)
{
    int rc = plot_begin(path, PLOT_CHART_W, PLOT_CHART_H, err);
    if (rc != SIM_OK)
        return rc;
    palette();
    pladv(0);
    plschr(0.0, CH_BASE);
    return SIM_OK;
}

/* Ends the page. cairo numbers SVG surfaces with a process-wide counter (<g
 * id="surfaceN">), so the n-th SVG of a process would differ from the same
 * chart drawn first; the id is rewritten to surface1, which makes every SVG
 * depend on its input alone. Returns SIM_OK or SIM_EIO.
 *
 * Read, patch, write back: the surface id is the only run-dependent byte, and
 * cairo offers no way to reset its counter. The rewrite is in place, so a
 * failure while writing back can leave the chart truncated; it is reported as
 * an error, never as success. */
int plot_finish(const char *path, sim_err *err)
{
    FILE *f;
    char *b, *p;
    long len;
    size_t n;
    int rc;
    plot_end();
    if ((rc = plot_check_complete(path, err)) != SIM_OK)
        return rc;
    if (strcmp(plot_device_for(path), "svgcairo") != 0)
        return SIM_OK;
    if (!(f = fopen(path, "rb")))
        return sim_err_set(err, SIM_EIO, path, 0,
                           "cannot read back the SVG file");
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = sim_xmalloc((size_t)(len > 0 ? len : 0) + 1);
    n = fread(b, 1, (size_t)(len > 0 ? len : 0), f);
    fclose(f);
    b[n] = '\0';
    p = strstr(b, "<g id=\"surface");
    if (p) {
        char *q = p + strlen("<g id=\"surface"), *e = q;
        while (*e >= '0' && *e <= '9')
            e++;
        if (e > q && *e == '"') {
            *q = '1';
            memmove(q + 1, e, n - (size_t)(e - b) + 1);
            n -= (size_t)(e - q) - 1;
        }
    }
    f = fopen(path, "wb");
    if (!f || fwrite(b, 1, n, f) != n) {
        if (f)
            fclose(f);
        free(b);
        return sim_err_set(err, SIM_EIO, path, 0,
                           "cannot rewrite the SVG file");
    }
    free(b);
    return fclose(f) == 0
               ? SIM_OK
               : sim_err_set(err, SIM_EIO, path, 0, "cannot write plot file");
}

/* Axes with grid lines and labels over the window [x0,x1] x [y0,y1]. Grid
 * first, axes second, so grid lines never draw over the axes. yopt lets row
 * charts (Gantt, energy per job) drop the numeric y axis and its grid, since
 * their rows are labelled with job names. */
static void frame(double vx0, double x0, double x1, double y0, double y1,
                  const char *xlab, const char *ylab, const char *title,
                  const char *yopt)
{
    char t[512];
    plvpor(vx0, VP_X1, VP_Y0, VP_Y1);
    plwind(x0, x1, y0, y1);
    plcol0(C_GRID);
    plwidth(1.0);
    plbox("g", 0, 0, yopt && strchr(yopt, 'v') == NULL ? "" : "g", 0, 0);
    plcol0(C_BLACK);
    plbox("bcnst", 0, 0, yopt ? yopt : "bcnstv", 0, 0);
    plmtex("b", 3.2, 0.5, 0.5, xlab);
    if (ylab)
        plmtex("l", 4.0, 0.5, 0.5, ylab);
    plschr(0.0, CH_TITLE);
    plmtex("t", 1.5, 0.5, 0.5, text_esc(title, t, sizeof t));
    plschr(0.0, CH_BASE);
}

/* Legend entries: colour boxes, lines or symbols. Fixed capacity of 16 entries
 * and labels copied into buf: the charts add at most SRC_N + a few entries, and
 * owning the strings means a caller's temporary label (snprintf into a local)
 * cannot dangle before leg_draw. */
typedef struct legend {
    int n;
    PLINT opt[16], tcol[16], bcol[16], bpat[16], lcol[16], lsty[16], scol[16],
        snum[16];
    PLFLT bscale[16], bwid[16], lwid[16], sscale[16];
    const char *text[16], *sym[16];
    char buf[16][96];
} legend;

static void leg_add(legend *L, PLINT kind, int col, int style, double width,
                    const char *text)
{
    int i = L->n;
    if (i >= 16)
        return;
    L->opt[i] = kind;
    L->tcol[i] = C_BLACK;
    L->bcol[i] = L->lcol[i] = L->scol[i] = col;
    L->bpat[i] = 0;
    L->bscale[i] = 0.9;
    L->bwid[i] = 1.0;
    L->lsty[i] = style;
    L->lwid[i] = width;
    L->sscale[i] = 1.2;
    L->snum[i] = 1;
    L->sym[i] = "#(852)"; /* a filled triangle */
    text_esc(text, L->buf[i], sizeof L->buf[i]);
    L->text[i] = L->buf[i];
    L->n++;
}

static void leg_draw(legend *L)
{
    PLFLT w, h;
    plcol0(C_BLACK);
    pllegend(&w, &h, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
             PL_POSITION_RIGHT | PL_POSITION_OUTSIDE, 0.015, 0.0, 0.05, 0,
             C_BLACK, 1, 0, 0, L->n, L->opt, 0.6, 0.75, 2.0, 0.0, L->tcol,
             L->text, L->bcol, L->bpat, L->bscale, L->bwid, L->lcol, L->lsty,
             L->lwid, L->scol, L->sscale, L->snum, L->sym);
}

/* Time axis: hours for spans under two days, else days, so tick labels stay in
 * the tens rather than thousands. */
static double time_scale(double span_s, const char **label)
{
    if (span_s < 2 * 86400.0) {
        *label = "time since simulation start [h]";
        return 1.0 / 3600.0;
    }
    *label = "time since simulation start [days]";
    return 1.0 / 86400.0;
}

/* MW from 1 MW up, else kW, so a small test site and a 100 MW campus both get
 * axis labels with a few digits. */
static double power_scale(double max_w, const char **label)
{
    if (max_w >= 1e6) {
        *label = "power [MW]";
        return 1e-6;
    }
    *label = "power [kW]";
    return 1e-3;
}

/* One function because the stack needs three passes over the same steps that
 * share their scales: the first finds the y range (and whether demand ever
 * differs from the load served, which decides if the demand line is drawn), the
 * second fills the source bands bottom-up, each on the running sum of the ones
 * below, and the last draws the load lines over the bands. Sources that never
 * produced are skipped entirely, so they take no legend entry. NaN powers count
 * as 0 so that one missing value does not break a band. */
int plot_power_stack(const char *path, const res_step *steps,
                     const double *dt_s, size_t n, const char *title,
                     sim_err *err)
{
    double t_end, top = 0, ts, ps, any[SRC_N] = {0};
    const char *tl, *pl;
    int demand_differs = 0, rc;
    PLFLT *x, *y, *lo, *hi;
    legend L;

    if (n < 2)
        return sim_err_set(
            err, SIM_EINVAL, path, 0,
            "power chart: needs at least 2 time steps (got %zu; store "
            "the time series with the run)",
            n);
    /* The last step extends by its own duration (dt_s when stored, else the
     * previous spacing), so the chart's time axis covers the whole horizon. */
    t_end = steps[n - 1].t_s +
            (dt_s ? dt_s[n - 1] : steps[n - 1].t_s - steps[n - 2].t_s);
    for (size_t i = 0; i < n; i++) {
        double sum = 0;
        for (int k = 0; k < SRC_N; k++) {
            double v =
                isfinite(steps[i].source_w[k]) ? steps[i].source_w[k] : 0;
            sum += v;
            any[k] += v;
        }
        top =
            fmax(top, fmax(sum, fmax(steps[i].facility_w, steps[i].demand_w)));
        /* Relative 1e-6: demand and load served are equal when nothing was
         * shed, up to rounding; only a real shortfall or shedding shows the red
         * demand line. */
        if (fabs(steps[i].demand_w - steps[i].facility_w) >
            1e-6 * fabs(steps[i].facility_w))
            demand_differs = 1;
    }
    if (!(top > 0))
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "power chart: no power in the series");
    ts = time_scale(t_end - steps[0].t_s, &tl);
    ps = power_scale(top, &pl);
    if ((rc = page(path, err)) != SIM_OK)
        return rc;
    frame(VP_X0, steps[0].t_s * ts, t_end * ts, 0, top * ps * 1.08, tl, pl,
          title, NULL);

    /* Each source is the band between the running sum below it and that sum
     * plus its power: a polygon out along the top, back along the bottom. lo
     * holds the running top of the bands drawn so far, starting at zero. */
    x = sim_xmalloc(2 * n * sizeof *x);
    y = sim_xmalloc(2 * n * sizeof *y);
    lo = sim_xcalloc(n, sizeof *lo);
    hi = sim_xmalloc(n * sizeof *hi);
    memset(&L, 0, sizeof L);
    for (int k = 0; k < SRC_N; k++) {
        if (!(any[k] > 0))
            continue;
        for (size_t i = 0; i < n; i++) {
            double v =
                isfinite(steps[i].source_w[k]) ? steps[i].source_w[k] : 0;
            hi[i] = lo[i] + v * ps;
            x[i] = steps[i].t_s * ts;
            y[i] = hi[i];
            x[2 * n - 1 - i] = steps[i].t_s * ts;
            y[2 * n - 1 - i] = lo[i];
        }
        plcol0(C_SRC0 + k);
        plfill((PLINT)(2 * n), x, y);
        memcpy(lo, hi, n * sizeof *lo);
        leg_add(&L, PL_LEGEND_COLOR_BOX, C_SRC0 + k, 1, 1.0,
                source_table[k].label);
    }
    for (size_t i = 0; i < n; i++) {
        x[i] = steps[i].t_s * ts;
        y[i] = steps[i].facility_w * ps;
    }
    plcol0(C_BLACK);
    plwidth(1.5);
    plline((PLINT)n, x, y);
    leg_add(&L, PL_LEGEND_LINE, C_BLACK, 1, 1.5, "Facility load served");
    if (demand_differs) {
        for (size_t i = 0; i < n; i++)
            y[i] = steps[i].demand_w * ps;
        plcol0(C_RED);
        pllsty(2);
        plline((PLINT)n, x, y);
        pllsty(1);
        leg_add(&L, PL_LEGEND_LINE, C_RED, 2, 1.5, "Facility demand");
    }
    plwidth(1.0);
    leg_draw(&L);
    rc = plot_finish(path, err);
    free(x);
    free(y);
    free(lo);
    free(hi);
    return rc;
}

/* One line per quantity, broken at NaN steps (no battery data stored for them)
 * rather than bridged, so a gap is visible as a gap. */
int plot_battery_soc(const char *path, const res_step *steps, size_t n,
                     const char *title, sim_err *err)
{
    size_t m = 0;
    double ts, t0, t1;
    const char *tl;
    int rc, have_soh = 0;
    PLFLT *x, *y;
    legend L;

    for (size_t i = 0; i < n; i++)
        if (isfinite(steps[i].soc_frac)) {
            m++;
            have_soh |= isfinite(steps[i].soh_frac);
        }
    if (m < 2)
        return sim_err_set(
            err, SIM_EINVAL, path, 0,
            "battery chart: no state of charge in the series (no battery "
            "at this site, or no time series stored)");
    t0 = steps[0].t_s;
    t1 = steps[n - 1].t_s;
    ts = time_scale(t1 - t0, &tl);
    if ((rc = page(path, err)) != SIM_OK)
        return rc;
    frame(VP_X0, t0 * ts, t1 * ts, 0, 105, tl,
          "state of charge, state of health [%]", title, NULL);
    x = sim_xmalloc(n * sizeof *x);
    y = sim_xmalloc(n * sizeof *y);
    memset(&L, 0, sizeof L);
    for (int pass = 0; pass < 1 + have_soh; pass++) {
        /* A gap (NAN) breaks the line rather than joining across it. */
        size_t k = 0;
        plcol0(pass == 0 ? C_GREEN : C_PURPLE);
        pllsty(pass == 0 ? 1 : 2);
        plwidth(pass == 0 ? 1.5 : 2.0);
        for (size_t i = 0; i <= n; i++) {
            double v = i < n
                           ? (pass == 0 ? steps[i].soc_frac : steps[i].soh_frac)
                           : (double)NAN;
            if (isfinite(v)) {
                x[k] = steps[i].t_s * ts;
                y[k++] = 100.0 * v;
            } else {
                if (k >= 2)
                    plline((PLINT)k, x, y);
                k = 0;
            }
        }
        leg_add(&L, PL_LEGEND_LINE, pass == 0 ? C_GREEN : C_PURPLE,
                pass == 0 ? 1 : 2, pass == 0 ? 1.5 : 2.0,
                pass == 0 ? "State of charge" : "State of health");
    }
    pllsty(1);
    plwidth(1.0);
    leg_draw(&L);
    rc = plot_finish(path, err);
    free(x);
    free(y);
    return rc;
}

static void bar(double x0, double x1, double yc, double half, int col)
{
    PLFLT x[4] = {x0, x1, x1, x0},
          y[4] = {yc - half, yc - half, yc + half, yc + half};
    if (!(x1 > x0))
        return;
    plcol0(col);
    plfill(4, x, y);
}

/* One function for the same reason as the power stack: every row shares the
 * time scale and the legend. Each job's events are replayed in order to pair an
 * interruption with its restart and a pause or shed with its resume; an
 * interval still open at the end is drawn to the job's end (or the horizon), so
 * a job that never recovered shows red to the end. The event list is scanned
 * once per job (O(jobs x events)), fine for the tens of jobs and thousands of
 * events a run stores. */
int plot_gantt(const char *path, const char *const *names, const res_job *jobs,
               size_t n_jobs, const res_event *ev, size_t n_ev,
               double horizon_s, const char *title, sim_err *err)
{
    double ts, t_max = horizon_s;
    const char *tl;
    int rc, seen[4] = {0};
    legend L;

    if (n_jobs == 0)
        return sim_err_set(err, SIM_EINVAL, path, 0, "job timeline: no jobs");
    if (!(horizon_s > 0))
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "job timeline: horizon must be > 0");
    /* The axis extends past the horizon when a job ended after it, so no
     * bar is cut off; the dashed line marks the horizon itself. */
    for (size_t j = 0; j < n_jobs; j++)
        if (isfinite(jobs[j].end_s))
            t_max = fmax(t_max, jobs[j].end_s);
    ts = time_scale(t_max, &tl);
    if ((rc = page(path, err)) != SIM_OK)
        return rc;
    /* Row j is centred at y = n_jobs - j, so the first job is on top. A wider
     * left margin (VP_ROWS) makes room for the job names written to the left of
     * each row. */
    frame(VP_ROWS, 0, t_max * ts, 0.4, (double)n_jobs + 0.6, tl, NULL, title,
          "bc");
    for (size_t j = 0; j < n_jobs; j++) {
        const res_job *jb = &jobs[j];
        double yc = (double)(n_jobs - j),
               end = isfinite(jb->end_s) ? jb->end_s : horizon_s;
        double open_int = NAN, open_pause = NAN;
        char nm[160];
        plcol0(C_BLACK);
        plmtex("lv", 1.0, (yc - 0.4) / ((double)n_jobs + 0.2), 1.0,
               text_esc(names[j], nm, sizeof nm));
        if (isfinite(jb->start_s)) {
            /* Queued time is a thin bar and training a thick one, so the two
             * read apart even in greyscale. */
            bar(jb->submit_s * ts, jb->start_s * ts, yc, 0.12, C_QUEUE);
            bar(jb->start_s * ts, end * ts, yc, 0.3, C_BLUE);
            seen[0] = seen[1] = 1;
        } else {
            bar(jb->submit_s * ts, horizon_s * ts, yc, 0.12, C_QUEUE);
            seen[0] = 1;
        }
        for (size_t i = 0; i < n_ev; i++) {
            const res_event *e = &ev[i];
            if (e->job != (int32_t)j)
                continue;
            switch (e->kind) {
            case RES_EV_INTERRUPT: {
                PLFLT px = e->t_s * ts, py = yc + 0.42;
                open_int = e->t_s;
                plcol0(C_RED);
                plssym(0.0, 1.1);
                plstring(1, &px, &py, "#(852)");
                seen[3] = 1;
                break;
            }
            case RES_EV_PAUSE:
            case RES_EV_SHED:
                open_pause = e->t_s;
                break;
            case RES_EV_RESTART:
            case RES_EV_RESUME:
                if (isfinite(open_int)) {
                    bar(open_int * ts, e->t_s * ts, yc, 0.3, C_RED);
                    open_int = NAN;
                    seen[2] = 1;
                }
                if (isfinite(open_pause)) {
                    bar(open_pause * ts, e->t_s * ts, yc, 0.3, C_ORANGE);
                    open_pause = NAN;
                    seen[2] |= 2;
                }
                break;
            default:
                break;
            }
        }
        if (isfinite(open_int))
            bar(open_int * ts, end * ts, yc, 0.3, C_RED);
        if (isfinite(open_pause))
            bar(open_pause * ts, end * ts, yc, 0.3, C_ORANGE);
    }
    {
        PLFLT hx[2] = {horizon_s * ts, horizon_s * ts},
              hy[2] = {0.4, (double)n_jobs + 0.6};
        plcol0(C_BLACK);
        pllsty(2);
        plline(2, hx, hy);
        pllsty(1);
    }
    memset(&L, 0, sizeof L);
    leg_add(&L, PL_LEGEND_COLOR_BOX, C_QUEUE, 1, 1.0, "Queued");
    leg_add(&L, PL_LEGEND_COLOR_BOX, C_BLUE, 1, 1.0, "Training");
    leg_add(&L, PL_LEGEND_COLOR_BOX, C_RED, 1, 1.0, "Recovering (interrupted)");
    leg_add(&L, PL_LEGEND_COLOR_BOX, C_ORANGE, 1, 1.0,
            "Paused or shed for power");
    leg_add(&L, PL_LEGEND_SYMBOL, C_RED, 1, 1.0, "Interruption");
    leg_add(&L, PL_LEGEND_LINE, C_BLACK, 2, 1.0, "Horizon");
    leg_draw(&L);
    return plot_finish(path, err);
}

/* A histogram over replications with the P10, P50 and P90 lines from
 * stats_summarize, the same percentiles the tables print, so the chart and the
 * numbers cannot disagree. Replications in which the job never finished are
 * left out and counted in the legend ("k/n finished"). The bin count follows
 * the square-root rule, clamped to 5..40 so that a few replications still show
 * a shape and a thousand do not make slivers; a zero range (every replication
 * finished at the same time, as with no failures) is widened by 1 % either side
 * so that the single bin has a width. */
int plot_time_to_train(const char *path, const char *job_name,
                       const double *ttt_s, size_t n, const char *title,
                       sim_err *err)
{
    stat_summary s = stats_summarize(ttt_s, 1, n);
    double lo, hi, w, top = 0;
    int nb, rc, *count;
    char t[512], nm[160];
    legend L;

    if (s.n == 0)
        return sim_err_set(
            err, SIM_EINVAL, path, 0,
            "time-to-train chart: job %s finished in none of %zu replications",
            job_name, n);
    /* sqrt(n) bins, at least 5 and at most 40, over [min, max] widened a
     * little so the extremes sit inside; a zero range gets +-1%. */
    nb = (int)ceil(sqrt((double)s.n));
    nb = nb < 5 ? 5 : nb > 40 ? 40 : nb;
    lo = s.min / 86400.0;
    hi = s.max / 86400.0;
    if (hi - lo < 1e-9 * fmax(1.0, hi)) {
        lo *= 0.99;
        hi = hi * 1.01 + 1e-9;
    }
    w = (hi - lo) / nb;
    lo -= 0.5 * w;
    hi += 0.5 * w;
    w = (hi - lo) / nb;
    count = sim_xcalloc((size_t)nb, sizeof *count);
    for (size_t i = 0; i < n; i++)
        if (isfinite(ttt_s[i])) {
            int b = (int)floor((ttt_s[i] / 86400.0 - lo) / w);
            b = b < 0 ? 0 : b >= nb ? nb - 1 : b;
            count[b]++;
        }
    for (int b = 0; b < nb; b++)
        top = fmax(top, count[b]);
    if ((rc = page(path, err)) != SIM_OK) {
        free(count);
        return rc;
    }
    snprintf(t, sizeof t, "%s: %s", title, text_esc(job_name, nm, sizeof nm));
    frame(VP_X0, lo, hi, 0, top * 1.15 + 0.5, "time to train [days]",
          "replications [count]", t, NULL);
    for (int b = 0; b < nb; b++) {
        PLFLT x[4] = {lo + b * w, lo + (b + 1) * w, lo + (b + 1) * w,
                      lo + b * w};
        PLFLT y[4] = {0, 0, count[b], count[b]};
        if (!count[b])
            continue;
        plcol0(C_BLUE);
        plfill(4, x, y);
        plcol0(C_BLACK);
        plline(4, x, y);
    }
    memset(&L, 0, sizeof L);
    snprintf(t, sizeof t, "Replications (%zu/%zu finished)", s.n, n);
    leg_add(&L, PL_LEGEND_COLOR_BOX, C_BLUE, 1, 1.0, t);
    {
        const double pv[3] = {s.p10, s.p50, s.p90};
        const char *pn[3] = {"P10", "P50", "P90"};
        const int col[3] = {C_PURPLE, C_GREEN, C_PURPLE}, sty[3] = {2, 1, 2};
        for (int k = 0; k < 3; k++) {
            PLFLT x[2] = {pv[k] / 86400.0, pv[k] / 86400.0},
                  y[2] = {0, top * 1.15 + 0.5};
            plcol0(col[k]);
            pllsty(sty[k]);
            plwidth(2.5);
            plline(2, x, y);
            snprintf(t, sizeof t, "%s = %.3g days", pn[k], pv[k] / 86400.0);
            leg_add(&L, PL_LEGEND_LINE, col[k], sty[k], 2.5, t);
        }
        pllsty(1);
        plwidth(1.0);
    }
    leg_draw(&L);
    rc = plot_finish(path, err);
    free(count);
    return rc;
}

/* Bars of each job's mean energy split by source, with the P10-P90 range of the
 * total across replications as a whisker. Only positive finite shares are
 * drawn, in registry order, so the segments always add to the bar and the
 * colours match the power chart's. */
int plot_energy_by_source(const char *path, const char *const *names,
                          const double *by_source_j,
                          const stat_summary *facility, size_t n_jobs,
                          const char *title, sim_err *err)
{
    const double mwh = 1.0 / 3.6e9;
    double top = 0, any[SRC_N] = {0};
    int rc;
    legend L;

    if (n_jobs == 0)
        return sim_err_set(err, SIM_EINVAL, path, 0, "energy chart: no jobs");
    for (size_t j = 0; j < n_jobs; j++) {
        double sum = 0;
        for (int k = 0; k < SRC_N; k++) {
            double v = by_source_j[j * SRC_N + (size_t)k];
            if (isfinite(v) && v > 0) {
                sum += v;
                any[k] += v;
            }
        }
        top = fmax(top, sum);
        if (facility && isfinite(facility[j].p90))
            top = fmax(top, facility[j].p90);
    }
    if (!(top > 0))
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "energy chart: no energy recorded");
    if ((rc = page(path, err)) != SIM_OK)
        return rc;
    frame(VP_ROWS, 0, top * mwh * 1.1, 0.4, (double)n_jobs + 0.6,
          "facility energy per training run [MWh]", NULL, title, "bc");
    for (size_t j = 0; j < n_jobs; j++) {
        double yc = (double)(n_jobs - j), x0 = 0;
        char nm[160];
        plcol0(C_BLACK);
        plmtex("lv", 1.0, (yc - 0.4) / ((double)n_jobs + 0.2), 1.0,
               text_esc(names[j], nm, sizeof nm));
        for (int k = 0; k < SRC_N; k++) {
            double v = by_source_j[j * SRC_N + (size_t)k];
            if (!(isfinite(v) && v > 0))
                continue;
            bar(x0, x0 + v * mwh, yc, 0.3, C_SRC0 + k);
            x0 += v * mwh;
        }
        if (facility && isfinite(facility[j].p10) &&
            isfinite(facility[j].p90)) {
            PLFLT x[2] = {facility[j].p10 * mwh, facility[j].p90 * mwh},
                  y[2] = {yc, yc};
            PLFLT cx[2], cy[2] = {yc - 0.15, yc + 0.15};
            plcol0(C_BLACK);
            plwidth(2.0);
            plline(2, x, y);
            for (int e = 0; e < 2; e++) {
                cx[0] = cx[1] = x[e];
                plline(2, cx, cy);
            }
            plwidth(1.0);
        }
    }
    memset(&L, 0, sizeof L);
    for (int k = 0; k < SRC_N; k++)
        if (any[k] > 0)
            leg_add(&L, PL_LEGEND_COLOR_BOX, C_SRC0 + k, 1, 1.0,
                    source_table[k].label);
    if (facility)
        leg_add(&L, PL_LEGEND_LINE, C_BLACK, 1, 2.0, "P10-P90 of the total");
    leg_draw(&L);
    return plot_finish(path, err);
}
