/* tests/site_util.h: loading a test scenario and the calibrated throughput
 * model, and running replications in memory. */
#ifndef TESTS_SITE_UTIL_H
#define TESTS_SITE_UTIL_H

#include <stdlib.h>

#include "io/calib_file.h"
#include "io/catalog_cfg.h"
#include "io/scenario_cfg.h"
#include "models/catalog.h"
#include "models/site.h"

typedef struct test_world {
    catalog *cat;
    tp_model *tp;
} test_world;

static inline void world_open(test_world *w)
{
    sim_err e;
    char buf[2200];
    if (catalog_load("models", &w->cat, &e) != SIM_OK ||
        tp_model_load("models/calibration.cfg", &w->tp, &e) != SIM_OK)
        fail_msg("%s", sim_err_format(&e, buf, sizeof buf));
}

static inline void world_close(test_world *w)
{
    tp_model_free(w->tp);
    catalog_free(w->cat);
}

static inline scenario *load_scn(test_world *w, const char *path,
                                 const char *const *sets, size_t n)
{
    scenario *s = NULL;
    sim_err e;
    char buf[2200];
    if (scenario_load(path, w->cat, sets, n, &s, &e) != SIM_OK)
        fail_msg("%s", sim_err_format(&e, buf, sizeof buf));
    return s;
}

/* Runs n replications of s (seed from the scenario unless seed != 0). */
static inline res_rep *run_reps(test_world *w, const scenario *s, size_t n,
                                uint64_t seed, int events)
{
    site_opts o;
    sim_err e;
    char buf[2200];
    res_rep *r = calloc(n, sizeof *r);
    site_opts_default(&o);
    site_rel_from_scenario(&o.rel, s);
    o.seed = seed ? seed : s->sim.seed;
    o.tp = w->tp;
    o.record_events = events;
    if (site_run_reps(s, &o, 0, n, r, &e) != SIM_OK)
        fail_msg("%s", sim_err_format(&e, buf, sizeof buf));
    return r;
}

static inline void free_reps(res_rep *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        res_rep_free(&r[i]);
    free(r);
}

#endif
