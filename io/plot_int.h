/* io/plot_int.h: setup, teardown and the drawing kit shared by the PLplot
 * files (io/plot.c, io/plot_kit.c, io/plot_charts.c, io/plot_views.c,
 * io/plot_sweep.c). Not for other callers: PLplot types appear here, and
 * only the io/plot*.c files include <plplot.h>. */
#ifndef IO_PLOT_INT_H
#define IO_PLOT_INT_H

#include <plplot.h>
#include <stddef.h>

#include "sim/err.h"

/* Colour indices of cmap0 every run chart sets (plot_palette). 15 stays
 * plot_color's scratch entry; one colour per registry source from PC_SRC0 on,
 * from models/source.h, so a source has the same colour in every chart. */
enum {
    PC_BLACK = 1,
    PC_GRID = 2,
    PC_RED = 3,
    PC_BLUE,
    PC_QUEUE,
    PC_ORANGE,
    PC_PURPLE,
    PC_GREEN,
    PC_GREY,
    PC_SRC0 = 16
};

/* Page layout in normalized page coordinates: the plot viewport, and the
 * column right of it that holds the legend (inside the page, never past its
 * edge). Character scales of labels and titles. */
#define VP_X0 0.09
#define VP_X1 0.72
#define VP_Y0 0.11
#define VP_Y1 0.90
#define VP_ROWS 0.22 /* left edge when rows are labelled with job names */
#define CH_BASE 0.8
#define CH_TITLE 1.05
/* The smallest text any chart draws (relative to PLplot's default height):
 * 14.25 px character height on the 1200 px page, so 7.1 px when the chart
 * is pasted at half width (600 px), the least that stays readable (issue
 * 24; tests/test_report.c checks every chart's charts.json min_text_px).
 * Longer legend labels and titles wrap onto a second line instead of
 * shrinking below it. */
#define CH_MIN 0.75

/* Sets cmap0 for a run chart: white, black, grid grey, the fixed colours
 * above and the source colours. */
void plot_palette(void);

/* Copies s into buf with '#' doubled (PLplot's escape). Returns buf. */
const char *plot_esc(const char *s, char *buf, size_t n);

/* plot_begin at PLOT_CHART_W x PLOT_CHART_H, plot_palette, base font. */
int plot_page(const char *path, sim_err *err);

/* Axes with grid, labels and title over [x0,x1] x [y0,y1] in the viewport
 * [vx0, VP_X1] x [VP_Y0, VP_Y1]. xopt/yopt: plbox options (NULL: "bcnst",
 * "bcnstv"); an xopt with 'd' is a date axis (x in Unix seconds, labels
 * by pltimefmt). Records title and labels in the chart's metadata. */
void plot_frame(double vx0, double x0, double x1, double y0, double y1,
                const char *xlab, const char *ylab, const char *title,
                const char *xopt, const char *yopt);

/* Panel variant: any viewport, small title, labels recorded only if none
 * were recorded yet. */
void plot_panel(double vx0, double vx1, double vy0, double vy1, double x0,
                double x1, double y0, double y1, const char *xlab,
                const char *ylab, const char *ptitle, const char *xopt,
                const char *yopt);

/* Writes title over the current viewport, shrunk to stay inside the page,
 * and records it. */
void plot_title(const char *title);

/* Writes the page title above everything and records it. */
void plot_page_title(const char *title);

/* A date axis for x in Unix seconds spanning span_s: sets pltimefmt and
 * returns the major tick interval [s]. */
double plot_date_ticks(double span_s);

#define PLOT_LEG_MAX 20
/* Legend entries: colour boxes, lines or symbols; labels are copied. */
typedef struct plot_legend {
    int n;
    PLINT opt[PLOT_LEG_MAX], tcol[PLOT_LEG_MAX], bcol[PLOT_LEG_MAX],
        bpat[PLOT_LEG_MAX], lcol[PLOT_LEG_MAX], lsty[PLOT_LEG_MAX],
        scol[PLOT_LEG_MAX], snum[PLOT_LEG_MAX];
    PLFLT bscale[PLOT_LEG_MAX], bwid[PLOT_LEG_MAX], lwid[PLOT_LEG_MAX],
        sscale[PLOT_LEG_MAX];
    const char *text[PLOT_LEG_MAX], *sym[PLOT_LEG_MAX];
    char buf[PLOT_LEG_MAX][96];
} plot_legend;

void plot_leg_add(plot_legend *L, PLINT kind, int col, int style, double width,
                  const char *text);

/* Draws the legend in the column right of the plot viewport, top aligned,
 * inside the page; records its entries. */
void plot_leg_draw(plot_legend *L);

/* Draws the legend inside the viewport [vx0,vx1] x [vy0,vy1], top left. */
void plot_leg_draw_in(plot_legend *L, double vx0, double vx1, double vy0,
                      double vy1);

/* Chart metadata recording (io/plot.h plot_last_meta): reset by plot_begin;
 * each setter keeps the first value it is given. */
void plot_meta_reset(void);
void plot_meta_title(const char *s);
void plot_meta_axes(const char *x, const char *y);
void plot_meta_z(const char *z);
void plot_meta_legend(const char *s);
/* Records text about to be drawn at rel x the current character height
 * (a legend's text scale; 1 for plmtex): the chart's smallest text, which
 * tests/test_report.c checks stays readable at half width. */
void plot_meta_text(double rel);

/* Device for path by extension: "pngcairo", "svgcairo" or "pdfcairo". */
const char *plot_device_for(const char *path);

/* 1 if PLplot has the named device (plgDevs), else 0. */
int plot_has_device(const char *dev);

/* Checks the device and that path can be written, then starts a page of
 * w x h (px for PNG, pt for SVG/PDF) with a white background and colour 1
 * black. Errors: SIM_EIO with the reason in err. */
int plot_begin(const char *path, int w, int h, sim_err *err);

/* Sets colour index 15 to (r, g, b) and selects it. */
void plot_color(int r, int g, int b);

/* Finishes and closes the file. */
void plot_end(void);

/* After plot_end: checks that path ends as a whole file of its format
 * does (PNG's IEND chunk, SVG's </svg>, PDF's %%EOF). cairo reports no
 * write error through PLplot, so a full disk or a file size limit would
 * otherwise leave a truncated chart behind a success. On failure the file
 * is removed. Returns SIM_OK or SIM_EIO. */
int plot_check_complete(const char *path, sim_err *err);

/* plot_end, plot_check_complete, then for an SVG rewrites cairo's process-wide
 * surface counter
 * (<g id="surfaceN">) to surface1, so an SVG's bytes depend on its input
 * alone, however many charts the process drew before. Returns SIM_OK or
 * SIM_EIO. (Defined in io/plot_charts.c.) */
int plot_finish(const char *path, sim_err *err);

#endif
