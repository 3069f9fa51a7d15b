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
#include <stdlib.h>
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

/* The character height PLplot reports (plgchr, mm) times the page's pixels
 * per mm (PLOT_CHART_W over the subpage width plgspa reports, mm): the
 * height cairo is asked to draw, so a pixel count independent of the
 * device's DPI. At CH_BASE it is 15.2 px, and the digits of the tick labels
 * measure 14 px tall in the PNG (0.92 of it). rel < 0: -rel times the
 * default height (pllegend scales its text from the default, not the
 * current height). */
void plot_meta_text(double rel)
{
    PLFLT def, ht, x0, x1, y0, y1;
    double px;
    plgchr(&def, &ht);
    plgspa(&x0, &x1, &y0, &y1);
    if (!(x1 > x0) || !(ht > 0))
        return;
    px = (rel < 0 ? -rel * def : ht * rel) * PLOT_CHART_W / (x1 - x0);
    if (meta.min_text_px == 0 || px < meta.min_text_px)
        meta.min_text_px = px;
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
 * 1200 px page (DejaVu Sans, measured), 12 px margin. Below CH_MIN it is
 * split at the space nearest its middle into two lines instead, so it
 * stays readable at half width. */
void plot_title(const char *title)
{
    PLFLT x0, x1, y0, y1;
    char t[512], a[512];
    double c, half_px, fit, scale = CH_TITLE;
    size_t len = strlen(title ? title : ""), cut = 0;
    plgvpd(&x0, &x1, &y0, &y1);
    c = 0.5 * (x0 + x1);
    half_px = fmin(c, 1.0 - c) * PLOT_CHART_W - 12.0;
    fit = 2.0 * half_px / 13.5;
    if ((double)len > fit)
        scale = CH_TITLE * fit / (double)len;
    if (scale < CH_MIN && len < sizeof a) {
        /* The space nearest the middle; each half then fits at a larger
         * size (never above CH_TITLE). */
        for (size_t i = 0; i < len; i++)
            if (title[i] == ' ' &&
                (!cut || labs((long)i - (long)len / 2) <
                             labs((long)cut - (long)len / 2)))
                cut = i;
    }
    if (cut) {
        size_t l2 = len - cut - 1, lmax = cut > l2 ? cut : l2;
        scale = fmin(CH_TITLE, fmax(CH_MIN, CH_TITLE * fit / (double)lmax));
        memcpy(a, title, cut);
        a[cut] = '\0';
        plschr(0.0, scale);
        plot_meta_text(1.0);
        plmtex("t", 2.7, 0.5, 0.5, plot_esc(a, t, sizeof t));
        plmtex("t", 1.3, 0.5, 0.5, plot_esc(title + cut + 1, t, sizeof t));
    } else {
        plschr(0.0, scale);
        plot_meta_text(1.0);
        plmtex("t", 1.5 * CH_TITLE / scale > 3.0 ? 3.0 : 1.5 * CH_TITLE / scale,
               0.5, 0.5, plot_esc(title, t, sizeof t));
    }
    plschr(0.0, CH_BASE);
    plot_meta_title(title);
}

void plot_frame(double vx0, double x0, double x1, double y0, double y1,
                const char *xlab, const char *ylab, const char *title,
                const char *xopt, const char *yopt)
{
    plvpor(vx0, VP_X1, VP_Y0, VP_Y1);
    plwind(x0, x1, y0, y1);
    plot_meta_text(1.0); /* tick labels and axis labels */
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
    plot_meta_text(1.0);
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
    plot_meta_text(1.0);
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

/* The legend's text is PLOT_LEG_SCALE of PLplot's default height (pllegend
 * scales from the default: 14.25 px on the 1200 px page, readable at half
 * width, CH_MIN); a label longer than the column holds at that size (23
 * characters fit a quarter-page column, measured on the widest DejaVu
 * labels) wraps at spaces (or hyphens) onto continuation entries with no
 * symbol, instead of shrinking the text as it did before (down to 8 px: tests/
 * test_report.c checks the page edges and the text size). */
#define PLOT_LEG_SCALE CH_MIN
#define LEG_LINES (3 * PLOT_LEG_MAX)

void plot_leg_draw_in(plot_legend *L, double vx0, double vx1, double vy0,
                      double vy1)
{
    PLFLT w, h;
    size_t fit = (size_t)(23.0 * (vx1 - vx0) / 0.25 * 0.75 / PLOT_LEG_SCALE);
    PLINT opt[LEG_LINES], tcol[LEG_LINES], bcol[LEG_LINES], bpat[LEG_LINES],
        lcol[LEG_LINES], lsty[LEG_LINES], scol[LEG_LINES], snum[LEG_LINES];
    PLFLT bscale[LEG_LINES], bwid[LEG_LINES], lwid[LEG_LINES],
        sscale[LEG_LINES];
    const char *text[LEG_LINES], *sym[LEG_LINES];
    char buf[LEG_LINES][96];
    int n = 0;
    fit = fit < 8 ? 8 : fit;
    for (int i = 0; i < L->n; i++) {
        const char *s = L->text[i];
        int first = 1;
        /* Every entry keeps its first line (its symbol): continuation lines
         * stop where the entries after this one would lose theirs. An empty
         * label is one line with no text. */
        int room = LEG_LINES - n - (L->n - i - 1), used = 0;
        while ((*s || first) && used < room) {
            size_t len = strlen(s), take = len;
            if (len > fit) {
                /* The last space within fit; else just after the last
                 * hyphen (scenario names: "iceland-geothermal"); a hard cut
                 * only for a word longer than the column. An early break
                 * ("run 2:" / "iceland-geothermal") reads better than a word
                 * cut in two. */
                take = fit;
                while (take > 0 && s[take] != ' ')
                    take--;
                if (take == 0) {
                    take = fit - 1;
                    while (take > 0 && s[take] != '-')
                        take--;
                    take = take > 0 ? take + 1 : fit;
                }
                if (take == fit) {
                    /* A hard cut never splits a UTF-8 character or a
                     * doubled '#' (PLplot's escaped '#': plot_esc). */
                    size_t nh = 0;
                    while (take > 1 && ((unsigned char)s[take] & 0xC0) == 0x80)
                        take--;
                    while (nh < take && s[take - 1 - nh] == '#')
                        nh++;
                    if (nh % 2 == 1 && take > 1)
                        take--;
                }
            }
            snprintf(buf[n], sizeof buf[n], "%.*s", (int)take, s);
            opt[n] = first ? L->opt[i] : PL_LEGEND_NONE;
            tcol[n] = L->tcol[i];
            bcol[n] = L->bcol[i];
            bpat[n] = L->bpat[i];
            lcol[n] = L->lcol[i];
            lsty[n] = L->lsty[i];
            scol[n] = L->scol[i];
            snum[n] = L->snum[i];
            bscale[n] = L->bscale[i];
            bwid[n] = L->bwid[i];
            lwid[n] = L->lwid[i];
            sscale[n] = L->sscale[i];
            sym[n] = L->sym[i];
            text[n] = buf[n];
            n++;
            used++;
            first = 0;
            s += take;
            while (*s == ' ')
                s++;
        }
    }
    plvpor(vx0, vx1, vy0, vy1);
    plwind(0, 1, 0, 1);
    plcol0(PC_BLACK);
    plot_meta_text(-PLOT_LEG_SCALE);
    pllegend(&w, &h, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
             PL_POSITION_LEFT | PL_POSITION_TOP | PL_POSITION_INSIDE, 0.0, 0.0,
             0.05, 0, PC_BLACK, 1, 0, 0, n, opt, 0.6, PLOT_LEG_SCALE, 2.0, 0.0,
             tcol, text, bcol, bpat, bscale, bwid, lcol, lsty, lwid, scol,
             sscale, snum, sym);
}

void plot_leg_draw(plot_legend *L)
{
    plot_leg_draw_in(L, VP_X1 + 0.015, 0.985, VP_Y0, VP_Y1);
}
