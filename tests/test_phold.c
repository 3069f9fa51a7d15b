/* tests/test_phold.c: the PHOLD model's promises (models/phold.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "models/phold.h"
#include "tests/testutil.h"

static phold_cfg base(void)
{
    phold_cfg c = {64, 8, 500.0, 0.25, 1.0, 1.0, 3};
    return c;
}

/* "The run is a pure function of the configuration and the seed" */
static void test_phold_same_seed_same_count(void **state)
{
    phold_cfg c = base();
    phold_result a, b, d;
    sim_err e;
    (void)state;
    assert_int_equal(phold_run(&c, &a, &e), SIM_OK);
    assert_int_equal(phold_run(&c, &b, &e), SIM_OK);
    c.seed = 4;
    assert_int_equal(phold_run(&c, &d, &e), SIM_OK);
    assert_int_equal(a.events, b.events);
    assert_int_equal(a.remote_events, b.remote_events);
    assert_true(a.events != d.events || a.remote_events != d.remote_events);
}

/* "each event schedules exactly one new event": the pending population is
 * constant, and the event count matches end / (lookahead + mean) per chain
 * (renewal theory: N(t)/t -> 1/E[delay]). */
static void
test_phold_population_constant_and_rate_matches_mean_delay(void **state)
{
    phold_cfg c = base();
    phold_result r;
    sim_err e;
    double expect;
    (void)state;
    c.n_lps = 200;
    c.start_events = 10;
    c.end_s = 2000.0;
    c.lookahead_s = 0.5;
    c.mean_s = 1.5;
    assert_int_equal(phold_run(&c, &r, &e), SIM_OK);
    assert_int_equal(r.pending, 2000);
    expect = 2000.0 * c.end_s / (c.lookahead_s + c.mean_s);
    assert_close((double)r.events, expect, 0.01);
}

/* "with probability remote a uniformly random LP": the remote fraction. */
static void test_phold_remote_fraction(void **state)
{
    phold_cfg c = base();
    phold_result r;
    sim_err e;
    (void)state;
    c.remote = 0.0;
    assert_int_equal(phold_run(&c, &r, &e), SIM_OK);
    assert_int_equal(r.remote_events, 0);
    c.remote = 0.4;
    assert_int_equal(phold_run(&c, &r, &e), SIM_OK);
    assert_close((double)r.remote_events / (double)r.events, 0.4, 0.02);
}

/* "Errors: SIM_EINVAL with a message naming the bad field" */
static void test_phold_validate_names_bad_field(void **state)
{
    phold_cfg c = base();
    phold_result r;
    sim_err e;
    (void)state;
    c.remote = 1.5;
    assert_int_equal(phold_run(&c, &r, &e), SIM_EINVAL);
    assert_non_null(strstr(e.msg, "--remote"));
    c = base();
    c.n_lps = 0;
    assert_int_equal(phold_validate(&c, &e), SIM_EINVAL);
    assert_non_null(strstr(e.msg, "--lps"));
    c = base();
    c.mean_s = 0.0;
    c.lookahead_s = 0.0;
    assert_int_equal(phold_validate(&c, &e), SIM_EINVAL);
}

int main(void)
{
    const struct CMUnitTest phold_tests[] = {
        cmocka_unit_test(test_phold_same_seed_same_count),
        cmocka_unit_test(
            test_phold_population_constant_and_rate_matches_mean_delay),
        cmocka_unit_test(test_phold_remote_fraction),
        cmocka_unit_test(test_phold_validate_names_bad_field),
    };
    return cmocka_run_group_tests_name("phold", phold_tests, NULL, NULL);
}
