/* io/plot.h: charts through PLplot's cairo drivers (PLplot is included only
 * by io/plot.c and io/plot_charts.c, which share io/plot_int.h).
 *
 * The format follows the file extension (.png, .svg, .pdf; PNG otherwise).
 * Before PLplot is touched the device is checked with plgDevs and the output
 * path with fopen, because PLplot would otherwise prompt on stdin or exit()
 * (deps-notes.md §4). White background, black axes, units on every axis.
 * PNG, SVG and PDF output is byte-reproducible (cairo's PDF creation date
 * is overwritten with 1970-01-01, io/plot.c pdf_fix_date).
 */
#ifndef IO_PLOT_H
#define IO_PLOT_H

#include <stddef.h>

#include "models/calib.h"
#include "sim/err.h"

/* Parity plot of predicted vs measured tokens/s/GPU on log axes, one colour
 * per GPU type, a y = x line and +-10% lines, legend and title.
 * pred[i] <= 0 rows are left out. Errors: SIM_EIO (device missing, path not
 * writable), SIM_EINVAL (no points). */
int plot_parity(const char *path, const calib_row *rows, size_t n,
                const double *pred, const char *title, sim_err *err);

/* What the last chart drawn in this process shows, as recorded while it
 * was drawn: title, axis labels (with units), the colour-scale label of a
 * heat map, and the legend entries in order. For `report`'s charts.json.
 * Reset when a chart starts; strings are "" when the chart has none. */
#define PLOT_META_MAX_LEG 24
typedef struct plot_meta {
    char title[256], xlabel[160], ylabel[160], zlabel[160];
    int n_legend;
    char legend[PLOT_META_MAX_LEG][96];
    double min_text_px; /* smallest text drawn: PLplot character height in
                           px on the PLOT_CHART_W page (0: none recorded) */
} plot_meta;

const plot_meta *plot_last_meta(void);

/* A multi-page PDF of charts (issue 25): after plot_book_open, every chart
 * drawn becomes the next page of path instead of a file of its own (the
 * chart's own path is not touched), until plot_book_close. Every page has
 * the size of the first. Not reentrant (one book per process at a time).
 * Errors: SIM_EINVAL (PLplot has no pdfcairo device: nothing written),
 * SIM_EIO (path not writable). */
int plot_book_open(const char *path, sim_err *err);

/* Ends the book; *pages = pages drawn. With no page the file is removed
 * (SIM_EINVAL). Errors: SIM_EIO when the PDF is incomplete. */
int plot_book_close(int *pages, sim_err *err);

#endif
