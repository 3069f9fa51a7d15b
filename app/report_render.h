/* app/report_render.h: the report's chart list drawn again for the two
 * documents of issue 25: as SVG texts for report.html (inline charts) and
 * as one multi-page PDF, report.pdf. Both iterate report_draw_all (the one
 * chart list, app/report_charts.h), so the documents hold exactly the
 * charts the bundle has. */
#ifndef APP_REPORT_RENDER_H
#define APP_REPORT_RENDER_H

#include "app/report_charts.h"
#include "sim/err.h"

/* The SVG text of each chart in cl (cl->n entries, NULL where a chart could
 * not be drawn again; caller frees each and the array). With cl->ext "svg"
 * the chart files are read; otherwise the charts are drawn as SVG into a
 * temporary folder inside cl->dir, read and removed (the folder also when
 * the drawing fails partway). NULL on error, *err says which: the
 * temporary folder could not be made, or a chart could not be drawn. */
char **report_render_svgs(const report_src *src, const report_out *cl,
                          sim_err *err);

/* Draws every chart as a page of cl->dir/report.pdf (through a temporary
 * file and a rename). *note (n bytes) says what became of it, *pages how
 * many pages it has (0: not written). A PLplot without pdfcairo is not an
 * error: *note says so. Errors: SIM_EIO (write failure). */
int report_render_pdf(const report_src *src, const report_out *cl, char *note,
                      size_t n, int *pages, sim_err *err);

#endif
