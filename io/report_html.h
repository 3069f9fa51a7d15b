/* io/report_html.h: report.html, one self-contained HTML document (issue
 * 25): sections of text, tables and charts inline as SVG, with print CSS so
 * it prints to PDF on A4 or Letter without splitting a chart or a table
 * row. No external resource: no scripts, fonts, style sheets or images
 * from files; every chart's SVG is copied into the page.
 *
 * The writer knows nothing about runs: a caller (app/report_doc.c for one
 * run; `compare` for several) builds a list of sections, each with a
 * paragraph, tables and charts, so a new kind of content is a new section,
 * not a change here. Every text is HTML-escaped here (& < > " '), so callers
 * pass plain text. Output depends on the input alone (no time, no path):
 * the same sections give the same bytes.
 */
#ifndef IO_REPORT_HTML_H
#define IO_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "sim/err.h"

/* A table: head[n_cols] and cells[n_rows * n_cols] (row-major), plain
 * text; a NULL cell is empty. num_from: columns >= num_from are numbers,
 * right-aligned (0: none). */
typedef struct rh_table {
    const char *caption; /* above the table, may be NULL */
    size_t n_cols, n_rows, num_from;
    const char *const *head;
    const char *const *cells;
} rh_table;

/* A chart: its SVG document text as cairo wrote it (svg NULL: not drawn,
 * `what` then says why). */
typedef struct rh_chart {
    const char *id;    /* unique in the page: "power", "time_to_train_1" */
    const char *title; /* caption */
    const char *what;  /* one line under it */
    const char *svg;   /* "<?xml ...><svg ...>...</svg>", or NULL */
} rh_chart;

typedef struct rh_section {
    const char *id;      /* anchor, [a-z0-9_-] */
    const char *heading; /* h2 */
    const char *text;    /* paragraphs, "\n\n" between them; may be NULL */
    const rh_table *tables;
    size_t n_tables;
    const rh_chart *charts;
    size_t n_charts;
} rh_section;

typedef struct rh_doc {
    const char *title;    /* h1 and <title> */
    const char *subtitle; /* one line under the title, may be NULL */
    const rh_section *sections;
    size_t n_sections;
} rh_doc;

/* Writes the document to f. Errors: SIM_EINVAL when a chart's SVG has no
 * <svg> element (nothing is written to f then... only up to that chart;
 * callers write through a temporary file), SIM_EIO on a write error. */
int report_html_write(FILE *f, const rh_doc *d, sim_err *err);

/* Writes s HTML-escaped (& < > " ' as entities) to f. */
void report_html_esc(FILE *f, const char *s);

#endif
