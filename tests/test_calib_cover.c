/* tests/test_calib_cover.c: nested leave-one-configuration-out coverage of
 * the 80 % interval (models/calib_cover.h) on rows whose held-out log
 * errors are chosen by hand, so that every width and every in/out verdict
 * is computed on paper below: the held-out configuration's own rows never
 * set its width (unlike the plain figure), other classes never do, and a
 * row without a prediction or without another row of its class is not
 * counted. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "models/calib_cover.h"
#include "tests/testutil.h"
#include "tests/tp_fixtures.h"

/* Class dense: configuration X has two rows with log errors +0.1 and
 * -0.1, configuration Y one row with +0.2; class moe: configuration Z,
 * +0.05, alone in its class; a fifth row (dense, configuration W) has no
 * prediction. Measured 1000 tokens/s/GPU each, prediction 1000 exp(l).
 *
 * Nested widths: X's rows see only Y: sqrt(0.04 / 1) = 0.2, z 0.2 =
 * 0.2563 >= 0.1, both inside; Y sees X: sqrt(0.02 / 2) = 0.1, z 0.1 =
 * 0.1282 < 0.2, outside. (Leaving out the row alone instead of its
 * configuration would give X1 sqrt(0.05 / 2) = 0.158.) Nested coverage
 * 2 of 3; Z and W are not counted.
 * Plain: sigma_log[dense] = sqrt(0.06 / 3) = 0.14142 (what calibrate
 * writes), z x = 0.18124: X inside, Y outside; Z against sigma_log[moe] =
 * 0.1 (0.1282 >= 0.05) inside: 3 of 4. */
static void test_calib_cover_leaves_the_held_out_configuration_out(void **state)
{
    gpu_spec g = h100();
    llm_arch dense = llama8(), moe = llama8();
    calib_row rows[5];
    static const double l[5] = {0.1, -0.1, 0.2, 0.05, 0};
    static const char *cfgs[5] = {"X", "X", "Y", "Z", "W"};
    double pred[5], sd[5];
    signed char cov[5], plain[5];
    unsigned char sel[5] = {1, 1, 1, 0, 1};
    size_t n_t = 0;
    tp_model m;
    (void)state;
    moe.cls = LLM_MOE;
    tp_model_init(&m);
    m.sigma_log[0] = sqrt(0.06 / 3);
    m.sigma_log[1] = 0.1;
    m.sigma_extrap = 0; /* the widening is tp_log_sd's, tested there */
    memset(rows, 0, sizeof rows);
    for (int i = 0; i < 5; i++) {
        rows[i].gpu = &g;
        rows[i].llm = i == 3 ? &moe : &dense;
        rows[i].meas_tps = 1000;
        snprintf(rows[i].config, sizeof rows[i].config, "%s", cfgs[i]);
        pred[i] = i == 4 ? 0 : 1000 * exp(l[i]);
    }
    calib_cover_loco(rows, 5, pred, &m, CALIB_COVER_Z80, sd, cov, plain);
    assert_close(sd[0], 0.2, 1e-12);
    assert_close(sd[1], 0.2, 1e-12);
    assert_close(sd[2], 0.1, 1e-12);
    assert_true(isnan(sd[3]) && isnan(sd[4]));
    assert_int_equal(cov[0], 1);
    assert_int_equal(cov[1], 1);
    assert_int_equal(cov[2], 0);
    assert_int_equal(cov[3], -1);
    assert_int_equal(cov[4], -1);
    assert_int_equal(plain[0], 1);
    assert_int_equal(plain[1], 1);
    assert_int_equal(plain[2], 0);
    assert_int_equal(plain[3], 1);
    assert_int_equal(plain[4], -1);
    assert_close(calib_cover_fraction(cov, NULL, 5, &n_t), 2.0 / 3.0, 1e-12);
    assert_int_equal(n_t, 3);
    assert_close(calib_cover_fraction(plain, NULL, 5, &n_t), 3.0 / 4.0, 1e-12);
    assert_int_equal(n_t, 4);
    /* The dense subset only (sel drops Z). */
    assert_close(calib_cover_fraction(plain, sel, 5, &n_t), 2.0 / 3.0, 1e-12);
    assert_int_equal(n_t, 3);
}

/* No row tested: NAN, not 0 % (a group without intervals has no
 * coverage, and the table prints nothing for it). */
static void test_calib_cover_fraction_of_nothing_is_nan(void **state)
{
    signed char cov[3] = {-1, -1, -1};
    size_t n_t = 9;
    (void)state;
    assert_true(isnan(calib_cover_fraction(cov, NULL, 3, &n_t)));
    assert_int_equal(n_t, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            test_calib_cover_leaves_the_held_out_configuration_out),
        cmocka_unit_test(test_calib_cover_fraction_of_nothing_is_nan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
