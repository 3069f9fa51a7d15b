/* models/results.c: names for the result enums (see results.h).
 *
 * This file owns the spelling of event kinds and failure causes as they appear
 * in the database, JSON and CSV: the strings are part of the stored format, so
 * a rename here is a schema change. It must never hold model logic; the arrays
 * are sized by the enums' _N members so that adding a kind without a name fails
 * to compile rather than printing NULL. */
#include "models/results.h"

#include <stdlib.h>

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
    r->jobs = NULL;
    r->steps = NULL;
    r->events = NULL;
    r->n_jobs = r->n_steps = r->n_events = 0;
}
