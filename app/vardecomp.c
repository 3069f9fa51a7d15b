/* app/vardecomp.c: the variance decomposition of time to train (the
 * method is in app/vardecomp.h and docs/site-model.md).
 *
 * It owns only the bookkeeping: which runcase flags switch which source
 * off, and the variances and shares. Every run goes through runcase_run,
 * so the decomposition sees exactly the replications `run` would. It must
 * never print or store: cli/cmd_run.c prints, app/run_store.c stores (the
 * rows vd_result_rows makes).
 */
#include "app/vardecomp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mem.h"

const char *const vd_source_name[VD_N] = {"throughput_model", "failures",
                                          "power", "weather"};

/* Sample variance (n - 1) of job i's time to train over the replications in
 * which it finished; *k receives that count, *mean the mean. NAN below 2. */
static double ttt_var(const runcase_out *o, size_t i, size_t *k, double *mean)
{
    double m = 0, m2 = 0;
    size_t n = 0;
    for (size_t r = 0; r < o->n_reps; r++) {
        const res_job *j = &o->reps[r].jobs[i];
        double d;
        if (!j->completed || !isfinite(j->time_to_train_s))
            continue;
        /* Welford's update: one pass, no cancellation on long runs. */
        n++;
        d = j->time_to_train_s - m;
        m += d / (double)n;
        m2 += d * (j->time_to_train_s - m);
    }
    if (k)
        *k = n;
    if (mean)
        *mean = n ? m : (double)NAN;
    return n >= 2 ? m2 / (double)(n - 1) : (double)NAN;
}

/* Whether source k is on in the case as the caller gave it. */
static int source_on(const runcase_in *in, int k)
{
    switch (k) {
    case VD_MODEL:
        return !in->no_model_uncertainty;
    case VD_FAILURES:
        return !in->no_failures;
    case VD_POWER:
        return !in->no_power_outages;
    default:
        return !in->fixed_weather;
    }
}

/* Runs the case with source k switched off (k < 0: as given) into *o. The
 * database hook, the checks, the series and the event log belong to the
 * first run only: it is the one a caller may store. */
static int run_variant(const runcase_in *in, int k, runcase_out *o,
                       sim_err *err)
{
    runcase_in v = *in;
    if (k >= 0) {
        v.check_errs = NULL;
        v.ready = NULL;
        v.series = RUNCASE_SERIES_NONE;
        v.events = 0;
    }
    if (k == VD_MODEL)
        v.no_model_uncertainty = 1;
    else if (k == VD_FAILURES)
        v.no_failures = 1;
    else if (k == VD_POWER)
        v.no_power_outages = 1;
    else if (k == VD_WEATHER)
        v.fixed_weather = 1;
    return runcase_run(&v, o, err);
}

/* Why this shape: the case as given runs first and alone keeps the checks
 * and the caller's ready hook, so a bad scenario fails once with every
 * error, exactly as `run` would; each variant then runs and is reduced to
 * one variance per job at once, so at most two runs' results are held at
 * a time whatever the number of sources. */
int vardecomp_run(const runcase_in *in, vd_result *out, runcase_out *all_out,
                  sim_err *err)
{
    runcase_out all;
    int rc;
    memset(out, 0, sizeof *out);
    if (all_out)
        memset(all_out, 0, sizeof *all_out);
    if ((rc = run_variant(in, -1, &all, err)) != SIM_OK) {
        if (all_out)
            *all_out = all;
        else
            runcase_out_free(&all);
        return rc;
    }
    out->n_jobs = all.s->n_jobs;
    out->jobs = sim_xcalloc(out->n_jobs ? out->n_jobs : 1, sizeof *out->jobs);
    out->replications = all.n_reps;
    out->seed = all.seed;
    for (size_t i = 0; i < out->n_jobs; i++)
        out->jobs[i].var_s2 =
            ttt_var(&all, i, &out->jobs[i].finished, &out->jobs[i].mean_s);
    for (int k = 0; k < VD_N; k++) {
        runcase_out off;
        if (!source_on(in, k)) {
            for (size_t i = 0; i < out->n_jobs; i++)
                out->jobs[i].var_off_s2[k] = out->jobs[i].var_s2;
            continue;
        }
        if ((rc = run_variant(in, k, &off, err)) != SIM_OK) {
            runcase_out_free(&off);
            if (all_out)
                *all_out = all;
            else
                runcase_out_free(&all);
            vd_result_free(out);
            return rc;
        }
        for (size_t i = 0; i < out->n_jobs; i++)
            out->jobs[i].var_off_s2[k] = ttt_var(&off, i, NULL, NULL);
        runcase_out_free(&off);
    }
    for (size_t i = 0; i < out->n_jobs; i++) {
        vd_job *j = &out->jobs[i];
        double sum = 0;
        for (int k = 0; k < VD_N; k++) {
            j->share[k] = !isfinite(j->var_s2) ? (double)NAN
                          : j->var_s2 > 0 ? 1.0 - j->var_off_s2[k] / j->var_s2
                                          : 0.0;
            sum += j->share[k];
        }
        j->interaction = 1.0 - sum;
    }
    if (all_out)
        *all_out = all;
    else
        runcase_out_free(&all);
    return SIM_OK;
}

db_var_share *vd_result_rows(const vd_result *v, size_t *n)
{
    db_var_share *rows =
        sim_xcalloc(v->n_jobs ? v->n_jobs * VD_N : 1, sizeof *rows);
    for (size_t i = 0; i < v->n_jobs; i++)
        for (int k = 0; k < VD_N; k++) {
            db_var_share *x = &rows[i * VD_N + (size_t)k];
            x->job = (int32_t)i;
            snprintf(x->source, sizeof x->source, "%s", vd_source_name[k]);
            x->finished = (int64_t)v->jobs[i].finished;
            x->mean_s = v->jobs[i].mean_s;
            x->var_s2 = v->jobs[i].var_s2;
            x->var_off_s2 = v->jobs[i].var_off_s2[k];
            x->share = v->jobs[i].share[k];
        }
    *n = v->n_jobs * VD_N;
    return rows;
}

void vd_result_free(vd_result *r)
{
    if (!r)
        return;
    free(r->jobs);
    memset(r, 0, sizeof *r);
}
