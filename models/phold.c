/* models/phold.c: PHOLD on the engine (see phold.h). Each LP owns a stream, so
 * the event count for a seed is independent of the queue structure.
 *
 * This file owns the benchmark workload only; it is the one model that reads a
 * wall clock, and only around sim_run_until so that set-up and teardown are not
 * timed. It must never print (the bench command formats the rate) and never
 * share a stream between LPs: a shared stream would make the event sequence
 * depend on the order in which the queue hands out same-time events, and then a
 * faster queue could not be compared with a slower one on the same work. */
#include "models/phold.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

#include <gsl/gsl_randist.h>

#include "sim/mem.h"
#include "sim/rng.h"
#include "sim/sim.h"

typedef struct phold {
    const phold_cfg *c;
    gsl_rng **r; /* one stream per LP */
    uint64_t remote_events;
} phold;

/* Every event schedules exactly one successor, so the population of pending
 * events stays n_lps x start_events for the whole run: that constant hold size
 * is what makes PHOLD a fair queue benchmark (Fujimoto 1990). The return code
 * of sim_schedule is ignored because dt >= 0 and finite by phold_validate. */
static void phold_event(sim *s, void *ctx, uint64_t lp)
{
    phold *p = ctx;
    gsl_rng *r = p->r[lp];
    double dt = p->c->lookahead_s + gsl_ran_exponential(r, p->c->mean_s);
    uint64_t dst = lp;

    if (gsl_rng_uniform(r) < p->c->remote) {
        dst = gsl_rng_uniform_int(r, p->c->n_lps);
        p->remote_events++;
    }
    sim_schedule(s, s->now_s + dt, 0, phold_event, p, dst, NULL);
}

int phold_validate(const phold_cfg *c, sim_err *err)
{
    if (c->n_lps < 1)
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "--lps must be >= 1 (got %u)", c->n_lps);
    if (c->start_events < 1)
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "--start-events must be >= 1 (got %u)",
                           c->start_events);
    /* The product bounds memory: each pending event is a 64-byte queue node
     * (see phold.h), so 1e9 events would already need 64 GB; the check is done
     * in double to avoid a 32-bit overflow of the product itself. */
    if ((double)c->n_lps * (double)c->start_events > 1.0e9)
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "--lps x --start-events must be <= 1e9 (got %.0f)",
                           (double)c->n_lps * (double)c->start_events);
    if (!(c->end_s > 0.0) || !isfinite(c->end_s))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "--end must be > 0 and finite (got %g)", c->end_s);
    if (!(c->remote >= 0.0 && c->remote <= 1.0))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "--remote must be in [0, 1] (got %g)", c->remote);
    if (!(c->mean_s >= 0.0) || !isfinite(c->mean_s))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "--mean must be >= 0 (got %g)", c->mean_s);
    if (!(c->lookahead_s >= 0.0) || !isfinite(c->lookahead_s))
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "--lookahead must be >= 0 (got %g)", c->lookahead_s);
    /* With both zero every event would land at t = 0 forever and the run would
     * never reach end_s; refusing it keeps phold_run finite. */
    if (c->mean_s + c->lookahead_s <= 0.0)
        return sim_err_set(err, SIM_EINVAL, NULL, 0,
                           "--mean + --lookahead must be > 0");
    return SIM_OK;
}

/* CLOCK_MONOTONIC, not the time of day, so that a clock adjustment during a
 * benchmark cannot produce a negative or inflated rate. */
static double wall_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int phold_run(const phold_cfg *c, phold_result *out, sim_err *err)
{
    phold p = {c, NULL, 0};
    sim s;
    double t0;
    int rc = phold_validate(c, err);

    if (rc != SIM_OK)
        return rc;
    /* Streams are created before the engine and the initial events before the
     * timer starts, so the measured wall time covers event processing only. */
    p.r = sim_xmalloc(c->n_lps * sizeof *p.r);
    for (uint32_t i = 0; i < c->n_lps; i++)
        p.r[i] = rng_stream_new(gsl_rng_taus2, c->seed, 0, i);
    sim_init(&s);
    for (uint32_t i = 0; i < c->n_lps; i++)
        for (uint32_t k = 0; k < c->start_events; k++) {
            double t = c->lookahead_s + gsl_ran_exponential(p.r[i], c->mean_s);
            sim_schedule(&s, t, 0, phold_event, &p, i, NULL);
        }
    t0 = wall_now_s();
    sim_run_until(&s, c->end_s);
    out->wall_s = wall_now_s() - t0;
    out->events = s.n_events;
    out->remote_events = p.remote_events;
    out->pending = sim_queue_size(&s);
    sim_fini(&s);
    for (uint32_t i = 0; i < c->n_lps; i++)
        gsl_rng_free(p.r[i]);
    free(p.r);
    return SIM_OK;
}
