/* io/plot_int.h: setup and teardown shared by the PLplot files (io/plot.c,
 * io/plot_charts.c). Not for other callers. */
#ifndef IO_PLOT_INT_H
#define IO_PLOT_INT_H

#include "sim/err.h"

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
