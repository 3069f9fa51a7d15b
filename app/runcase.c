/* app/runcase.c: one scenario case, run (the contract is app/runcase.h).
 *
 * It owns the order of the set-up (catalog, scenario, calibration, checks
 * and weather, the caller's ready step, replications) and the rule of
 * which replications keep their per-step series; before it, `run`, `sweep`
 * and `bench site` each had their own copy of both, and they had begun to
 * differ (bench ran every replication in one call, sweep guarded the
 * second call and run did not). It must never print, exit, open a
 * database or read the clock for anything but out->sim_wall_s: those are
 * the callers' (cli/) and the store's (app/run_store.h) business.
 */
#include "app/runcase.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/calib_file.h"
#include "io/catalog_cfg.h"
#include "io/climate_load.h"
#include "io/scenario_cfg.h"
#include "models/site.h"
#include "sim/mem.h"

/* Monotonic clock [s], for out->sim_wall_s only. */
static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Steps 1 to 4 of runcase.h: catalog, scenario, calibration, then the
 * checks (which load the weather) or the weather alone. */
static int load_case(const runcase_in *in, runcase_out *out, sim_err *err)
{
    int rc;
    out->cat = in->cat;
    if (!out->cat) {
        if ((rc = catalog_load(in->catalog_dir, &out->cat_own, err)) != SIM_OK)
            return rc;
        out->cat = out->cat_own;
    }
    if ((rc = scenario_load(in->scenario_path, out->cat, in->overrides,
                            in->n_overrides, &out->s, err)) != SIM_OK)
        return rc;
    out->tp = in->tp;
    if (!out->tp) {
        rc = in->calibration ? tp_model_load(in->calibration, &out->tp_own, err)
                             : tp_model_default(&out->tp_own, err);
        if (rc != SIM_OK)
            return rc;
        out->tp = out->tp_own;
    }
    if (in->check_errs) {
        /* What `check` checks, by the same code (app/run_check.h), with
         * the replications and series this run will keep. */
        run_check_opts co;
        co.replications = in->replications ? in->replications
                                           : (size_t)out->s->sim.replications;
        co.series = (int)in->series;
        co.max_memory_mb = in->max_memory_mb;
        rc = run_check_scenario(out->s, out->tp, &co, &out->wx, &out->n_wx,
                                in->check_errs);
        if (rc != SIM_OK && in->check_errs->n > 0)
            *err = in->check_errs->e[0];
        return rc;
    }
    return climate_load_for_scenario(out->s, &out->wx, &out->n_wx, err);
}

/* Step 6: R replications into out->reps. Replication 0 runs alone first
 * because it alone keeps its series under RUNCASE_SERIES_FIRST; the rest
 * run in one call. Recording is only what is kept, never what is drawn, so
 * splitting the calls changes no result. */
static int run_reps(const runcase_in *in, runcase_out *out, sim_err *err)
{
    size_t n =
        in->replications ? in->replications : (size_t)out->s->sim.replications;
    res_rep *v = sim_xcalloc(n ? n : 1, sizeof *v);
    site_opts so;
    double t0;
    int rc;
    site_opts_default(&so);
    so.seed = in->seed_set ? in->seed : out->s->sim.seed;
    site_rel_from_scenario(&so.rel, out->s);
    if (in->no_failures)
        so.rel.enabled = 0;
    so.model_uncertainty = !in->no_model_uncertainty;
    so.fixed_weather = in->fixed_weather;
    so.no_power_outages = in->no_power_outages;
    so.tp = out->tp;
    so.weather = out->wx;
    so.n_weather = out->wx && out->n_wx > 1 ? out->n_wx : 1;
    so.record_events = in->events != 0;
    out->seed = so.seed;
    t0 = wall_s();
    so.record_steps = in->series != RUNCASE_SERIES_NONE;
    if ((rc = site_run_reps(out->s, &so, 0, 1, v, err)) != SIM_OK) {
        free(v);
        return rc;
    }
    so.record_steps = in->series == RUNCASE_SERIES_ALL;
    if (n > 1 && (rc = site_run_reps(out->s, &so, 1, (uint32_t)(n - 1), v + 1,
                                     err)) != SIM_OK) {
        res_rep_free(&v[0]);
        free(v);
        return rc;
    }
    out->sim_wall_s = wall_s() - t0;
    out->reps = v;
    out->n_reps = n;
    return SIM_OK;
}

int runcase_run(const runcase_in *in, runcase_out *out, sim_err *err)
{
    int rc;
    memset(out, 0, sizeof *out);
    if ((rc = load_case(in, out, err)) != SIM_OK)
        return rc;
    if (in->ready && (rc = in->ready(in->ready_arg, out, err)) != SIM_OK)
        return rc;
    return run_reps(in, out, err);
}

void runcase_out_free(runcase_out *out)
{
    if (!out)
        return;
    for (size_t r = 0; r < out->n_reps; r++)
        res_rep_free(&out->reps[r]);
    free(out->reps);
    climate_year_free(out->wx);
    scenario_free(out->s);
    tp_model_free(out->tp_own);
    catalog_free(out->cat_own);
    memset(out, 0, sizeof *out);
}
