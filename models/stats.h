/* models/stats.h: summaries across replications: mean, P10, P50, P90, min,
 * max of a sample. Percentiles interpolate linearly between order statistics
 * (Hyndman-Fan type 7, gsl_stats_quantile_from_sorted_data), so
 * min <= P10 <= P50 <= P90 <= max always. NAN values are skipped (a job
 * that did not finish in one replication); n counts the values used. */
#ifndef MODELS_STATS_H
#define MODELS_STATS_H

#include <stddef.h>

typedef struct stat_summary {
    size_t n;                             /* finite values summarised */
    double mean, p10, p50, p90, min, max; /* NAN when n == 0 */
} stat_summary;

/* Summarises x[0..n-1] with the given stride (in doubles). Never allocates
 * beyond a temporary copy. */
stat_summary stats_summarize(const double *x, size_t stride, size_t n);

#endif
