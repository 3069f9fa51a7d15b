/* app/report_summary.h: `report`'s summary.md and summary.csv of a stored
 * run (app/report_summary.c). Pure writers: a loaded run in, text out. */
#ifndef APP_REPORT_SUMMARY_H
#define APP_REPORT_SUMMARY_H

#include <stdio.h>

#include "app/report_charts.h"
#include "io/db.h"

/* Writes the Markdown summary of r to f; cl lists the charts drawn and not
 * drawn (their names and reasons go into the summary). Errors show in
 * ferror(f). */
void report_summary_md(FILE *f, const db_run *r, const report_out *cl);

/* Writes the CSV summary of r to f: one row per job with each job metric's
 * mean and P10/P50/P90 in its display unit. Returns SIM_OK, or SIM_EIO when
 * a write fails. */
int report_summary_csv(FILE *f, const db_run *r);

#endif
