/* app/compare_doc.h: the comparison as a section of report.html (issue 25,
 * `report --runs`), for io/report_html.h: the runs compared and, per scope
 * (the site, each job), one table of the metrics `compare` shows by default,
 * a row per run with P10, P50, P90 and the P50's difference from the first
 * run in percent. The numbers are app/compare.h's, so the page, the table
 * and compare.csv cannot disagree. The chart is the report's `compare`
 * chart, in the page's chart section like every other. */
#ifndef APP_COMPARE_DOC_H
#define APP_COMPARE_DOC_H

#include <stddef.h>

#include "app/compare.h"
#include "io/report_html.h"

typedef struct compare_doc compare_doc;

/* The sections for c (c must outlive the result). Never fails (memory
 * aborts, sim/mem.h). */
compare_doc *compare_doc_new(const compare *c);

/* The sections to hand to report.html, *n of them; owned by d. */
const rh_section *compare_doc_sections(const compare_doc *d, size_t *n);

/* Frees d. NULL is a no-op. */
void compare_doc_free(compare_doc *d);

#endif
