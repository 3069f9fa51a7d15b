/* app/report_spread.h: the parts of `report` (summary.md and report.html)
 * that say how wide a run's ranges are and why (issue 19): where the
 * spread of each job's time to train comes from, as stored by
 * `run --variance-decomposition --db FILE` (table variance_shares), and
 * the site's annual solar energy exceeded in 90 % of years (runs column
 * solar_energy_p90_exceedance_j).
 *
 * Both documents take their cells and sentences from here, so they cannot
 * disagree. Everything is read from the stored run (io/db.h db_run); a run
 * without the stored figure gets no section and no row, never a made-up
 * value. */
#ifndef APP_REPORT_SPREAD_H
#define APP_REPORT_SPREAD_H

#include <stddef.h>
#include <stdio.h>

#include "io/db.h"

/* Columns of the "Where the spread comes from" table: job, finished, mean
 * and sd of time to train [days], the four sources' shares and the
 * interaction remainder [%]. */
#define REPORT_SPREAD_COLS 9
extern const char *const report_spread_head[REPORT_SPREAD_COLS + 1];

/* The heading and the paragraph on the method (plain text, one paragraph),
 * for both documents. */
extern const char report_spread_heading[];
extern const char report_spread_method[];

/* 1 if r has stored variance shares, else 0. */
int report_spread_has(const db_run *r);

/* The cells of job j's row (REPORT_SPREAD_COLS strings of at most 64
 * bytes, OUT) from r's stored shares: shares in percent with one decimal,
 * "n/a" where the variance is unknown (fewer than 2 finished). Returns 1,
 * or 0 (cells untouched) when job j has no stored shares. */
int report_spread_cells(const db_run *r, size_t j,
                        char cells[REPORT_SPREAD_COLS][64]);

/* The annual solar energy exceeded in 90 % of years as "X MWh per year"
 * into buf (OUT, n bytes); returns 1, or 0 (buf "") when the run has no
 * stored figure (no solar, or stored before schema version 11). */
int report_spread_solar_p90(const db_run *r, char *buf, size_t n);

/* Label of that figure in the site tables. */
extern const char report_spread_solar_p90_label[];

/* summary.md: the section "## Where the spread comes from" (a Markdown
 * table and the method) when r has stored shares; nothing otherwise. */
void report_spread_md(FILE *f, const db_run *r);

/* summary.md: the site table's row of the solar P90 exceedance when r has
 * it; nothing otherwise. */
void report_spread_md_solar_row(FILE *f, const db_run *r);

#endif
