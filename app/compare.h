/* app/compare.h: stored runs side by side (issue 25, `factorysim compare` and
 * the report's comparison chart).
 *
 * A comparison is N >= 1 stored runs, named by the user, each read back from
 * the results store (io/db.h) with its summaries. The first run is the
 * baseline: every other run's statistics are given with their difference
 * from it, absolute and in percent. Jobs are matched by job name across
 * runs, in the order each name first appears (run 1's jobs, then jobs only
 * later runs have); a job a run does not have is "missing" there, which
 * every output shows as blank (empty CSV cell, JSON null, empty table cell),
 * never as zero.
 *
 * Naming a run (compare_resolve), tried in this order:
 *   - all digits: the run with that id;
 *   - a scenario name: the latest stored plain run (not a sweep case) of the
 *     scenario; the note says which id was picked and out of how many;
 *   - a sweep case key ("energy.solar.capacity_mw=10;..."): the stored run
 *     of that case; when cases of several sweeps carry the key, it is
 *     ambiguous.
 * A name that is both a scenario and a case key is ambiguous; a name that is
 * neither is unknown. Both are errors naming it.
 *
 * The metrics are the result-field registry's run fields (models/resfield.h,
 * outputs & RESFIELD_RUN), by their display name and in their display unit,
 * as `run` and `sweep` print them: one quantity, one name everywhere.
 *
 * Output carries no wall-clock time or path; run ids (storage order) only
 * with with_ids, in CSV and JSON (the table always shows them, it is for
 * people). Same database, same names: same bytes.
 */
#ifndef APP_COMPARE_H
#define APP_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "io/db.h"
#include "models/resfield.h"
#include "models/stats.h"
#include "sim/err.h"

/* How a name was resolved. */
typedef enum compare_how {
    COMPARE_BY_ID = 0,       /* digits: a run id */
    COMPARE_BY_SCENARIO = 1, /* the latest plain run of a scenario */
    COMPARE_BY_CASE = 2      /* a sweep case key */
} compare_how;

typedef struct compare_run {
    char *given;     /* the name as the user gave it */
    compare_how how; /* how it was resolved */
    int64_t id;      /* the run picked */
    char note[300];  /* "iceland-geothermal: run 4, the latest of 2 runs of
                        this scenario" (empty for a run id) */
    db_run *run;     /* summaries only (no series, no events) */
} compare_run;

typedef struct compare {
    size_t n_runs; /* >= 1; runs[0] is the baseline */
    compare_run *runs;
    size_t n_jobs; /* distinct job names over all runs */
    char **jobs;   /* first-appearance order */
    long *job_at;  /* n_jobs x n_runs (row-major): index of job j in run r's
                      jobs, or -1 when run r has no such job */
    /* What the outputs show (compare_select): 1 per job, per site field
     * (resfield_site order) and per job field (resfield_job order). By
     * default every job and every run field (RESFIELD_RUN). */
    unsigned char *job_on, *site_on, *job_f_on;
} compare;

/* Differences of one statistic set from the baseline's. NAN when either side
 * has no value; pct is NAN as well when the baseline is 0. */
typedef struct compare_delta {
    double d[4];   /* this - baseline for mean, p10, p50, p90 */
    double pct[4]; /* 100 * d / |baseline| */
} compare_delta;

/* The statistics compare shows and the names CSV and JSON give them, in
 * order: mean, p10, p50, p90. */
extern const char *const compare_stat_names[4];

/* Resolves one name (see the file note) to a run id among rows (the store's
 * run list, db_list_runs), setting *how and note (may be NULL). dbpath names
 * the database in messages.
 * Errors: SIM_ENOTFOUND (an unknown name, an id not stored: "NAME: no run,
 * scenario or sweep case of that name in FILE (scenarios: a, b)"),
 * SIM_ECONFIG (an ambiguous name, listing the runs it could mean, or a
 * scenario with only sweep cases stored). */
int compare_resolve(const db_run_row *rows, size_t n_rows, const char *name,
                    const char *dbpath, int64_t *id /* OUT */,
                    compare_how *how /* OUT */, char *note, size_t n_note,
                    sim_err *err);

/* Resolves names[0..n-1] against the open store d and loads every run
 * (summaries only). *out is NULL on failure.
 * Errors: SIM_EINVAL (n == 0), as compare_resolve, as db_load_run. */
int compare_load(db *d, const char *dbpath, const char *const *names, size_t n,
                 compare **out /* OUT: compare_free */, sim_err *err);

/* compare_load of a comma-separated list ("iceland-geothermal,2,..."), the
 * form --runs takes. Errors: SIM_EUSAGE for an empty item ("a,,b", a
 * trailing comma: "--runs: empty name in 'LIST'"), else as compare_load. */
int compare_load_list(db *d, const char *dbpath, const char *list,
                      compare **out /* OUT: compare_free */, sim_err *err);

/* Narrows what the outputs show: jobs (comma-separated job names, NULL for
 * all) and metrics (comma-separated field names, SI or display name, any
 * field of the registry, NULL for the run fields). A metric applies to each
 * scope whose table has it, so "facility_energy_mwh" selects the site's and
 * every job's; the site section is left out when none of its fields is
 * selected. Errors: SIM_ENOTFOUND (a job no compared run has, naming it),
 * SIM_EUSAGE (a metric no table has, naming it; an empty item). */
int compare_select(compare *c, const char *jobs, const char *metrics,
                   sim_err *err);

/* Frees c. NULL is a no-op. */
void compare_free(compare *c);

/* The summary of job field f (index into resfield_job) of job j in run r, in
 * SI, or NULL when run r has no job of that name. */
const stat_summary *compare_job_stat(const compare *c, size_t j, size_t r,
                                     size_t f);

/* The summary of site field f (index into resfield_site) in run r, in SI. */
const stat_summary *compare_site_stat(const compare *c, size_t r, size_t f);

/* Differences of x from base, each divided by scale first (pass a field's
 * disp_per to get display units; percentages do not depend on it). Either
 * NULL gives all NAN. */
compare_delta compare_delta_of(const stat_summary *base, const stat_summary *x,
                               double scale);

/* The three outputs (app/compare_out.c). Every run field of resfield_site
 * for the site, then of resfield_job per job, in registry order, display
 * names and units. Each returns SIM_OK or SIM_EIO.
 *
 * Table: a header listing the runs (position, id, name given, scenario,
 * case, seed, replications, status), then per scope ("site", "job NAME")
 * one group per metric, its label and [unit] on the first line, one line
 * per run: mean, P10, P50, P90 and, after the baseline, the differences of
 * the mean and of the P50 (absolute and %). "-" is a statistic with no
 * finite value (a job that never finished); blank is a job the run does
 * not have. */
int compare_write_table(FILE *f, const compare *c);

/* CSV, long: header scope,job,metric,unit,run,name,[run_id,]scenario,
 * case_key,n,mean,p10,p50,p90, then delta_S and delta_S_pct for S in
 * mean, p10, p50, p90; one row per (scope, job, metric, run), run the
 * position 1..N; blank cells where a value is missing or undefined. */
int compare_write_csv(FILE *f, const compare *c, int with_ids);

/* JSON (docs/compare.md): {"baseline": 1, "runs": [...], "site": {"metrics":
 * {NAME: {"unit", "label", "runs": [STATS or null, ...]}}}, "jobs": [{"name",
 * "in_runs": [bool...], "metrics": {...}}]} where STATS is {"n", "mean",
 * "p10", "p50", "p90", "delta": {...}, "delta_pct": {...}}. */
int compare_write_json(FILE *f, const compare *c, int with_ids);

#endif
