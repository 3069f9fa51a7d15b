/* app/opt_spec.h: the text forms of an optimisation's objectives and
 * constraints, parsed in one place for every command that reads them:
 * `optimize --objective/--constraint`, `sweep` and `report --constraint`
 * (the constraint line on the sweep chart) and `report`, which re-parses
 * the texts an optimize problem stored (io/db.h db_opt_problem).
 *
 * Forms:
 *   objective   [min:|max:]METRIC.STAT      (minimised unless max:)
 *   constraint  METRIC.STAT<=VALUE | METRIC.STAT>=VALUE  (spaces allowed
 *               around the operator and after the value)
 * METRIC is a sweep metric name (site.FIELD or JOBNAME.FIELD; checked
 * against the scenario by app/sweep_table.h, not here); STAT the text
 * after the last '.', one of mean, p10, p50, p90. Pure text handling:
 * never prints, never allocates.
 */
#ifndef APP_OPT_SPEC_H
#define APP_OPT_SPEC_H

#include <stddef.h>

#include "models/stats.h"

enum { OPT_STAT_MEAN, OPT_STAT_P10, OPT_STAT_P50, OPT_STAT_P90 };

/* "mean", "p10", "p50", "p90", indexed by OPT_STAT_*. */
extern const char *const opt_stat_names[4];

typedef struct opt_spec {
    char metric[200]; /* sweep metric name: "site.co2_t", "JOB.FIELD" */
    int stat;         /* OPT_STAT_* */
    int maximise;     /* objectives: 1 for max:METRIC.STAT */
    int ge;           /* constraints: 1 for >=, 0 for <= */
    double bound;     /* constraints: the bound, in the metric's unit */
} opt_spec;

/* Parses an objective into *q. Returns 0, or -1 with why (a sentence that
 * names s, for a usage error) written into why[0..n-1]. */
int opt_spec_objective(const char *s, opt_spec *q, char *why, size_t n);

/* Parses a constraint into *q. Returns 0, or -1 with why as above
 * ("--constraint S: ..."). */
int opt_spec_constraint(const char *s, opt_spec *q, char *why, size_t n);

/* The statistic stat (OPT_STAT_*) of s. */
double opt_spec_stat(const stat_summary *s, int stat);

#endif
