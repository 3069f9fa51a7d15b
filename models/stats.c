/* models/stats.c: replication summaries (see stats.h).
 *
 * This file owns the one definition of "P10 / P50 / P90" used by every table,
 * JSON document and chart, so that a percentile printed by run and one printed
 * by report or sweep can never disagree. It must never modify the caller's
 * array (it sorts a copy) and never treat a NAN as a value: NAN marks a job
 * that did not finish in a replication, and counting it would shift the
 * percentiles. */
#include "models/stats.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "sim/mem.h"

stat_summary stats_summarize(const double *x, size_t stride, size_t n)
{
    stat_summary s = {0, NAN, NAN, NAN, NAN, NAN, NAN};
    /* A copy is sorted rather than the input, because callers pass strided
     * views into their replication arrays (one field of many structs) that must
     * keep their order. */
    double *v = sim_xmalloc((n ? n : 1) * sizeof *v);
    size_t m = 0;

    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i * stride]))
            v[m++] = x[i * stride];
    if (m > 0) {
        gsl_sort(v, 1, m);
        s.n = m;
        s.mean = gsl_stats_mean(v, 1, m);
        s.p10 = gsl_stats_quantile_from_sorted_data(v, 1, m, 0.10);
        s.p50 = gsl_stats_quantile_from_sorted_data(v, 1, m, 0.50);
        s.p90 = gsl_stats_quantile_from_sorted_data(v, 1, m, 0.90);
        s.min = v[0];
        s.max = v[m - 1];
    }
    free(v);
    return s;
}
