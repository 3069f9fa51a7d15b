/* models/metrics.h: the named metrics of a run, in output units, one table
 * shared by every output (table, JSON, CSV, the results store, reports and
 * sweeps), so that a metric has one name, one unit and one definition.
 *
 * Names carry their unit (time_to_train_days, it_energy_mwh, co2_t, ...);
 * the conversion from the SI fields of models/results.h happens only here.
 * A job metric is NAN for a replication in which the job did not finish
 * when it depends on the end (times, goodput); summaries skip NAN values.
 */
#ifndef MODELS_METRICS_H
#define MODELS_METRICS_H

#include <stddef.h>

#include "models/results.h"
#include "models/stats.h"

typedef struct metric_def {
    const char *name;                /* e.g. "time_to_train_days" */
    const char *unit;                /* e.g. "d", "MWh", "tCO2e", "USD", "1" */
    const char *label;               /* for tables: "time to train" */
    double (*job)(const res_job *j); /* job metrics */
    double (*site)(const res_site *s); /* site metrics */
    int source;                        /* energy_by_source index, or -1 */
} metric_def;

/* Job metrics; the first nine are issue 6's JSON contract, in its order. */
extern const metric_def metric_job[];
extern const size_t metric_n_job;

/* Site metrics (per replication). */
extern const metric_def metric_site[];
extern const size_t metric_n_site;

/* Value of job metric k for job i of replication r. */
double metric_job_value(size_t k, const res_rep *r, size_t i);

/* Value of site metric k of replication r. */
double metric_site_value(size_t k, const res_rep *r);

/* Summary of job metric k of job i over n replications. */
stat_summary metric_job_summary(size_t k, const res_rep *reps, size_t n,
                                size_t i);

/* Summary of site metric k over n replications. */
stat_summary metric_site_summary(size_t k, const res_rep *reps, size_t n);

/* Index of a job / site metric by name, or -1. */
int metric_job_index(const char *name);
int metric_site_index(const char *name);

#endif
