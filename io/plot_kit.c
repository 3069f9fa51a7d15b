/* io/plot_kit.c: the drawing kit every run chart shares (io/plot_int.h):
 * palette, page, frame and panel, date ticks, legends, and the record of
 * what a chart shows (io/plot.h plot_last_meta) that `report` writes into
 * charts.json.
 *
 * Why one kit: issue 24 asks that a source has one colour in every chart,
 * that legends sit inside the page, and that charts.json lists exactly the
 * title, labels and legend entries drawn. Recording them where they are drawn
 * (plot_frame, plot_leg_draw) is the only way the list cannot drift from the
 * pictures. This file never opens a file or chooses what to draw; it only
 * lays out what the chart files hand it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/plot.h"
#include "io/plot_charts.h"
#include "io/plot_int.h"
#include "models/source.h"

/* One chart at a time per process (PLplot is global state too), so the
 * record is a static. */
static plot_meta meta;

/* The tick interval of the next date axis (plot_date_ticks), 0: PLplot's. */
static double date_tick;

const plot_meta *plot_last_meta(void)
{
    return &meta;
}

void plot_meta_reset(void)
{
    memset(&meta, 0, sizeof meta);
    date_tick = 0;
}

/* First value wins: a multi-panel chart records its page title and the
 * first panel's axes, not the last panel's. */
static void keep_first(char *dst, size_t n, const char *s)
{
    if (s && *s && !dst[0])
        snprintf(dst, n, "%s", s);
}

void plot_meta_title(const char *s)
{
    keep_first(meta.title, sizeof meta.title, s);
}

void plot_meta_axes(const char *x, const char *y)
{
    keep_first(meta.xlabel, sizeof meta.xlabel, x);
    keep_first(meta.ylabel, sizeof meta.ylabel, y);
}

void plot_meta_z(const char *z)
{
    keep_first(meta.zlabel, sizeof meta.zlabel, z);
}

void plot_meta_legend(const char *s)
{
    if (meta.n_legend < PLOT_META_MAX_LEG && s)
        snprintf(meta.legend[meta.n_legend++], sizeof meta.legend[0], "%s", s);
}

/* Set on every page: each chart is its own plinit ... plend session, which
 * starts again from PLplot's default colours. */
void plot_palette(void)
{
    /* cmap0 has 16 colours by default; the sources need SRC_N more. Growing
     * it resets the background entry, so it is set white again. */
    plscmap0n(PC_SRC0 + SRC_N);
    plscol0(0, 255, 255, 255);
    plscol0(PC_BLACK, 0, 0, 0);
    plscol0(PC_GRID, 225, 225, 225);
    for (int k = 0; k < SRC_N; k++)
        plscol0(PC_SRC0 + k, (source_table[k].rgb >> 16) & 0xff,
                (source_table[k].rgb >> 8) & 0xff, source_table[k].rgb & 0xff);
    plscol0(PC_RED, 200, 30, 30);
    plscol0(PC_BLUE, 40, 110, 190);
    plscol0(PC_QUEUE, 200, 200, 200);
    plscol0(PC_ORANGE, 245, 140, 20);
    plscol0(PC_PURPLE, 120, 60, 170);
    plscol0(PC_GREEN, 20, 130, 60);
    plscol0(PC_GREY, 110, 110, 110);
}

/* Scenario, job and source names are user text; an unescaped '#' would start
 * a PLplot escape sequence and garble or drop the following characters. */
const char *plot_esc(const char *s, char *buf, size_t n)
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

int plot_page(const char *path, sim_err *err)
{
    int rc = plot_begin(path, PLOT_CHART_W, PLOT_CHART_H, err);
    if (rc != SIM_OK)
        return rc;
    plot_palette();
    pladv(0);
    plschr(0.0, CH_BASE);
    return SIM_OK;
}

/* Grid first, axes second, so grid lines never draw over the axes. A y
 * option without 'v' (row charts) drops the y grid, since rows are labelled
 * with names. */
static void axes(const char *xopt, const char *yopt)
{
    int ygrid = !yopt || strchr(yopt, 'v') != NULL;
    int xdate = xopt && strchr(xopt, 'd') != NULL;
    plcol0(PC_GRID);
    plwidth(1.0);
    plbox(xdate ? "gd" : "g", xdate ? date_tick : 0, 0, ygrid ? "g" : "", 0, 0);
    plcol0(PC_BLACK);
    plbox(xopt ? xopt : "bcnst", xdate ? date_tick : 0, 0,
          yopt ? yopt : "bcnstv", 0, 0);
}

/* Writes title centred over the current viewport, its size cut so it stays
 * inside the page: about 13.5 px per character at CH_TITLE on the
 * 1200 px page (DejaVu Sans, measured), 12 px margin. */
void plot_title(const char *title)
{
    PLFLT x0, x1, y0, y1;
    char t[512];
    double c, half_px, fit, scale = CH_TITLE;
    size_t len = strlen(title ? title : "");
    plgvpd(&x0, &x1, &y0, &y1);
    c = 0.5 * (x0 + x1);
    half_px = fmin(c, 1.0 - c) * PLOT_CHART_W - 12.0;
    fit = 2.0 * half_px / 13.5;
    if ((double)len > fit)
        scale = CH_TITLE * fit / (double)len;
    plschr(0.0, scale);
    plmtex("t", 1.5 * CH_TITLE / scale > 3.0 ? 3.0 : 1.5 * CH_TITLE / scale,
           0.5, 0.5, plot_esc(title, t, sizeof t));
    plschr(0.0, CH_BASE);
    plot_meta_title(title);
}

void plot_frame(double vx0, double x0, double x1, double y0, double y1,
                const char *xlab, const char *ylab, const char *title,
                const char *xopt, const char *yopt)
{
    plvpor(vx0, VP_X1, VP_Y0, VP_Y1);
    plwind(x0, x1, y0, y1);
    axes(xopt, yopt);
    plmtex("b", 3.2, 0.5, 0.5, xlab);
    if (ylab)
        plmtex("l", 5.0, 0.5, 0.5, ylab);
    plot_title(title);
    plot_meta_axes(xlab, ylab);
}

void plot_panel(double vx0, double vx1, double vy0, double vy1, double x0,
                double x1, double y0, double y1, const char *xlab,
                const char *ylab, const char *ptitle, const char *xopt,
                const char *yopt)
{
    plvpor(vx0, vx1, vy0, vy1);
    plwind(x0, x1, y0, y1);
    axes(xopt, yopt);
    if (xlab)
        plmtex("b", 3.2, 0.5, 0.5, xlab);
    if (ylab)
        plmtex("l", 3.6, 0.5, 0.5, ylab);
    if (ptitle)
        plmtex("t", 0.9, 0.5, 0.5, ptitle);
    plot_meta_axes(xlab, ylab);
}

/* The page title goes in a viewport across the whole top of the page, so it
 * is centred on the page rather than on one panel. */
void plot_page_title(const char *title)
{
    char t[512];
    plvpor(0.02, 0.98, 0.0, 0.975);
    plwind(0, 1, 0, 1);
    plcol0(PC_BLACK);
    plschr(0.0, CH_TITLE);
    plmtex("t", -0.2, 0.5, 0.5, plot_esc(title, t, sizeof t));
    plschr(0.0, CH_BASE);
    plot_meta_title(title);
}

/* Ticks a reader counts in: hours within two days, then days, weeks and
 * months (30 days: PLplot ticks at fixed intervals, and a date label says
 * which day each tick is). */
double plot_date_ticks(double span_s)
{
    if (span_s <= 2.5 * 86400.0) {
        pltimefmt("%b %d %H:%M");
        return date_tick = 12 * 3600.0;
    }
    pltimefmt("%b %d");
    if (span_s <= 16 * 86400.0)
        return date_tick = 2 * 86400.0;
    if (span_s <= 70 * 86400.0)
        return date_tick = 7 * 86400.0;
    if (span_s <= 200 * 86400.0)
        return date_tick = 30 * 86400.0;
    return date_tick = 61 * 86400.0;
}

void plot_leg_add(plot_legend *L, PLINT kind, int col, int style, double width,
                  const char *text)
{
    int i = L->n;
    if (i >= PLOT_LEG_MAX)
        return;
    L->opt[i] = kind;
    L->tcol[i] = PC_BLACK;
    L->bcol[i] = L->lcol[i] = L->scol[i] = col;
    L->bpat[i] = 0;
    L->bscale[i] = 0.9;
    L->bwid[i] = 1.0;
    L->lsty[i] = style;
    L->lwid[i] = width;
    L->sscale[i] = 1.2;
    L->snum[i] = 1;
    L->sym[i] = "#(852)"; /* a filled triangle */
    plot_esc(text, L->buf[i], sizeof L->buf[i]);
    L->text[i] = L->buf[i];
    L->n++;
    plot_meta_legend(text);
}

/* Text scale from the longest label and the column's width, so a long job
 * or site name shrinks its legend instead of running past the page edge:
 * 23 characters fit a column of a quarter page at 0.75 (measured on the
 * widest DejaVu labels; tests/test_report.c checks the page edges). */
void plot_leg_draw_in(plot_legend *L, double vx0, double vx1, double vy0,
                      double vy1)
{
    PLFLT w, h;
    size_t longest = 1;
    double scale = 0.75, fit = 23.0 * (vx1 - vx0) / 0.25;
    for (int i = 0; i < L->n; i++)
        longest = strlen(L->text[i]) > longest ? strlen(L->text[i]) : longest;
    if ((double)longest > fit)
        scale *= fit / (double)longest;
    plvpor(vx0, vx1, vy0, vy1);
    plwind(0, 1, 0, 1);
    plcol0(PC_BLACK);
    pllegend(&w, &h, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
             PL_POSITION_LEFT | PL_POSITION_TOP | PL_POSITION_INSIDE, 0.0, 0.0,
             0.05, 0, PC_BLACK, 1, 0, 0, L->n, L->opt, 0.6, scale, 2.0, 0.0,
             L->tcol, L->text, L->bcol, L->bpat, L->bscale, L->bwid, L->lcol,
             L->lsty, L->lwid, L->scol, L->sscale, L->snum, L->sym);
}

void plot_leg_draw(plot_legend *L)
{
    plot_leg_draw_in(L, VP_X1 + 0.015, 0.985, VP_Y0, VP_Y1);
}
