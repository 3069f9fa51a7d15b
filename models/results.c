/* models/results.c: names for the result enums (see results.h). */
#include "models/results.h"

#include <stdlib.h>

const char *const res_event_name[RES_EV_N] = {
    "submit", "start",  "checkpoint", "interrupt", "restart",
    "pause",  "resume", "throttle",   "shed",      "end",
};

const char *const res_cause_name[RES_CAUSE_N] = {
    "none", "gpu", "host", "network", "module", "power",
};

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
