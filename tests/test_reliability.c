/* tests/test_reliability.c: checkpoint intervals and causes
 * (models/reliability.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "models/reliability.h"
#include "sim/rng.h"
#include "tests/testutil.h"

/* facts.md 4.5's worked cases (Daly 2006, delta = 5 min): M = 24 h ->
 * 116.7 min, M = 6 h -> 56.7 min, M = 15 min -> 9.14 min. */
static void test_reliability_daly_worked_cases(void **state)
{
    (void)state;
    assert_near(rel_daly_interval_s(300.0, 24 * 3600.0) / 60.0, 116.7, 0.05);
    assert_near(rel_daly_interval_s(300.0, 6 * 3600.0) / 60.0, 56.7, 0.05);
    assert_near(rel_daly_interval_s(300.0, 15 * 60.0) / 60.0, 9.14, 0.01);
    /* delta >= 2M: checkpoint every M. */
    assert_close(rel_daly_interval_s(1000.0, 400.0), 400.0, 1e-12);
}

/* Young: sqrt(2 delta M); Daly converges to it as delta / M -> 0. */
static void test_reliability_young_and_daly_agree_for_small_writes(void **state)
{
    (void)state;
    assert_close(rel_young_interval_s(6.3, 50700.0 * 3600.0 / 1024.0),
                 sqrt(2.0 * 6.3 * 50700.0 * 3600.0 / 1024.0), 1e-12);
    assert_close(rel_daly_interval_s(0.5, 1e7), rel_young_interval_s(0.5, 1e7),
                 1e-3);
}

/* Llama 3 rate: 419 interruptions / (16,384 GPUs x 1,296 h) = 1.97e-5 per
 * GPU-hour (facts.md 4.1). */
static void test_reliability_llama3_rate(void **state)
{
    (void)state;
    assert_near(REL_LLAMA3_RATE_PER_GPU_S * 3600.0, 1.97e-5, 0.005e-5);
}

/* The cause mix sums to one, and draws follow it. */
static void test_reliability_cause_draws_follow_mix(void **state)
{
    rel_mix m = rel_mix_llama3();
    gsl_rng *r = rng_stream_new(NULL, 5, 0, 77);
    int n[RES_CAUSE_N] = {0};
    double sum = 0;
    (void)state;
    for (int c = 0; c < RES_CAUSE_N; c++)
        sum += m.frac[c];
    assert_close(sum, 1.0, 1e-12);
    for (int i = 0; i < 200000; i++)
        n[rel_draw_cause(&m, r)]++;
    assert_near(n[RES_CAUSE_GPU] / 200000.0, 0.559, 0.005);
    assert_near(n[RES_CAUSE_NETWORK] / 200000.0, 0.084, 0.003);
    assert_int_equal(n[RES_CAUSE_MODULE], 0);
    gsl_rng_free(r);
}

/* Expected goodput decreases with the failure rate and is 1 without
 * failures or checkpoint cost; for small rates Daly's exact segment time
 * approaches the first-order s (1 + lambda (R + s / 2)). */
static void test_reliability_expected_goodput_limits(void **state)
{
    double lam = 1e-7, s = 1800.0, r = 600.0;
    (void)state;
    assert_close(rel_expected_segment_s(lam, s, r),
                 s * (1.0 + lam * (r + s / 2.0)), 1e-6);
    assert_close(rel_expected_segment_s(0.0, s, r), s, 0);
    assert_close(rel_expected_goodput(0.0, 3600.0, 0.0, 600.0), 1.0, 1e-12);
    assert_true(rel_expected_goodput(1e-5, 3600.0, 10.0, 600.0) >
                rel_expected_goodput(1e-4, 3600.0, 10.0, 600.0));
}

int main(void)
{
    const struct CMUnitTest reliability_tests[] = {
        cmocka_unit_test(test_reliability_daly_worked_cases),
        cmocka_unit_test(
            test_reliability_young_and_daly_agree_for_small_writes),
        cmocka_unit_test(test_reliability_llama3_rate),
        cmocka_unit_test(test_reliability_cause_draws_follow_mix),
        cmocka_unit_test(test_reliability_expected_goodput_limits),
    };
    return cmocka_run_group_tests_name("reliability", reliability_tests, NULL,
                                       NULL);
}
