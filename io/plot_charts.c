/* io/plot_charts.c: the run charts of plot_charts.h over PLplot.
 *
 * Every chart is one page: a viewport leaving room on the right for the legend
 * (outside the plot, so it never hides data), light grey grid lines under black
 * axes, and cmap0 colours 2..14 set once per page from the fixed palette below
 * (index 15 stays plot_color's). Nothing depends on time, locale or addresses,
 * so equal inputs give equal bytes. Text passes through plot_esc because '#' is
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

/* Ends the page. cairo numbers SVG surfaces with a process-wide counter (<g
 * id="surfaceN">), so the n-th SVG of a process would differ from the same
 * chart drawn first; the id is rewritten to surface1, which makes every SVG
 * depend on its input alone. Returns SIM_OK or SIM_EIO.
 *
 * Read, patch, write back: the surface id is the only run-dependent byte, and
 * cairo offers no way to reset its counter. The patched bytes go to PATH.tmp
 * and are renamed over PATH, so a failure while writing back leaves the
 * complete (unpatched) chart rather than a truncated one, and is reported as
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
    {
        size_t pl = strlen(path);
        char *tmp = sim_xmalloc(pl + 5);
        memcpy(tmp, path, pl);
        memcpy(tmp + pl, ".tmp", 5);
        f = fopen(tmp, "wb");
        rc = SIM_OK;
        if (!f || fwrite(b, 1, n, f) != n) {
            if (f)
                fclose(f);
            rc = sim_err_set(err, SIM_EIO, path, 0,
                             "cannot rewrite the SVG file");
        } else if (fclose(f) != 0 || rename(tmp, path) != 0) {
            rc = sim_err_set(err, SIM_EIO, path, 0, "cannot write plot file");
        }
        if (rc != SIM_OK)
            remove(tmp);
        free(tmp);
    }
    free(b);
    return rc;
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

/* Bins of a battery series: per bin the mean, min and max state of charge
 * and the mean state of health over the bin's finite steps (NAN when it
 * has none). */
typedef struct soc_bins {
    size_t n;
    double *t, *mean, *lo, *hi, *soh;
} soc_bins;

/* Bins of bin_s from the first step (bin_s 0: one per step), each placed at
 * its middle. A year of 15-minute steps drawn step by step made a 2.5 MB
 * SVG; daily bins keep it to 365 points a line (issue 24). */
static void soc_bin(const res_step *steps, size_t n, double bin_s, soc_bins *b)
{
    double t0 = steps[0].t_s, t1 = steps[n - 1].t_s;
    size_t *cnt, *cs;
    b->n = bin_s > 0 ? (size_t)floor((t1 - t0) / bin_s) + 1 : n;
    b->t = sim_xcalloc(b->n, sizeof *b->t);
    b->mean = sim_xcalloc(b->n, sizeof *b->mean);
    b->lo = sim_xcalloc(b->n, sizeof *b->lo);
    b->hi = sim_xcalloc(b->n, sizeof *b->hi);
    b->soh = sim_xcalloc(b->n, sizeof *b->soh);
    cnt = sim_xcalloc(b->n, sizeof *cnt);
    cs = sim_xcalloc(b->n, sizeof *cs);
    for (size_t k = 0; k < b->n; k++) {
        b->t[k] =
            bin_s > 0 ? fmin(t0 + ((double)k + 0.5) * bin_s, t1) : steps[k].t_s;
        b->lo[k] = INFINITY;
        b->hi[k] = -INFINITY;
    }
    for (size_t i = 0; i < n; i++) {
        size_t k = bin_s > 0 ? (size_t)floor((steps[i].t_s - t0) / bin_s) : i;
        double v = steps[i].soc_frac, h = steps[i].soh_frac;
        if (k >= b->n)
            k = b->n - 1;
        if (isfinite(v)) {
            b->mean[k] += v;
            b->lo[k] = fmin(b->lo[k], v);
            b->hi[k] = fmax(b->hi[k], v);
            cnt[k]++;
        }
        if (isfinite(h)) {
            b->soh[k] += h;
            cs[k]++;
        }
    }
    for (size_t k = 0; k < b->n; k++) {
        b->mean[k] = cnt[k] ? b->mean[k] / (double)cnt[k] : (double)NAN;
        if (!cnt[k])
            b->lo[k] = b->hi[k] = NAN;
        b->soh[k] = cs[k] ? b->soh[k] / (double)cs[k] : (double)NAN;
    }
    free(cnt);
    free(cs);
}

static void soc_bins_free(soc_bins *b)
{
    free(b->t);
    free(b->mean);
    free(b->lo);
    free(b->hi);
    free(b->soh);
}

/* Binned like the power stack (daily means above 10 days of span, hourly
 * above one day, else every step), with the bins' min-max range as a band
 * under the mean, so the daily cycle stays visible as the band's height.
 * Each line is broken at a bin with no value rather than bridged, so a
 * gap is visible as a gap. */
int plot_battery_soc(const char *path, const res_step *steps, size_t n,
                     double t0_unix_s, const char *title, sim_err *err)
{
    size_t m = 0;
    double ts, t0, t1, off = 0, bin_s;
    const char *tl, *xopt = NULL, *res;
    int rc, have_soh = 0;
    PLFLT *x, *y;
    plot_legend L;
    soc_bins b;
    char lab[96];

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
    bin_s = t1 - t0 > 10 * 86400.0 ? 86400.0 : t1 - t0 > 86400.0 ? 3600.0 : 0;
    res = bin_s >= 86400.0 ? "daily" : bin_s > 0 ? "hourly" : NULL;
    if (isfinite(t0_unix_s)) {
        ts = 1.0;
        off = t0_unix_s;
        tl = "date";
        xopt = "bcnstd";
        plot_date_ticks(t1 - t0);
    } else {
        ts = time_scale(t1 - t0, &tl);
    }
    if ((rc = plot_page(path, err)) != SIM_OK)
        return rc;
    plot_frame(VP_X0, off + t0 * ts, off + t1 * ts, 0, 105, tl,
               "state of charge, state of health [%]", title, xopt, NULL);
    soc_bin(steps, n, bin_s, &b);
    x = sim_xmalloc(2 * (b.n + 1) * sizeof *x);
    y = sim_xmalloc(2 * (b.n + 1) * sizeof *y);
    memset(&L, 0, sizeof L);
    /* The range band first, one polygon per run of bins with values. */
    if (res) {
        size_t k = 0;
        plot_color(190, 230, 200);
        for (size_t i = 0; i <= b.n; i++) {
            if (i < b.n && isfinite(b.lo[i])) {
                x[k++] = (double)i; /* indices now, coordinates below */
                continue;
            }
            if (k >= 2) {
                for (size_t j = 0; j < k; j++) {
                    size_t bi = (size_t)x[j];
                    y[j] = 100.0 * b.lo[bi];
                    y[2 * k - 1 - j] = 100.0 * b.hi[bi];
                    x[2 * k - 1 - j] = off + b.t[bi] * ts;
                    x[j] = off + b.t[bi] * ts;
                }
                plfill((PLINT)(2 * k), x, y);
            }
            k = 0;
        }
        snprintf(lab, sizeof lab, "%s min-max of state of charge", res);
        lab[0] = (char)(lab[0] - 'a' + 'A');
        plot_leg_add(&L, PL_LEGEND_COLOR_BOX, 15, 1, 1.0, lab);
    }
    for (int pass = 0; pass < 1 + have_soh; pass++) {
        size_t k = 0;
        plcol0(pass == 0 ? PC_GREEN : PC_PURPLE);
        pllsty(pass == 0 ? 1 : 2);
        plwidth(pass == 0 ? 1.5 : 2.0);
        for (size_t i = 0; i <= b.n; i++) {
            double v =
                i < b.n ? (pass == 0 ? b.mean[i] : b.soh[i]) : (double)NAN;
            if (isfinite(v)) {
                x[k] = off + b.t[i] * ts;
                y[k++] = 100.0 * v;
            } else {
                if (k >= 2)
                    plline((PLINT)k, x, y);
                k = 0;
            }
        }
        if (pass == 0)
            snprintf(lab, sizeof lab, "State of charge%s%s%s", res ? " (" : "",
                     res ? res : "", res ? " mean)" : "");
        plot_leg_add(&L, PL_LEGEND_LINE, pass == 0 ? PC_GREEN : PC_PURPLE,
                     pass == 0 ? 1 : 2, pass == 0 ? 1.5 : 2.0,
                     pass == 0 ? lab : "State of health");
    }
    pllsty(1);
    plwidth(1.0);
    plot_leg_draw(&L);
    rc = plot_finish(path, err);
    soc_bins_free(&b);
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
               const plot_gantt_ctx *ctx, const char *title, sim_err *err)
{
    double horizon_s = ctx->horizon_s, w0 = INFINITY, w1 = 0, pad, sc, off;
    const char *tl, *xopt = "bcnst";
    int rc, seen[4] = {0}, dated = isfinite(ctx->t0_unix_s);
    plot_legend L;

    if (n_jobs == 0)
        return sim_err_set(err, SIM_EINVAL, path, 0, "job timeline: no jobs");
    if (!(horizon_s > 0))
        return sim_err_set(err, SIM_EINVAL, path, 0,
                           "job timeline: horizon must be > 0");
    /* The window is the jobs' span (first submission to the last end, or the
     * horizon for a job still running), padded by 4 %: an 11-day job on a
     * 240-day horizon fills the chart instead of being a sliver. */
    for (size_t j = 0; j < n_jobs; j++) {
        w0 = fmin(w0, jobs[j].submit_s);
        w1 = fmax(w1, isfinite(jobs[j].end_s) ? jobs[j].end_s : horizon_s);
    }
    if (!isfinite(w0))
        w0 = 0;
    if (!(w1 > w0))
        w1 = w0 + 3600.0;
    pad = 0.04 * (w1 - w0);
    w0 = fmax(0.0, w0 - pad);
    w1 += pad;
    if (dated) {
        sc = 1.0;
        off = ctx->t0_unix_s;
        tl = "date";
        xopt = "bcnstd";
        plot_date_ticks(w1 - w0);
    } else {
        sc = time_scale(w1, &tl);
        off = 0;
    }
    if ((rc = plot_page(path, err)) != SIM_OK)
        return rc;
    /* Row j is centred at y = n_jobs - j, so the first job is on top. A wider
     * left margin (VP_ROWS) makes room for the job names written to the left of
     * each row. */
    plot_frame(VP_ROWS, off + w0 * sc, off + w1 * sc, 0.4, (double)n_jobs + 0.6,
               tl, NULL, title, xopt, "bc");
    /* Recovery and pause bars get a minimum width of 0.15 % of the window, so
     * a 20-minute restart on a month's axis is still a visible red tick. */
#define TX(t) (off + (t)*sc)
    {
        double minw = 0.0015 * (w1 - w0);
        for (size_t j = 0; j < n_jobs; j++) {
            const res_job *jb = &jobs[j];
            double yc = (double)(n_jobs - j),
                   end = isfinite(jb->end_s) ? jb->end_s : horizon_s;
            double open_int = NAN, open_pause = NAN;
            char nm[160];
            plcol0(PC_BLACK);
            plmtex("lv", 1.0, (yc - 0.4) / ((double)n_jobs + 0.2), 1.0,
                   plot_esc(names[j], nm, sizeof nm));
            if (isfinite(jb->start_s)) {
                /* Queued time is a thin bar and training a thick one, so the
                 * two read apart even in greyscale. */
                bar(TX(jb->submit_s), TX(jb->start_s), yc, 0.12, PC_QUEUE);
                bar(TX(jb->start_s), TX(end), yc, 0.3, PC_BLUE);
                seen[0] |= jb->start_s > jb->submit_s;
                seen[1] = 1;
            } else {
                bar(TX(jb->submit_s), TX(horizon_s), yc, 0.12, PC_QUEUE);
                seen[0] = 1;
            }
            for (size_t i = 0; i < n_ev; i++) {
                const res_event *e = &ev[i];
                if (e->job != (int32_t)j)
                    continue;
                switch (e->kind) {
                case RES_EV_INTERRUPT: {
                    PLFLT px = TX(e->t_s), py = yc + 0.38;
                    open_int = e->t_s;
                    plcol0(PC_RED);
                    plssym(0.0, 0.8);
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
                        bar(TX(open_int), TX(fmax(e->t_s, open_int + minw)), yc,
                            0.3, PC_RED);
                        open_int = NAN;
                        seen[2] |= 1;
                    }
                    if (isfinite(open_pause)) {
                        bar(TX(open_pause), TX(fmax(e->t_s, open_pause + minw)),
                            yc, 0.3, PC_ORANGE);
                        open_pause = NAN;
                        seen[2] |= 2;
                    }
                    break;
                default:
                    break;
                }
            }
            if (isfinite(open_int)) {
                bar(TX(open_int), TX(end), yc, 0.3, PC_RED);
                seen[2] |= 1;
            }
            if (isfinite(open_pause)) {
                bar(TX(open_pause), TX(end), yc, 0.3, PC_ORANGE);
                seen[2] |= 2;
            }
        }
    }
    memset(&L, 0, sizeof L);
    if (seen[0])
        plot_leg_add(&L, PL_LEGEND_COLOR_BOX, PC_QUEUE, 1, 1.0, "Queued");
    if (seen[1])
        plot_leg_add(&L, PL_LEGEND_COLOR_BOX, PC_BLUE, 1, 1.0, "Training");
    if (seen[2] & 1)
        plot_leg_add(&L, PL_LEGEND_COLOR_BOX, PC_RED, 1, 1.0,
                     "Recovering (interrupted)");
    if (seen[2] & 2)
        plot_leg_add(&L, PL_LEGEND_COLOR_BOX, PC_ORANGE, 1, 1.0,
                     "Paused or shed for power");
    if (seen[3])
        plot_leg_add(&L, PL_LEGEND_SYMBOL, PC_RED, 1, 1.0, "Interruption");
    /* Commissioning dates and the horizon, where they fall in the window. */
    {
        PLFLT hy[2] = {0.4, (double)n_jobs + 0.6}, hx[2];
        int any_comm = 0;
        for (size_t c = 0; c < ctx->n_commission; c++) {
            double t = ctx->commission_s[c];
            if (!(t > w0 && t < w1))
                continue;
            hx[0] = hx[1] = TX(t);
            plcol0(PC_GREEN);
            plwidth(2.0);
            pllsty(3);
            plline(2, hx, hy);
            any_comm = 1;
        }
        if (any_comm)
            plot_leg_add(&L, PL_LEGEND_LINE, PC_GREEN, 3, 2.0,
                         "Module commissioned");
        if (horizon_s > w0 && horizon_s < w1) {
            hx[0] = hx[1] = TX(horizon_s);
            plcol0(PC_BLACK);
            plwidth(1.0);
            pllsty(2);
            plline(2, hx, hy);
            plot_leg_add(&L, PL_LEGEND_LINE, PC_BLACK, 2, 1.0,
                         "End of simulated horizon");
        }
        pllsty(1);
        plwidth(1.0);
    }
#undef TX
    plot_leg_draw(&L);
    return plot_finish(path, err);
}

/* The fewest decimals (1..6) at which values that differ (after scaling)
 * also print differently, so P10 and P50 never read the same when they are
 * not: the precision follows the spread of the data, not a fixed %.3g. */
static int decimals_apart(const double *v, int n, double scale)
{
    for (int d = 1; d < 6; d++) {
        int ok = 1;
        for (int i = 0; i < n && ok; i++)
            for (int j = i + 1; j < n && ok; j++) {
                char a[64], b[64];
                if (v[i] == v[j])
                    continue;
                snprintf(a, sizeof a, "%.*f", d, v[i] * scale);
                snprintf(b, sizeof b, "%.*f", d, v[j] * scale);
                ok = strcmp(a, b) != 0;
            }
        if (ok)
            return d;
    }
    return 6;
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
    plot_legend L;

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
    if ((rc = plot_page(path, err)) != SIM_OK) {
        free(count);
        return rc;
    }
    snprintf(t, sizeof t, "%s: %s", title, job_name);
    (void)nm;
    /* The window is at least +-3 % of the median wide, so a spread of half a
     * percent looks as small as it is; the bins stay on the data. */
    {
        double c = s.p50 / 86400.0;
        plot_frame(VP_X0, fmin(lo, c * 0.97), fmax(hi, c * 1.03), 0,
                   top * 1.15 + 0.5, "time to train [days]",
                   "replications [count]", t, NULL, NULL);
    }
    for (int b = 0; b < nb; b++) {
        PLFLT x[4] = {lo + b * w, lo + (b + 1) * w, lo + (b + 1) * w,
                      lo + b * w};
        PLFLT y[4] = {0, 0, count[b], count[b]};
        if (!count[b])
            continue;
        plcol0(PC_BLUE);
        plfill(4, x, y);
        plcol0(PC_BLACK);
        plline(4, x, y);
    }
    memset(&L, 0, sizeof L);
    snprintf(t, sizeof t, "Replications (%zu/%zu finished)", s.n, n);
    plot_leg_add(&L, PL_LEGEND_COLOR_BOX, PC_BLUE, 1, 1.0, t);
    {
        const double pv[3] = {s.p10, s.p50, s.p90};
        const char *pn[3] = {"P10", "P50", "P90"};
        int dec = decimals_apart(pv, 3, 1.0 / 86400.0);
        const int col[3] = {PC_PURPLE, PC_GREEN, PC_PURPLE}, sty[3] = {2, 1, 2};
        for (int k = 0; k < 3; k++) {
            PLFLT x[2] = {pv[k] / 86400.0, pv[k] / 86400.0},
                  y[2] = {0, top * 1.15 + 0.5};
            plcol0(col[k]);
            pllsty(sty[k]);
            plwidth(2.5);
            plline(2, x, y);
            snprintf(t, sizeof t, "%s: %.*f days", pn[k], dec, pv[k] / 86400.0);
            plot_leg_add(&L, PL_LEGEND_LINE, col[k], sty[k], 2.5, t);
        }
        pllsty(1);
        plwidth(1.0);
    }
    plot_leg_draw(&L);
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
    plot_legend L;

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
    if ((rc = plot_page(path, err)) != SIM_OK)
        return rc;
    plot_frame(VP_ROWS, 0, top * mwh * 1.1, 0.4, (double)n_jobs + 0.6,
               "facility energy per training run [MWh]", NULL, title, NULL,
               "bc");
    for (size_t j = 0; j < n_jobs; j++) {
        double yc = (double)(n_jobs - j), x0 = 0;
        char nm[160];
        plcol0(PC_BLACK);
        plmtex("lv", 1.0, (yc - 0.4) / ((double)n_jobs + 0.2), 1.0,
               plot_esc(names[j], nm, sizeof nm));
        for (int k = 0; k < SRC_N; k++) {
            double v = by_source_j[j * SRC_N + (size_t)k];
            if (!(isfinite(v) && v > 0))
                continue;
            bar(x0, x0 + v * mwh, yc, 0.3, PC_SRC0 + k);
            x0 += v * mwh;
        }
        if (facility && isfinite(facility[j].p10) &&
            isfinite(facility[j].p90)) {
            PLFLT x[2] = {facility[j].p10 * mwh, facility[j].p90 * mwh},
                  y[2] = {yc, yc};
            PLFLT cx[2], cy[2] = {yc - 0.15, yc + 0.15};
            plcol0(PC_BLACK);
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
            plot_leg_add(&L, PL_LEGEND_COLOR_BOX, PC_SRC0 + k, 1, 1.0,
                         source_table[k].label);
    if (facility)
        plot_leg_add(&L, PL_LEGEND_LINE, PC_BLACK, 1, 2.0,
                     "P10-P90 of the total");
    plot_leg_draw(&L);
    return plot_finish(path, err);
}
