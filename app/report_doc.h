/* app/report_doc.h: report.html for one stored run (issue 25), built as
 * sections for io/report_html.h: the run and its scenario (description,
 * configuration hash, software version), the site, the energy mix, the
 * site's and every job's metrics with P10/P50/P90 in their display units
 * (from the resfield table, so every metric a run summary shows is here),
 * costs, the throughput calibration's release and measured accuracy, the
 * assumptions the run used (catalog entries' `assumptions` and scenario
 * keys left at a default the key table marks "(assumption)"), and every
 * chart inline.
 *
 * Like summary.md it reads the stored run only, except for the catalog and
 * the calibration, which the database does not store: those are the data
 * home's catalog files (models/) at report time, and the page says so. The
 * bytes depend on the run, those files and the software version alone. */
#ifndef APP_REPORT_DOC_H
#define APP_REPORT_DOC_H

#include <stdio.h>

#include "app/report_charts.h"
#include "io/db.h"
#include "io/report_html.h"
#include "models/catalog.h"
#include "sim/err.h"

typedef struct report_doc_in {
    const db_run *run;
    const report_out *charts; /* the charts drawn (and not drawn) */
    const char *const *svg;   /* charts->n SVG texts (NULL: not available) */
    const char *pdf_note;     /* what became of report.pdf, one sentence */
    const rh_section *extra;  /* further sections (compare), may be NULL */
    size_t n_extra;
    const char *catalog_dir; /* NULL: the data home's models/ */
    const char *calib_path;  /* NULL: the built-in calibration */
} report_doc_in;

/* Writes report.html's text to f. Errors: SIM_EINVAL (a chart's text is not
 * SVG), SIM_EIO (write error). A catalog or calibration that cannot be read
 * is said in the page, not an error: the rest of the report stands. */
int report_doc_write(FILE *f, const report_doc_in *in, sim_err *err);

/* The assumptions of the run as plain rows, for tests and the page: n rows
 * of 6 cells (where, entry/key path, key, value, unit, why), row-major;
 * caller frees with report_doc_free_rows. cat may be NULL (scenario keys
 * only). */
char **report_doc_assumptions(const db_run *r, const catalog *cat, size_t *n);
void report_doc_free_rows(char **rows, size_t n);

#endif
