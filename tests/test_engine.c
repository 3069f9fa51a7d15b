/* tests/test_engine.c: the event engine's promises (sim/sim.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_statistics_double.h>

#include "sim/rng.h"
#include "sim/sim.h"
#include "tests/testutil.h"

typedef struct trace {
    uint64_t got[64];
    double t[64];
    int n;
} trace;

static void record(sim *s, void *ctx, uint64_t arg)
{
    trace *tr = ctx;
    tr->t[tr->n] = s->now_s;
    tr->got[tr->n++] = arg;
}

/* "among events due at the same time, higher priority runs first, and
 * equal priorities run FIFO" */
static void test_sim_same_time_priority_then_fifo(void **state)
{
    sim s;
    trace tr = {.n = 0};
    uint64_t want[] = {5, 2, 4, 1, 3, 6};
    (void)state;
    sim_init(&s);
    assert_int_equal(sim_schedule(&s, 7.5, 0, record, &tr, 1, NULL), SIM_OK);
    assert_int_equal(sim_schedule(&s, 7.5, 10, record, &tr, 2, NULL), SIM_OK);
    assert_int_equal(sim_schedule(&s, 7.5, -3, record, &tr, 3, NULL), SIM_OK);
    assert_int_equal(sim_schedule(&s, 7.5, 10, record, &tr, 4, NULL), SIM_OK);
    assert_int_equal(sim_schedule(&s, 2.25, -100, record, &tr, 5, NULL),
                     SIM_OK);
    assert_int_equal(sim_schedule(&s, 9.0, 100, record, &tr, 6, NULL), SIM_OK);
    assert_int_equal(sim_run(&s), SIM_OK);
    assert_int_equal(tr.n, 6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(tr.got[i], want[i]);
    assert_close(s.now_s, 9.0, 0);
    sim_fini(&s);
}

static trace late_tr;

static void schedule_now_high(sim *s, void *ctx, uint64_t arg)
{
    record(s, ctx, arg);
    if (arg == 1) {
        /* Highest priority, at the current instant: must still run after
         * events 2 and 3, which were already due at this instant. */
        sim_schedule(s, s->now_s, SIM_PRIO_MAX, schedule_now_high, ctx, 10,
                     NULL);
        sim_schedule(s, s->now_s, SIM_PRIO_MIN, schedule_now_high, ctx, 11,
                     NULL);
    }
    if (arg == 10)
        sim_schedule(s, s->now_s, SIM_PRIO_MAX, schedule_now_high, ctx, 12,
                     NULL);
}

/* "An event scheduled for the current instant while that instant is being
 * processed never runs before the events already due at now_s" */
static void test_sim_event_at_now_runs_after_events_already_due(void **state)
{
    sim s;
    uint64_t want[] = {1, 2, 3, 10, 11, 12, 4};
    (void)state;
    late_tr.n = 0;
    sim_init(&s);
    sim_schedule(&s, 3.0, 5, schedule_now_high, &late_tr, 1, NULL);
    sim_schedule(&s, 3.0, 0, schedule_now_high, &late_tr, 2, NULL);
    sim_schedule(&s, 3.0, -5, schedule_now_high, &late_tr, 3, NULL);
    sim_schedule(&s, 3.5, 0, schedule_now_high, &late_tr, 4, NULL);
    sim_run(&s);
    assert_int_equal(late_tr.n, 7);
    for (int i = 0; i < 7; i++)
        assert_int_equal(late_tr.got[i], want[i]);
    sim_fini(&s);
}

/* "Errors: SIM_EINVAL if t_s < now_s, not finite, or prio out of range" */
static void test_sim_schedule_rejects_past_nan_and_bad_priority(void **state)
{
    sim s;
    trace tr = {.n = 0};
    (void)state;
    sim_init(&s);
    sim_schedule(&s, 10.0, 0, record, &tr, 1, NULL);
    sim_step(&s);
    assert_int_equal(sim_schedule(&s, 9.999, 0, record, &tr, 2, NULL),
                     SIM_EINVAL);
    assert_int_equal(sim_schedule(&s, NAN, 0, record, &tr, 2, NULL),
                     SIM_EINVAL);
    assert_int_equal(sim_schedule(&s, INFINITY, 0, record, &tr, 2, NULL),
                     SIM_EINVAL);
    assert_int_equal(
        sim_schedule(&s, 11.0, SIM_PRIO_MAX + 1, record, &tr, 2, NULL),
        SIM_EINVAL);
    assert_int_equal(
        sim_schedule(&s, 11.0, SIM_PRIO_MIN - 1, record, &tr, 2, NULL),
        SIM_EINVAL);
    assert_int_equal(sim_schedule_in(&s, -0.5, 0, record, &tr, 2, NULL),
                     SIM_EINVAL);
    assert_int_equal(sim_run_until(&s, 5.0), SIM_EINVAL);
    assert_int_equal(sim_queue_size(&s), 0);
    sim_fini(&s);
}

/* "Cancels a pending event through its handle (no search)" */
static void test_sim_cancel_by_handle(void **state)
{
    sim s;
    trace tr = {.n = 0};
    sim_handle h1, h2;
    (void)state;
    sim_init(&s);
    sim_schedule(&s, 1.0, 0, record, &tr, 1, &h1);
    sim_schedule(&s, 2.0, 0, record, &tr, 2, &h2);
    assert_true(sim_pending(&s, h1));
    assert_int_equal(sim_cancel(&s, h1), 1);
    assert_int_equal(sim_cancel(&s, h1), 0);
    assert_false(sim_pending(&s, h1));
    sim_run(&s);
    assert_int_equal(tr.n, 1);
    assert_int_equal(tr.got[0], 2);
    assert_int_equal(sim_cancel(&s, h2), 0); /* already ran */
    sim_fini(&s);
}

/* "Runs the next event. Returns SIM_CONTINUE if one ran, SIM_OK if the
 * queue was empty (the clock does not move)" */
static void test_sim_step_runs_one_event(void **state)
{
    sim s;
    trace tr = {.n = 0};
    double t;
    (void)state;
    sim_init(&s);
    sim_schedule(&s, 4.0, 0, record, &tr, 1, NULL);
    sim_schedule(&s, 6.0, 0, record, &tr, 2, NULL);
    assert_true(sim_next_time(&s, &t));
    assert_close(t, 4.0, 0);
    assert_int_equal(sim_step(&s), SIM_CONTINUE);
    assert_int_equal(tr.n, 1);
    assert_close(s.now_s, 4.0, 0);
    assert_int_equal(sim_step(&s), SIM_CONTINUE);
    assert_int_equal(sim_step(&s), SIM_OK);
    assert_close(s.now_s, 6.0, 0);
    assert_int_equal(s.n_events, 2);
    assert_false(sim_next_time(&s, &t));
    sim_fini(&s);
}

/* "Runs every event with time <= t_end_s, then sets now_s = t_end_s" */
static void test_sim_run_until_includes_end_and_sets_clock(void **state)
{
    sim s;
    trace tr = {.n = 0};
    (void)state;
    sim_init(&s);
    sim_schedule(&s, 1.0, 0, record, &tr, 1, NULL);
    sim_schedule(&s, 5.0, 0, record, &tr, 2, NULL);
    sim_schedule(&s, 5.000001, 0, record, &tr, 3, NULL);
    assert_int_equal(sim_run_until(&s, 5.0), SIM_OK);
    assert_int_equal(tr.n, 2);
    assert_close(s.now_s, 5.0, 0);
    assert_int_equal(sim_run_until(&s, 8.0), SIM_OK);
    assert_int_equal(tr.n, 3);
    assert_close(s.now_s, 8.0, 0);
    sim_fini(&s);
}

static void stopper(sim *s, void *ctx, uint64_t arg)
{
    record(s, ctx, arg);
    if (arg == 2)
        sim_stop(s);
}

/* "Stops early, leaving now_s at the last event, if a handler calls
 * sim_stop"; handlers receive their own context and argument. */
static void test_sim_stop_and_handler_context(void **state)
{
    sim s;
    trace a = {.n = 0}, b = {.n = 0};
    (void)state;
    sim_init(&s);
    sim_schedule(&s, 1.0, 0, stopper, &a, 1, NULL);
    sim_schedule(&s, 2.0, 0, stopper, &b, 2, NULL);
    sim_schedule(&s, 3.0, 0, stopper, &a, 3, NULL);
    assert_int_equal(sim_run_until(&s, 10.0), SIM_EINTR);
    assert_close(s.now_s, 2.0, 0);
    assert_int_equal(a.n, 1);
    assert_int_equal(b.n, 1);
    assert_int_equal(b.got[0], 2);
    assert_int_equal(sim_run(&s), SIM_OK);
    assert_int_equal(a.n, 2);
    sim_fini(&s);
}

/* An M/M/1 queue on the engine: the mean wait in queue matches
 * Wq = rho / (mu - lambda) within a 99.9% confidence interval over seeds. */
typedef struct mm1 {
    gsl_rng *arr, *svc;
    double lambda, mu;
    int busy;
    double q[4096]; /* arrival times of waiting customers */
    size_t head, n;
    double wait_sum;
    long served;
} mm1;

static void mm1_depart(sim *s, void *ctx, uint64_t arg);

static void mm1_start(sim *s, mm1 *m, double arrived)
{
    m->busy = 1;
    m->wait_sum += s->now_s - arrived;
    m->served++;
    sim_schedule_in(s, gsl_ran_exponential(m->svc, 1.0 / m->mu), 0, mm1_depart,
                    m, 0, NULL);
}

static void mm1_arrive(sim *s, void *ctx, uint64_t arg)
{
    mm1 *m = ctx;
    (void)arg;
    if (!m->busy)
        mm1_start(s, m, s->now_s);
    else {
        assert_true(m->n < 4096);
        m->q[(m->head + m->n++) % 4096] = s->now_s;
    }
    sim_schedule_in(s, gsl_ran_exponential(m->arr, 1.0 / m->lambda), 0,
                    mm1_arrive, m, 0, NULL);
}

static void mm1_depart(sim *s, void *ctx, uint64_t arg)
{
    mm1 *m = ctx;
    (void)arg;
    m->busy = 0;
    if (m->n > 0) {
        double t = m->q[m->head];
        m->head = (m->head + 1) % 4096;
        m->n--;
        mm1_start(s, m, t);
    }
}

static void test_sim_mm1_mean_wait_matches_theory(void **state)
{
    double means[12];
    const double lambda = 0.7, mu = 1.0, wq = lambda / mu / (mu - lambda);
    (void)state;
    for (int k = 0; k < 12; k++) {
        sim s;
        mm1 m = {0};
        m.lambda = lambda;
        m.mu = mu;
        m.arr =
            rng_stream_new(NULL, 2024, (uint64_t)k, rng_stream_id("arrivals"));
        m.svc =
            rng_stream_new(NULL, 2024, (uint64_t)k, rng_stream_id("service"));
        sim_init(&s);
        sim_schedule(&s, 0.0, 0, mm1_arrive, &m, 0, NULL);
        sim_run_until(&s, 2.0e5);
        means[k] = m.wait_sum / (double)m.served;
        sim_fini(&s);
        gsl_rng_free(m.arr);
        gsl_rng_free(m.svc);
    }
    {
        double mean = gsl_stats_mean(means, 1, 12);
        double se = gsl_stats_sd(means, 1, 12) / sqrt(12.0);
        assert_true(se > 0.0);
        if (fabs(mean - wq) > 3.3 * se)
            fail_msg("M/M/1 Wq %.4f, theory %.4f, se %.4f", mean, wq, se);
    }
}

int main(void)
{
    const struct CMUnitTest engine_tests[] = {
        cmocka_unit_test(test_sim_same_time_priority_then_fifo),
        cmocka_unit_test(test_sim_event_at_now_runs_after_events_already_due),
        cmocka_unit_test(test_sim_schedule_rejects_past_nan_and_bad_priority),
        cmocka_unit_test(test_sim_cancel_by_handle),
        cmocka_unit_test(test_sim_step_runs_one_event),
        cmocka_unit_test(test_sim_run_until_includes_end_and_sets_clock),
        cmocka_unit_test(test_sim_stop_and_handler_context),
        cmocka_unit_test(test_sim_mm1_mean_wait_matches_theory),
    };
    return cmocka_run_group_tests_name("engine", engine_tests, NULL, NULL);
}
