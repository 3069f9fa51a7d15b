/* models/results.c: names for the result enums (see results.h).
 *
 * This file owns the spelling of event kinds and failure causes as they appear
 * in the database, JSON and CSV: the strings are part of the stored format, so
 * a rename here is a schema change. It must never hold model logic (the one
 * cross-replication figure here, the solar P90 exceedance, is a percentile of
 * stored fields, kept beside res_rep so run output and reports share it); the
 * arrays are sized by the enums' _N members so that adding a kind without a
 * name fails to compile rather than printing NULL. */
#include "models/results.h"

#include <math.h>
#include <stdlib.h>

#include "models/stats.h"
#include "sim/mem.h"

const char *const res_event_name[RES_EV_N] = {
    "submit", "start",  "checkpoint", "interrupt", "restart",
    "pause",  "resume", "throttle",   "shed",      "end",
};

const char *const res_cause_name[RES_CAUSE_N] = {
    "none", "gpu", "host", "network", "module", "power",
};

/* Pointers and counts are reset as well as freed so that a replication can be
 * freed twice (once by an error path, once by its owner) and so that a reused
 * struct never reports stale counts. */
void res_rep_free(res_rep *r)
{
    if (!r)
        return;
    free(r->jobs);
    free(r->steps);
    free(r->events);
    free(r->modules);
    free(r->pd_samples);
    r->jobs = NULL;
    r->steps = NULL;
    r->events = NULL;
    r->modules = NULL;
    r->pd_samples = NULL;
    r->n_jobs = r->n_steps = r->n_events = 0;
    r->n_modules = r->n_pd_samples = 0;
}

double res_solar_p90_exceedance_j(const res_rep *reps, size_t n,
                                  double horizon_s)
{
    double *x;
    stat_summary st;
    if (n == 0 || !(horizon_s > 0))
        return (double)NAN;
    x = sim_xmalloc(n * sizeof *x);
    for (size_t r = 0; r < n; r++)
        x[r] = reps[r].site.solar_energy_j * (365.0 * 86400.0 / horizon_s);
    st = stats_summarize(x, 1, n);
    free(x);
    return st.p10;
}
