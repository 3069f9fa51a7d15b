/* app/sweep_table.h: the finished cases of one sweep read back from the
 * results database, one row per case in grid order, with the swept values
 * and a summary (mean, P10, P50, P90, min, max over replications) of
 * chosen metrics. `sweep` prints it; `report` charts a metric against a
 * swept key from it.
 *
 * Metric names (models/metrics.h): "site.NAME" (or a bare site metric name)
 * for a site metric, "JOB.NAME" for job metric NAME of the job named JOB.
 * Swept values come from the stored case key "k1=v1;k2=v2" (sweep values
 * never contain ';').
 */
#ifndef APP_SWEEP_TABLE_H
#define APP_SWEEP_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "io/db.h"
#include "models/resfield.h"
#include "models/stats.h"

typedef struct sweep_metric_ref {
    int site;              /* 1: site metric, 0: job metric */
    const resfield *field; /* in resfield_site / resfield_job */
    int disp;              /* 1: in the display unit, 0: in SI */
    size_t job;            /* job index for a job metric */
    char name[200];   /* as printed: "site.co2_t", "llama.time_to_train_days" */
    const char *unit; /* the unit shown */
} sweep_metric_ref;

typedef struct sweep_row {
    int64_t run_id, case_index;
    int32_t mpi_rank; /* -1 without MPI */
    char *case_key;
    char **values;     /* n_axes swept values, axis order */
    stat_summary *sum; /* n_metrics summaries */
} sweep_row;

typedef struct sweep_table {
    char *sweep_key;
    size_t n_axes;
    char **axis_keys;
    size_t n_metrics;
    sweep_metric_ref *metrics;
    size_t n_rows;
    sweep_row *rows; /* by case_index */
} sweep_table;

/* Resolves metric name spec against the jobs in m (only m->jobs and
 * m->n_jobs are read) into *out. "#0.NAME" is the first job. Errors:
 * SIM_EUSAGE naming the metric and the valid forms. */
int sweep_metric_parse(const char *spec, const db_run_meta *m,
                       sweep_metric_ref *out, sim_err *err);

/* Reads every complete case of sweep_key from d and summarizes the n_specs
 * metrics named in specs (n_specs == 0: the defaults, the first job's
 * time_to_train_days and the site's renewable_fraction, co2_t and
 * cost_usd). Errors: SIM_ENOTFOUND (no case of that sweep), SIM_EUSAGE (an
 * unknown metric or job, with the valid names), SIM_EIO. */
int sweep_table_load(db *d, const char *sweep_key, const char *const *specs,
                     size_t n_specs,
                     sweep_table **out /* OUT: sweep_table_free */,
                     sim_err *err);

/* Frees t. NULL is a no-op. */
void sweep_table_free(sweep_table *t);

/* Index of the axis named key, or -1. */
int sweep_table_axis(const sweep_table *t, const char *key);

/* Writes t as an aligned table (override columns, then P10/P50/P90 of
 * each metric with its unit), CSV (case_index, case_key, the keys, then
 * metric_mean/p10/p50/p90/min/max) or JSON ({"sweep_key", "cases": [{
 * "case_index", "case_key", "overrides": {...}, "metrics": {NAME: {...}}}]}).
 * Returns SIM_OK or SIM_EIO. */
typedef enum sweep_table_fmt {
    SWEEP_TABLE_TEXT,
    SWEEP_TABLE_JSON,
    SWEEP_TABLE_CSV
} sweep_table_fmt;
int sweep_table_write(FILE *f, const sweep_table *t, sweep_table_fmt fmt);

/* The metric in words from the result-field table ("site carbon
 * emissions", "time to train (submit to end) of JOB"), for labels and
 * titles; never a key path. */
void sweep_metric_words(const sweep_metric_ref *mr, char *buf, size_t n);

/* Draws the sweep chart (io/plot_sweep.h) of sweep_key into path: metric
 * (NULL: the first default metric) against the swept key by (NULL: the
 * first swept key), one line per combination of the other swept keys.
 * Title, axis and line labels are words from the result-field and
 * scenario-key tables, never key paths; scenario (may be NULL) is named in
 * the title. constraint (may be NULL): 'METRIC.STAT<=V' or '>=V'
 * (app/opt_spec.h), drawn as a reference line named in the legend; the
 * chart then shows METRIC (a different --metric is SIM_EUSAGE). *what
 * (OUT, may be NULL) receives a one-line description. Errors:
 * SIM_EUSAGE (by is not a swept key, or its values are not numbers; the
 * message lists the swept keys), SIM_EINVAL (more than
 * PLOT_SWEEP_MAX_GROUPS combinations of the other swept keys: too many
 * lines for one chart), as sweep_table_load and plot_sweep. */
int sweep_chart(db *d, const char *sweep_key, const char *scenario,
                const char *metric, const char *by, const char *constraint,
                const char *path, char *what, size_t what_n, sim_err *err);

#endif
