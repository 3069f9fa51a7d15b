/* app/vardecomp.h: where the spread of a job's time to train comes from
 * (`run --variance-decomposition`, issue 19.4).
 *
 * Method (docs/site-model.md, "Variance decomposition"): the case runs once
 * with every source of randomness the caller left on, then once more per
 * source with that source switched off, all with the same seed, so every
 * other stream draws exactly the same numbers (common random numbers,
 * sim/rng.h). The sources and how each is switched off:
 *   throughput model  every job at the point prediction
 *                     (runcase_in.no_model_uncertainty);
 *   failures          no interruptions or module outages (no_failures);
 *   power             no forced outages of firm power sources, their
 *                     availability kept as a derate (no_power_outages);
 *   weather           replication 0's synthetic year in every replication
 *                     (fixed_weather; the first of a list of weather files).
 * The share of source k is 1 - Var(without k) / Var(all): the fraction of
 * the variance that goes away when k is fixed, k's own effect plus its
 * interactions with the others. For independent, additive sources the
 * shares sum to 1; `interaction` = 1 - their sum says how far from that the
 * case is (negative: the sources interact, e.g. a slow draw of the model
 * makes a job meet more failures). A source the caller switched off
 * already (--no-failures) has share 0. Variances are over the
 * replications in which the job finished, with the n - 1 denominator.
 *
 * Cost: 1 + VD_N runs of the case. Pure as runcase_run is: the same inputs
 * give the same numbers.
 */
#ifndef APP_VARDECOMP_H
#define APP_VARDECOMP_H

#include <stddef.h>

#include "app/runcase.h"
#include "io/db.h"

typedef enum vd_source {
    VD_MODEL = 0, /* throughput model */
    VD_FAILURES,  /* interruptions and module outages */
    VD_POWER,     /* forced outages of power sources */
    VD_WEATHER,   /* the weather year */
    VD_N
} vd_source;

/* Output names of the sources ("throughput_model", "failures", "power",
 * "weather"), by vd_source. */
extern const char *const vd_source_name[VD_N];

typedef struct vd_job {
    size_t finished;         /* replications in which it finished (all on) */
    double mean_s;           /* mean time to train, all sources on [s] */
    double var_s2;           /* its variance [s^2] (NAN: finished < 2) */
    double var_off_s2[VD_N]; /* the variance with source k off [s^2] */
    double share[VD_N];      /* 1 - var_off / var (0 when var is 0; NAN
                                when var is NAN) */
    double interaction;      /* 1 - sum of share */
} vd_job;

typedef struct vd_result {
    size_t n_jobs;
    vd_job *jobs; /* in scenario order */
    size_t replications;
    uint64_t seed;
} vd_result;

/* Runs the decomposition of the case *in (its flags say which sources are
 * on) into *out (OUT; free with vd_result_free). all, if non-NULL (OUT:
 * release with runcase_out_free, also after an error), receives the run
 * with every source as given: the very replications `run` with the same
 * inputs gives, with the series and events in->series and in->events ask
 * for, so the caller stores it without running the case again (the
 * variants keep neither). Errors: as runcase_run (in->check_errs is filled
 * by the first run only). */
int vardecomp_run(const runcase_in *in, vd_result *out, runcase_out *all,
                  sim_err *err);

/* v's figures as rows of the results database's variance_shares table
 * (io/db.h), in (job, source) order, VD_N rows per job; *n receives the
 * count. The caller frees the array. */
db_var_share *vd_result_rows(const vd_result *v, size_t *n);

/* Frees what r holds and zeroes it; NULL is a no-op. */
void vd_result_free(vd_result *r);

#endif
